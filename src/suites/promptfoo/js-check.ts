// promptfoo's inline `javascript` assert: a JavaScript expression over `output` (and `context.vars`),
// or a multi-line function body that returns. evalog runs it as a grader, so it must give the same
// verdict on every replay: the source passes the sandbox's static rules (no clock, no modules, no
// host, no code generation), runs in a fresh vm context with only its inputs (copied in as JSON)
// and a time budget, and Math.random throws. The config is the user's own code, trusted as a suite
// file is; this is about determinism, not containment. `file://` scripts and `const …; expr` lines
// are refused: write one expression, or a body with `return`.
import vm from 'node:vm';
import { staticCheck } from '../../sandbox/index.js';
import { refuse, type Where } from './errors.js';
import { FILE_PREFIX } from './sources.js';

const FUNCTION = 'check';
/** How long one check may run before it is a grading error. */
export const JS_CHECK_TIMEOUT_MS = 1_000;

const scripts = new Map<string, vm.Script>();

/** The function source a check compiles to; refuses what evalog does not run, naming why. */
export function compileJsCheck(where: Where, code: string): string {
  const body = code.trimEnd();
  if (body.trim() === '') throw refuse(where, 'javascript needs an expression');
  if (body.trim().startsWith(FILE_PREFIX)) throw refuse(where, 'javascript from a file:// script is not supported; write the check inline as an expression');
  const multiLine = body.includes('\n');
  const line = body.trim().replace(/;+\s*$/, '');
  if (!multiLine && /^(const|let|var)\s/.test(line))
    throw refuse(where, 'a one-line javascript check must be one expression (write declarations in a multi-line body that ends with return)');
  if (multiLine && !/\breturn\b/.test(body)) throw refuse(where, 'a multi-line javascript check is a function body and must return its result');
  const source = `function ${FUNCTION}(output, context) {\n${multiLine ? body : `return (${line});`}\n}`;
  const checked = staticCheck(source, FUNCTION);
  if (!checked.ok) throw refuse(where, `javascript check: ${checked.reason ?? 'not valid'}`);
  return source;
}

/** Runs a compiled check on one output; what it returned, as JSON. Throws (a grading error) when it throws or runs too long. */
export function runJsCheck(source: string, output: string, vars: Readonly<Record<string, unknown>>): unknown {
  let script = scripts.get(source);
  if (!script) {
    // The inputs are parsed inside the context, so no object of this realm is reachable from the check.
    script = new vm.Script(
      `${source}\n;(function () {\n` +
        '  Math.random = function () { throw new Error("Math.random is not allowed in a check: grading must be deterministic"); };\n' +
        '  var i = JSON.parse(__input);\n' +
        `  var r = ${FUNCTION}(i.output, { vars: i.vars });\n` +
        '  if (r !== null && typeof r === "object" && typeof r.then === "function") throw new Error("the check returned a Promise: it must be synchronous");\n' +
        '  return JSON.stringify(r === undefined ? null : r);\n' +
        '})()',
    );
    scripts.set(source, script);
  }
  const context = vm.createContext({ __input: JSON.stringify({ output, vars }) }, { codeGeneration: { strings: false, wasm: false } });
  const out: unknown = script.runInContext(context, { timeout: JS_CHECK_TIMEOUT_MS });
  return typeof out === 'string' ? JSON.parse(out) : null;
}
