// evalog retry: a completed run's jobs that ended in errors (or did not pass) run again as new attempts in the same log.
export {
  decideReopen,
  evolveOutcomes,
  foldOutcomes,
  inLogOrder,
  passesOf,
  passOf,
  retries,
  type JobAttempts,
  type LastOutcome,
  type Outcomes,
  type ReopenCommand,
  type RetryPass,
  type RetryReason,
} from './logic.js';
export { runRetries, type RunPass } from './passes.js';
