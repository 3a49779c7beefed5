// The few graders a promptfoo config needs that evalog's graders do not have as such: starts-with,
// contains-json (JSON somewhere in the text), promptfoo's `not-` (the verdict turned over) and its
// weight 0 (shown, never failing the test), and a judged part shown a sample of the assert's own.
import { compileJsonSchema, isScorer } from '../../graders/index.js';
import type { AnyScorer, JudgedScorer, JudgeSample, Scorer, Verdict } from '../../graders/index.js';
import { shown } from './errors.js';

/** The output starts with `prefix` (case kept, nothing trimmed, as promptfoo compares). */
export function startsWith(prefix: string): Scorer {
  return {
    name: 'starts-with',
    problem: () => null,
    score: (output) =>
      output.startsWith(prefix)
        ? { passed: true, detail: `output starts with ${shown(prefix)}` }
        : { passed: false, detail: `expected the output to start with ${shown(prefix)}, got ${shown(output)}` },
  };
}

/** Some JSON object or array appears in the output (and, given a schema, one of them matches it). */
export function containsJson(schema: unknown): Scorer {
  const compiled = schema === null || schema === undefined ? null : compileJsonSchema(schema);
  return {
    name: 'contains-json',
    problem: () => null,
    score(output) {
      const found = jsonIn(output);
      if (found.length === 0) return { passed: false, detail: `expected JSON in the output, got ${shown(output)}` };
      if (compiled === null) return { passed: true, detail: `output contains JSON (${found.length} value${found.length === 1 ? '' : 's'})` };
      let first = '';
      for (const v of found) {
        const issues = compiled.validate(v);
        if (issues.length === 0) return { passed: true, detail: 'output contains JSON that matches the schema' };
        if (first === '') first = `${issues[0]!.path}: ${issues[0]!.message}`;
      }
      return { passed: false, detail: `no JSON in the output matches the schema (first: ${first})` };
    },
  };
}

/** Every JSON object or array in `text`, left to right, each the first balanced span that parses. */
export function jsonIn(text: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== '{' && c !== '[') {
      i += 1;
      continue;
    }
    const end = balancedEnd(text, i);
    if (end > 0) {
      try {
        out.push(JSON.parse(text.slice(i, end)));
        i = end;
        continue;
      } catch {
        // not JSON from here: try the next bracket
      }
    }
    i += 1;
  }
  return out;
}

// The index after the bracket that closes the one at `start` (strings skipped), or -1.
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** promptfoo's `not-<type>`: passes when the part fails; a part that could not decide stays undecided. */
export function negated(s: AnyScorer): AnyScorer {
  const name = `not-${s.name}`;
  const turn = (v: Verdict): Verdict =>
    v.error === true ? v : { passed: !v.passed, detail: `${v.passed ? 'the check held, so it fails' : 'the check did not hold, so it passes'}: ${v.detail}` };
  if (isScorer(s)) return { name, problem: s.problem, score: (o, e, c) => turn(s.score(o, e, c)) } satisfies Scorer;
  return { name, problem: s.problem, grade: async (port, sample) => turn(await s.grade(port, sample)) } satisfies JudgedScorer;
}

/** promptfoo's weight 0: the part is graded and shown, and counts as passed (undecided stays undecided). */
export function weightless(s: AnyScorer): AnyScorer {
  const keep = (v: Verdict): Verdict =>
    v.error === true ? v : { passed: true, detail: `weight 0, counted as passed (${v.passed ? 'passed' : 'failed'}): ${v.detail}` };
  if (isScorer(s)) return { name: s.name, problem: s.problem, score: (o, e, c) => keep(s.score(o, e, c)) } satisfies Scorer;
  return { name: s.name, problem: s.problem, grade: async (port, sample) => keep(await s.grade(port, sample)) } satisfies JudgedScorer;
}

/** A judged part shown its own `expected` (null, or a reference answer), never the case's list of asserts. */
export function judgedWith(s: JudgedScorer, expected: unknown): JudgedScorer {
  return { name: s.name, problem: () => null, grade: (port, sample: JudgeSample) => s.grade(port, { ...sample, expected }) };
}
