import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import type { DataOf, InjectionKind, SourceMutation, StoredEvent } from '../../events/index.js';
import type { AgentCommandSpec } from '../agent-spec/index.js';
import type { CaseSelection } from './case-selection.js';

export type { ReportHeader, SuiteReport } from '../../projections/report.js';

/** One case (task) of a suite, with the data its prompts, tools and checks use. */
export interface CaseSpec<D = unknown> {
  id: string;
  data: D;
}

/** What a tool call returned; `artifact` is a new artifact revision when the tool saved one. */
export interface ToolOutcome {
  result: string;
  isError: boolean;
  artifact?: string;
}

/** One check result, as the grader records it. */
export interface CheckResult {
  checkId: string;
  visibility: 'public' | 'hidden';
  passed: boolean;
  detail: string;
}

/**
 * The parent's delegation, accepted or refused (a refusal is a recorded job failure).
 * `acceptanceCriteria`: completion requirements the parent attached (absent or null = none).
 */
export type Delegation =
  | { ok: true; mode: string; brief: string; acceptanceCriteria?: string[] | null }
  | { ok: false; reason: 'parent_no_task' | 'parent_bad_task'; message: string };

/**
 * The limits every suite's worker has, recorded as stop reasons when reached. A suite's own limit
 * (an upstream executor's) is not one of them: it is the suite's stop rule (AgentSpec.stopRule,
 * see stop-rule.ts), over a config key of the suite's own schema.
 */
export interface WorkerLimits {
  /** Model turns before the worker is stopped (`turn_cap`). */
  turnCap: number;
  /** Hard deadline from the worker's start: the call in flight then is aborted (`deadline`). */
  timeLimitMs: number;
}

/** What the worker's tools see of the job: never the arm, so tools behave alike in both. */
export interface ToolContext<D> {
  case: CaseSpec<D>;
  artifact: string | null;
  /** Number of the last saved revision, 0 before the first. */
  revision: number;
}

/** What the grader sees: the final and the first artifact revision and the final answer. */
export interface GradeInput {
  final: string | null;
  first: string | null;
  answer: string | null;
  /** A session job's final fixture environment (its state and access log); absent for other shapes. */
  environment?: unknown;
  /** An external agent's workspace as it left it, against the files it was given (a suite with a `workspace` hook); absent otherwise. */
  workspace?: WorkspaceChanges;
}

/**
 * A job's workspace against the files it was given: each changed path (relative, `/` separators)
 * with its new text, or null where the file was deleted; changed paths that could not be taken as
 * text (binary, too large, a link) are listed apart and count as unchanged.
 */
export interface WorkspaceChanges {
  changed: Record<string, string | null>;
  skipped: { path: string; reason: string }[];
}

/** The workspace a grader read, as it is recorded with the grade (WorkspaceCaptured): each changed file and the unified diff. */
export interface GradedWorkspace {
  /** Sorted by path; `content` null when deleted; `added`/`removed` count the diff's lines. */
  files: { path: string; change: 'added' | 'modified' | 'deleted'; content: string | null; added: number; removed: number }[];
  skipped: WorkspaceChanges['skipped'];
  /** Unified diff of every changed file, sorted by path ('' when nothing changed). */
  diff: string;
}

/** The grader's findings: hidden checks on the final artifact, and whether revision 1 passed. */
export interface GradeOutput {
  checks: CheckResult[];
  /** null when there was no first revision (or the suite does not grade it). */
  firstRevisionPassed: boolean | null;
  /** Structured findings of a state-and-evidence grader, recorded as ScenarioScored; absent = none. */
  scored?: DataOf<'ScenarioScored'>;
  /** The workspace the checks ran on, recorded (as blobs) as WorkspaceCaptured before them; absent = none. */
  workspace?: GradedWorkspace;
}

/** Settings every suite config has. */
// A type alias, not an interface, so a config is plain data (`RunStarted.config`) without a cast.
export type SuiteConfigBase = {
  repetitions: number;
  concurrency: number;
  seed: number;
  orderSeed: number;
  cases: string[] | null;
  /** How `cases` was chosen (globs, `--sample`, `--limit`); `cases` holds the chosen ids. */
  caseSelection?: CaseSelection;
  model: { temperature: number; maxTokens: number; reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | null };
  worker: WorkerLimits;
  provider: { timeoutMs: number; maxAttempts: number; backoffMs: number; maxBackoffMs: number; maxRetryAfterMs?: number };
  /** How rows show text (`report.maxTextChars`); absent = the defaults. */
  report?: { maxTextChars: number };
  /** One external agent in place of the built-in one (`--agent CMD`); the suite's arms stay. */
  agent?: AgentCommandSpec;
  /** External agents as the arms of the run (`--agent NAME=CMD`), by name. */
  agents?: Record<string, AgentCommandSpec>;
};

/** Where a session loop is when it asks which injections are due. */
export type InjectionPoint =
  | { type: 'tool' } // after a tool call was recorded (mid-batch)
  | { type: 'turn' } // between tool batches, before the next main call
  | { type: 'query'; batch: number; index: number }; // after query `index` of query batch `batch` (1-based) returned

/** An injection the harness applies now, as the suite's scenario planned it. */
export interface Injection {
  id: string;
  kind: InjectionKind;
  target: string;
  detail: string;
  /** Host message the agent is shown, null for none. */
  notice: string | null;
  mutation: SourceMutation | null;
  /** query_truncation: how many characters of the reply the agent gets. */
  keepChars: number | null;
}

/** A cell's frozen settings, as a session job runs with them. */
export interface SessionSettings {
  /** Exact model id sent in every call. */
  model: string;
  sampling: SuiteConfigBase['model'];
  /** Per-attempt timeout and retries. */
  provider: SuiteConfigBase['provider'];
  budget: { mainCalls: number; modelCalls: number; deadlineMs: number };
  /** Whether tools may run queries (model calls attributed `query`). */
  queries: boolean;
}

/** One side effect of a tool on the fixture environment. */
export interface SideEffect {
  effect: string;
  target: string;
  value: string;
  terminal: boolean;
}

/** What a session tool returned: its text and side effects, or queries for the harness to run. */
export interface SessionToolOutcome {
  result: string;
  isError: boolean;
  effects?: SideEffect[];
  /** Each is one model call attributed `query`; the harness runs them in order and returns their replies. */
  queries?: { messages: ChatMessage[] }[];
}

/** What a suite gives a session job: environment, tools and injections. The loop itself is the harness's. */
export interface SessionSpec<C, D, E> {
  /** The frozen cell of an arm. */
  settings(config: C, arm: string): SessionSettings;
  /** The agent's first messages and its tools. */
  request(c: CaseSpec<D>, arm: string, config: C): { messages: ChatMessage[]; tools: ToolSpec[] };
  /** The fixture environment before the job. */
  initialEnvironment(c: CaseSpec<D>): E;
  /** Folds one job event into the environment (reads, side effects, injected mutations). Pure. */
  evolveEnvironment(environment: E, e: StoredEvent): E;
  /** Runs one tool against the environment. Pure and deterministic, so replay re-runs it. */
  runTool(name: string, args: string, ctx: { case: CaseSpec<D>; environment: E; queries: boolean }): SessionToolOutcome;
  /** The planned injections that are due at this point and have not fired yet. Pure. */
  injectionsDue(c: CaseSpec<D>, environment: E, fired: readonly string[], at: InjectionPoint): Injection[];
}
