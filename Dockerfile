# The evalog CLI, for `evalog worker` containers (see docker-compose.yml).
FROM node:24-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY manifests ./manifests
COPY viewer ./viewer
# npm ci runs `prepare`, which builds dist/ with the dev dependencies; they are dropped after.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund
USER node
