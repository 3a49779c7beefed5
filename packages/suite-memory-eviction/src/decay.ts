// The time-decayed signals of hybrid-v1 (A4): confirmation freshness and normalized access heat.
import { elapsedDays, parseIsoMicros, pyStrip } from './iso-time.js';
import { exp2, log1p } from './py-math.js';

/** CPython's math.log(9) on glibc (V8's Math.log(9) is the same double). */
const LN9 = 2.1972245773362196;

/** Half-life decay 2^(−max(0, d)/h); 0 when h ≤ 0. `d` and `h` in days. */
export function decay(elapsed: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0) return 0;
  return exp2(-Math.max(0, elapsed) / halfLifeDays);
}

/** The fields of a fact that the confirmation signal reads. */
export interface ConfirmationFields {
  readonly lastConfirmedAt?: unknown;
  readonly createdAt?: unknown;
}

/**
 * decay(now − lastConfirmedAt) when lastConfirmedAt parses; else 0.5·decay(now − createdAt) (a
 * creation is weaker evidence than a confirmation); 0 when neither parses.
 */
export function confirmationFreshness(fact: ConfirmationFields, nowUs: bigint, halfLifeDays: number): number {
  const confirmed = parseIsoMicros(fact.lastConfirmedAt);
  if (confirmed !== undefined) return decay(elapsedDays(nowUs, confirmed), halfLifeDays);
  const created = parseIsoMicros(fact.createdAt);
  if (created === undefined) return 0;
  return 0.5 * decay(elapsedDays(nowUs, created), halfLifeDays);
}

/**
 * min(1, ln(1 + heat·decay(now − lastAccessedAt)) / ln 9). 0 when the entry is not an object,
 * lastAccessedAt does not parse, or accessHeat is missing, boolean, not a number, non-finite or ≤ 0.
 * Numeric strings count, as Python's float() takes them.
 */
export function accessHeat(usage: unknown, nowUs: bigint, halfLifeDays: number): number {
  if (usage === null || typeof usage !== 'object' || Array.isArray(usage)) return 0;
  const entry = usage as { readonly lastAccessedAt?: unknown; readonly accessHeat?: unknown };
  const lastAccessed = parseIsoMicros(entry.lastAccessedAt);
  if (lastAccessed === undefined) return 0;
  const heat = pyFloat(entry.accessHeat);
  if (heat === undefined || !Number.isFinite(heat) || heat <= 0) return 0;
  const decayed = heat * decay(elapsedDays(nowUs, lastAccessed), halfLifeDays);
  return Math.min(1, log1p(decayed) / LN9);
}

const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/**
 * Python's `float(value)` for what JSON can hold: numbers as they are; strings with Python's
 * grammar (surrounding whitespace, `_` between digits, inf/infinity/nan); booleans, null and
 * anything else give undefined (the reference's "missing or boolean" and TypeError/ValueError
 * cases). Non-ASCII digits, which Python also accepts, are not supported and give undefined.
 */
export function pyFloat(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'string') return undefined;
  const s = pyStrip(value);
  if (PY_SPECIAL.test(s)) {
    if (/nan/i.test(s)) return NaN;
    return s.startsWith('-') ? -Infinity : Infinity;
  }
  if (!PY_FLOAT.test(s)) return undefined;
  return Number(s.replaceAll('_', '')); // JS decimal parsing is correctly rounded, as CPython's
}
