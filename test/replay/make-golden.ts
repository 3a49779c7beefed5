// Regenerates the golden smoke log and its expected outputs:
//   npx tsx test/replay/make-golden.ts
// A stepping clock and concurrency 1 make the log a pure function of the code, config and seeds,
// so regenerating after an intended change shows exactly what changed.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { rebuildOutputs, writeOutputs } from '../../src/projections/outputs.js';
import { steppingClock } from '../../src/runtime/clock.js';
import { executeRun, planRun } from '../../src/runtime/launch.js';
import type { Suite, SuiteConfigBase } from '../../src/suites/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';
import { GOLDEN_START_MS, GOLDEN_STEP_MS } from './golden.js';

const root = fileURLToPath(new URL('./golden/', import.meta.url));
const runId = 'smoke';
await rm(`${root}${runId}`, { recursive: true, force: true });
const suite = smokeSuite as unknown as Suite<SuiteConfigBase, unknown>;
const config = { ...suite.defaults, concurrency: 1 };
const started = planRun(suite, config, { scripted: true });
const log = await FileEventLog.open({ root });
const clock = steppingClock(GOLDEN_START_MS, GOLDEN_STEP_MS);
const out = await executeRun({ suite, log, runId, started, endpoint: { scripted: true }, clock, sleep: async () => {} });
if (out.status !== 'completed') throw new Error(`golden run ended ${out.status}`);
await writeOutputs(`${root}${runId}/expected`, await rebuildOutputs(log, runId));
await log.close();
console.log(`golden log written to ${root}${runId}`);

// The edited copy: one tool result changed in the middle of the log. Replay must name it.
const edited = `${runId}-edited`;
await rm(`${root}${edited}`, { recursive: true, force: true });
const source = await FileEventLog.open({ root });
const events = [];
for await (const e of source.read(runId)) events.push(e);
const target = events.filter((e) => e.type === 'ToolCalled')[Math.floor(events.filter((e) => e.type === 'ToolCalled').length / 2)]!;
const copy = await FileEventLog.open({ root });
for (const e of events) {
  const { seq: _seq, ...event } = e;
  const id = event.id.replace(`${runId}/`, `${edited}/`);
  const data = e === target && e.type === 'ToolCalled' ? { ...e.data, result: `${e.data.result} (edited)` } : event.data;
  const causationId = event.causationId?.replace(`${runId}/`, `${edited}/`);
  await copy.append([{ ...event, id, runId: edited, data, ...(causationId ? { causationId } : {}) } as typeof event]);
}
await copy.close();
await source.close();
console.log(`edited log written to ${root}${edited} (ToolCalled ${target.id} changed)`);
