import OpenAI from 'openai';
import type { Clock } from '../core/clock.js';
import type { AttemptResult, ModelCaller } from './caller.js';
import type { ChatRequest } from './chat.js';
import { callNative } from './native-caller.js';
import { failureOf, parseCompletion } from './outcomes.js';

/** Settings of an OpenAI-compatible endpoint; the key is held in memory only, never recorded. */
export interface EndpointSettings {
  baseURL: string;
  apiKey: string;
  /** Clock for latency; injected so tests can make it deterministic. */
  clock: Clock;
}

/**
 * A `ModelCaller` on the official `openai` client, one HTTP request per attempt (client retries off);
 * a pass-through attempt (`native`) goes to the same endpoint's route of its own protocol.
 */
export function openAiCaller(settings: EndpointSettings): ModelCaller {
  const client = new OpenAI({ baseURL: settings.baseURL, apiKey: settings.apiKey, maxRetries: 0 });
  return {
    native: (request, options) => callNative({ baseURL: settings.baseURL, apiKey: settings.apiKey, now: () => settings.clock.now() }, request, options),
    async call(request: ChatRequest, { signal, timeoutMs, callKey }): Promise<AttemptResult> {
      const started = settings.clock.now();
      const latency = () => Math.max(0, settings.clock.now() - started);
      const body = {
        model: request.model,
        messages: request.messages,
        ...(request.tools.length > 0 ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: t })) } : {}),
        ...request.params,
      };
      // A per-call controller: the client leaves its listener on the signal it is given, and the
      // run's signal outlives thousands of calls.
      const call = new AbortController();
      const onAbort = () => call.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const raw: unknown = await client.chat.completions.create(body as never, {
          signal: call.signal,
          timeout: timeoutMs,
          ...(callKey ? { headers: { 'X-Evalog-Call': callKey } } : {}),
        });
        return parseCompletion(raw, latency());
      } catch (err) {
        return { ok: false, data: failureOf(err, latency(), signal.aborted) };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
