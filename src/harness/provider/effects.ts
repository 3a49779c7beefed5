import type { StoredEvent } from '../../events/index.js';
import type { ChatMessage, ChatRequest, ToolSpec } from '../../providers/chat.js';
import { canonicalJson, sha256 } from '../../core/canonical.js';
import type { AttemptResult } from '../../providers/caller.js';
import { strictReply } from '../../providers/outcomes.js';
import type { CallSite } from '../env.js';
import type { JobJournal, ProviderPort } from '../ports.js';
import { decideProvider } from './logic.js';
import { RunInterrupted } from '../errors.js';

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
}

/**
 * One attempt: record the request, then take the recorded outcome if the log has one (replay/resume)
 * or call the endpoint, and record the outcome. A completed call is therefore never sent twice.
 */
export async function runAttempt(input: AttemptInput): Promise<StoredEvent[]> {
  const { journal, provider, site } = input;
  const { scope } = journal;
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
  // Live work stops at an interrupt; what is recorded so far is what resume starts from.
  if (!scope.replaying && provider.signal.aborted) throw new RunInterrupted();
  const requestRecorded = scope.replaying;
  const requested = await scope.emit(site.actor, requestDraft!);
  const recorded = scope.recordedOutcome(['ProviderCallSucceeded', 'ProviderCallFailed'], input.callId);
  // A recorded request without a recorded outcome was in flight when its writer died: it may have
  // reached the provider (and been paid for), so it is settled as `unknown` and the policy sends a
  // new attempt, rather than sending this one again under the same event.
  const result = recorded
    ? resultOf(recorded)
    : requestRecorded && journal.resuming
      ? cutOff()
      : await callLive(journal, provider, { model: provider.model, messages: input.messages, tools: input.tools, params }, input.callId).then((r) =>
          input.strictReply ? strictReply(r) : r,
        );
  const [settleDraft] = decideProvider({ type: 'Settle', callId: input.callId, result });
  const settled = await scope.emit(site.actor, { ...settleDraft!, causationId: requested.id });
  if (!recorded && !result.ok && result.data.kind === 'aborted' && result.data.stoppedBy !== 'deadline') throw new RunInterrupted();
  return [requested, settled];
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
