// Timestamp parsing of the A4 selector: Python 3.11 `datetime.fromisoformat` after `strip()` and
// `replace("Z", "+00:00")`, naive values taken as UTC, then converted to UTC. Instants are kept as
// bigint microseconds since the Unix epoch, the resolution of Python's datetime, so elapsed times
// are the exact integers Python's timedelta holds.

/** Python's `str.isspace()` characters (what `str.strip()` removes); JS `trim()` differs (U+FEFF, U+001C–U+001F, U+0085). */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python's `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(STRIP, '');
}

const US_PER_SECOND = 1_000_000n;
const US_PER_DAY = 86_400n * US_PER_SECOND;
/** 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999999 as epoch microseconds: Python's datetime range. */
const MIN_US = BigInt(daysFromCivil(1, 1, 1)) * US_PER_DAY;
const MAX_US = BigInt(daysFromCivil(9999, 12, 31) + 1) * US_PER_DAY - 1n;

/** A datetime outside Python's range after the UTC conversion; Python raises OverflowError there (not caught by the selector). */
export class DatetimeOverflowError extends RangeError {
  override name = 'DatetimeOverflowError';
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** ISO week date → days since the epoch, with Python's week/day range checks; undefined when invalid. */
function isoWeekDays(year: number, week: number, day: number): number | undefined {
  const jan1 = daysFromCivil(year, 1, 1);
  const jan1Weekday = (((jan1 + 3) % 7) + 7) % 7; // 0 = Monday (1970-01-01 was a Thursday)
  if (week < 1 || week > 53) return undefined;
  if (week === 53 && !(jan1Weekday === 3 || (jan1Weekday === 2 && isLeap(year)))) return undefined;
  if (day < 1 || day > 7) return undefined;
  // Monday of ISO week 1 is the Monday of the week holding January 4th.
  const jan4 = jan1 + 3;
  const week1Monday = jan4 - ((((jan4 + 3) % 7) + 7) % 7);
  return week1Monday + (week - 1) * 7 + (day - 1);
}

/** Where the date part ends (CPython's `_find_isoformat_datetime_separator`), over code points. */
function separatorIndex(s: readonly string[]): number | undefined {
  const n = s.length;
  if (n === 7) return 7;
  const digit = (i: number) => i < n && s[i]! >= '0' && s[i]! <= '9' && s[i]!.length === 1;
  if (s[4] === '-') {
    if (s[5] !== 'W') return 10;
    if (n > 8 && s[8] === '-') {
      if (n === 9) return undefined;
      return n > 10 && digit(10) ? 8 : 10;
    }
    return 8;
  }
  if (s[4] === 'W') {
    let idx = 7;
    while (idx < n && digit(idx)) idx++;
    if (idx < 9) return idx;
    return idx % 2 === 0 ? 7 : 8;
  }
  return 8;
}

/** Days since the epoch of a date part (YYYY-MM-DD, YYYYMMDD, YYYY-Www[-D], YYYYWww[D]); undefined when invalid. */
function parseDatePart(d: string): number | undefined {
  let m = /^(\d{4})(-?)(\d{2})\2(\d{2})$/.exec(d);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[3]), Number(m[4])];
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
    return daysFromCivil(year, month, day);
  }
  m = /^(\d{4})(-?)W(\d{2})(?:\2(\d))?$/.exec(d);
  if (m) {
    const days = isoWeekDays(Number(m[1]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4]));
    // The resulting calendar date must lie in years 1..9999 (Python: "year 10000 is out of range").
    if (days === undefined || days < daysFromCivil(1, 1, 1) || days > daysFromCivil(9999, 12, 31)) return undefined;
    return days;
  }
  return undefined;
}

interface Clock {
  /** 0: ended at the end of the string; 1: stopped before a non-NUL character; negative: malformed. */
  readonly rv: number;
  readonly h: number;
  readonly mi: number;
  readonly s: number;
  readonly us: number;
}

const CORRECTION = [100000, 10000, 1000, 100, 10];

/**
 * CPython 3.11's `parse_hh_mm_ss_ff` over the UTF-8 bytes `b` between `start` and `end`, reading
 * past `end` as C does (the byte there, or NUL past the string). Its quirks are kept, e.g. a
 * fraction may follow the hours or minutes (`12.5` is 12:00:00.5) and `12:30:15:5` is 12:30:15.5.
 */
function parseClock(b: Uint8Array, start: number, end: number): Clock {
  const at = (i: number) => (i < b.length ? b[i]! : 0);
  const isDigit = (c: number) => c >= 48 && c <= 57;
  const digits = (p: number, n: number): number | undefined => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const c = at(p + i);
      if (!isDigit(c)) return undefined;
      v = v * 10 + (c - 48);
    }
    return v;
  };
  const vals = [0, 0, 0];
  let p = start;
  let hasSeparator = true;
  let done: number | undefined;
  for (let i = 0; i < 3; i++) {
    const v = digits(p, 2);
    if (v === undefined) return { rv: -3, h: 0, mi: 0, s: 0, us: 0 };
    vals[i] = v;
    p += 2;
    const c = at(p++);
    if (i === 0) hasSeparator = c === 58; // ':'
    if (p >= end) {
      done = c !== 0 ? 1 : 0;
      break;
    } else if (hasSeparator && c === 58) {
      // ':' before the next field: on to it (CPython's `continue`, the last statement of the loop here)
    } else if (c === 46 || c === 44) {
      // '.' or ','
      break;
    } else if (!hasSeparator) {
      p--;
    } else {
      return { rv: -4, h: 0, mi: 0, s: 0, us: 0 };
    }
  }
  const [h, mi, s] = vals as [number, number, number];
  if (done !== undefined) return { rv: done, h, mi, s, us: 0 };
  const toParse = Math.min(end - p, 6);
  const frac = digits(p, toParse);
  if (frac === undefined) return { rv: -3, h: 0, mi: 0, s: 0, us: 0 };
  const us = toParse > 0 && toParse < 6 ? frac * CORRECTION[toParse - 1]! : frac;
  p += toParse;
  while (isDigit(at(p))) p++; // digits past the sixth are dropped
  return { rv: at(p) !== 0 ? 1 : 0, h, mi, s, us };
}

/** CPython 3.11's `parse_isoformat_time`: local time of day and optional UTC offset, in microseconds. */
function parseTimePart(t: string): { localUs: bigint; offsetUs: bigint | undefined } | undefined {
  const b = new TextEncoder().encode(t);
  const end = b.length;
  let tz = 0;
  do {
    if (b[tz] === 43 || b[tz] === 45) break; // '+' or '-' ('Z' was already replaced)
  } while (++tz < end);
  const clock = parseClock(b, 0, tz);
  if (clock.rv < 0) return undefined;
  if (clock.h > 23 || clock.mi > 59 || clock.s > 59) return undefined;
  const localUs = BigInt((clock.h * 60 + clock.mi) * 60 + clock.s) * US_PER_SECOND + BigInt(clock.us);
  if (tz >= end) return clock.rv === 1 ? undefined : { localUs, offsetUs: undefined };
  // With an offset, the clock's "stopped early" result is not checked: CPython accepts `12:30x+05`.
  const off = parseClock(b, tz + 1, end);
  if (off.rv !== 0) return undefined;
  const offSeconds = (off.h * 60 + off.mi) * 60 + off.s;
  // CPython takes a zero whole-second offset as UTC and drops its microseconds.
  const offUs = offSeconds === 0 ? 0n : BigInt(offSeconds) * US_PER_SECOND + BigInt(off.us);
  if (offUs >= US_PER_DAY) return undefined; // Python: |offset| must be strictly below 24 hours
  return { localUs, offsetUs: b[tz] === 45 ? -offUs : offUs };
}

/**
 * Parses a timestamp the way the selector's `_parse_datetime` does: non-strings and blank strings
 * are undefined; the string is stripped, every `Z` becomes `+00:00`, and CPython 3.11's
 * `datetime.fromisoformat` grammar applies, quirks included (extended or basic dates, ISO week
 * dates, any single separator character, `.`/`,` fractions, offsets below ±24 h). A naive value is
 * UTC. Returns epoch microseconds, or undefined where Python raises ValueError. Throws
 * DatetimeOverflowError where Python's `astimezone(UTC)` overflows (offsets at year 1 or 9999).
 */
export function parseIsoMicros(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const stripped = pyStrip(value);
  if (stripped === '') return undefined;
  const cps = [...stripped.replaceAll('Z', '+00:00')];
  if (cps.length < 7) return undefined;
  const sep = separatorIndex(cps);
  if (sep === undefined) return undefined;
  const days = parseDatePart(cps.slice(0, sep).join(''));
  if (days === undefined) return undefined;
  let time: { localUs: bigint; offsetUs: bigint | undefined } | undefined = { localUs: 0n, offsetUs: undefined };
  if (cps.length > sep) {
    const rest = cps.slice(sep + 1).join('');
    time = rest === '' ? undefined : parseTimePart(rest);
  }
  if (!time) return undefined;
  const utc = BigInt(days) * US_PER_DAY + time.localUs - (time.offsetUs ?? 0n);
  if (utc < MIN_US || utc > MAX_US) throw new DatetimeOverflowError(`date value out of range: ${JSON.stringify(value)}`);
  return utc;
}

/** Epoch milliseconds (a Date-ms number, fractions kept to the microsecond) as epoch microseconds. */
export function msToMicros(ms: number): bigint {
  if (!Number.isFinite(ms)) throw new RangeError(`now must be a finite epoch-milliseconds number, got ${ms}`);
  return BigInt(Math.round(ms * 1000));
}

/** Elapsed days from `then` to `now`: Python's `(now - then).total_seconds() / 86400` (exact integer µs, one rounding, then one more). */
export function elapsedDays(nowUs: bigint, thenUs: bigint): number {
  return microsToSeconds(nowUs - thenUs) / 86400;
}

/** `timedelta.total_seconds()`: µs / 10^6 correctly rounded, as Python's int true division. */
function microsToSeconds(us: bigint): number {
  const abs = us < 0n ? -us : us;
  if (abs <= 9007199254740992n) return Number(us) / 1e6; // both operands exact: one IEEE rounding
  // Past 2^53 µs (≈ 285 years): 64 extra quotient bits plus a sticky bit, then Number() rounds
  // once (ties to even, per the spec); dividing by 2^64 afterwards is exact.
  const scaled = abs << 64n;
  const q = (scaled / US_PER_SECOND) | (scaled % US_PER_SECOND === 0n ? 0n : 1n);
  const value = Number(q) / 2 ** 64;
  return us < 0n ? -value : value;
}
