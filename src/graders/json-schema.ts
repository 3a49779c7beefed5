// A validator for the subset of JSON Schema that grading needs, written here rather than taken from
// zod's `fromJSONSchema` (zod 4.6): that converter calls itself semi-experimental, silently ignores a
// keyword it does not know (a misspelt "requried" accepts everything), ignores unknown formats and
// writes every unknown key into zod's global registry. A grader's verdicts are recorded and replayed,
// so they must not move with a dependency's minor release, and a keyword it cannot check must be
// refused when the schema is built, never skipped. Deterministic: no clock, no randomness, issues in
// a fixed order (the checks' order below, properties in the schema's order, other keys in the value's).
import { UserError } from '../core/errors.js';
import { jsonEqual, preview } from '../sandbox/json-equal.js';
import { isJsonValue } from './kit.js';

/** A schema that uses a keyword outside the subset, or a keyword with a value it cannot have. */
export class JsonSchemaError extends UserError {
  override name = 'JsonSchemaError';
}

/** One way a value fails its schema: where (`$`, `$.tags[0]`, `$["a b"]`) and what. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/** A checked schema: validate any number of values with it. */
export interface CompiledSchema {
  /** Every issue of `value` (none: it matches). */
  validate(value: unknown): SchemaIssue[];
}

/** The keywords that constrain a value. */
export const CHECKED_KEYWORDS = [
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'anyOf',
] as const;

/** Keywords that only annotate (they constrain nothing), so accepting them changes no verdict. */
export const ANNOTATION_KEYWORDS = [
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
] as const;

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const;
type TypeName = (typeof TYPES)[number];

type Check = (value: unknown, path: string, issues: SchemaIssue[]) => void;

/** Checks `schema` (an object or a boolean, of the subset) and returns its validator; throws JsonSchemaError naming the keyword and where it is. */
export function compileJsonSchema(schema: unknown): CompiledSchema {
  const check = compile(schema, '#');
  return {
    validate(value) {
      const issues: SchemaIssue[] = [];
      check(value, '$', issues);
      return issues;
    },
  };
}

function compile(schema: unknown, at: string): Check {
  if (schema === true) return () => {};
  if (schema === false) return (_v, path, issues) => void issues.push({ path, message: 'no value is allowed here' });
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    throw new JsonSchemaError(`a JSON Schema must be an object or a boolean, got ${preview(schema, 60)} (at ${at})`);
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if ((CHECKED_KEYWORDS as readonly string[]).includes(key) || (ANNOTATION_KEYWORDS as readonly string[]).includes(key)) continue;
    throw new JsonSchemaError(`JSON Schema keyword ${JSON.stringify(key)} at ${at} is not supported (supported: ${CHECKED_KEYWORDS.join(', ')})`);
  }
  const checks: Check[] = [];
  const bad = (key: string, what: string) => new JsonSchemaError(`JSON Schema keyword "${key}" at ${at} must be ${what}, got ${preview(s[key], 60)}`);

  if (s.type !== undefined) {
    const types = typeof s.type === 'string' ? [s.type] : s.type;
    const known = (t: unknown): t is TypeName => typeof t === 'string' && (TYPES as readonly string[]).includes(t);
    if (!Array.isArray(types) || types.length === 0 || !types.every(known) || new Set(types).size !== types.length)
      throw bad('type', `one of ${TYPES.join(', ')}, or a list of distinct ones`);
    const want = types as TypeName[];
    checks.push((v, path, issues) => {
      if (!want.some((t) => hasType(v, t)))
        issues.push({ path, message: `expected ${want.join(' or ')}, got ${v === null ? 'null' : `${kindOf(v)} ${preview(v, 60)}`}` });
    });
  }
  if (s.enum !== undefined) {
    const options = s.enum;
    if (!Array.isArray(options) || options.length === 0 || !options.every(isJsonValue)) throw bad('enum', 'a non-empty list of JSON values');
    checks.push((v, path, issues) => {
      if (!options.some((o) => jsonEqual(o, v))) issues.push({ path, message: `expected one of ${preview(options, 80)}, got ${preview(v, 60)}` });
    });
  }
  if (s.const !== undefined) {
    const c = s.const;
    if (!isJsonValue(c)) throw bad('const', 'a JSON value');
    checks.push((v, path, issues) => {
      if (!jsonEqual(c, v)) issues.push({ path, message: `expected ${preview(c, 60)}, got ${preview(v, 60)}` });
    });
  }
  checks.push(...objectChecks(s, at, bad), ...arrayChecks(s, at, bad), ...stringChecks(s, bad), ...numberChecks(s, bad));
  if (s.anyOf !== undefined) {
    if (!Array.isArray(s.anyOf) || s.anyOf.length === 0) throw bad('anyOf', 'a non-empty list of schemas');
    const branches = s.anyOf.map((b, i) => compile(b, `${at}/anyOf/${i}`));
    checks.push((v, path, issues) => {
      const fits = branches.some((b) => {
        const found: SchemaIssue[] = [];
        b(v, path, found);
        return found.length === 0;
      });
      if (!fits) issues.push({ path, message: `matches none of the ${branches.length} anyOf alternatives` });
    });
  }
  return (v, path, issues) => {
    for (const c of checks) c(v, path, issues);
  };
}

type Bad = (key: string, what: string) => JsonSchemaError;

function objectChecks(s: Record<string, unknown>, at: string, bad: Bad): Check[] {
  const checks: Check[] = [];
  const props = new Map<string, Check>();
  if (s.properties !== undefined) {
    if (s.properties === null || typeof s.properties !== 'object' || Array.isArray(s.properties)) throw bad('properties', 'an object of schemas');
    for (const [key, sub] of Object.entries(s.properties)) props.set(key, compile(sub, `${at}/properties/${pointer(key)}`));
  }
  if (s.required !== undefined) {
    const req = s.required;
    if (!Array.isArray(req) || !req.every((k) => typeof k === 'string') || new Set(req).size !== req.length)
      throw bad('required', 'a list of distinct property names');
    checks.push((v, path, issues) => {
      if (!isObject(v)) return;
      for (const k of req as string[]) if (!Object.hasOwn(v, k)) issues.push({ path, message: `missing required property ${JSON.stringify(k)}` });
    });
  }
  if (props.size > 0) {
    checks.push((v, path, issues) => {
      if (!isObject(v)) return;
      for (const [k, c] of props) if (Object.hasOwn(v, k)) c(v[k], childPath(path, k), issues);
    });
  }
  if (s.additionalProperties !== undefined) {
    const extra = s.additionalProperties === false ? null : compile(s.additionalProperties, `${at}/additionalProperties`);
    checks.push((v, path, issues) => {
      if (!isObject(v)) return;
      for (const k of Object.keys(v)) {
        if (props.has(k)) continue;
        if (extra === null) issues.push({ path, message: `property ${JSON.stringify(k)} is not allowed` });
        else extra(v[k], childPath(path, k), issues);
      }
    });
  }
  return checks;
}

function arrayChecks(s: Record<string, unknown>, at: string, bad: Bad): Check[] {
  const checks: Check[] = [];
  if (s.items !== undefined) {
    if (Array.isArray(s.items))
      throw new JsonSchemaError(`JSON Schema keyword "items" at ${at} is a list (a tuple), which is not supported: give one schema for every item`);
    const item = compile(s.items, `${at}/items`);
    checks.push((v, path, issues) => {
      if (Array.isArray(v)) for (const [i, x] of v.entries()) item(x, `${path}[${i}]`, issues);
    });
  }
  const min = count(s, 'minItems', bad);
  const max = count(s, 'maxItems', bad);
  if (min !== null || max !== null) {
    checks.push((v, path, issues) => {
      if (!Array.isArray(v)) return;
      if (min !== null && v.length < min) issues.push({ path, message: `expected at least ${min} item(s), got ${v.length}` });
      if (max !== null && v.length > max) issues.push({ path, message: `expected at most ${max} item(s), got ${v.length}` });
    });
  }
  return checks;
}

function stringChecks(s: Record<string, unknown>, bad: Bad): Check[] {
  const checks: Check[] = [];
  const min = count(s, 'minLength', bad);
  const max = count(s, 'maxLength', bad);
  if (min !== null || max !== null) {
    checks.push((v, path, issues) => {
      if (typeof v !== 'string') return;
      // JSON Schema counts characters as code points: "👍" is one, though it is two UTF-16 units.
      const n = [...v].length;
      if (min !== null && n < min) issues.push({ path, message: `expected at least ${min} character(s), got ${n}` });
      if (max !== null && n > max) issues.push({ path, message: `expected at most ${max} character(s), got ${n}` });
    });
  }
  if (s.pattern !== undefined) {
    const source = s.pattern;
    if (typeof source !== 'string') throw bad('pattern', 'a string');
    let re: RegExp;
    try {
      // JSON Schema patterns are ECMA-262 with Unicode semantics, and not anchored. No `g`: test() keeps no state.
      re = new RegExp(source, 'u');
    } catch (err) {
      throw bad('pattern', `a valid regular expression (${(err as Error).message})`);
    }
    checks.push((v, path, issues) => {
      if (typeof v === 'string' && !re.test(v)) issues.push({ path, message: `expected a match for pattern ${JSON.stringify(source)}, got ${preview(v, 60)}` });
    });
  }
  return checks;
}

function numberChecks(s: Record<string, unknown>, bad: Bad): Check[] {
  const bound = (key: string): number | null => {
    const b = s[key];
    if (b === undefined) return null;
    if (typeof b === 'boolean' && key.startsWith('exclusive')) throw bad(key, 'a number (the draft-4 boolean form is not supported)');
    if (typeof b !== 'number' || !Number.isFinite(b)) throw bad(key, 'a finite number');
    return b;
  };
  const rules: [number | null, (v: number, b: number) => boolean, string][] = [
    [bound('minimum'), (v, b) => v >= b, 'at least'],
    [bound('maximum'), (v, b) => v <= b, 'at most'],
    [bound('exclusiveMinimum'), (v, b) => v > b, 'more than'],
    [bound('exclusiveMaximum'), (v, b) => v < b, 'less than'],
  ];
  const active = rules.filter((r): r is [number, (v: number, b: number) => boolean, string] => r[0] !== null);
  if (active.length === 0) return [];
  return [
    (v, path, issues) => {
      if (typeof v !== 'number') return;
      for (const [b, ok, words] of active) if (!ok(v, b)) issues.push({ path, message: `expected ${words} ${b}, got ${v}` });
    },
  ];
}

function count(s: Record<string, unknown>, key: string, bad: Bad): number | null {
  const n = s[key];
  if (n === undefined) return null;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw bad(key, 'a non-negative integer');
  return n;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function hasType(v: unknown, t: TypeName): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'string':
      return typeof v === 'string';
  }
}

/** The JSON kind of a value, as a reason names it (`1.5` is a number, `2` an integer). */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A value path: `$.name`, `$.tags[0]`; a key that is not an identifier in brackets, `$["first name"]`. */
function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** A JSON Pointer segment (RFC 6901), for where in the schema a keyword is. */
function pointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
