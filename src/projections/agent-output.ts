// What a failed external agent printed: its job's last AgentExited, when the process failed or was
// killed at the time limit, and the tails of its stderr and stdout read from the run's blobs. The
// job's reason says only "the agent exited with code 1"; the cause (`404 no such route`, a stack
// trace) is in what the agent printed, so `evalog show` and the viewer's job page show its end.
import type { DataOf, StoredEvent } from '../events/index.js';
import { readCheckedBlob, type BlobStore } from '../log/index.js';
import { assertNever } from '../core/never.js';
import { own } from '../core/strings.js';
import { streamTail, TAIL_LIMITS, type StreamTail, type TailLimits } from './stream-tail.js';

/** How an agent's process ended, as AgentExited records it. */
export type AgentExit = DataOf<'AgentExited'>;

/** Stop reasons after which what the agent printed is where the cause is: it failed, or it hung. */
export const FAILED_AGENT_REASONS: ReadonlySet<AgentExit['reason']> = new Set(['exited_nonzero', 'signalled', 'time_limit']);

/** A failed agent's ending: how it ended and where its output is. */
export interface AgentFailure {
  /** The AgentExited event, so a damaged blob of its streams is named by the event that references it. */
  event: { id: string; seq: number };
  reason: AgentExit['reason'];
  code: number | null;
  signal: string | null;
  stdout: AgentExit['stdout'];
  stderr: AgentExit['stderr'];
}

/** A failed agent's ending with the tails of what it printed (stderr first: that is where a cause usually is). */
export interface AgentOutput extends AgentFailure {
  stderrTail: StreamTail;
  stdoutTail: StreamTail;
}

/**
 * The failed agents of a run by job id (pure): a job's last AgentExited counts, so a job retried or
 * resumed into an agent that then answered has none.
 */
export const agentFailuresFold = {
  initialState: (): Map<string, AgentFailure> => new Map(),
  evolve(s: Map<string, AgentFailure>, e: StoredEvent): Map<string, AgentFailure> {
    if (e.type !== 'AgentExited' || e.jobId === undefined) return s;
    if (!FAILED_AGENT_REASONS.has(e.data.reason)) s.delete(e.jobId);
    else s.set(own(e.jobId), failureOf(e));
    return s;
  },
};

/** The failure of one AgentExited, or null when the agent did not fail. */
export function agentFailureOf(e: Extract<StoredEvent, { type: 'AgentExited' }>): AgentFailure | null {
  return FAILED_AGENT_REASONS.has(e.data.reason) ? failureOf(e) : null;
}

function failureOf({ id, seq, data: d }: Extract<StoredEvent, { type: 'AgentExited' }>): AgentFailure {
  return { event: { id: own(id), seq }, reason: d.reason, code: d.code, signal: d.signal, stdout: d.stdout, stderr: d.stderr };
}

/**
 * The tails of a failed agent's streams, read from the run's blobs. A blob that is missing or
 * altered throws BlobDamagedError naming the AgentExited event (a user error: the log is damaged).
 */
export async function agentOutput(f: AgentFailure, blobs: BlobStore, limits: TailLimits = TAIL_LIMITS): Promise<AgentOutput> {
  const read = (hash: string) => readCheckedBlob(blobs, hash, f.event);
  const tail = async (s: AgentExit['stdout']) => streamTail(s.blob === null ? new Uint8Array() : await read(s.blob), s.bytes, s.truncated, limits);
  return { ...f, stderrTail: await tail(f.stderr), stdoutTail: await tail(f.stdout) };
}

/** How the process ended, in words: `exited with code 1`, `killed by SIGSEGV`, `killed at the time limit`. */
export function agentEnding(f: Pick<AgentFailure, 'reason' | 'code' | 'signal'>): string {
  switch (f.reason) {
    case 'exited_nonzero':
      return `exited with code ${f.code ?? '?'}`;
    case 'signalled':
      return `killed by ${f.signal ?? 'a signal'}`;
    case 'time_limit':
      return 'killed at the time limit (limits.timeLimitMs)';
    case 'answered':
    case 'no_model_calls':
    case 'budget':
    case 'aborted':
      return `${f.reason} (exit code ${f.code ?? '—'}${f.signal === null ? '' : `, ${f.signal}`})`;
    default:
      return assertNever(f.reason);
  }
}
