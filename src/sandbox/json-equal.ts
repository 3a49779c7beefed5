// Deep equality of JSON values, for return values against `expect` and artifacts against targets.
// Types must match exactly, at every depth: `true` is not `1`, `"1"` is not `1`. Key order of
// objects does not matter; array order does. -0 equals 0 (JSON cannot tell them apart).

/** Whether two JSON values are equal (same types, same keys, same items in the same order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  const bRecord = b as Record<string, unknown>;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && jsonEqual((a as Record<string, unknown>)[key], bRecord[key]));
}

/** A short JSON rendering for check details (at most `max` characters). */
export function preview(value: unknown, max = 160): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
