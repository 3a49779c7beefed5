import type { CaseSpec, CheckResult, Delegation, GradeInput, GradeOutput, SuiteCli, SuiteDefinition, ToolCallRequest } from 'evalog';
import { defineSuite, sha256 } from 'evalog';
import {
  ContextSnapshotConfig,
  DEFAULT_CONFIG,
  defaultConfig,
  isProtocolRun,
  LEGACY_BUNDLED_ID,
  LegacyBundledRunError,
  type ContextSnapshotConfig as Config,
} from './config.js';
import { contextSnapshotRunFlags } from './flags.js';
import { graphStepRule } from './graph-steps.js';
import { gradeArtifact } from './grading.js';
import { TASK_SHAPES, type Task } from './manifest.js';
import { agentMessages, ARMS, leadMessages, TASK_TOOL, WORKER_TOOLS, workerMessages, type Arm } from './prompts.js';
import { gradeProtocolJob } from './protocol-checks.js';
import { PROTOCOL_WORKER_TOOLS, protocolAgentMessages, protocolLeadMessages, protocolWorkerMessages, type ProtocolTask } from './protocol-prompts.js';
import { loadRecordedProtocol, protocolProvenance, protocolTasks } from './protocol-run.js';
import { runProtocolTool } from './protocol-tools.js';
import { contextSnapshotReport } from './report.js';
import { pyStrip } from './strip.js';
import { checkIds, loadTasks } from './tasks.js';
import { runTool } from './tools.js';

/** A case of the suite: a bundled task (evalog's own variant) or a case of a protocol folder. */
export type CsCase = Task | ProtocolTask;

/** Whether a case comes from a protocol folder. */
export const isProtocolTask = (d: CsCase): d is ProtocolTask => 'variant' in d && d.variant === 'protocol';

/** The brief a case's lead is given (the snapshot arm's prompt must be it, stripped). */
const briefOf = (d: CsCase): string => (isProtocolTask(d) ? d.case.brief : d.brief);

/** The suite's definition (its hooks, typed), for tests of the hooks themselves. */
export const contextSnapshotDefinition = {
  name: 'context-snapshot',
  description:
    "Paired isolated-handoff vs snapshot parent/worker evaluation: evalog's own eight synthetic tasks (51 hidden checks), or the published protocol from --protocol-dir",
  shape: 'agent',
  // Its default config and the bundled tasks: a resume refuses the run once one of them changed.
  manifests: { folder: new URL('./', DEFAULT_CONFIG) },
  configSchema: ContextSnapshotConfig,
  get defaults() {
    return defaultConfig();
  },
  // Read once per run: the bundled task files (hashed into provenance at run start), or the
  // recorded protocol folder, refused when its bytes are not the recorded ones.
  prepare: async (config) => {
    if (!isProtocolRun(config) && config.protocol === LEGACY_BUNDLED_ID) throw new LegacyBundledRunError();
    const cases = isProtocolRun(config) ? protocolTasks(loadRecordedProtocol(config)) : loadTasks().map((t): CaseSpec<CsCase> => ({ id: t.id, data: t }));
    return { cases };
  },
  arms: () => Object.keys(ARMS).sort(),
  agent: {
    // The lead is made to call `task`, as the published runner binds it with tool_choice.
    parentRequest: (c, arm) => ({
      messages: isProtocolTask(c.data) ? protocolLeadMessages(c.data, arm as Arm) : leadMessages(c.data, arm as Arm),
      tools: [TASK_TOOL],
      toolChoice: TASK_TOOL.name,
    }),
    acceptDelegation,
    workerRequest: (c, arm, prompt, _config?: unknown, criteria?: readonly string[] | null) =>
      isProtocolTask(c.data)
        ? { messages: protocolWorkerMessages(c.data, arm as Arm, prompt, criteria ?? null), tools: PROTOCOL_WORKER_TOOLS }
        : { messages: workerMessages(c.data, arm as Arm, prompt, criteria ?? null), tools: WORKER_TOOLS },
    runTool: (name, args, ctx) => {
      const d = ctx.case.data;
      return isProtocolTask(d)
        ? runProtocolTool(name, args, { ...ctx, case: { id: ctx.case.id, data: d } })
        : runTool(name, args, { ...ctx, case: { id: ctx.case.id, data: d } });
    },
    // The published executor's step limit, when the config has one (a protocol folder's max_graph_steps).
    stopRule: (config) => (config.worker.graphSteps === undefined ? null : graphStepRule(config.worker.graphSteps)),
    // One external agent in place of the lead and worker: the worker's tools and its arm's context.
    agentTask: (c, arm) =>
      isProtocolTask(c.data)
        ? { messages: protocolAgentMessages(c.data, arm as Arm), tools: PROTOCOL_WORKER_TOOLS }
        : { messages: agentMessages(c.data, arm as Arm), tools: WORKER_TOOLS },
  },
  grade: (c, work) => (isProtocolTask(c.data) ? gradeProtocolJob(c.data.case, work) : grade(c.data, work)),
  // The brief's hash (never its text): the rows tell whether the snapshot arm's prompt was the brief as written.
  jobMeta: (c) => ({ brief_sha256: sha256(pyStrip(briefOf(c.data))) }),
  report: contextSnapshotReport,
  // A protocol run records its cases' kinds; the bundled variant fixes each task's kind by id (and loading checks the files agree).
  artifactExtension: (caseId, config) => {
    const kinds = config.protocolCases as Record<string, string> | null | undefined;
    if (kinds) return kinds[caseId] === 'python' ? 'py' : 'json';
    return Object.hasOwn(TASK_SHAPES, caseId) && TASK_SHAPES[caseId as keyof typeof TASK_SHAPES].kind === 'javascript' ? 'js' : 'json';
  },
  provenance: protocolProvenance,
} satisfies SuiteDefinition<Config, CsCase, never>;

/** The context-snapshot suite: isolated handoff vs parent-context snapshot, on evalog's bundled tasks or a protocol folder. */
export const contextSnapshotSuite = defineSuite(contextSnapshotDefinition);

/** Its command-line adjunct: --protocol-dir / --allow-unpinned, and the endpoint variables it reads first. */
export const contextSnapshotCli: SuiteCli = {
  runFlags: contextSnapshotRunFlags,
  endpointEnv: { baseUrl: 'CONTEXT_SNAPSHOT_BASE_URL', model: 'CONTEXT_SNAPSHOT_MODEL', apiKey: 'CONTEXT_SNAPSHOT_API_KEY' },
};

/**
 * The published runner's dispatch rules: exactly one `task` call whose arguments fit the task
 * tool's schema (`prompt` and `subagent_type` strings; `acceptance_criteria` a list of strings,
 * `description` a string, `context_mode` isolated or snapshot, each optional), for a
 * general-purpose worker, in the arm's mode (`context_mode` absent = isolated).
 */
function acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation {
  if (toolCalls.length !== 1 || toolCalls[0]!.name !== 'task') {
    return { ok: false, reason: 'parent_no_task', message: `expected exactly one task call, got ${toolCalls.map((t) => t.name).join(', ') || 'none'}` };
  }
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(toolCalls[0]!.arguments) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'parent_bad_task', message: 'task arguments are not JSON' };
  }
  const bad = (message: string): Delegation => ({ ok: false, reason: 'parent_bad_task', message });
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return bad('task arguments are not a JSON object');
  if (typeof args.prompt !== 'string') return bad('prompt must be a string');
  if (typeof args.subagent_type !== 'string') return bad('subagent_type must be a string');
  const criteria = args.acceptance_criteria;
  if (criteria !== undefined && criteria !== null && !(Array.isArray(criteria) && criteria.every((x) => typeof x === 'string')))
    return bad('acceptance_criteria must be a list of strings');
  if (args.description !== undefined && typeof args.description !== 'string') return bad('description must be a string');
  const mode = args.context_mode === undefined ? 'isolated' : args.context_mode;
  if (mode !== 'isolated' && mode !== 'snapshot') return bad(`context_mode must be "isolated" or "snapshot", got ${JSON.stringify(mode)}`);
  const expected = ARMS[arm as Arm];
  if (mode !== expected) return bad(`context_mode must be "${expected}" in arm ${arm}, got "${mode}"`);
  if (args.subagent_type !== 'general-purpose') return bad('subagent_type must be "general-purpose"');
  return { ok: true, mode, brief: args.prompt, acceptanceCriteria: (criteria as string[] | null | undefined) ?? null };
}

/** Hidden checks on the final revision (an invalid artifact fails every check), and revision 1's verdict. */
async function grade(task: Task, work: GradeInput): Promise<GradeOutput> {
  const final = await gradeArtifact(task, work.final, 'hidden');
  const byId = new Map(final.checks.map((x) => [x.id, x]));
  const checks: CheckResult[] = checkIds(task).map((id) => {
    const x = byId.get(id);
    const passed = final.valid && x?.passed === true;
    const detail = !final.valid ? `invalid artifact: ${final.invalidReason ?? 'unknown reason'}` : (x?.detail ?? 'not evaluated');
    return { checkId: id, visibility: 'hidden', passed, detail };
  });
  const firstRevisionPassed = work.first === null ? null : work.first === work.final ? final.passed : (await gradeArtifact(task, work.first, 'hidden')).passed;
  return { checks, firstRevisionPassed };
}
