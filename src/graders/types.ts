// What every grader gives and what the model-graded one needs from outside: plain data and one port,
// so a grader is a value a suite holds, and the harness decides how a judge call is sent and recorded.
import type { ChatMessage } from '../providers/chat.js';

/**
 * What one grading found. `error` marks a grading that could not decide (a failed or malformed judge
 * reply, a user function that threw): never a pass. `score` (0..1) is set by scorers with a graded
 * measure (a similarity ratio, a function's number, a weighted sum); a combination counts a verdict
 * without one as 1 when it passed and 0 when it did not.
 */
export interface Verdict {
  passed: boolean;
  detail: string;
  error?: true;
  score?: number;
}

/** What a scorer may know of a case besides its `expected`: never the arm. */
export interface ScoreContext {
  /** The case's input as the suite gives it (a `javascript` scorer's function sees it). */
  input?: unknown;
}

/** A deterministic scorer: a pure function of the output and the case's `expected`, blind to the arm. */
export interface Scorer {
  /** The check id it records (`exact`, `contains`, `regex`, `json-field`, `deterministic-overlap-v1`, `equals`, …). */
  readonly name: string;
  /** Why `expected` cannot be graded this way (checked when cases load), or null when it can. */
  problem(expected: unknown): string | null;
  /** Grades one output; `expected` has passed `problem`. */
  score(output: string, expected: unknown, context?: ScoreContext): Verdict;
}

/**
 * A grader that asks a judge model (a model-graded check, or a combination with one in it): graded
 * through the harness's judge port, from what the judge may see of one job.
 */
export interface JudgedScorer {
  /** The check id it records. */
  readonly name: string;
  /** Why `expected` cannot be graded this way (checked when cases load), or null when it can. */
  problem(expected: unknown): string | null;
  /** Grades one sample; a failed judge call or a malformed reply is an `error` verdict. */
  grade(port: JudgePort, sample: JudgeSample): Promise<Verdict>;
}

/** Any grader a suite can list: a deterministic scorer or a judged one. */
export type AnyScorer = Scorer | JudgedScorer;

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
