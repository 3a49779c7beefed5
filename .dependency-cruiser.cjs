// The house rule of docs/architecture.md's "Layers": layers import one way, top to bottom, and no cycles
// (between modules or between folders); the suite plugins (packages/suite-*) sit on top of the
// public API and see nothing else of evalog. test/unit/layers.test.ts runs this config in `npm test`,
// and on planted trees to prove each rule bites, as two cruises:
//
//   depcruise src --config .dependency-cruiser.cjs -X '^(node_modules|packages)/'
//   depcruise packages --config .dependency-cruiser.cjs -X '^(node_modules|src|test)/'
//
// Apart, because the registry's lazy imports close a loop at run time by design (src/app/plugins.ts
// → a plugin → 'evalog', src/api/ → src/app/), which one cruise of both would report as a module
// and a folder cycle; each side's own cycles still show, and what crosses between them is held by
// the rules src-not-to-packages, plugins-load-lazily and plugin-public-api-only.

/** Each top folder of src/ and the folders it may import besides itself (lower layers only). */
const LEAVES = ['providers', 'stats', 'sandbox', 'graders'];
const MAY_IMPORT = {
  core: [],
  events: ['core'],
  log: ['core', 'events'],
  // Leaves used by the harness and suites: they know events, never the harness, suites or app.
  ...Object.fromEntries(LEAVES.map((leaf) => [leaf, ['core', 'events', ...LEAVES]])),
  // stats: the generic summary's paired comparison of arms (McNemar); stats imports no layer above core and events, so no cycle.
  projections: ['core', 'events', 'log', 'stats'],
  // Readers of other tools' logs for `evalog usage`: they fold into the usage projection.
  'usage-input': ['core', 'events', 'projections'],
  harness: ['core', 'events', 'log', 'projections', ...LEAVES],
  suites: ['core', 'events', 'log', 'projections', 'harness', ...LEAVES],
  // The composition root: the registry of suites (evalog's own and the installed plugins') and scripted players, injected below.
  app: ['core', 'events', 'log', 'projections', 'harness', 'suites', ...LEAVES],
  // The public entries (package.json exports: evalog, evalog/testing): over the app, beside the CLI.
  api: ['core', 'events', 'log', 'projections', 'harness', 'suites', 'app', ...LEAVES],
  view: ['core', 'events', 'log', 'projections', 'harness', 'app', ...LEAVES],
  cli: ['core', 'events', 'log', 'projections', 'usage-input', 'harness', 'suites', 'app', 'view', ...LEAVES],
};

const layerRules = Object.entries(MAY_IMPORT).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  severity: 'error',
  comment: `src/${layer}/ may import only ${allowed.length ? allowed.map((l) => `src/${l}/`).join(', ') : 'itself'} (the layer order of docs/architecture.md)`,
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: `^src/(${[layer, ...allowed].join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-unknown-layer',
      severity: 'error',
      comment: 'every module of src/ lives in a folder of the layer order (add a new folder to MAY_IMPORT)',
      from: { path: '^src/', pathNot: `^src/(${Object.keys(MAY_IMPORT).join('|')})/` },
      to: {},
    },
    {
      name: 'src-not-to-packages',
      severity: 'error',
      comment: 'no module of src/ imports packages/ (the plugins sit on top of the public API), except the list of installed plugins, src/app/plugins.ts',
      from: { path: '^src/', pathNot: '^src/app/plugins\\.ts$' },
      to: { path: '^packages/' },
    },
    {
      name: 'plugins-load-lazily',
      severity: 'error',
      comment: 'src/app/plugins.ts imports a plugin only lazily (import()) and only its entry: a command loads no plugin it does not need',
      from: { path: '^src/app/plugins\\.ts$' },
      to: { path: '^packages/', dynamic: false },
    },
    {
      name: 'plugins-by-entry',
      severity: 'error',
      comment: 'src/app/plugins.ts imports a plugin by its package name, which resolves to its entry (packages/<p>/src/index.ts)',
      from: { path: '^src/app/plugins\\.ts$' },
      to: { path: '^packages/', pathNot: '^packages/[^/]+/src/index\\.ts$' },
    },
    {
      name: 'plugin-public-api-only',
      severity: 'error',
      comment:
        "a plugin's modules import only their own package, the public API ('evalog': src/api/index.ts, 'evalog/testing': src/api/testing/index.ts), node builtins and npm packages",
      from: { path: '^packages/([^/]+)/src/' },
      to: {
        pathNot: ['^packages/$1/', '^src/api/index\\.ts$', '^src/api/testing/index\\.ts$', '(^|/)node_modules/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no module imports itself through others',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'no folder imports itself through other folders',
      scope: 'folder',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type from a higher layer couples as much as a value.
    tsPreCompilationDeps: true,
  },
};
