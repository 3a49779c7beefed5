// Shapes shared by the static check, the child-process runner and the graders that use them.

/** One call of the artifact's function: JSON arguments, and either an expected value or an expected error name. */
export interface SandboxCheck {
  id: string;
  args: unknown[];
  expect?: unknown;
  throws?: string;
}

/**
 * How one check ended. `passed` is the only verdict; the others say why it failed, so callers
 * (and tests) can tell a wrong answer from a timeout or a crash of the sandbox process.
 */
export type SandboxStatus =
  | 'passed'
  | 'wrong-value' // returned, but not the expected value (or returned where an error was expected)
  | 'wrong-error' // threw, but not the expected error (or threw where a value was expected)
  | 'mutated' // changed one of its arguments
  | 'unserialisable' // returned something that is not plain JSON (undefined, NaN, a Map, a Promise...)
  | 'load-error' // the artifact threw while being defined, or did not compile
  | 'not-a-function' // the artifact ran but `functionName` is not a function
  | 'timeout' // the per-check or per-run time limit
  | 'memory' // the process hit the heap cap
  | 'crashed' // the process died for another reason
  | 'invalid'; // not run: the artifact failed the static check

/** The result of one check. */
export interface SandboxCheckResult {
  id: string;
  passed: boolean;
  status: SandboxStatus;
  /** Human-readable: "ok", "expected 3, got 4", "threw TypeError: ...". */
  detail: string;
}

/** A construct the static check refuses, with where it is (1-based line, 0-based column). */
export interface Violation {
  construct: string;
  line: number;
  column: number;
}

/** The static check's verdict on a source text. */
export interface StaticCheckResult {
  ok: boolean;
  /** Banned constructs found (empty when `ok` or when the text does not parse). */
  violations: Violation[];
  /** The parser's message when the text is not valid strict-mode JavaScript, else null. */
  syntaxError: string | null;
  /** Whether `functionName` is bound at the top level (function declaration or const/let/var). */
  definesFunction: boolean;
  /** One line for an invalid artifact: the first violations, the syntax error, or the missing function. */
  reason: string | null;
}

/** Limits of one sandbox run; the defaults are the suite's (3 s per run, 64 MB heap). */
export interface SandboxOptions {
  /** Wall-clock budget for running all checks, counted only while a sandbox process is up (not its start-up). */
  runTimeoutMs?: number;
  /** vm timeout for one check (defining the function, the call, serialising the result). */
  checkTimeoutMs?: number;
  /** V8 old-space cap of the child process, in MB. */
  memoryMb?: number;
  /** How long the child may take to start before the sandbox counts as unavailable. */
  startupTimeoutMs?: number;
}
