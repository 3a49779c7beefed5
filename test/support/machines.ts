// What a machine test needs around a machine: a journal that only records what is emitted (events
// are schema-checked, numbered per scope, timed by a stepping clock), and the narrow ports a machine
// takes (its job's journal scope, a provider port). Effects are replaced per test with `.provide({ actors })`.
import { createActor, toPromise, type AnyActorLogic } from 'xstate';
import type { PlannedJob, StoredEvent } from '../../src/events/index.js';
import type { ScopeJournal } from '../../src/harness/kernel/journal.js';
import type { BlobStore } from '../../src/log/index.js';
import type { JobInput, JobJournal, ProviderPort } from '../../src/harness/kernel/ports.js';
import type { JobHooks, SuiteConfigBase } from '../../src/app/index.js';
import { storedEvent, T0 } from './build-events.js';

/** A journal that appends to an array: `events` in emit order, each scope numbered from 1. */
export class RecordingJournal {
  readonly events: StoredEvent[] = [];
  private readonly counters = new Map<string, number>();
  private readonly scopes = new Map<string, ScopeJournal>();
  constructor(readonly runId = 'run-1') {}

  /** The emitting side of one scope (a job, or the run when `jobId` is undefined). */
  scope(jobId: string | undefined): ScopeJournal {
    const key = jobId ?? '';
    const known = this.scopes.get(key);
    if (known) return known;
    const fake = {
      replaying: false,
      emitted: 0,
      recordedOutcome: () => undefined,
      emit: async (actor: string, d: { type: StoredEvent['type']; data: unknown; causationId?: string }) => {
        const n = (this.counters.get(key) ?? 0) + 1;
        this.counters.set(key, n);
        fake.emitted = n;
        const e = storedEvent(d.type, d.data as never, {
          runId: this.runId,
          jobId,
          n,
          seq: this.events.length + 1,
          at: T0 + 10 * this.events.length,
          actor,
          ...(d.causationId === undefined ? {} : { causationId: d.causationId }),
        });
        this.events.push(e);
        return e;
      },
    };
    // A structural stand-in for the class (its private members cannot be written from outside).
    const scope = fake as unknown as ScopeJournal;
    this.scopes.set(key, scope);
    return scope;
  }

  /** Blobs are accepted and dropped: a machine test reads none back. */
  readonly blobs: BlobStore = { put: async () => '', get: () => Promise.reject(new Error('a machine test reads no blob')), has: async () => false };

  /** One job's scope of this journal, as the job's machines see it; `read` gives the events recorded so far. */
  job(jobId: string = TEST_JOB.jobId): JobJournal {
    const events = this.events;
    return {
      runId: this.runId,
      jobId,
      scope: this.scope(jobId),
      resuming: false,
      blobs: this.blobs,
      storedBlobs: new Set(),
      async *read(from: number) {
        for (const e of [...events]) if (e.seq >= from) yield e;
      },
    };
  }

  /** The events' types and data, in order (what a machine test asserts). */
  emitted(): { actor: string; type: string; data: unknown }[] {
    return this.events.map((e) => ({ actor: e.actor, type: e.type, data: e.data }));
  }
}

/** A config with small limits and no waiting. */
export const TEST_CONFIG: SuiteConfigBase = {
  repetitions: 1,
  concurrency: 2,
  seed: 1,
  orderSeed: 1,
  cases: null,
  model: { temperature: 0, maxTokens: 64 },
  worker: { turnCap: 3, timeLimitMs: 60_000 },
  provider: { timeoutMs: 1_000, maxAttempts: 3, backoffMs: 100, maxBackoffMs: 1_000 },
};

/** The job every machine test runs. */
export const TEST_JOB: PlannedJob = { jobId: 'c1:a:1', caseId: 'c1', arm: 'a', repetition: 1, seed: 2 };

/** A provider port with TEST_CONFIG's settings whose caller refuses (a test replaces every effect that would call). */
export function testProvider(o: Partial<ProviderPort> = {}): ProviderPort {
  return {
    caller: { call: () => Promise.reject(new Error('a machine test makes no model calls')) },
    model: 'test-model',
    sampling: TEST_CONFIG.model,
    seed: TEST_JOB.seed,
    policy: TEST_CONFIG.provider,
    sleep: async () => {},
    signal: new AbortController().signal,
    ...o,
  };
}

/** The ports of TEST_JOB: its scope of `journal` and a test provider port. */
export function jobPorts(journal = new RecordingJournal(), provider: Partial<ProviderPort> = {}): { journal: JobJournal; provider: ProviderPort } {
  return { journal: journal.job(), provider: testProvider(provider) };
}

/** The input of a job machine for TEST_JOB with the given hooks. */
export function jobInput(
  hooks: JobHooks,
  journal = new RecordingJournal(),
  o: { provider?: Partial<ProviderPort>; limits?: SuiteConfigBase['worker']; job?: PlannedJob } = {},
): JobInput {
  const job = o.job ?? TEST_JOB;
  return { job, journal: journal.job(job.jobId), provider: testProvider({ seed: job.seed, ...o.provider }), hooks, limits: o.limits ?? TEST_CONFIG.worker };
}

/** Runs a machine to its end: its output and the final state value (or the error it ended with). */
export async function runMachine<M extends AnyActorLogic>(
  machine: M,
  input: unknown,
): Promise<{ output: unknown; value: unknown; status: string; error?: unknown }> {
  const actor = createActor(machine, { input } as never);
  actor.start();
  try {
    const output = await toPromise(actor);
    const snap = actor.getSnapshot() as unknown as { value: unknown; status: string };
    return { output, value: snap.value, status: snap.status };
  } catch (error) {
    const snap = actor.getSnapshot() as unknown as { value: unknown; status: string };
    return { output: undefined, value: snap.value, status: snap.status, error };
  }
}

/**
 * A stub standing in for a child machine in `.provide({ actors })`: XState types a replacement like
 * the logic it replaces, so a promise stub for a child machine needs this (type-only) cast.
 */
export function standIn<L extends AnyActorLogic>(stub: AnyActorLogic): L {
  return stub as L;
}
