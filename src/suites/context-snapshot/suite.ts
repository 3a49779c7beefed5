import type { ToolCallRequest } from '../../events/index.js';
import {
  defineSuite,
  type CaseSpec,
  type CheckResult,
  type Delegation,
  type GradeInput,
  type GradeOutput,
  type SuiteDefinition,
} from '../../harness/suite/index.js';
import { ContextSnapshotConfig, defaultConfig, type ContextSnapshotConfig as Config } from './config.js';
import { gradeArtifact } from './grading.js';
import { TASK_SHAPES, type Task } from './manifest.js';
import { agentMessages, ARMS, leadMessages, TASK_TOOL, WORKER_TOOLS, workerMessages, type Arm } from './prompts.js';
import { contextSnapshotReport } from './report.js';
import { checkIds, loadTasks } from './tasks.js';
import { runTool } from './tools.js';
import type { SuiteCli } from '../../harness/suite/index.js';

/** The suite's definition (its hooks, typed), for tests of the hooks themselves. */
export const contextSnapshotDefinition = {
  name: 'context-snapshot',
  description: 'Paired isolated-handoff vs snapshot parent/worker evaluation on eight synthetic tasks (51 hidden checks)',
  shape: 'agent',
  configSchema: ContextSnapshotConfig,
  get defaults() {
    return defaultConfig();
  },
  // The task files are read once per run; they are hashed into provenance at run start.
  prepare: async () => ({ cases: loadTasks().map((t): CaseSpec<Task> => ({ id: t.id, data: t })) }),
  arms: () => Object.keys(ARMS).sort(),
  agent: {
    parentRequest: (c, arm) => ({ messages: leadMessages(c.data, arm as Arm), tools: [TASK_TOOL] }),
    acceptDelegation,
    workerRequest: (c, arm, prompt) => ({ messages: workerMessages(c.data, arm as Arm, prompt), tools: WORKER_TOOLS }),
    runTool,
    // One external agent in place of the lead and worker: the worker's tools and its arm's context.
    agentTask: (c, arm) => ({ messages: agentMessages(c.data, arm as Arm), tools: WORKER_TOOLS }),
  },
  grade,
  report: contextSnapshotReport,
  // The protocol fixes each task's kind by id (and loading checks the files agree), so no file is read here.
  artifactExtension: (caseId) => (Object.hasOwn(TASK_SHAPES, caseId) && TASK_SHAPES[caseId as keyof typeof TASK_SHAPES].kind === 'javascript' ? 'js' : 'json'),
} satisfies SuiteDefinition<Config, Task, never>;

/** The context-snapshot suite: isolated handoff vs parent-context snapshot, eight synthetic tasks. */
export const contextSnapshotSuite = defineSuite(contextSnapshotDefinition);

/** Its command-line adjunct: the endpoint variables it reads first. */
export const contextSnapshotCli: SuiteCli = {
  endpointEnv: { baseUrl: 'CONTEXT_SNAPSHOT_BASE_URL', model: 'CONTEXT_SNAPSHOT_MODEL', apiKey: 'CONTEXT_SNAPSHOT_API_KEY' },
};

/** The parent must call `task` exactly once, for a general-purpose worker, in its arm's mode. */
function acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation {
  if (toolCalls.length !== 1 || toolCalls[0]!.name !== 'task') {
    return { ok: false, reason: 'parent_no_task', message: `expected exactly one task call, got ${toolCalls.map((t) => t.name).join(', ') || 'none'}` };
  }
  let args: { subagent_type?: unknown; mode?: unknown; prompt?: unknown };
  try {
    args = JSON.parse(toolCalls[0]!.arguments) as typeof args;
  } catch {
    return { ok: false, reason: 'parent_bad_task', message: 'task arguments are not JSON' };
  }
  const mode = ARMS[arm as Arm];
  if (args?.subagent_type !== 'general-purpose') return { ok: false, reason: 'parent_bad_task', message: 'subagent_type must be "general-purpose"' };
  if (args.mode !== mode) return { ok: false, reason: 'parent_bad_task', message: `mode must be "${mode}" in arm ${arm}, got ${JSON.stringify(args.mode)}` };
  if (typeof args.prompt !== 'string' || args.prompt.trim() === '')
    return { ok: false, reason: 'parent_bad_task', message: 'prompt must be a non-empty string' };
  return { ok: true, mode, brief: args.prompt };
}

/** Hidden checks on the final revision (an invalid artifact fails every check), and revision 1's verdict. */
async function grade(c: CaseSpec<Task>, work: GradeInput): Promise<GradeOutput> {
  const task = c.data;
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
