// runs(): per-run event counts from the stream's subject counts, statuses from the run-level
// events alone (RunStarted and RunCompleted are the only ones that move a status), so listing
// runs reads a handful of events per run instead of whole logs. Both requests retry through a
// server restart (see retry.ts and scan.ts).
import { decodeEvent, withSeq, type StoredEvent } from '../../events/index.js';
import { foldRunInfo, runInfoOf } from '../run-info.js';
import type { BlobStore, RunInfo } from '../types.js';
import type { LeaseHolder } from './lock.js';
import { retrying } from './retry.js';
import { scanStream, type ScanContext } from './scan.js';
import { eventBytes } from './spill.js';
import type { Subjects } from './subjects.js';

/** Every run in the stream with its status, sorted by run id; `holder` tells a live writer from a gone one. */
export async function listRuns(
  ctx: ScanContext,
  subjects: Subjects,
  holder: (runId: string) => Promise<LeaseHolder | null>,
  blobs: (runId: string) => BlobStore,
): Promise<RunInfo[]> {
  const stream = ctx.stream;
  const info = await retrying(ctx, `counting the runs of stream ${stream}`, () => ctx.jsm.streams.info(stream, { subjects_filter: subjects.all }));
  const counts = new Map<string, number>();
  for (const [subject, n] of Object.entries(info.state.subjects ?? {})) {
    const runId = subjects.runIdOf(subject);
    if (runId !== null) counts.set(runId, (counts.get(runId) ?? 0) + n);
  }
  const runLevel = new Map<string, StoredEvent[]>();
  const damaged = new Map<string, string>();
  for await (const m of scanStream(ctx, subjects.runLevel, { live: false })) {
    const runId = subjects.runIdOf(m.subject);
    if (runId === null || damaged.has(runId)) continue;
    let event: StoredEvent;
    const where = `${stream} seq ${m.seq} (${m.subject})`;
    try {
      event = withSeq(decodeEvent(await eventBytes(m.data, () => blobs(runId), where), where), m.seq);
    } catch (e) {
      // One unreadable run is listed with its error; the others are still listed.
      const message = String((e as Error).message ?? e);
      damaged.set(runId, `run ${runId}: ${message.includes(where) ? message : `${where}: ${message}`}`);
      continue;
    }
    const list = runLevel.get(runId) ?? [];
    list.push(event);
    runLevel.set(runId, list);
    if (!counts.has(runId)) counts.set(runId, 0); // appended between the two requests
  }
  const runs = [...counts.keys()].sort(compare).map((runId) => {
    const run = runInfoOf(runId, []);
    for (const e of runLevel.get(runId) ?? []) foldRunInfo(run, e);
    // The count includes the job-level events the status fold did not need to read.
    run.events = Math.max(counts.get(runId) ?? 0, run.events);
    const error = damaged.get(runId);
    if (error !== undefined) Object.assign(run, { status: 'damaged', error });
    return run;
  });
  // A started run no live writer holds is not running any more: it crashed or its host is gone.
  for (const run of runs) {
    if (run.status !== 'running') continue;
    const h = await holder(run.runId);
    if (h === null || !h.alive) run.status = 'interrupted';
  }
  return runs;
}

// Plain code-unit order, the same as the embedded log's sort of folder names.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
