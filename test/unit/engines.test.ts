import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';

// semver ships no types; its `satisfies` is all this test needs.
const { satisfies } = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

/**
 * `npm ci` warns (EBADENGINE) when an installed package's `engines.node` excludes the running
 * Node. The lock file records each package's engines, so the check needs no install: every
 * package a user installs (production and dev: `npm ci` installs both) accepts the Node versions
 * evalog supports, from its own `engines` floor to the newest line CI runs.
 */
/**
 * Dev-only packages whose declared floor is above Node 20 but which the tests run on Node 20: the
 * openai 7 that @openai/agents 0.20 brings for itself (the Agents SDK e2e and gateway tests run it
 * on Node 20 in CI; evalog's own openai stays 6.x). Nothing a user of the package installs.
 */
const DEV_ONLY_EXCEPTIONS = new Set([
  'node_modules/@openai/agents-core/node_modules/openai',
  'node_modules/@openai/agents-openai/node_modules/openai',
  'node_modules/@openai/agents/node_modules/openai',
]);

describe('package-lock: engines', () => {
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean }>;
  };
  const floor = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node.replace(
    /^>=\s*/,
    '',
  );

  for (const node of [`${floor}.0`.split('.').slice(0, 3).join('.'), '20.20.0', '24.0.0', '24.11.0']) {
    it(`every locked package accepts Node ${node}`, () => {
      const refused = Object.entries(lock.packages).flatMap(([path, p]) => {
        const range = !p.engines || Array.isArray(p.engines) ? undefined : p.engines.node;
        if (DEV_ONLY_EXCEPTIONS.has(path) && p.dev === true) return [];
        return range === undefined || satisfies(node, range) ? [] : [`${path} wants node ${range}`];
      });
      expect(refused).to.deep.equal([]);
    });
  }
});
