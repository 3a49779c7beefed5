import { hashOf } from '../../../core/canonical.js';
import type { DataOf, StoredEvent } from '../../../events/index.js';
import type { AttemptResult, CallOptions, ModelCaller } from '../../../providers/caller.js';
import type { ChatRequest } from '../../../providers/chat.js';
import { messageBlob } from '../../provider/effects.js';
import type { Recording } from '../recording.js';

/** A regrade asked for an answer its source run does not hold: the request differs, or the source never made it. */
export class SourceMismatchError extends Error {
  override name = 'SourceMismatchError';
  constructor(
    readonly jobId: string,
    readonly callId: string,
    readonly reason: string,
  ) {
    super(`job ${jobId}: call ${callId}: ${reason}`);
  }
}

interface Answer {
  request: string;
  data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId'>;
}

// Attempts of one call site share its name (`…/turn-2/attempt-3` → `…/turn-2`): the regrade's first
// attempt takes the answer the source got on whichever attempt succeeded.
const siteOf = (callId: string) => callId.replace(/\/attempt-\d+$/, '');

/** The recorded request as its hash: model, message blob refs, tool names and body fields, as ProviderCallRequested holds them. */
function recordedHash(d: Pick<DataOf<'ProviderCallRequested'>, 'model' | 'messages' | 'tools' | 'params'>): string {
  return hashOf({ model: d.model, messages: d.messages, tools: d.tools, params: d.params });
}

/** The successful answers of a recorded run, by job and call site. */
function answersOf(rec: Recording): Map<string, Map<string, Answer>> {
  const out = new Map<string, Map<string, Answer>>();
  for (const [jobId, events] of rec.byScope) {
    if (jobId === '') continue;
    const requested = new Map<string, string>();
    const sites = new Map<string, Answer>();
    for (const e of events as StoredEvent[]) {
      if (e.type === 'ProviderCallRequested') requested.set(e.data.callId, recordedHash(e.data));
      if (e.type === 'ProviderCallSucceeded') {
        const request = requested.get(e.data.callId);
        const { callId, ...data } = e.data;
        if (request !== undefined) sites.set(siteOf(callId), { request, data });
      }
    }
    out.set(jobId, sites);
  }
  return out;
}

/**
 * A caller that answers every call from the source run's recorded successes, matched by job, call
 * site and the request itself (what ProviderCallRequested records of it), each marked `cached` with
 * the request's hash. Nothing is sent anywhere; a request the source did not make throws
 * SourceMismatchError, which ends the regrade.
 */
export function sourceCaller(source: Recording): ModelCaller {
  const answers = answersOf(source);
  return {
    async call(request: ChatRequest, options: CallOptions): Promise<AttemptResult> {
      const site = options.site;
      if (!site) throw new SourceMismatchError('?', '?', 'the call names no job');
      const answer = answers.get(site.jobId)?.get(siteOf(site.callId));
      if (!answer) throw new SourceMismatchError(site.jobId, site.callId, 'the source run has no successful answer to this call');
      const hash = recordedHash({
        model: request.model,
        messages: request.messages.map((m) => messageBlob(m).ref),
        tools: request.tools.map((t) => t.name),
        params: request.params,
      });
      if (hash !== answer.request)
        throw new SourceMismatchError(site.jobId, site.callId, 'the request differs from the one the source run sent (changed prompts, tools or sampling?)');
      return { ok: true, data: { ...answer.data, latencyMs: 0, cached: hash } };
    },
  };
}
