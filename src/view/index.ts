// Public exports of the viewer: the server behind `evalog view` and the views it serves.
export { DEFAULT_VIEW_PORT, startViewServer, type ViewServer, type ViewServerOptions } from './server.js';
export { DEFAULT_MAX_RUNS, RunCatalog, type CatalogMemory, type DiscoverRuns } from './catalog.js';
export { Lru } from './lru.js';
export { LiveRun, type Derived } from './live-run.js';
export { isLoopbackHost, newToken, tokenMatches } from './auth.js';
export { HttpError, ViewerAssetsMissingError } from './errors.js';
export { ASSETS_DIR, loadAssets } from './assets.js';
export { summaryView, leaves, type SummaryLeaf, type SummaryView } from './summary-table.js';
export { viewRow, tableRow, jobFacts, type ViewRow, type TableRow, type Outcome } from './rows.js';
export { lineDiff, type DiffLine } from './diff.js';
export { compareArms, type CompareView } from './compare.js';
export { jobView, type JobView, type TimelineEntry } from './timeline.js';
export type { RunDigest } from './digest.js';
export type { RunListItem, RunView } from './api.js';
export { compareRunsPage, gridOf, type CompareRunsQuery, type CompareRunsView, type GridCell, type GridRow } from './compare-runs.js';
export { tableQuery, runIndex, matching, tablePage, neighbours, SORT_KEYS, type TableQuery, type TablePage, type JobNeighbours } from './run-table.js';
export { distributionOf, histogram, type ArmDistribution } from './distribution.js';
export type { RunPageView } from './run-page.js';
