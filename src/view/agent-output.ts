// The job page's "Agent output": for a job whose external agent failed (a non-zero exit, a signal,
// the time limit), how its process ended and the last lines of its stderr and stdout, as
// `evalog show` prints them. Read from the run's blobs on demand; the page asks only when the
// job's timeline has such an AgentExited. The tails come with control characters escaped, and the
// page puts them in as text, never as HTML.
import type { StoredEvent } from '../events/index.js';
import { BlobDamagedError, type BlobStore } from '../log/index.js';
import { agentEnding, agentFailureOf, agentOutput, tailNote, type AgentFailure, type StreamTail } from '../projections/index.js';
import type { RunCatalog } from './catalog.js';
import { HttpError } from './errors.js';

/** One stream's tail with the line that says what it leaves out (null when nothing). */
export interface StreamTailView extends StreamTail {
  note: string | null;
}

/** A job's failed agent: how it ended, and its streams' tails; `agent` is null when its agent did not fail (or it ran none). */
export interface AgentOutputView {
  runId: string;
  jobId: string;
  agent: { reason: AgentFailure['reason']; code: number | null; signal: string | null; ending: string; stderr: StreamTailView; stdout: StreamTailView } | null;
}

/** The agent output of one job; a damaged blob is a 409 naming the event (the log is damaged, not the viewer). */
export async function agentOutputPage(catalog: RunCatalog, runId: string, jobId: string, blobs: BlobStore): Promise<AgentOutputView> {
  const run = await catalog.get(runId);
  if (!run) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
  const events = run.events.filter((e) => e.jobId === jobId);
  if (events.length === 0) throw new HttpError(404, `run ${runId} has no job ${JSON.stringify(jobId)}`);
  // The job's last exit counts: a job retried into an agent that answered has no failure to show.
  const exit = events.findLast((e): e is Extract<StoredEvent, { type: 'AgentExited' }> => e.type === 'AgentExited');
  const failure = exit ? agentFailureOf(exit) : null;
  if (!failure) return { runId, jobId, agent: null };
  let o: Awaited<ReturnType<typeof agentOutput>>;
  try {
    o = await agentOutput(failure, blobs);
  } catch (err) {
    if (err instanceof BlobDamagedError) throw new HttpError(409, err.message);
    throw err;
  }
  const view = (t: StreamTail): StreamTailView => ({ ...t, note: tailNote(t) });
  return {
    runId,
    jobId,
    agent: { reason: o.reason, code: o.code, signal: o.signal, ending: agentEnding(o), stderr: view(o.stderrTail), stdout: view(o.stdoutTail) },
  };
}
