import { hashOf } from '../../core/canonical.js';
import type { ChatRequest } from '../../providers/chat.js';

/**
 * The cache key of a request: sha256 of the canonical request as sent (model, messages, full tool
 * specs, every body field: sampling, seed, tool_choice) and the job's seed. The job's seed is the
 * run seed plus the repetition, so two repetitions of a case stay two entries even when the
 * request itself sends no seed (an external agent's own request). Keys, headers and endpoints are
 * never part of it, so the cache is shared by any endpoint serving the same model id.
 */
export function requestKey(request: ChatRequest, jobSeed: number | null): string {
  return hashOf({ format: KEY_FORMAT, model: request.model, messages: request.messages, tools: request.tools, params: request.params, jobSeed });
}

// Bumped when what goes into a key changes, so an old entry is never read as a new one's.
const KEY_FORMAT = 'evalog-cache-key/1';
