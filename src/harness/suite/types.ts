import type { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import type { JudgePort } from '../../graders/index.js';
import type { DataOf, InjectionKind, PlannedJob, SourceMutation, StoredEvent, ToolCallRequest } from '../../events/index.js';
import type { SuiteReport } from '../../projections/report.js';

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

/** The parent's delegation, accepted or refused (a refusal is a recorded job failure). */
export type Delegation =
  | { ok: true; mode: string; brief: string }
  | { ok: false; reason: 'parent_no_task' | 'parent_bad_task'; message: string };

/** Worker limits, recorded as stop reasons when reached. */
export interface WorkerLimits {
  turnCap: number;
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
}

/** The grader's findings: hidden checks on the final artifact, and whether revision 1 passed. */
export interface GradeOutput {
  checks: CheckResult[];
  /** null when there was no first revision (or the suite does not grade it). */
  firstRevisionPassed: boolean | null;
  /** Structured findings of a state-and-evidence grader, recorded as ScenarioScored; absent = none. */
  scored?: DataOf<'ScenarioScored'>;
}

/** A suite: cases, arms, prompts, tools and checks. Everything here is pure. */
export interface Suite<C extends SuiteConfigBase = SuiteConfigBase, D = unknown> {
  name: string;
  description: string;
  /** Validates the suite config; unknown keys are rejected. */
  configSchema: z.ZodType<C>;
  defaults: C;
  cases(config: C): CaseSpec<D>[];
  arms(config: C): string[];
  /** Agent jobs (the default shape): the parent's request. */
  parentRequest?(c: CaseSpec<D>, arm: string, config: C): { messages: ChatMessage[]; tools: ToolSpec[] };
  /** Agent jobs: accepts or refuses the parent's delegation. */
  acceptDelegation?(toolCalls: readonly ToolCallRequest[], arm: string): Delegation;
  /** Agent jobs: the worker's first messages. */
  workerRequest?(c: CaseSpec<D>, arm: string, brief: string, config: C): { messages: ChatMessage[]; tools: ToolSpec[] };
  /** Agent jobs: runs one tool call; may be async (a sandbox run). Must be deterministic for replay. */
  runTool?(name: string, args: string, ctx: ToolContext<D>): ToolOutcome | Promise<ToolOutcome>;
  /**
   * Hidden checks on the final work (agent and session jobs) or on the answer (single-call jobs graded at once), blind to the arm by signature.
   * `judge` (always given by the harness) sends a model-graded check's judge call as a recorded provider call of the job (attribution `grading`).
   */
  grade?(c: CaseSpec<D>, work: GradeInput, judge?: JudgePort): GradeOutput | Promise<GradeOutput>;
  /** The suite's own rows and summary; absent = the generic ones. */
  report?: SuiteReport;
  /** Suite-specific endpoint variables, tried before EVALOG_BASE_URL / EVALOG_MODEL / EVALOG_API_KEY. */
  endpointEnv?: { baseUrl: string; model: string; apiKey: string };
  /**
   * 'agent' (default): parent → worker → grader. 'single-call': one answerer call, graded right after
   * it by `grade` (given the answer) when the suite has one, else in a later step. 'session': one main agent loop on a fixture environment (with queries, injections and a
   * budget), then the grader; needs `session`.
   */
  jobShape?: 'agent' | 'single-call' | 'session';
  /** The content of session jobs (jobShape 'session'). */
  session?: SessionSpec<C, D, unknown>;
  /** Fields of a recorded config that differ from the suite's manifests now, for resume's refusal. */
  describeConfigChange?(recorded: Record<string, unknown>): string[];
  /** Suite facts recorded with a planned job (e.g. kept facts, request fingerprint); never secrets or content. */
  jobMeta?(c: CaseSpec<D>, arm: string, config: C): Record<string, unknown>;
  /** The one request of a single-call job; `model` (e.g. an arm's model) replaces the endpoint's model id. */
  singleCallRequest?(c: CaseSpec<D>, job: PlannedJob, config: C): { messages: ChatMessage[]; tools: ToolSpec[]; model?: string };
  /** The suite's own `evalog run` flags (e.g. dataset's --data); absent = none. */
  runFlags?: RunFlags;
  /** File extension of a case's artifact in the output folder (default `txt`). */
  artifactExtension?(caseId: string): string;
}

/** A suite by name (undefined = unknown): how the app hands its registry down to replay, resume and workers. */
export type SuiteLookup = (name: string) => Suite<SuiteConfigBase, unknown> | undefined;

/** A flag of `evalog run`, as node's parseArgs takes it. */
export interface RunFlagOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

/** A suite's own flags of `evalog run` and how they become config. */
export interface RunFlags {
  /** parseArgs options; a suite that defines `model` takes over --model (e.g. repeatable, for arms). */
  options: Readonly<Record<string, RunFlagOption>>;
  /** Help lines for the flags. */
  help: string;
  /**
   * Turns the parsed flags into config overrides (paths resolved against `cwd`; input files read and
   * validated here, before anything is written) and the model id the endpoint needs, if a flag gave one.
   */
  apply(values: Readonly<Record<string, unknown>>, cwd: string): { overrides: Record<string, unknown>; model: string | undefined };
}

/** Settings every suite config has. */
export interface SuiteConfigBase {
  repetitions: number;
  concurrency: number;
  seed: number;
  orderSeed: number;
  cases: string[] | null;
  model: { temperature: number; maxTokens: number; reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | null };
  worker: WorkerLimits;
  provider: { timeoutMs: number; maxAttempts: number; backoffMs: number; maxBackoffMs: number; maxRetryAfterMs?: number };
}

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

/** The hooks an agent job (parent → worker → grader) needs. */
export type AgentHooks = 'parentRequest' | 'acceptDelegation' | 'workerRequest' | 'runTool' | 'grade';

/** A suite of agent jobs: every agent hook present. */
export type AgentSuite<C extends SuiteConfigBase = SuiteConfigBase, D = unknown> = Suite<C, D> & Required<Pick<Suite<C, D>, AgentHooks>>;

/** A suite used for a shape whose hook it lacks: a programming error in the suite, named. */
export class SuiteShapeError extends Error {
  override name = 'SuiteShapeError';
  constructor(suite: string, hook: string) {
    super(`suite ${suite} has no ${hook}, which its job shape needs`);
  }
}

/** The suite with the hooks its agent jobs call, or a SuiteShapeError naming the missing one. */
export function agentHooks(suite: Suite<SuiteConfigBase, unknown>): AgentSuite<SuiteConfigBase, unknown> {
  for (const hook of ['parentRequest', 'acceptDelegation', 'workerRequest', 'runTool', 'grade'] as const) {
    if (typeof suite[hook] !== 'function') throw new SuiteShapeError(suite.name, hook);
  }
  return suite as AgentSuite<SuiteConfigBase, unknown>;
}
