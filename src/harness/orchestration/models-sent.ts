// What RunStarted (and so run.json) says of the model: the id the run's requests send, which is not
// always the endpoint's. A session suite's frozen cell names its own model, a single-call suite's arm
// may name one (a model per arm), and an external agent's proxy sends the one of the arm it presents.
import type { DataOf, PlannedJob } from '../../events/index.js';
import { assertNever } from '../../core/never.js';
import type { JobHooks, PreparedSuite } from '../suite/define.js';

type ModelInfo = DataOf<'RunStarted'>['model'];

/** The model id a job's agent requests send: the one its hooks name, else the endpoint's. */
export function jobModel(hooks: JobHooks, endpointModel: string): string {
  switch (hooks.shape) {
    case 'agent':
      return endpointModel;
    case 'single-call':
      return hooks.call.request().model ?? endpointModel;
    case 'session':
      return hooks.session.settings.model;
    case 'external':
      return hooks.external.model ?? endpointModel;
    case 'compute':
      return endpointModel; // sends nothing: planRun records a compute run's model as none
    default:
      return assertNever(hooks);
  }
}

/**
 * The endpoint's model info with `name` the model every planned job sends, when they all send one.
 * When arms send different models, `name` stays the endpoint's (what resume and workers are given)
 * and `arms` names each arm's model (an arm whose jobs send several lists them sorted, joined by
 * ", "). A judge's model (model-graded checks) is not the agent's and is not counted here.
 */
export function sentModelInfo(info: ModelInfo, suite: PreparedSuite, jobs: readonly PlannedJob[]): ModelInfo {
  const byArm = new Map<string, Set<string>>();
  for (const job of jobs) {
    const model = jobModel(suite.hooks(job), info.name);
    const set = byArm.get(job.arm) ?? new Set<string>();
    set.add(model);
    byArm.set(job.arm, set);
  }
  const all = new Set([...byArm.values()].flatMap((s) => [...s]));
  if (all.size === 0) return info;
  if (all.size === 1) return { ...info, name: [...all][0]! };
  const arms = [...byArm.keys()].sort().map((arm) => [arm, [...byArm.get(arm)!].sort().join(', ')] as const);
  return { ...info, arms: Object.fromEntries(arms) };
}
