import type { StoredEvent } from '../../events/index.js';
import type { AnyDraft } from '../kernel/journal.js';
import type { SessionHooks } from '../suite/define.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import { decideSession, evolveSession, type SessionCommand, type SessionState } from './logic.js';

/** What every session effect works with: the job's journal scope, the cell's provider port, the session hooks and the state. */
export interface SessionInput {
  journal: JobJournal;
  provider: ProviderPort;
  session: SessionHooks;
  state: SessionState;
}

/** Actor path of the session worker. */
export const sessionActor = (journal: JobJournal) => `job/${journal.jobId}/worker`;
/** Actor path of the harness: injections are the host's doing, not the agent's. */
export const hostActor = (journal: JobJournal) => `job/${journal.jobId}/host`;

/** The provider port a call runs with: attempts capped by the budget, its timeout by the deadline. */
export function callPort(provider: ProviderPort, state: SessionState, session: SessionHooks, maxAttempts: number): ProviderPort {
  const elapsed = state.startedAtMs === null ? 0 : state.lastAtMs - state.startedAtMs;
  const timeoutMs = Math.max(1, Math.min(session.settings.provider.timeoutMs, session.settings.budget.deadlineMs - elapsed));
  return { ...provider, policy: { ...provider.policy, maxAttempts, timeoutMs } };
}

/** Emits the events of a command, appends them to `out` and returns the state with them folded in. */
export async function recordSession(input: SessionInput, actor: string, cmd: SessionCommand, out: StoredEvent[]): Promise<SessionState> {
  const fold = evolveSession(input.session.evolveEnvironment);
  let state = input.state;
  for (const d of decideSession(cmd) as AnyDraft[]) {
    const e = await input.journal.scope.emit(actor, d);
    state = fold(state, e);
    out.push(e);
  }
  return state;
}
