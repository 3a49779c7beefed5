// Regenerates golden logs and their expected outputs:
//   npx tsx test/replay/make-golden.ts [smoke] [context-snapshot] [context-engineering] [smoke-edited] [memory-eviction] [memory-eviction-policy] [memory-eviction-grade] [dataset] [smoke-usage-missing]   (default: all)
//   npx tsx test/replay/make-golden.ts --outputs [names]   only the expected outputs, rebuilt from the committed logs
// --outputs is for a change to what is derived (a new row field): the logs stay as they were
// recorded, so they go on proving that logs of older evalog versions replay and rebuild.
// A stepping clock and concurrency 1 make each log a pure function of the code, config and seeds,
// so regenerating after an intended change shows exactly what changed. Note: the committed smoke
// log predates JobGraded v2 and so also proves that v1 events are upcast on replay; regenerate it
// only when that is no longer wanted.
import { cp, readdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FileEventLog, runLogPaths } from '../../src/log/file/index.js';
import { rebuildOutputs, writeOutputs } from '../../src/projections/outputs.js';
import { steppingClock } from '../../src/core/clock.js';
import { executeRun, planRun, type ExecuteOptions } from '../../src/harness/orchestration/launch.js';
import { loadAllPlugins, pluginVersions, scriptedPlayers, type DefinedSuite, suiteNamed } from '../../src/app/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { buildCases } from '../../packages/suite-memory-eviction/src/cases.js';
import { loadDataset } from '../../packages/suite-memory-eviction/src/dataset.js';
import { loadProtocol } from '../../packages/suite-memory-eviction/src/protocol.js';
import { verifyQaRows } from '../../packages/suite-memory-eviction/src/qa-grade.js';
import { qaAnswerRows } from '../../packages/suite-memory-eviction/src/qa-report.js';
import { startOfRun } from '../../src/app/index.js';
import { makeTestSetup } from '../support/longmemeval.js';
import { boundMemoryEvictionSteps, boundMemoryEvictionSuite, GOLDEN_START_MS, GOLDEN_STEP_MS, goldenDatasetConfig, goldenDatasetSuite } from './golden.js';

const root = fileURLToPath(new URL('./golden/', import.meta.url));

// The goldens cover the studies' suites too: every plugin (its suites and player) is loaded.
await loadAllPlugins();

/** Records one golden run (scripted model, stepping clock, no sleeps) and its expected outputs. */
async function recordGolden(runId: string, definedSuite: DefinedSuite, config: object, scripted: ExecuteOptions['scripted'] = {}): Promise<void> {
  await rm(`${root}${runId}`, { recursive: true, force: true });
  const suite = await definedSuite.configure(config).prepare();
  const started = planRun(suite, { scripted: true }, pluginVersions());
  const log = await FileEventLog.open({ root });
  const clock = steppingClock(GOLDEN_START_MS, GOLDEN_STEP_MS);
  const out = await executeRun({
    players: scriptedPlayers(),
    suite,
    log,
    runId,
    started,
    endpoint: { scripted: true },
    clock,
    sleep: async () => {},
    scripted,
  });
  if (out.status !== 'completed') throw new Error(`golden run ${runId} ended ${out.status}`);
  await writeOutputs(`${root}${runId}/expected`, await rebuildOutputs(log, runId, suiteNamed));
  await log.close();
  console.log(`golden log written to ${root}${runId}`);
}

async function makeGolden(runId: string): Promise<void> {
  const suite = suiteNamed(runId)!;
  await recordGolden(runId, suite, serial(suite.defaults()));
}

// Concurrency 1, in the run and in any frozen cell (context-engineering's cells must agree with the run).
function serial<C extends { concurrency: number }>(config: C): C {
  const cells = (config as { cells?: Record<string, object> }).cells;
  const out = { ...config, concurrency: 1 };
  return cells ? { ...out, cells: Object.fromEntries(Object.entries(cells).map(([k, c]) => [k, { ...c, concurrency: 1 }])) } : out;
}

// The edited copy: one tool result changed in the middle of the smoke log. Replay must name it.
async function makeEdited(runId: string): Promise<void> {
  const edited = `${runId}-edited`;
  await rm(`${root}${edited}`, { recursive: true, force: true });
  const log = await FileEventLog.open({ root });
  const events = [];
  for await (const e of log.read(runId)) events.push(e);
  const tools = events.filter((e) => e.type === 'ToolCalled');
  const target = tools[Math.floor(tools.length / 2)]!;
  for (const e of events) {
    const { seq: _seq, ...event } = e;
    const id = event.id.replace(`${runId}/`, `${edited}/`);
    const data = e === target && e.type === 'ToolCalled' ? { ...e.data, result: `${e.data.result} (edited)` } : event.data;
    const causationId = event.causationId?.replace(`${runId}/`, `${edited}/`);
    await log.append([{ ...event, id, runId: edited, data, ...(causationId ? { causationId } : {}) } as typeof event]);
  }
  await log.close();
  // The same requests, so the same message blobs: replay checks every blob an event references.
  await cp(runLogPaths(root, runId).blobs, runLogPaths(root, edited).blobs, { recursive: true });
  console.log(`edited log written to ${root}${edited} (ToolCalled ${target.id} changed)`);
}

// memory-eviction runs on the synthetic dataset the tests generate (the same bytes every time).
async function makeMemoryEvictionGolden(): Promise<void> {
  const { suite, cleanup } = boundMemoryEvictionSuite();
  try {
    await recordGolden('memory-eviction', suite, { ...suite.defaults(), concurrency: 1 });
  } finally {
    cleanup();
  }
}

// memory-eviction's run-policy step on the same dataset: compute jobs, no model.
async function makeMemoryEvictionPolicyGolden(): Promise<void> {
  const { policy, cleanup } = boundMemoryEvictionSteps();
  try {
    await recordGolden('memory-eviction-policy', policy, { ...policy.defaults(), concurrency: 1 });
  } finally {
    cleanup();
  }
}

// memory-eviction's grade-qa step: the answers of the committed memory-eviction golden run, graded.
async function makeMemoryEvictionGradeGolden(): Promise<void> {
  const setup = makeTestSetup();
  try {
    const protocol = loadProtocol(undefined, { configPath: setup.config.path });
    const cases = buildCases(protocol, loadDataset(setup.dataset.path, protocol.config.dataset.sha256));
    const log = await FileEventLog.open({ root, readOnly: true });
    const answers = await (async () => {
      const rows = verifyQaRows(protocol, cases, await fold(qaAnswerRows, log.read('memory-eviction')));
      return { qaRunId: 'memory-eviction', scripted: (await startOfRun(log, 'memory-eviction'))!.model.scripted, rows };
    })().finally(() => log.close());
    const { grade, cleanup } = boundMemoryEvictionSteps(answers);
    try {
      await recordGolden('memory-eviction-grade', grade, { ...grade.defaults(), concurrency: 1 });
    } finally {
      cleanup();
    }
  } finally {
    setup.cleanup();
  }
}

// dataset runs on examples/qa.jsonl: editing that file means regenerating this log (replay names the changed file).
async function makeDatasetGolden(): Promise<void> {
  await recordGolden('dataset', goldenDatasetSuite(), goldenDatasetConfig());
}

// smoke with usage left out of 30% of the responses (drawn per request), so the unknown-usage paths
// of rows, summary and usage.json are snapshotted too: unknown counts, never a 0 taken as known.
async function makeUsageMissingGolden(): Promise<void> {
  const suite = suiteNamed('smoke')!;
  await recordGolden('smoke-usage-missing', suite, serial(suite.defaults()), { omitUsage: 0.3 });
}

/** Rewrites a golden's expected outputs from its committed log (the log itself untouched). */
async function rebuildExpected(runId: string): Promise<void> {
  const log = await FileEventLog.open({ root });
  try {
    await rm(`${root}${runId}/expected`, { recursive: true, force: true });
    await writeOutputs(`${root}${runId}/expected`, await rebuildOutputs(log, runId, suiteNamed));
  } finally {
    await log.close();
  }
  console.log(`expected outputs of ${runId} rebuilt from its committed log`);
}

const args = process.argv.slice(2);
const outputsOnly = args.includes('--outputs');
const wanted = args.filter((a) => a !== '--outputs');
const all = wanted.length === 0;
if (outputsOnly) {
  // Only goldens that snapshot outputs (smoke-edited is a log edited on purpose, replayed to its divergence).
  const withOutputs = async (name: string) => (await readdir(`${root}${name}`)).includes('expected');
  const names = all ? (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name) : wanted;
  const goldens = [];
  for (const name of names.sort()) if (await withOutputs(name)) goldens.push(name);
  for (const name of goldens) await rebuildExpected(name);
  process.exit(0);
}
for (const name of ['smoke', 'context-snapshot', 'context-engineering']) if (all || wanted.includes(name)) await makeGolden(name);
if (all || wanted.includes('smoke-edited')) await makeEdited('smoke');
if (all || wanted.includes('memory-eviction')) await makeMemoryEvictionGolden();
if (all || wanted.includes('memory-eviction-policy')) await makeMemoryEvictionPolicyGolden();
if (all || wanted.includes('memory-eviction-grade')) await makeMemoryEvictionGradeGolden();
if (all || wanted.includes('dataset')) await makeDatasetGolden();
if (all || wanted.includes('smoke-usage-missing')) await makeUsageMissingGolden();
