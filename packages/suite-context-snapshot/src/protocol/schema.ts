// What the Python loader printed for cases.py and prompts.py, validated field by field. The loader
// only converts Python values to JSON; every rule of the protocol's form is checked here, and a
// violation is one line naming the file, the case and the field.
import { z } from 'zod';
import { ProtocolFileError } from './errors.js';
import type { ProtocolCase, ProtocolPrompts } from './types.js';

// Case names become job and file names in a run, so they are kept to a safe alphabet.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const Check = z.object({ args: z.array(z.unknown()), want: z.unknown().optional(), raises: z.string().min(1).optional() }).strict();

const CaseFields = z
  .object({
    name: z.string().regex(NAME, 'must be letters, digits, _ or - (it names jobs and files)'),
    category: z.string().min(1),
    kind: z.enum(['json', 'python']),
    brief: z.string().min(1),
    history: z.array(z.object({ role: z.enum(['user', 'assistant', 'tool']), content: z.string() }).strict()),
    expected: z.record(z.string(), z.unknown()).nullable(),
    summary: z.string(),
    references: z.record(z.string(), z.string()),
    function: z.string().nullable(),
    checks: z.array(Check),
  })
  .strict();

/** A printed case the loader could not convert: the field and why. */
const Invalid = z.object({ name: z.unknown().optional(), $invalid: z.object({ field: z.string(), detail: z.string() }) });

const fieldOf = (path: readonly PropertyKey[]): string => (path.length === 0 ? '(case)' : path.map(String).join('.'));

/** The first issue as `field: detail` (unknown keys named as fields). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') return `${issue.keys.map((k) => fieldOf([...issue.path, k])).join(', ')}: unknown field`;
  return `${fieldOf(issue.path)}: ${issue.message}`;
}

const label = (index: number, name: unknown): string => (typeof name === 'string' && name !== '' ? `case "${name}" (#${index})` : `case #${index}`);

/** The kind's own rules, beyond the field types: which fields a JSON and a Python case carry. */
function kindRule(c: z.infer<typeof CaseFields>): string | null {
  if (c.kind === 'json') {
    if (c.expected === null) return 'expected: a json case needs the expected object';
    if (Object.keys(c.expected).length === 0) return 'expected: has no keys, so nothing would be checked';
    if (c.checks.length > 0) return 'checks: a json case has no checks (its expected keys are the checks)';
    if (c.function !== null) return 'function: a json case names no function';
    return null;
  }
  if (c.function === null || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(c.function)) return 'function: a python case needs the name of the function its artifact defines';
  if (c.expected !== null) return 'expected: a python case has checks, not an expected object';
  if (c.checks.length === 0) return 'checks: a python case needs at least one check';
  for (const [i, check] of c.checks.entries()) {
    const want = Object.hasOwn(check, 'want');
    const raises = Object.hasOwn(check, 'raises');
    if (want === raises) return `checks.${i}: needs exactly one of want and raises`;
  }
  return null;
}

/** Validates the printed CASES of `file`. */
export function parseProtocolCases(value: unknown, file: string): ProtocolCase[] {
  if (!Array.isArray(value)) throw new ProtocolFileError(file, 'CASES is not a list');
  if (value.length === 0) throw new ProtocolFileError(file, 'CASES is empty');
  const seen = new Set<string>();
  return value.map((raw, index) => {
    const invalid = Invalid.safeParse(raw);
    if (invalid.success)
      throw new ProtocolFileError(file, `${label(index, invalid.data.name)}: ${invalid.data.$invalid.field}: ${invalid.data.$invalid.detail}`);
    const name = (raw as { name?: unknown } | null)?.name;
    const parsed = CaseFields.safeParse(raw);
    if (!parsed.success) throw new ProtocolFileError(file, `${label(index, name)}: ${firstIssue(parsed.error)}`);
    const c = parsed.data;
    const broken = kindRule(c);
    if (broken !== null) throw new ProtocolFileError(file, `${label(index, c.name)}: ${broken}`);
    if (seen.has(c.name)) throw new ProtocolFileError(file, `${label(index, c.name)}: name: duplicate case name`);
    seen.add(c.name);
    return c as ProtocolCase;
  });
}

/** The arms a protocol's dispatch policies name (the suite runs exactly these). */
export const PROTOCOL_ARMS = ['isolated_handoff', 'snapshot'] as const;

const Prompts = z
  .object({
    WORKER_SYSTEM: z.string().min(1),
    LEAD_SYSTEM: z.string().min(1),
    DISPATCH_POLICIES: z.object({ isolated_handoff: z.string().min(1), snapshot: z.string().min(1) }).strict(),
  })
  .strict();

/** Validates the printed constants of prompts.py; `invalid` names constants Python could not print. */
export function parseProtocolPrompts(value: unknown, invalid: Record<string, string> | undefined, file: string): ProtocolPrompts {
  const [bad] = Object.entries(invalid ?? {});
  if (bad) throw new ProtocolFileError(file, `${bad[0]}: ${bad[1]}`);
  const parsed = Prompts.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    throw new ProtocolFileError(file, missing ? `${fieldOf(issue.path)}: not defined` : firstIssue(parsed.error).replace(/^\(case\)/, '(file)'));
  }
  const p = parsed.data;
  return { workerSystem: p.WORKER_SYSTEM, leadSystem: p.LEAD_SYSTEM, dispatchPolicies: { ...p.DISPATCH_POLICIES } };
}
