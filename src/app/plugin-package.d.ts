// What `npm run build` compiles src/app/plugins.ts against: tsconfig.build.json maps every
// '@evalog/suite-*' here, because the per-file dist/ is src/ alone (rootDir src) and the plugins'
// sources live in packages/. The type check of the repository (tsconfig.json) resolves the names
// to the packages themselves, so their real default exports are held to SuitePlugin there.
import type { SuitePlugin } from '../harness/suite/index.js';

declare const plugin: SuitePlugin;
export default plugin;
