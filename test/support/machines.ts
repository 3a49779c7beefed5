// What a machine test needs around a machine: a journal that only records what is emitted (events
// are schema-checked, numbered per scope, timed by a stepping clock), and a job environment with a
// suite stub. Effects are replaced per test with `.provide({ actors })`.
import { createActor, toPromise, type AnyActorLogic, type AnyStateMachine } from 'xstate';
import type { PlannedJob, StoredEvent } from '../../src/events/index.js';
import type { JobEnv, RunEnv } from '../../src/harness/env.js';
import type { Journal, ScopeJournal } from '../../src/harness/journal.js';
import type { Suite, SuiteConfigBase } from '../../src/app/index.js';
import { storedEvent, T0 } from './build-events.js';

/** A journal that appends to an array: `events` in emit order, each scope numbered from 1. */
export class RecordingJournal {
  readonly events: StoredEvent[] = [];
  private readonly counters = new Map<string, number>();
  constructor(readonly runId = 'run-1') {}

  /** The emitting side of one scope (a job, or the run when `jobId` is undefined). */
  scope(jobId: string | undefined): ScopeJournal {
    const fake = {
      replaying: false,
      emitted: 0,
      recordedOutcome: () => undefined,
      emit: async (actor: string, d: { type: StoredEvent['type']; data: unknown; causationId?: string }) => {
        const key = jobId ?? '';
        const n = (this.counters.get(key) ?? 0) + 1;
        this.counters.set(key, n);
        fake.emitted = n;
        const e = storedEvent(d.type, d.data as never, {
          runId: this.runId, jobId, n, seq: this.events.length + 1, at: T0 + 10 * this.events.length, actor,
          ...(d.causationId === undefined ? {} : { causationId: d.causationId }),
        });
        this.events.push(e);
        return e;
      },
    };
    return fake as unknown as ScopeJournal;
  }

  /** Blobs are accepted and dropped: a machine test reads none back. */
  readonly blobs = { put: async () => undefined, get: async () => null, has: async () => false };

  /** As the actors see it. */
  asJournal(): Journal {
    return this as unknown as Journal;
  }

  /** The events' types and data, in order (what a machine test asserts). */
  emitted(): { actor: string; type: string; data: unknown }[] {
    return this.events.map((e) => ({ actor: e.actor, type: e.type, data: e.data }));
  }
}

/** A config with small limits and no waiting. */
export const TEST_CONFIG: SuiteConfigBase = {
  repetitions: 1, concurrency: 2, seed: 1, orderSeed: 1, cases: null,
  model: { temperature: 0, maxTokens: 64 },
  worker: { turnCap: 3, timeLimitMs: 60_000 },
  provider: { timeoutMs: 1_000, maxAttempts: 3, backoffMs: 100, maxBackoffMs: 1_000 },
};

/** The job every machine test runs. */
export const TEST_JOB: PlannedJob = { jobId: 'c1:a:1', caseId: 'c1', arm: 'a', repetition: 1, seed: 2 };

/** A run environment around a suite stub; the caller refuses (a test replaces every effect that would call). */
export function runEnv(suite: Partial<Suite<SuiteConfigBase, unknown>>, journal = new RecordingJournal(), config: SuiteConfigBase = TEST_CONFIG): RunEnv {
  return {
    journal: journal.asJournal(),
    caller: { call: () => Promise.reject(new Error('a machine test makes no model calls')) },
    suite: { name: 'test-suite', ...suite } as Suite<SuiteConfigBase, unknown>,
    config,
    cases: new Map([['c1', { id: 'c1', data: { question: 'q' } }]]),
    model: 'test-model',
    sleep: async () => {},
    signal: new AbortController().signal,
  };
}

/** A job environment (TEST_JOB) around a suite stub, recording into `journal`. */
export function jobEnv(suite: Partial<Suite<SuiteConfigBase, unknown>>, journal = new RecordingJournal(), config?: SuiteConfigBase): JobEnv {
  return { ...runEnv(suite, journal, config), job: TEST_JOB, scope: journal.scope(TEST_JOB.jobId) };
}

/** Runs a machine to its end: its output and the final state value (or the error it ended with). */
export async function runMachine<M extends AnyStateMachine>(machine: M, input: unknown): Promise<{ output: unknown; value: unknown; status: string; error?: unknown }> {
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
