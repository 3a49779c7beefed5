// The short form's spec: what a user writes in `defineEval({ name, data, task, scorers })`. Plain
// types only, so the promptfoo compiler (and any other front end) can produce one without the suite.
import type { AnyScorer } from '../../graders/types.js';
import type { ChatMessage } from '../../providers/chat.js';
import type { SuiteConfigBase } from '../../harness/suite/types.js';

/** One case: its input (a string, or a record of template variables) and what a scorer checks against. */
export interface EvalCase {
  /** Case id (letters, digits, "_", "-", "."); default: `c1`, `c2`, … by position. */
  id?: string;
  input: unknown;
  expected?: unknown;
}

/** What a function task may call: the run's model, recorded as a provider call of the job. */
export interface EvalModel {
  /** The model id of this arm, or null for the endpoint's model. */
  readonly id: string | null;
  /** One chat call; the reply's text. */
  chat(messages: readonly ChatMessage[] | string, options?: { system?: string }): Promise<string>;
}

/** A task written as code: it is given one case's input and the arm's model, and returns the output. */
export type EvalTaskFunction = (input: unknown, ctx: { model: EvalModel; signal: AbortSignal }) => Promise<string>;

/** The base-config keys a spec may override; evalog's defaults otherwise. */
export interface EvalDefaults {
  repetitions?: number;
  concurrency?: number;
  seed?: number;
  orderSeed?: number;
  model?: Partial<SuiteConfigBase['model']>;
  provider?: Partial<SuiteConfigBase['provider']>;
  worker?: Partial<SuiteConfigBase['worker']>;
  report?: SuiteConfigBase['report'];
}

/** The short form of a suite. */
export interface EvalSpec {
  /** The suite's name (letters, digits, "_", "-"): the run folder and the log name it. */
  name: string;
  /** Cases: inline, a `.jsonl`/`.json`/`.csv`/`.yaml`/`.yml` path relative to the suite file, or a loader. */
  data: readonly EvalCase[] | string | (() => Promise<readonly EvalCase[]>);
  /** A prompt template (`{{input}}`, `{{var}}`), templates by arm name, or a function. */
  task: string | Readonly<Record<string, string>> | EvalTaskFunction;
  /** Checks of each row, blind to the arm; default: `equals` when cases have `expected`. */
  scorers?: readonly AnyScorer[];
  /** System message sent before every templated case. */
  system?: string;
  /** Model ids, each an arm (× the template arms); `--model` on the command line replaces them. */
  models?: readonly string[];
  /** Pass when the combined score (mean of the scorers' scores) is at least this; default: every scorer passes. */
  threshold?: number;
  /** Base-config overrides (repetitions, concurrency, provider policy, …). */
  defaults?: EvalDefaults;
  /** Description shown by `evalog suites`. */
  description?: string;
}
