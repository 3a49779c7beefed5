// The JSON scorers: the output is JSON (one Markdown ``` fence allowed around it, nothing else), and
// the JSON matches a schema: a zod schema, or a JSON Schema object of json-schema.ts's subset (given
// to the scorer, or the case's `expected`). Pure functions of the output and the schema, blind to the arm.
import { type $ZodType, safeParse } from 'zod/v4/core';
import { preview } from '../sandbox/json-equal.js';
import { compileJsonSchema, type CompiledSchema, JsonSchemaError, type SchemaIssue } from './json-schema.js';
import { parseJsonOutput, ScorerOptionError } from './kit.js';
import type { Scorer, Verdict } from './types.js';

/** The output is JSON: the whole text, or the whole text inside one ``` fence (prose around it is not JSON). `expected` is not used. */
export function isJson(): Scorer {
  return {
    name: 'is-json',
    problem: () => null,
    score(output) {
      const parsed = parseJsonOutput(output);
      return parsed.ok
        ? { passed: true, detail: `output is JSON (${kindOf(parsed.value)})` }
        : { passed: false, detail: `expected JSON, got ${preview(output)}` };
    },
  };
}

/** A schema `jsonSchema` checks with: a zod schema (classic or mini), or a JSON Schema object (or boolean). */
export type SchemaArgument = $ZodType | Record<string, unknown> | boolean;

/** How many issues a failure reason lists before it says how many more there are. */
const SHOWN_ISSUES = 3;

/**
 * The output is JSON (as `isJson` reads it) that matches the schema: the one given, else the case's
 * `expected` read as a JSON Schema. A JSON Schema with a keyword outside the subset is refused when
 * the scorer is built (or, from `expected`, when the cases load), naming the keyword.
 */
export function jsonSchema(schema?: SchemaArgument): Scorer {
  const name = 'json-schema';
  const fixed = schema === undefined ? null : validatorOf(schema, (m) => new ScorerOptionError(`${name}: ${m}`));
  return {
    name,
    problem(expected) {
      if (fixed !== null) return null;
      if (expected === undefined) return 'has no "expected"';
      try {
        validatorOf(expected, (m) => new JsonSchemaError(m));
        return null;
      } catch (err) {
        if (err instanceof JsonSchemaError) return `"expected" is not a schema grader ${name} can use: ${err.message}`;
        throw err;
      }
    },
    score(output, expected) {
      const parsed = parseJsonOutput(output);
      if (!parsed.ok) return { passed: false, detail: `expected JSON matching the schema, got non-JSON ${preview(output)}` };
      // `expected` has passed problem(), so it compiles.
      const validate = fixed ?? validatorOf(expected, (m) => new JsonSchemaError(m));
      return validate(parsed.value);
    },
  };
}

type Validator = (value: unknown) => Verdict;

function validatorOf(schema: unknown, fail: (message: string) => Error): Validator {
  if (isZodSchema(schema)) return zodValidator(schema);
  let compiled: CompiledSchema;
  try {
    compiled = compileJsonSchema(schema);
  } catch (err) {
    if (err instanceof JsonSchemaError) throw fail(err.message);
    throw err;
  }
  return (value) => issuesVerdict(compiled.validate(value));
}

function zodValidator(schema: $ZodType): Validator {
  return (value) => {
    let result: ReturnType<typeof safeParse>;
    try {
      result = safeParse(schema, value);
    } catch (err) {
      // A refinement that throws, or an async one in this synchronous check: the schema could not decide.
      return { passed: false, detail: `grading error: the zod schema threw: ${oneLine(err)}`, error: true };
    }
    if (result.success) return issuesVerdict([]);
    return issuesVerdict(result.error.issues.map((i) => ({ path: zodPath(i.path), message: i.message })));
  };
}

function issuesVerdict(issues: readonly SchemaIssue[]): Verdict {
  if (issues.length === 0) return { passed: true, detail: 'output matches the schema' };
  const listed = issues.slice(0, SHOWN_ISSUES).map((i) => `${i.path}: ${i.message}`);
  const more = issues.length > SHOWN_ISSUES ? `; and ${issues.length - SHOWN_ISSUES} more` : '';
  return { passed: false, detail: `output does not match the schema: ${listed.join('; ')}${more}` };
}

function isZodSchema(v: unknown): v is $ZodType {
  return v !== null && typeof v === 'object' && '_zod' in v && typeof (v as { _zod: unknown })._zod === 'object';
}

/** A zod issue path written like the JSON Schema ones: `$`, `$.a[0]`, `$["a b"]`. */
function zodPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else if (typeof k === 'string' && /^[A-Za-z_$][\w$]*$/.test(k)) out += `.${k}`;
    else out += `[${JSON.stringify(String(k))}]`;
  }
  return out;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, ' ').trim();
}
