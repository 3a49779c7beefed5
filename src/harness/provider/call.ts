import type { StoredEvent } from '../../events/index.js';
import { runAttempt, waitSignal } from './effects.js';
import { evolveProvider, initialProviderState, nextProviderStep, type ProviderStep } from './logic.js';
import type { ProviderCallInput, ProviderCallOutput } from './machine.js';

// Performance: the single-call job and the judge run a call as one promise rather than as a
// providerCallMachine child, which spawns an actor per wait and attempt; XState's actor set-up
// dominated the CPU per case (bench/README.md, overhead). The steps, their order and the events are
// the machine's.

/** providerCallMachine as one promise: wait (backoff), attempt, decide, until the step is not an attempt. */
export async function callWithRetries(input: ProviderCallInput): Promise<ProviderCallOutput> {
  const { journal, provider, site } = input;
  let state = initialProviderState;
  const events: StoredEvent[] = [];
  let step: ProviderStep = nextProviderStep(state, site, { ...provider.policy });
  for (;;) {
    // A replayed wait is already over: the next attempt is in the record.
    if (!journal.scope.replaying) await provider.sleep(step.type === 'attempt' ? step.delayMs : 0, waitSignal(provider));
    const a = step as Extract<ProviderStep, { type: 'attempt' }>;
    const out = await runAttempt({
      journal,
      provider,
      site,
      messages: input.messages,
      tools: input.tools,
      ...(input.params ? { params: input.params } : {}),
      ...(input.toolChoice ? { toolChoice: input.toolChoice } : {}),
      ...(input.strictReply ? { strictReply: true } : {}),
      ...(input.native ? { native: input.native } : {}),
      callId: a.callId,
      attempt: a.attempt,
      retryOf: a.retryOf,
    });
    state = out.reduce(evolveProvider, state);
    events.push(...out);
    step = nextProviderStep(state, site, provider.policy);
    if (step.type !== 'attempt') return { state, events };
  }
}
