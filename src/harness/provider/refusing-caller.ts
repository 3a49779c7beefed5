// Callers for the places where reaching the network is itself the fault: a replay (every effect
// is served from the log) and the coordinator of a scaled-out run (its workers make the calls).
import type { ModelCaller } from '../../providers/caller.js';
import { EndOfRecording } from '../kernel/errors.js';

/** A model call reached a caller that may make none (a wiring error, not a provider failure). */
export class CallRefusedError extends Error {
  override name = 'CallRefusedError';
  constructor(readonly reason: string) {
    super(`model call refused: ${reason}`);
  }
}

/** A caller that rejects every call with `refusal()`, sending nothing. */
export function refusingCaller(refusal: () => Error): ModelCaller {
  return { call: () => Promise.reject(refusal()), native: () => Promise.reject(refusal()) };
}

/** The coordinator of a scaled-out run: its jobs run on workers, so it makes no model call itself. */
export const coordinatorCaller: ModelCaller = refusingCaller(() => new CallRefusedError('the coordinator of a scaled-out run makes no model calls'));

/** A run of compute jobs: it records no model, so a call is a wiring error. */
export const noModelCaller: ModelCaller = refusingCaller(() => new CallRefusedError('a run of compute jobs makes no model calls'));

/**
 * Replay: a call that reaches the network has no recorded outcome (its writer died mid-call), so the
 * job's record ends there; `EndOfRecording` makes the run count the job unfinished, not wrong.
 */
export const replayCaller: ModelCaller = refusingCaller(() => new EndOfRecording(undefined, -1));
