// The house rule of docs/architecture.md's "Layers": layers import one way, top to bottom, and no cycles
// (between modules or between folders). test/unit/layers.test.ts runs this config on src/ in
// `npm test`, and on planted trees to prove each rule bites.

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
  // The composition root: the registry of built-in suites and scripted players, injected below.
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
      name: 'no-circular',
      severity: 'error',
      comment: 'no module imports itself through others',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'no folder imports itself through other folders',
      scope: 'folder',
      from: { path: '^src/' },
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
