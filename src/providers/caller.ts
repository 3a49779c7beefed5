import type { DataOf } from '../events/index.js';
import type { ChatRequest } from './chat.js';

/** What one attempt produced, without its call id (the actor names it). */
export type AttemptResult =
  | { ok: true; data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId'> }
  | { ok: false; data: Omit<DataOf<'ProviderCallFailed'>, 'callId'> };

/** Performs one model call attempt; never throws for provider-side failures, which are results. */
export interface ModelCaller {
  call(request: ChatRequest, options: { signal: AbortSignal; timeoutMs: number }): Promise<AttemptResult>;
}
