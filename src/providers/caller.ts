import type { DataOf } from '../events/index.js';
import type { ChatRequest } from './chat.js';

/** What one attempt produced, without its call id (the actor names it). */
export type AttemptResult =
  | { ok: true; data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId'> }
  | { ok: false; data: Omit<DataOf<'ProviderCallFailed'>, 'callId'> };

/** Performs one model call attempt; never throws for provider-side failures, which are results. */
export interface ModelCaller {
  call(request: ChatRequest, options: CallOptions): Promise<AttemptResult>;
}

/** How one attempt is made. */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Stable name of this attempt, `<runId>/<jobId>/<callId>`, sent as the `X-Evalog-Call` header so
   * the server side can correlate attempts (and spot one sent twice). Names only, never secrets.
   */
  callKey?: string;
  /**
   * Which job's call this attempt is: the response cache keys by the job's seed (the run seed plus
   * its repetition, so repetitions stay apart even when a request sends no seed), and a regrade
   * matches the source run's answers by job and call.
   */
  site?: { jobId: string; callId: string; seed: number };
}
