import type { StoredEvent } from '../../events/index.js';
import type { AnyDraft } from '../journal.js';
import type { SessionSettings, SessionSpec, SuiteConfigBase } from '../suite/types.js';
import type { JobEnv } from '../env.js';
import { decideSession, evolveSession, type SessionCommand, type SessionState } from './logic.js';

/** What every session effect works with. */
export interface SessionInput {
  env: JobEnv;
  spec: SessionSpec<SuiteConfigBase, unknown, unknown>;
  settings: SessionSettings;
  state: SessionState;
}

/** Actor path of the session worker. */
export const sessionActor = (env: JobEnv) => `job/${env.job.jobId}/worker`;
/** Actor path of the harness: injections are the host's doing, not the agent's. */
export const hostActor = (env: JobEnv) => `job/${env.job.jobId}/host`;

/** The job env a call runs with: attempts capped by the budget, its timeout by the deadline. */
export function callEnv(env: JobEnv, state: SessionState, settings: SessionSettings, maxAttempts: number): JobEnv {
  const elapsed = state.startedAtMs === null ? 0 : state.lastAtMs - state.startedAtMs;
  const timeoutMs = Math.max(1, Math.min(settings.provider.timeoutMs, settings.budget.deadlineMs - elapsed));
  return { ...env, config: { ...env.config, provider: { ...env.config.provider, maxAttempts, timeoutMs } } };
}

/** Emits the events of a command, appends them to `out` and returns the state with them folded in. */
export async function recordSession(input: SessionInput, actor: string, cmd: SessionCommand, out: StoredEvent[]): Promise<SessionState> {
  const fold = evolveSession(input.spec.evolveEnvironment);
  let state = input.state;
  for (const d of decideSession(cmd) as AnyDraft[]) {
    const e = await input.env.scope.emit(actor, d);
    state = fold(state, e);
    out.push(e);
  }
  return state;
}
