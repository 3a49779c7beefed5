import type { DataOf, StoredEvent } from '../events/index.js';
import type { Projection } from './projection.js';

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
}

interface State {
  started: (DataOf<'RunStarted'> & { runId: string; at: string }) | null;
  completedAt: string | null;
}

/** The provenance projection: RunStarted and RunCompleted become run.json. */
export const provenanceProjection: Projection<State, RunFile | null> = {
  name: 'provenance',
  initialState: () => ({ started: null, completedAt: null }),
  canHandle: (e) => e.type === 'RunStarted' || e.type === 'RunCompleted',
  evolve(s, e: StoredEvent) {
    if (e.type === 'RunStarted') return { ...s, started: { ...e.data, runId: e.runId, at: e.at } };
    if (e.type === 'RunCompleted') return { ...s, completedAt: e.at };
    return s;
  },
  result({ started, completedAt }) {
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
      note: !started.model.scripted ? null : started.model.baseUrlEnv === null
        ? 'Played by the built-in scripted model: not a result of any real model.'
        : `Played by evalog's scripted model at the endpoint from ${started.model.baseUrlEnv} (it says so at GET /models): not a result of any real model.`,
    };
  },
};
