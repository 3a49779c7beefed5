// The narrow ports the machines are given instead of one context bag: each machine takes only the
// ports it uses (a job's scope of the journal, the provider port, the suite's bound hooks).
import { attemptName, type NativeProtocol, type PlannedJob, type StoredEvent } from '../../events/index.js';
import type { BlobStore } from '../../log/index.js';
import type { ModelCaller } from '../../providers/caller.js';
import type { RetryPolicy, Sleep } from './env.js';
import type { AgentGateway } from './agent-gateway.js';
import type { Journal, ScopeJournal } from './journal.js';
import type { JobHooks, JobKind } from '../suite/define.js';
import type { SuiteConfigBase, WorkerLimits } from '../suite/types.js';

/** How a job's model calls are sent: the caller, the model and its sampling, the retry policy, waits and the stop signal. */
export interface ProviderPort {
  caller: ModelCaller;
  /** Model id sent (the run's endpoint model, or an arm's or cell's own). */
  model: string;
  sampling: SuiteConfigBase['model'];
  /** Sent as the call's `seed`: the job's seed. */
  seed: number;
  policy: RetryPolicy;
  sleep: Sleep;
  signal: AbortSignal;
  /**
   * The worker's deadline (set on the worker's calls only): when it fires, the attempt in flight is
   * aborted and recorded as such, and the call ends there instead of being sent again.
   */
  deadline?: AbortSignal;
  /** Protocols the run's endpoint speaks natively (RunStarted's model.protocols): an agent's request in one is passed through. */
  passThrough?: readonly NativeProtocol[];
}

/** One job's scope of the run's journal: what its actors emit through, and what they may read back. */
export interface JobJournal {
  readonly runId: string;
  readonly jobId: string;
  /** The job's attempt (2, 3, ... for `evalog retry`); absent = the first. Its effects' names carry it (`callName`). */
  readonly attempt?: number;
  readonly scope: ScopeJournal;
  /** True when resuming: a recorded request without an outcome was cut off, never to be sent again. */
  readonly resuming: boolean;
  /** The run's blob store (hashing only while replaying). */
  readonly blobs: BlobStore;
  /** Hashes of blobs stored by this run so far, shared by its jobs so a message is put once. */
  readonly storedBlobs: Set<string>;
  /** The run's events from `from` on, as the log holds them (a restarted session worker's rebuild). */
  read(from: number): AsyncIterable<StoredEvent>;
}

const storedByJournal = new WeakMap<Journal, Set<string>>();

/** The journal scope of one job of `journal`'s run, in its `attempt` (default the first). */
export function jobJournal(journal: Journal, jobId: string, attempt = 1): JobJournal {
  let stored = storedByJournal.get(journal);
  if (!stored) {
    stored = new Set();
    storedByJournal.set(journal, stored);
  }
  return {
    runId: journal.runId,
    jobId,
    ...(attempt > 1 ? { attempt } : {}),
    scope: journal.scope(jobId),
    resuming: journal.mode === 'resume',
    blobs: journal.blobs,
    storedBlobs: stored,
    read: (from) => journal.log.read(journal.runId, { from }),
  };
}

/** The causal name of an effect (a call site, a tool call) within the job's attempt: bare in the first. */
export function callName(journal: Pick<JobJournal, 'attempt'>, name: string): string {
  return attemptName(journal.attempt, name);
}

/** What every job machine is given: the job, its journal scope, its provider port and the suite's hooks bound to it. */
export interface JobInput {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  hooks: JobHooks;
  /** Limits of an agent job's worker loop (an external agent's time limit, unless its config sets one). */
  limits: WorkerLimits;
  /** The process's agent gateway, started on first use: what external-agent jobs are served through. */
  gateway?: () => Promise<AgentGateway>;
}

/** A job machine was given the hooks of another shape: a wiring error in the harness, never bad input. */
export class JobShapeError extends Error {
  override name = 'JobShapeError';
  constructor(machine: JobKind, given: JobKind) {
    super(`the ${machine} job machine was given the hooks of a ${given} job`);
  }
}
