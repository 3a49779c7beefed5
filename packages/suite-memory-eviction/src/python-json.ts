/**
 * Python-compatible JSON: `json.dumps(value, ensure_ascii=False[, sort_keys=True])` with the
 * default separators `", "` and `": "`, and a `json.loads` that keeps the int/float distinction.
 *
 * JavaScript has one number type, so a float whose value is whole (Python writes `0.0`, `3.0`)
 * must be marked: wrap it in `PyFloat`, or name its key in `floatFields`. Numbers that are not
 * whole are always floats. Whole numbers are ints unless marked.
 */
import { cpCompare } from './text.js';

/** A Python float, kept as such through parsing and serialisation. */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** Python `repr(float)` as `json.dumps` writes it (`NaN`, `Infinity`, `-Infinity` for the specials). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest round-trip digits, like Python's repr.
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const padded = digits.padEnd(exp + 1, '0');
    const frac = padded.slice(exp + 1);
    return `${sign}${padded.slice(0, exp + 1)}.${frac === '' ? '0' : frac}`;
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const e = Math.abs(exp);
  return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
}

export interface PythonJsonOptions {
  /** Sort object keys at every depth (Python `sort_keys=True`, code-point order). Default true. */
  sortKeys?: boolean;
  /** Keys (at any depth) whose numeric values are Python floats, e.g. `temperature`. */
  floatFields?: Iterable<string>;
}

/** `json.dumps(value, ensure_ascii=False, sort_keys=...)` with Python's default separators. */
export function pythonJson(value: unknown, options: PythonJsonOptions = {}): string {
  const sortKeys = options.sortKeys ?? true;
  const floatFields = new Set(options.floatFields ?? []);
  const out: string[] = [];
  const seen = new Set<object>();

  const write = (v: unknown, asFloat: boolean): void => {
    if (v === null) return void out.push('null');
    if (v instanceof PyFloat) return void out.push(pyFloatRepr(v.value));
    switch (typeof v) {
      case 'string':
        // JSON.stringify escapes exactly what Python does with ensure_ascii=False
        // (", \, \b \f \n \r \t, other controls as \u00xx) and keeps everything else raw.
        return void out.push(JSON.stringify(v));
      case 'boolean':
        return void out.push(v ? 'true' : 'false');
      case 'bigint':
        return void out.push(v.toString());
      case 'number':
        if (asFloat || !Number.isInteger(v)) return void out.push(pyFloatRepr(v));
        return void out.push(BigInt(v).toString());
      case 'object':
        break;
      default:
        throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
    }
    const obj = v as object;
    if (seen.has(obj)) throw new TypeError('Circular reference detected');
    seen.add(obj);
    if (Array.isArray(obj)) {
      out.push('[');
      obj.forEach((item, i) => {
        if (i > 0) out.push(', ');
        write(item === undefined ? null : item, false);
      });
      out.push(']');
    } else {
      const entries = Object.entries(obj).filter(([, x]) => x !== undefined);
      if (sortKeys) entries.sort(([a], [b]) => cpCompare(a, b));
      out.push('{');
      entries.forEach(([k, x], i) => {
        if (i > 0) out.push(', ');
        out.push(JSON.stringify(k), ': ');
        write(x, floatFields.has(k));
      });
      out.push('}');
    }
    seen.delete(obj);
  };

  write(value, false);
  return out.join('');
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * `json.loads(text)`: like JSON.parse, but floats come back as `PyFloat` (so `3.0` stays a float),
 * ints outside the safe range as `bigint`, and `NaN`/`Infinity`/`-Infinity` are accepted.
 */
export function parsePythonJson(text: string): unknown {
  let i = 0;
  const n = text.length;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const literal = (word: string, value: unknown): unknown => {
    if (!text.startsWith(word, i)) fail('Expecting value');
    i += word.length;
    return value;
  };
  const string = (): string => {
    const start = i;
    let escaped = false;
    i++;
    for (;;) {
      if (i >= n) fail('Unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail('Invalid control character');
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    if (!escaped) return text.slice(start + 1, i - 1);
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('Invalid \\escape in string');
    }
  };
  const number = (): unknown => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null) return fail('Expecting value');
    i = NUMBER.lastIndex;
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(Number(m[0]));
    const v = Number(m[0]);
    return Number.isSafeInteger(v) ? v : BigInt(m[0]);
  };
  const value = (): unknown => {
    skipWs();
    const c = text[i];
    switch (c) {
      case '{': {
        i++;
        const obj: Record<string, unknown> = {};
        skipWs();
        if (text[i] === '}') {
          i++;
          return obj;
        }
        for (;;) {
          skipWs();
          if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
          const key = string();
          skipWs();
          if (text[i] !== ':') fail("Expecting ':' delimiter");
          i++;
          const v = value();
          Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
          skipWs();
          if (text[i] === ',') i++;
          else if (text[i] === '}') {
            i++;
            return obj;
          } else fail("Expecting ',' delimiter");
        }
      }
      case '[': {
        i++;
        const arr: unknown[] = [];
        skipWs();
        if (text[i] === ']') {
          i++;
          return arr;
        }
        for (;;) {
          arr.push(value());
          skipWs();
          if (text[i] === ',') i++;
          else if (text[i] === ']') {
            i++;
            return arr;
          } else fail("Expecting ',' delimiter");
        }
      }
      case '"':
        return string();
      case 't':
        return literal('true', true);
      case 'f':
        return literal('false', false);
      case 'n':
        return literal('null', null);
      case 'N':
        return literal('NaN', new PyFloat(NaN));
      case 'I':
        return literal('Infinity', new PyFloat(Infinity));
      case '-':
        if (text.startsWith('-Infinity', i)) return literal('-Infinity', new PyFloat(-Infinity));
        return number();
      default:
        return number();
    }
  };
  const result = value();
  skipWs();
  if (i !== n) fail('Extra data');
  return result;
}
