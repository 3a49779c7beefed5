import type { StoredEvent } from '../../events/index.js';
import type { ChatMessage, ChatRequest, ToolSpec } from '../../providers/chat.js';
import { canonicalJson, sha256 } from '../../core/canonical.js';
import type { AttemptResult, NativeRequest } from '../../providers/caller.js';
import { strictReply } from '../../providers/outcomes.js';
import type { CallSite } from '../kernel/env.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import { decideProvider } from './logic.js';
import { RunInterrupted } from '../kernel/errors.js';
import type { AnyDraft } from '../kernel/journal.js';

/** Input of one attempt. */
export interface AttemptInput {
  journal: JobJournal;
  provider: ProviderPort;
  site: CallSite;
  messages: ChatMessage[];
  tools: ToolSpec[];
  callId: string;
  attempt: number;
  retryOf: string | null;
  /** Parameters sent as they are instead of the port's sampling (an external agent's own request fields). */
  params?: Record<string, unknown>;
  /** A tool the model must call: sent (and recorded) as the body's `tool_choice`. */
  toolChoice?: string;
  /** A reply without a string content, or a body that is not a chat completion, fails without retry. */
  strictReply?: boolean;
  /** A pass-through attempt: this body to the endpoint's route of its protocol, unchanged (see providers/native-caller.ts). */
  native?: NativeRequest;
}

/**
 * One attempt: record the request, then take the recorded outcome if the log has one (replay/resume)
 * or call the endpoint, and record the outcome. A completed call is therefore never sent twice.
 */
export async function runAttempt(input: AttemptInput): Promise<StoredEvent[]> {
  const { journal, provider, site } = input;
  if (input.native) return runNativeAttempt(input, input.native);
  const m = provider.sampling;
  // A forced tool rides in the params, as an external agent's own `tool_choice` does: sent as a body
  // field and recorded with the request, so a replay that would force another tool diverges.
  const params = {
    ...(input.params ?? {
      temperature: m.temperature,
      max_tokens: m.maxTokens,
      seed: provider.seed,
      ...(m.reasoningEffort ? { reasoning_effort: m.reasoningEffort } : {}),
    }),
    ...(input.toolChoice ? { tool_choice: { type: 'function', function: { name: input.toolChoice } } } : {}),
  };
  const refs = await storeMessages(journal, input.messages);
  const [requestDraft] = decideProvider({
    type: 'Send',
    site,
    callId: input.callId,
    attempt: input.attempt,
    retryOf: input.retryOf,
    model: provider.model,
    messages: refs,
    tools: input.tools.map((t) => t.name),
    params,
  });
  return recordAttempt(input, requestDraft!, () =>
    callLive(journal, provider, { model: provider.model, messages: input.messages, tools: input.tools, params }, input.callId).then((r) =>
      input.strictReply ? strictReply(r) : r,
    ),
  );
}

/**
 * The record of an attempt, whatever it sends: the request event, then the recorded outcome if
 * the log has one (replay/resume), a cut-off if the request was recorded without one (it may have
 * reached the provider: settled `unknown`, and the policy sends a new attempt rather than this one
 * again), or the live call's; then the outcome event.
 */
async function recordAttempt(input: AttemptInput, requestDraft: AnyDraft, live: () => Promise<AttemptResult>): Promise<StoredEvent[]> {
  const { journal, provider, site } = input;
  const { scope } = journal;
  // Live work stops at an interrupt; what is recorded so far is what resume starts from.
  if (!scope.replaying && provider.signal.aborted) throw new RunInterrupted();
  const requestRecorded = scope.replaying;
  const requested = await scope.emit(site.actor, requestDraft);
  const recorded = scope.recordedOutcome(['ProviderCallSucceeded', 'ProviderCallFailed'], input.callId);
  const result = recorded ? resultOf(recorded) : requestRecorded && journal.resuming ? cutOff() : await live();
  const [settleDraft] = decideProvider({ type: 'Settle', callId: input.callId, result });
  const settled = await scope.emit(site.actor, { ...settleDraft!, causationId: requested.id });
  if (!recorded && !result.ok && result.data.kind === 'aborted' && result.data.stoppedBy !== 'deadline') throw new RunInterrupted();
  return [requested, settled];
}

/**
 * A pass-through attempt, recorded like a chat one: the request (its body as a blob of the exact
 * bytes sent, its protocol and forwarded headers) before it is sent, then the outcome, whose
 * answer is kept as a blob of the bytes received. A recorded outcome is taken, never sent again.
 */
async function runNativeAttempt(input: AttemptInput, native: NativeRequest): Promise<StoredEvent[]> {
  const { journal, provider, site } = input;
  const body = await bodyToRecord(journal, input.callId, native);
  const [requestDraft] = decideProvider({
    type: 'Send',
    site,
    callId: input.callId,
    attempt: input.attempt,
    retryOf: input.retryOf,
    model: provider.model,
    messages: [],
    tools: [],
    params: {},
    native: { protocol: native.protocol, body, headers: { ...native.headers } },
  });
  return recordAttempt(input, requestDraft!, () => callNativeLive(journal, provider, native, input.callId));
}

async function callNativeLive(journal: JobJournal, provider: ProviderPort, request: NativeRequest, callId: string): Promise<AttemptResult> {
  const send = provider.caller.native;
  if (!send) throw new PassThroughUnavailableError();
  const callKey = `${journal.runId}/${journal.jobId}/${callId}`;
  const site = { jobId: journal.jobId, callId, seed: provider.seed };
  const result = await send.call(provider.caller, request, { signal: waitSignal(provider), timeoutMs: provider.policy.timeoutMs, callKey, site });
  if (!result.ok) {
    if (result.data.kind === 'aborted' && provider.deadline?.aborted && !provider.signal.aborted) {
      const message = 'aborted at the worker deadline (worker.timeLimitMs from its start); the provider may have received it';
      return { ok: false, data: { ...result.data, message, retryable: false, stoppedBy: 'deadline' } };
    }
    return result;
  }
  const blob = await storeBlob(journal, result.answer.bytes);
  return { ok: true, data: { ...result.data, answer: { blob, contentType: result.answer.contentType } } };
}

/** This run's caller cannot send a request unchanged (the response cache, a scripted model in process): a wiring error. */
export class PassThroughUnavailableError extends Error {
  override name = 'PassThroughUnavailableError';
  constructor() {
    super(
      'this run passes requests through to the endpoint (--endpoint-protocols), but its model caller cannot (the response cache does not serve pass-through calls)',
    );
  }
}

/**
 * The body blob a pass-through request is recorded with. Live, the bytes sent. Where the record
 * holds this attempt with other bytes that ask for the same (`sameRequest`: an agent's fresh
 * session id, say), the recorded blob: the call is served from the record, and replay requires the
 * recorded event. Any other difference is recorded as it is, so replay reports it.
 */
async function bodyToRecord(journal: JobJournal, callId: string, native: NativeRequest): Promise<string> {
  const ref = sha256(Buffer.from(native.body));
  const recorded = journal.scope.replaying ? journal.scope.peek() : undefined;
  if (recorded?.type === 'ProviderCallRequested' && recorded.data.callId === callId && recorded.data.body !== undefined && recorded.data.body !== ref) {
    if (native.sameRequest?.(await journal.blobs.get(recorded.data.body))) return recorded.data.body;
  }
  return storeBlob(journal, native.body);
}

async function storeBlob(journal: JobJournal, bytes: Uint8Array): Promise<string> {
  const ref = sha256(Buffer.from(bytes));
  // While replaying, the event is recorded, so its blob is already stored.
  if (!journal.storedBlobs.has(ref) && !journal.scope.replaying) {
    await journal.blobs.put(bytes);
    journal.storedBlobs.add(ref);
  }
  return ref;
}

async function callLive(journal: JobJournal, provider: ProviderPort, request: ChatRequest, callId: string): Promise<AttemptResult> {
  const callKey = `${journal.runId}/${journal.jobId}/${callId}`;
  const site = { jobId: journal.jobId, callId, seed: provider.seed };
  const result = await provider.caller.call(request, { signal: waitSignal(provider), timeoutMs: provider.policy.timeoutMs, callKey, site });
  // The worker's deadline, not an interrupt, cut the attempt short. It may have reached the
  // provider (and be paid for), so it is recorded as aborted like an interrupted one, but the call
  // ends here: a resume must not send it again, as upstream's timeout cancels the call for good.
  if (!result.ok && result.data.kind === 'aborted' && provider.deadline?.aborted && !provider.signal.aborted) {
    const message = 'aborted at the worker deadline (worker.timeLimitMs from its start); the provider may have received it';
    return { ok: false, data: { ...result.data, message, retryable: false, stoppedBy: 'deadline' } };
  }
  return result;
}

/** What a port's live waits and attempts stop on: an interrupt, and the worker's deadline when it has one. */
export function waitSignal(provider: ProviderPort): AbortSignal {
  return provider.deadline ? AbortSignal.any([provider.signal, provider.deadline]) : provider.signal;
}

function cutOff(): AttemptResult {
  const message = 'no outcome was recorded: the process writing the run stopped while this attempt was in flight; the provider may have received it';
  return { ok: false, data: { kind: 'unknown', status: null, retryAfterMs: null, message, retryable: true, latencyMs: 0 } };
}

function resultOf(e: StoredEvent): AttemptResult {
  if (e.type === 'ProviderCallSucceeded') {
    const { callId: _c, ...data } = e.data;
    return { ok: true, data };
  }
  if (e.type === 'ProviderCallFailed') {
    const { callId: _c, ...data } = e.data;
    return { ok: false, data };
  }
  throw new Error(`not a provider outcome: ${e.type}`);
}

/** The blob a message is stored as, and its reference in ProviderCallRequested (an external agent's request is matched by these). */
export function messageBlob(m: ChatMessage): { bytes: Buffer; ref: string } {
  const bytes = Buffer.from(canonicalJson(m));
  return { bytes, ref: sha256(bytes) };
}

// Each message is stored once by its hash, so a long loop's log grows with new messages only.
async function storeMessages(journal: JobJournal, messages: ChatMessage[]): Promise<string[]> {
  const { blobs, storedBlobs: known } = journal;
  const refs: string[] = [];
  for (const m of messages) {
    const { bytes, ref: h } = messageBlob(m);
    // While replaying, the request event is recorded, so its blobs are already stored.
    if (!known.has(h) && !journal.scope.replaying) {
      await blobs.put(bytes);
      known.add(h);
    }
    refs.push(h);
  }
  return refs;
}
