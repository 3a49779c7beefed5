/**
 * Request fingerprints (spec A6): sha256 of the UTF-8 bytes of Python's
 * `json.dumps(payload, ensure_ascii=False, sort_keys=True)`, temperature written as a float.
 */
import { createHash } from 'node:crypto';
import type { MemoryEvictionConfig } from './config.js';
import type { ChatMessagePair } from './prompt.js';
import { pythonJson } from './python-json.js';

/** The provider request whose fingerprint decides whether a stored answer is reused. */
export interface RequestPayload {
  model: string;
  /** A Python float: `0` is serialised `0.0`. */
  temperature: number;
  max_tokens: number;
  stream: boolean;
  messages: readonly ChatMessagePair[];
}

/** Payload fields that are Python floats. */
export const PAYLOAD_FLOAT_FIELDS = ['temperature'] as const;

/** The payload for one QA task, from the config's `qa` block. */
export function buildRequestPayload(qa: MemoryEvictionConfig['qa'], messages: readonly ChatMessagePair[]): RequestPayload {
  return { model: qa.model, temperature: qa.temperature, max_tokens: qa.max_tokens, stream: qa.stream, messages };
}

/** The exact string that is hashed. */
export function fingerprintText(payload: RequestPayload): string {
  return pythonJson(payload, { sortKeys: true, floatFields: PAYLOAD_FLOAT_FIELDS });
}

/** sha256 hex of the Python-compatible serialisation of the payload. */
export function requestFingerprint(payload: RequestPayload): string {
  return createHash('sha256').update(fingerprintText(payload), 'utf8').digest('hex');
}
