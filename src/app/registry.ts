import type { Player } from '../providers/scripted/index.js';
import { scriptedJudgePlayer } from '../graders/index.js';
import { contextEngineeringCli, contextEngineeringPlayer, contextEngineeringSuite } from '../suites/context-engineering/index.js';
import { contextSnapshotPlayer, contextSnapshotSuite, contextSnapshotSuiteCli } from '../suites/context-snapshot/index.js';
import { datasetCli, datasetPlayer, datasetSuite } from '../suites/dataset/index.js';
import { smokePlayer, smokeSuite } from '../suites/smoke/index.js';
import { codingPlayer, codingSuite } from '../suites/coding/index.js';
import { memoryEvictionPlayer } from '../suites/memory-eviction/player.js';
import { memoryEvictionQaSuite } from '../suites/memory-eviction/qa-suite.js';
import { memoryEvictionSuiteCli } from '../suites/memory-eviction/cli/index.js';
import { memoryEvictionPolicySuite, POLICY_SUITE } from '../suites/memory-eviction/policy-suite.js';
import { GRADE_SUITE, memoryEvictionGradeSuite } from '../suites/memory-eviction/grade-suite.js';
import { combinedBinding, type DefinedSuite, type RunBinding, type SuiteCli, type SuiteCommand, type SuiteLookup } from '../harness/suite/index.js';

// The composition root's registry: the built-in suites, their command-line adjuncts (run flags,
// endpoint variables, the binding of recorded runs, their own commands) and the scripted players
// that play them, built once here and passed down (a lookup, a players list) to what needs them;
// nothing below imports it. The generic CLI reads the suites' adjuncts only through it.

/** Suites by name. */
export const SUITES: Readonly<Record<string, DefinedSuite>> = {
  smoke: smokeSuite,
  // Tiny repositories: the workspace is the work (hidden tests grade it, its diff is recorded).
  coding: codingSuite,
  'context-snapshot': contextSnapshotSuite,
  'context-engineering': contextEngineeringSuite,
  // Unbound: its report reads any memory-eviction log; running it needs the dataset (run-qa binds it).
  'memory-eviction': memoryEvictionQaSuite(null),
  // Its run-policy and grade-qa steps, unbound in the same way: their files fold any such log.
  [POLICY_SUITE]: memoryEvictionPolicySuite(null),
  [GRADE_SUITE]: memoryEvictionGradeSuite(null),
  // Cases come from the file its config pins (path and sha256), so replay, resume and workers need no binding.
  dataset: datasetSuite(),
};

/** The CLI's adjunct of each suite that has one (its own run flags, endpoint variables, binding and commands). */
export const SUITE_CLI: Readonly<Record<string, SuiteCli>> = {
  'context-snapshot': contextSnapshotSuiteCli,
  'context-engineering': contextEngineeringCli,
  // Its binding also binds the run-policy and grade-qa steps' runs (their suites are listed above).
  'memory-eviction': memoryEvictionSuiteCli,
  dataset: datasetCli,
};

/** The suites' own commands, in the order of SUITE_CLI (each loaded only when it runs). */
export const SUITE_COMMANDS: readonly SuiteCommand[] = Object.values(SUITE_CLI).flatMap((c) => c.commands ?? []);

/** How resume, retry, replay and worker bind a recorded run of any suite to its inputs again (flags, help, lookup). */
export const RUN_BINDING: RunBinding = combinedBinding(Object.values(SUITE_CLI));

/** Players of every suite, for the scripted model. */
// The judge goes first (it claims only requests in the judge format, whose text quotes a case and
// would otherwise be answered as one); the dataset player goes last: its prompts carry no suite tag,
// so it answers only what no other player claims.
export const SCRIPTED_PLAYERS: readonly Player[] = [
  scriptedJudgePlayer,
  smokePlayer,
  codingPlayer,
  contextSnapshotPlayer,
  memoryEvictionPlayer,
  contextEngineeringPlayer,
  datasetPlayer,
];

/** The registry's suite of a name (undefined = not a built-in suite): the lookup the app injects below. */
export const suiteNamed: SuiteLookup = (name) => (Object.hasOwn(SUITES, name) ? SUITES[name] : undefined);

/** The CLI adjunct of a suite (empty when it has none). */
export const suiteCli = (name: string): SuiteCli => (Object.hasOwn(SUITE_CLI, name) ? SUITE_CLI[name]! : {});
