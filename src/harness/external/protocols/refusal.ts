// Refusing a request while it is translated: the translation throws a ProtocolRefusal at the first
// field it cannot carry, and the adapter's parse turns it into the WireRefusal it returns. Deep
// item walks stay readable that way, and the first bad field is the one reported.
import type { WireRefusal } from './types.js';

/** A field the adapter refuses; `refusal` is what the agent is answered with. */
export class ProtocolRefusal extends Error {
  override name = 'ProtocolRefusal';
  constructor(readonly refusal: WireRefusal) {
    super(refusal.message);
  }
}

/** Codes of the refusals (OpenAI's own where it has one). */
export type RefusalCode = 'invalid_request' | 'unknown_parameter' | 'unsupported_value' | 'previous_response_not_found' | 'item_not_found';

/** Throws the refusal of `field`, the message being `<field>: <problem>`. */
export function refuse(field: string, problem: string, code: RefusalCode = 'invalid_request'): never {
  throw new ProtocolRefusal({ refused: true, status: 400, code, field, message: `${field}: ${problem}` });
}

/** Runs a translation, returning its refusal instead of throwing it. */
export function refusing<T>(translate: () => T): T | WireRefusal {
  try {
    return translate();
  } catch (err) {
    if (err instanceof ProtocolRefusal) return err.refusal;
    throw err;
  }
}

/** A plain JSON object (not an array, not null). */
export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `x` is absent or null: the protocol's "not set". */
export const unset = (x: unknown): x is null | undefined => x === undefined || x === null;

/** The path of `key` under `at` (the body itself is the empty path). */
export const pathOf = (at: string, key: string): string => (at === '' ? key : `${at}.${key}`);

/** Refuses the first key of `o` not in `known`, so nothing an agent sends is silently dropped. */
export function onlyKeys(o: Record<string, unknown>, at: string, known: readonly string[]): void {
  const extra = Object.keys(o).find((k) => !known.includes(k));
  if (extra !== undefined) refuse(pathOf(at, extra), 'unknown field: evalog cannot carry it onto chat completions', 'unknown_parameter');
}

/** A string field, or a refusal naming it. */
export function stringAt(o: Record<string, unknown>, key: string, at: string, nonEmpty = true): string {
  const v = o[key];
  if (typeof v !== 'string' || (nonEmpty && v === '')) refuse(pathOf(at, key), nonEmpty ? 'must be a non-empty string' : 'must be a string');
  return v;
}
