// What every grader gives and what the model-graded one needs from outside: plain data and one port,
// so a grader is a value a suite holds, and the harness decides how a judge call is sent and recorded.
import type { ChatMessage } from '../providers/chat.js';

/** What one grading found. `error` marks a grading that could not decide (a failed or malformed judge reply): never a pass. */
export interface Verdict {
  passed: boolean;
  detail: string;
  error?: true;
}

/** A deterministic scorer: a pure function of the output and the case's `expected`, blind to the arm. */
export interface Scorer {
  /** The check id it records (`exact`, `contains`, `regex`, `json-field`, `deterministic-overlap-v1`). */
  readonly name: string;
  /** Why `expected` cannot be graded this way (checked when cases load), or null when it can. */
  problem(expected: unknown): string | null;
  /** Grades one output; `expected` has passed `problem`. */
  score(output: string, expected: unknown): Verdict;
}

/** The outcome of one judge call as the harness reports it: the reply text, or why there is none. */
export type JudgeReply = { ok: true; content: string | null } | { ok: false; message: string };

/**
 * How a model-graded check reaches a model: the harness sends the request as a provider call of the
 * job (recorded, retried, served from the log on replay and resume) with the `grading` attribution.
 */
export interface JudgePort {
  call(request: { messages: ChatMessage[]; model?: string }): Promise<JudgeReply>;
}

/** What the judge is shown of one job: never the arm. `expected` is null when the case gives none. */
export interface JudgeSample {
  input: string;
  expected: unknown;
  output: string;
}
