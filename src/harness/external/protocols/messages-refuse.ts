// The refusals of the Anthropic Messages adapter: a body it cannot carry onto chat completions, or
// a malformed one, answered as Anthropic's 400 `invalid_request_error` naming the body path.
import type { WireRefusal } from './types.js';

/** Anthropic's error type for a request it will not take. */
export const INVALID_REQUEST = 'invalid_request_error';

/** A plain JSON object (not an array, not null). */
export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A value the agent left out: absent and JSON `null` mean the same on Anthropic's wire. */
export const isAbsent = (x: unknown): x is undefined | null => x === undefined || x === null;

/** A 400 refusal whose message starts with the field it names. */
export function refusal(field: string, detail: string): WireRefusal {
  return { refused: true, status: 400, code: INVALID_REQUEST, field, message: `${field}: ${detail}` };
}

/** The refusal of a part that chat completions has no place for (an image, a server tool...). */
export function uncarried(field: string, value: unknown): WireRefusal {
  return refusal(field, `${JSON.stringify(value)} cannot be carried onto chat completions`);
}

/** Whether a parse step refused (the adapter returns the first refusal as it is). */
export const isRefusal = (x: unknown): x is WireRefusal => isObject(x) && x.refused === true;
