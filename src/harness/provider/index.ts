// The provider caller: one logical model call, attempts with backoff per the retry policy, each recorded.
export { callWithRetries } from './call.js';
export { messageBlob, PassThroughUnavailableError, runAttempt, waitSignal, type AttemptInput } from './effects.js';
export {
  decideProvider,
  evolveProvider,
  initialProviderState,
  nextProviderStep,
  retryAfterCap,
  type ProviderCommand,
  type ProviderState,
  type ProviderStep,
} from './logic.js';
export { providerCallMachine, type BackoffInput, type ProviderCallInput, type ProviderCallOutput } from './machine.js';
export { CallRefusedError, coordinatorCaller, refusingCaller, replayCaller } from './refusing-caller.js';
