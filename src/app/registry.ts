import type { Player } from '../providers/scripted/index.js';
import { scriptedJudgePlayer } from '../graders/index.js';
import { contextEngineeringPlayer, contextEngineeringSuite } from '../suites/context-engineering/index.js';
import { contextSnapshotPlayer, contextSnapshotSuite } from '../suites/context-snapshot/index.js';
import { datasetPlayer, datasetSuite } from '../suites/dataset/index.js';
import { smokePlayer, smokeSuite } from '../suites/smoke/index.js';
import { memoryEvictionPlayer } from '../suites/memory-eviction/player.js';
import { memoryEvictionQaSuite } from '../suites/memory-eviction/qa-suite.js';
import type { Suite, SuiteConfigBase, SuiteLookup } from '../harness/suite/types.js';

// The composition root's registry: the built-in suites and the scripted players that play them,
// built once here and passed down (a lookup, a players list) to what needs them; nothing below imports it.

/** Suites by name. */
export const SUITES: Readonly<Record<string, Suite<SuiteConfigBase, unknown>>> = {
  smoke: smokeSuite as unknown as Suite<SuiteConfigBase, unknown>,
  'context-snapshot': contextSnapshotSuite as unknown as Suite<SuiteConfigBase, unknown>,
  'context-engineering': contextEngineeringSuite as unknown as Suite<SuiteConfigBase, unknown>,
  // Unbound: its report reads any memory-eviction log; running it needs the dataset (run-qa binds it).
  'memory-eviction': memoryEvictionQaSuite(null) as unknown as Suite<SuiteConfigBase, unknown>,
  // Cases come from the file its config pins (path and sha256), so replay and resume need no binding.
  dataset: datasetSuite() as unknown as Suite<SuiteConfigBase, unknown>,
};

/** Players of every suite, for the scripted model. */
// The judge goes first (it claims only requests in the judge format, whose text quotes a case and
// would otherwise be answered as one); the dataset player goes last: its prompts carry no suite tag,
// so it answers only what no other player claims.
export const SCRIPTED_PLAYERS: readonly Player[] = [scriptedJudgePlayer, smokePlayer, contextSnapshotPlayer, memoryEvictionPlayer, contextEngineeringPlayer, datasetPlayer];

/** The registry's suite of a name (undefined = not a built-in suite): the lookup the app injects below. */
export const suiteNamed: SuiteLookup = (name) => (Object.hasOwn(SUITES, name) ? SUITES[name] : undefined);
