import type { DataOf, NativeProtocol } from '../events/index.js';
import type { ChatRequest } from './chat.js';

/** What one attempt produced, without its call id (the actor names it). */
export type AttemptResult =
  | { ok: true; data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId'> }
  | { ok: false; data: Omit<DataOf<'ProviderCallFailed'>, 'callId'> };

/** Performs one model call attempt; never throws for provider-side failures, which are results. */
export interface ModelCaller {
  call(request: ChatRequest, options: CallOptions): Promise<AttemptResult>;
  /**
   * Sends a request in the endpoint's own protocol, unchanged (a pass-through call). Absent: this
   * caller reaches no endpoint that way (the scripted model played in process, a response cache).
   */
  native?(request: NativeRequest, options: CallOptions): Promise<NativeAttemptResult>;
}

/** A pass-through request: an agent's body as it sent it, for the endpoint's route of `protocol`. */
export interface NativeRequest {
  protocol: NativeProtocol;
  /** The exact bytes sent as the body. */
  body: Uint8Array;
  /** Protocol headers forwarded (e.g. anthropic-version); the key is the caller's, never in here. */
  headers: Readonly<Record<string, string>>;
  /**
   * Whether a recorded body asks for what this one does (it differs at most in key order, spacing
   * or the protocol's record-only fields, such as a session id a client makes afresh each run).
   * A replayed or resumed attempt then records the recorded body again; absent = bytes must match.
   */
  sameRequest?(recorded: Uint8Array): boolean;
}

/** A pass-through answer as received: its bytes (kept as a blob) beside what was read from it. */
export interface NativeAnswer {
  bytes: Buffer;
  contentType: string;
}

/** What one pass-through attempt produced: a success carries the answer as received. */
export type NativeAttemptResult =
  | { ok: true; data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId' | 'answer'>; answer: NativeAnswer }
  | { ok: false; data: Omit<DataOf<'ProviderCallFailed'>, 'callId'> };

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
