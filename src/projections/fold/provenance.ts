import { assertNever } from '../../core/never.js';
import type { DataOf } from '../../events/index.js';
import type { Projection } from './projection.js';
import { routed } from './routing.js';

/** run.json: how the run was set up and how it ended. */
export interface RunFile {
  run_id: string;
  suite: string;
  status: 'completed' | 'unfinished';
  started_at: string;
  completed_at: string | null;
  config: Record<string, unknown>;
  config_hash: string;
  seed: number;
  order_seed: number;
  job_order: string[];
  model: DataOf<'RunStarted'>['model'];
  concurrency: number;
  scoring_rule: string;
  provenance: Record<string, unknown>;
  note: string | null;
  /** The run's retries (`evalog retry`), in order; absent when it had none, so other runs' run.json is unchanged. */
  retries?: { retry: number; reason: DataOf<'RunReopened'>['reason']; jobs: number }[];
}

interface State {
  started: (DataOf<'RunStarted'> & { runId: string; at: string }) | null;
  completedAt: string | null;
  retries: NonNullable<RunFile['retries']>;
}

/** The provenance projection: RunStarted and RunCompleted become run.json. */
export const provenanceProjection: Projection<State, RunFile | null> = routed('provenance', {
  initialState: (): State => ({ started: null, completedAt: null, retries: [] }),
  evolve(s: State, e): State {
    switch (e.type) {
      case 'RunStarted':
        return { ...s, started: { ...e.data, runId: e.runId, at: e.at } };
      case 'RunCompleted':
        return { ...s, completedAt: e.at };
      case 'RunReopened':
        return { ...s, completedAt: null, retries: [...s.retries, { retry: e.data.retry, reason: e.data.reason, jobs: e.data.jobIds.length }] };
      default:
        return assertNever(e);
    }
  },
  result({ started, completedAt, retries }: State): RunFile | null {
    if (!started) return null;
    return {
      run_id: started.runId,
      suite: started.suite,
      status: completedAt ? 'completed' : 'unfinished',
      started_at: started.at,
      completed_at: completedAt,
      config: started.config,
      config_hash: started.configHash,
      seed: started.seed,
      order_seed: started.orderSeed,
      job_order: started.jobs.map((j) => j.jobId),
      model: started.model,
      concurrency: started.concurrency,
      scoring_rule: 'a job passes when every hidden check passes',
      provenance: started.provenance,
      note: !started.model.scripted
        ? null
        : started.model.baseUrlEnv === null
          ? 'Played by the built-in scripted model: not a result of any real model.'
          : `Played by evalog's scripted model at the endpoint from ${started.model.baseUrlEnv} (it says so at GET /models): not a result of any real model.`,
      ...(retries.length > 0 ? { retries } : {}),
    };
  },
});
