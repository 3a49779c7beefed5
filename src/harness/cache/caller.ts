import type { Clock } from '../../core/clock.js';
import type { AttemptResult, CallOptions, ModelCaller } from '../../providers/caller.js';
import type { ChatRequest } from '../../providers/chat.js';
import { requestKey } from './key.js';
import type { ResponseStore } from './store.js';

/**
 * A caller that answers from `store` when it holds the request's response (a success marked
 * `cached` with the entry's key, nothing sent), and otherwise calls `inner` and keeps what it
 * returns only when it succeeded: a failed attempt is never stored.
 */
export function cachingCaller(inner: ModelCaller, store: ResponseStore, clock: Clock): ModelCaller {
  return {
    async call(request: ChatRequest, options: CallOptions): Promise<AttemptResult> {
      const key = requestKey(request, options.site?.seed ?? null);
      const started = clock.now();
      const hit = await store.get(key);
      if (hit) return { ok: true, data: { ...hit, latencyMs: Math.max(0, clock.now() - started), cached: key } };
      const result = await inner.call(request, options);
      if (result.ok) {
        const { latencyMs: _l, cached: _c, ...response } = result.data;
        await store.put(key, response);
      }
      return result;
    },
  };
}
