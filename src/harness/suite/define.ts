// defineSuite: how a suite is written, and the one place its types are erased.
//
// Why a union by shape: a suite runs as exactly one job shape (agent, single-call, session or compute), and
// each shape needs its own hooks. As a discriminated union the compiler checks that an agent suite
// has every agent hook (and a grader), a session suite its session spec, and (for a literal) that it carries no
// hooks of another shape; the harness then never asks "is this hook there?" at run time.
//
// Where erasure happens: here, and only here. The harness runs suites of any config type C, case
// data D and environment E, so it sees a `DefinedSuite`: plain functions over `unknown` data.
// `defineSuite` closes over the typed definition; the config is turned from data into C by the
// suite's own schema (`configure`, the only validation point), cases stay typed inside the closure,
// and every hook the jobs call is bound to its case, arm and config before it leaves this module.
// The one remaining seam is a session's environment: it is only ever made by the suite's own
// `initialEnvironment`/`evolveEnvironment`, so handing it back to them as E is safe (see `bindSession`).
import type { z } from 'zod';
import { assertNever } from '../../core/never.js';
import type { PlannedJob, ToolCallRequest } from '../../events/index.js';
import type { JudgePort } from '../../graders/index.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { AgentConfigError, type AgentCommandSpec } from '../agent-spec/index.js';
import type { SuiteReport } from '../../projections/report.js';
import type { SuiteOutputs } from '../../projections/suite-outputs.js';
import type {
  CaseSpec,
  Delegation,
  GradeInput,
  GradeOutput,
  Injection,
  InjectionPoint,
  SessionSettings,
  SessionSpec,
  SessionToolOutcome,
  SuiteConfigBase,
  ToolContext,
  ToolOutcome,
} from './types.js';
import { suiteStopRule, type WorkerStopRule } from './stop-rule.js';

/** The job shapes, each run by its own job machine (see JOB_MACHINES). */
export type Shape = 'agent' | 'single-call' | 'session' | 'compute';

/** What runs a job: its suite's shape, or an external agent's process in place of an agent-shaped suite's loop. */
export type JobKind = Shape | 'external';

/** A model request a hook builds: messages and the tools offered. */
export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The one tool the model must call (the request's `tool_choice`); absent = the model chooses. Only the parent's request sends it. */
  toolChoice?: string;
}

/** Hidden checks on a job's work, blind to the arm by signature; `judge` sends model-graded checks' calls. */
export type GradeFn<D> = (c: CaseSpec<D>, work: GradeInput, judge: JudgePort) => GradeOutput | Promise<GradeOutput>;

/** The hooks of an agent job: parent → worker (with tools) → grader. */
export interface AgentSpec<C, D> {
  /** The parent's request. */
  parentRequest(c: CaseSpec<D>, arm: string, config: C): ModelRequest;
  /** Accepts or refuses the parent's delegation. */
  acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation;
  /** The worker's first messages; `acceptanceCriteria` are those the parent attached (null = none). */
  workerRequest(c: CaseSpec<D>, arm: string, brief: string, config: C, acceptanceCriteria?: readonly string[] | null): ModelRequest;
  /** Runs one tool call; may be async (a sandbox run). Must be deterministic for replay. */
  runTool(name: string, args: string, ctx: ToolContext<D>): ToolOutcome | Promise<ToolOutcome>;
  /**
   * The task as an external agent (`--agent`) is given it: the messages of its EVALOG_TASK file and
   * the tools served to it over MCP (run by `runTool`). Absent: the parent's messages without its
   * system prompt (the lead's instructions are the agent's own business) and the worker's tools.
   */
  agentTask?(c: CaseSpec<D>, arm: string, config: C): ModelRequest;
  /** A job that works on files: what an external agent's workspace starts with, and what the suite's tools wrote (see WorkspaceSpec). */
  workspace?: WorkspaceSpec<C, D>;
  /**
   * The suite's own limit of the built-in worker, from its config (e.g. an upstream executor's step
   * count): when it stops the worker, WorkerStopped records the rule's reason (see stop-rule.ts).
   * Absent, or null for a config without the limit: the worker stops by the harness's limits alone.
   */
  stopRule?(config: C): WorkerStopRule | null;
}

/**
 * The workspace of an agent suite whose work is files (the coding suite). An external agent's
 * workspace folder is seeded with `files` before the agent starts; after each of its tool calls
 * over MCP, the files the suite's tools have written (`changes` of the job's artifact) are
 * written into the folder too; when it exits, the folder's changes are handed to the grader
 * (`GradeInput.workspace`). The built-in worker has no folder: its tools work on the artifact.
 */
export interface WorkspaceSpec<C, D> {
  /** The files a job's workspace starts with, by relative path (`/` separators). */
  files(c: CaseSpec<D>, config: C): Readonly<Record<string, string>>;
  /** The files the suite's tools have written by the artifact's revision: new text, or null for a deletion. */
  changes(artifact: string | null): Readonly<Record<string, string | null>>;
}

/** A workspace bound to its job's case and config: what an external agent's job seeds, updates and captures. */
export interface JobWorkspace {
  files: Readonly<Record<string, string>>;
  changes(artifact: string | null): Readonly<Record<string, string | null>>;
}

/**
 * A single-call job's request. `model` (e.g. an arm's model) replaces the endpoint's model id.
 * `params`, when given, are the body's other fields exactly (a protocol's own payload: the run's
 * sampling and the job's seed are then not sent). `strictReply`: a reply without a string content,
 * or a body that is not a chat completion, is a failure that is not retried.
 */
export interface SingleCallRequest extends ModelRequest {
  model?: string;
  params?: Record<string, unknown>;
  strictReply?: boolean;
}

/** The hook of a single-call job: its one request. */
export interface SingleCallSpec<C, D> {
  request(c: CaseSpec<D>, job: PlannedJob, config: C): SingleCallRequest;
}

/**
 * The hook of a compute job: its result, a pure and deterministic function of the case, the plan
 * entry and the config (no model, no clock, no I/O), so replay can recompute it and compare.
 */
export interface ComputeSpec<C, D> {
  compute(c: CaseSpec<D>, job: PlannedJob, config: C): Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** What every suite has, whatever its shape. */
export interface SuiteBase<C extends SuiteConfigBase, D> {
  name: string;
  description: string;
  /** Validates the suite config; unknown keys are rejected. The only place data becomes C. */
  configSchema: z.ZodType<C>;
  defaults: C;
  /** Loads the cases for a config (case files are read here, once per run, not cached in modules). */
  prepare(config: C): Promise<{ cases: CaseSpec<D>[] }>;
  arms(config: C): string[];
  /** Hidden checks (required for agent and session suites; a single-call suite without one is graded later). */
  grade?: GradeFn<D>;
  /** The suite's own rows and summary; absent = the generic ones. */
  report?: SuiteReport;
  /** Files the suite publishes in place of rows/summary/usage/run.json, folded from the log; absent = those four. */
  outputs?: SuiteOutputs;
  /**
   * Suite facts recorded with a planned job (e.g. kept facts, request fingerprint); never secrets.
   * A fact `expected` is the case's expected value, which every row then shows (`expected`).
   */
  jobMeta?(c: CaseSpec<D>, arm: string, config: C): object;
  /** Fields of a recorded config that differ from the suite's manifests now, for resume's refusal. */
  describeConfigChange?(recorded: Record<string, unknown>): string[];
  /** File extension of a case's artifact in the output folder (default `txt`); `config` is the run's recorded config. */
  artifactExtension?(caseId: string, config: Readonly<Record<string, unknown>>): string;
  /**
   * `'hashes'`: the rows carry no case text (input, output, expected), only its sha256, verdict and
   * reason: for a suite whose data may not be published (LongMemEval's questions and facts).
   */
  rowText?: 'hashes';
  /** Provenance of the suite's inputs read at run start (e.g. a protocol folder's file hashes), recorded in run.json under the keys it gives. */
  provenance?(config: C): Record<string, unknown>;
  /**
   * The folder of the versioned files the suite reads (prompts, tasks, configs): run.json records
   * each file's sha256 as `<key>/<path>` (key: the suite's name unless given), and resume and retry
   * refuse the run when one changed since it started.
   */
  manifests?: { folder: URL; key?: string };
}

/** A suite's manifests folder with its key settled. */
export interface SuiteManifests {
  readonly folder: URL;
  readonly key: string;
}

/** A suite as its author writes it: the common base and the hooks of exactly one shape. */
export type SuiteDefinition<C extends SuiteConfigBase, D, E> = SuiteBase<C, D> &
  (
    | { shape: 'agent'; agent: AgentSpec<C, D>; grade: GradeFn<D> }
    | { shape: 'single-call'; call: SingleCallSpec<C, D> }
    | { shape: 'session'; session: SessionSpec<C, D, E>; grade: GradeFn<D> }
    | { shape: 'compute'; compute: ComputeSpec<C, D> }
  );

/** A grader bound to one case: what the grader machine calls. */
export type GradeHook = (work: GradeInput, judge: JudgePort) => GradeOutput | Promise<GradeOutput>;

/** An agent job's hooks, bound to its case, arm and config. */
export interface AgentHooks {
  parentRequest(): ModelRequest;
  acceptDelegation(toolCalls: readonly ToolCallRequest[]): Delegation;
  workerRequest(brief: string, acceptanceCriteria?: readonly string[] | null): ModelRequest;
  runTool(name: string, args: string, at: { artifact: string | null; revision: number }): ToolOutcome | Promise<ToolOutcome>;
  /** The suite's stop rule for the worker, checked; absent = the harness's limits alone. */
  stopRule?: WorkerStopRule;
}

/** A single-call job's hook, bound to its job. */
export interface SingleCallHooks {
  request(): SingleCallRequest;
}

/** A compute job's hook, bound to its job. */
export interface ComputeHooks {
  compute(): Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** A session job's hooks, bound to its case, arm and config; the environment is opaque to the harness. */
export interface SessionHooks {
  /** The frozen cell of the job's arm. */
  settings: SessionSettings;
  request(): ModelRequest;
  initialEnvironment(): unknown;
  evolveEnvironment(environment: unknown, e: Parameters<SessionSpec<unknown, unknown, unknown>['evolveEnvironment']>[1]): unknown;
  runTool(name: string, args: string, at: { environment: unknown; queries: boolean }): SessionToolOutcome;
  injectionsDue(environment: unknown, fired: readonly string[], at: InjectionPoint): Injection[];
}

/** An external-agent job's hooks: the agent, the task as the suite presents it, and the suite's tools. */
export interface ExternalAgentHooks {
  /** The agent's name: the arm when agents are the arms, `agent` for a single `--agent`. */
  name: string;
  spec: AgentCommandSpec;
  /** The suite's arm the task is presented as (the job's arm, or the suite's first when agents are the arms). */
  arm: string;
  task(): ModelRequest;
  runTool: AgentHooks['runTool'];
  /** The model the proxy sends (a single-call suite's arm may name its own, a session cell its frozen one), else the endpoint's. */
  model?: string;
  /** The job's workspace when the suite's work is files (see WorkspaceSpec); absent = an empty folder, nothing captured. */
  workspace?: JobWorkspace;
  /**
   * A session suite's hooks: the job keeps the suite's environment as the built-in session worker
   * does, runs each tool call through `session.runTool` (its queries run by the harness), records
   * the injections due and enforces the cell's budgets; `runTool` above is then never called.
   */
  session?: SessionHooks;
}

/** The hooks of one job, by kind: what the job machine of that kind is given. */
export type JobHooks =
  | { shape: 'agent'; agent: AgentHooks; grade: GradeHook }
  | { shape: 'external'; external: ExternalAgentHooks; grade: GradeHook }
  | { shape: 'single-call'; call: SingleCallHooks; grade: GradeHook | null }
  | { shape: 'session'; session: SessionHooks; grade: GradeHook }
  | { shape: 'compute'; compute: ComputeHooks };

/** A suite's cases loaded for one config: what planning and the jobs of a run need. */
export interface PreparedSuite {
  readonly name: string;
  readonly shape: Shape;
  /** What runs its jobs: `external` when the config names agents, else the shape. */
  readonly jobKind: JobKind;
  readonly config: SuiteConfigBase;
  readonly cases: readonly CaseSpec<unknown>[];
  readonly arms: readonly string[];
  /** The facts recorded with a planned job, or undefined when the suite records none. */
  jobMeta(caseId: string, arm: string): Record<string, unknown> | undefined;
  /** The suite's own provenance entries for run.json (none when it records none). */
  provenance(): Record<string, unknown>;
  /** The folder of the files it reads, hashed into run.json (absent: none of its own). */
  readonly manifests?: SuiteManifests;
  /** The hooks of one planned job, bound to its case (UnknownCaseError when the case is not the suite's). */
  hooks(job: PlannedJob): JobHooks;
}

/** A suite's config, validated: typed inside, the base settings outside. */
export interface ConfiguredSuite {
  readonly config: SuiteConfigBase;
  /** Loads the cases (reads case files): once per run. */
  prepare(): Promise<PreparedSuite>;
}

/** A registered suite as the harness runs it: opaque, with its types closed over by `defineSuite`. */
export interface DefinedSuite {
  readonly name: string;
  readonly description: string;
  readonly shape: Shape;
  /** The suite's own rows and summary; absent = the generic ones. */
  readonly report?: SuiteReport;
  /** The suite's own published files; absent = rows/summary/usage/run.json. */
  readonly outputs?: SuiteOutputs;
  /** The default config (a getter may read a versioned file, so it is asked for when needed). */
  defaults(): SuiteConfigBase;
  /** Validates config data with the suite's schema (ConfigSchemaError naming the first issue). */
  configure(data: unknown): ConfiguredSuite;
  describeConfigChange?(recorded: Record<string, unknown>): string[];
  artifactExtension?(caseId: string, config: Readonly<Record<string, unknown>>): string;
  readonly rowText?: 'hashes';
  /** The folder of the files it reads, hashed into run.json and checked by resume (absent: none of its own). */
  readonly manifests?: SuiteManifests;
}

/** A suite by name (undefined = unknown): how the app hands its registry down to replay, resume and workers. */
export type SuiteLookup = (name: string) => DefinedSuite | undefined;

/** Config data the suite's schema refused; `issues` are zod's, the CLI names the field and the file. */
export class ConfigSchemaError extends Error {
  override name = 'ConfigSchemaError';
  constructor(
    readonly suite: string,
    readonly issues: readonly z.core.$ZodIssue[],
  ) {
    super(`suite ${suite}: config does not validate: ${issues[0]?.path.join('.') || '(root)'}: ${issues[0]?.message ?? 'invalid'}`);
  }
}

/** A job names a case its suite does not have (a plan from another case file): a programming error. */
export class UnknownCaseError extends Error {
  override name = 'UnknownCaseError';
  constructor(suite: string, caseId: string) {
    super(`case ${caseId} is not in suite ${suite}`);
  }
}

/** Registers a suite: checks its shape at compile time and returns the erased suite the harness runs. */
export function defineSuite<C extends SuiteConfigBase, D, E = unknown>(def: SuiteDefinition<C, D, E>): DefinedSuite {
  const configure = (data: unknown): ConfiguredSuite => {
    const parsed = def.configSchema.safeParse(data);
    if (!parsed.success) throw new ConfigSchemaError(def.name, parsed.error.issues);
    const config = parsed.data;
    return { config, prepare: () => prepareSuite(def, config) };
  };
  return {
    name: def.name,
    description: def.description,
    shape: def.shape,
    ...(def.report ? { report: def.report } : {}),
    ...(def.outputs ? { outputs: def.outputs } : {}),
    ...(def.rowText ? { rowText: def.rowText } : {}),
    ...manifestsOf(def),
    defaults: () => def.defaults,
    configure,
    ...(def.describeConfigChange ? { describeConfigChange: (recorded: Record<string, unknown>) => def.describeConfigChange!(recorded) } : {}),
    ...(def.artifactExtension
      ? { artifactExtension: (caseId: string, config: Readonly<Record<string, unknown>>) => def.artifactExtension!(caseId, config) }
      : {}),
  };
}

function manifestsOf(def: { name: string; manifests?: { folder: URL; key?: string } }): { manifests?: SuiteManifests } {
  return def.manifests ? { manifests: { folder: def.manifests.folder, key: def.manifests.key ?? def.name } } : {};
}

async function prepareSuite<C extends SuiteConfigBase, D, E>(def: SuiteDefinition<C, D, E>, config: C): Promise<PreparedSuite> {
  const { cases } = await def.prepare(config);
  const byId = new Map(cases.map((c) => [c.id, c]));
  const caseOf = (id: string): CaseSpec<D> => {
    const c = byId.get(id);
    if (!c) throw new UnknownCaseError(def.name, id);
    return c;
  };
  const agents = agentsOf(def, config);
  // Checked once, before any job runs: a rule naming a harness reason is the suite's mistake.
  const stopRule = def.shape === 'agent' ? suiteStopRule(def.name, def.agent.stopRule, config) : null;
  return {
    name: def.name,
    shape: def.shape,
    jobKind: agents ? 'external' : def.shape,
    config,
    cases,
    arms: agents?.arms ?? def.arms(config),
    // Plain data out of the suite's own meta type, key order kept (it is hashed into the plan).
    jobMeta: (caseId, arm) => (def.jobMeta ? Object.fromEntries(Object.entries(def.jobMeta(caseOf(caseId), arm, config))) : undefined),
    provenance: () => def.provenance?.(config) ?? {},
    ...manifestsOf(def),
    hooks: (job) => (agents ? bindExternal(def, config, caseOf(job.caseId), job, agents) : bindJob(def, config, caseOf(job.caseId), job, stopRule)),
  };
}

/** The run's external agents: the arms they make and how a job's arm maps to an agent and a suite arm. */
interface RunAgents {
  arms: string[] | null;
  of(arm: string): { name: string; spec: AgentCommandSpec; suiteArm: string };
}

function agentsOf<C extends SuiteConfigBase, D, E>(def: SuiteDefinition<C, D, E>, config: C): RunAgents | null {
  const { agent, agents } = config;
  if (!agent && !agents) return null;
  if (agent && agents) throw new AgentConfigError('config: fields agent and agents are both set; use agent for one agent, agents for agents as arms');
  if (def.shape === 'compute') throw new AgentConfigError(`suite ${def.name} computes its jobs without a model: there is nothing for an external agent to do`);
  if (def.shape === 'single-call' && !def.grade)
    throw new AgentConfigError(`suite ${def.name} grades its answers in a later step: an external agent's answer needs a suite that grades at once`);
  if (agent) return { arms: null, of: (arm) => ({ name: 'agent', spec: agent, suiteArm: arm }) };
  const names = Object.keys(agents!).sort();
  if (names.length === 0) throw new AgentConfigError('config: field agents names no agent');
  // Agents as the arms: every job's task is presented as the suite's first arm, so the agents are
  // compared on the same task.
  const suiteArm = def.arms(config)[0]!;
  return {
    arms: names,
    of: (arm) => {
      const spec = agents![arm];
      if (!spec) throw new AgentConfigError(`arm ${arm} names no agent (agents: ${names.join(', ')})`);
      return { name: arm, spec, suiteArm };
    },
  };
}

/**
 * An external agent in place of the suite's own loop: an agent suite's task (its `agentTask`, or
 * the parent's messages without the lead's instructions) with the worker's tools; a single-call
 * suite's request as the task, with no tools, its answer graded as the call's would be; a session
 * suite's request (its messages and tools) on the cell's environment, graded on the final one.
 */
function bindExternal<C extends SuiteConfigBase, D, E>(def: SuiteDefinition<C, D, E>, config: C, c: CaseSpec<D>, job: PlannedJob, agents: RunAgents): JobHooks {
  const { name, spec, suiteArm } = agents.of(job.arm);
  const presented = { ...job, arm: suiteArm };
  const noTools: ExternalAgentHooks['runTool'] = (tool) => ({ result: `error: unknown tool ${JSON.stringify(tool)}`, isError: true });
  const bound = (
    grade: GradeFn<D>,
    parts: Pick<ExternalAgentHooks, 'task' | 'runTool'> & Pick<Partial<ExternalAgentHooks>, 'model' | 'session' | 'workspace'>,
  ): JobHooks => ({
    shape: 'external',
    grade: (work, judge) => grade(c, work, judge),
    external: { name, spec, arm: suiteArm, ...parts },
  });
  switch (def.shape) {
    case 'agent': {
      const a = def.agent;
      const task = (): ModelRequest => {
        if (a.agentTask) return a.agentTask(c, suiteArm, config);
        const lead = a.parentRequest(c, suiteArm, config);
        return { messages: lead.messages.filter((m) => m.role !== 'system'), tools: a.workerRequest(c, suiteArm, '', config).tools };
      };
      const runTool: ExternalAgentHooks['runTool'] = (tool, args, at) => a.runTool(tool, args, { case: c, artifact: at.artifact, revision: at.revision });
      const w = a.workspace;
      const workspace = w ? { workspace: { files: w.files(c, config), changes: (artifact: string | null) => w.changes(artifact) } } : {};
      return bound(def.grade, { task, runTool, ...workspace });
    }
    case 'single-call': {
      const { model, messages } = def.call.request(c, presented, config);
      if (!def.grade) throw new AgentConfigError(`suite ${def.name} grades its answers in a later step`);
      return bound(def.grade, { task: () => ({ messages, tools: [] }), runTool: noTools, ...(model === undefined ? {} : { model }) });
    }
    case 'session': {
      // The cell of the presented arm: its frozen model is the one the proxy sends, its budgets the job's.
      const session = bindSession(def.session, config, c, suiteArm);
      return bound(def.grade, { task: () => session.request(), runTool: noTools, model: session.settings.model, session });
    }
    case 'compute':
      throw new AgentConfigError(`suite ${def.name} computes its jobs without a model: there is nothing for an external agent to do`);
    default:
      return assertNever(def);
  }
}

function bindJob<C extends SuiteConfigBase, D, E>(
  def: SuiteDefinition<C, D, E>,
  config: C,
  c: CaseSpec<D>,
  job: PlannedJob,
  stopRule: WorkerStopRule | null,
): JobHooks {
  const { arm } = job;
  // Blind to the arm: the bound grader is given the case and the work only.
  const gradeOf =
    (grade: GradeFn<D>): GradeHook =>
    (work, judge) =>
      grade(c, work, judge);
  switch (def.shape) {
    case 'agent': {
      const a = def.agent;
      return {
        shape: 'agent',
        grade: gradeOf(def.grade),
        agent: {
          parentRequest: () => a.parentRequest(c, arm, config),
          acceptDelegation: (toolCalls) => a.acceptDelegation(toolCalls, arm),
          workerRequest: (brief, criteria) => a.workerRequest(c, arm, brief, config, criteria ?? null),
          runTool: (name, args, at) => a.runTool(name, args, { case: c, artifact: at.artifact, revision: at.revision }),
          ...(stopRule ? { stopRule } : {}),
        },
      };
    }
    case 'single-call': {
      const call = def.call;
      return { shape: 'single-call', grade: def.grade ? gradeOf(def.grade) : null, call: { request: () => call.request(c, job, config) } };
    }
    case 'session':
      return { shape: 'session', grade: gradeOf(def.grade), session: bindSession(def.session, config, c, arm) };
    case 'compute': {
      const spec = def.compute;
      return { shape: 'compute', compute: { compute: () => spec.compute(c, job, config) } };
    }
    default:
      return assertNever(def);
  }
}

// The environment leaves as unknown and comes back only from the session machine's state, which
// holds what this spec's initialEnvironment/evolveEnvironment made: the `as E` is that round trip.
function bindSession<C, D, E>(s: SessionSpec<C, D, E>, config: C, c: CaseSpec<D>, arm: string): SessionHooks {
  return {
    settings: s.settings(config, arm),
    request: () => s.request(c, arm, config),
    initialEnvironment: () => s.initialEnvironment(c),
    evolveEnvironment: (environment, e) => s.evolveEnvironment(environment as E, e),
    runTool: (name, args, at) => s.runTool(name, args, { case: c, environment: at.environment as E, queries: at.queries }),
    injectionsDue: (environment, fired, at) => s.injectionsDue(c, environment as E, fired, at),
  };
}
