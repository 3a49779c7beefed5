// The effect of an external-agent job: start the agent's process in an empty workspace with its
// task, its proxy and MCP endpoints registered with the gateway, wait for it to end, and record
// how it ended. Everything the agent did in between was recorded by the AgentRecorder.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentStopReason, DataOf, PlannedJob, StoredEvent } from '../../events/index.js';
import { canonicalJson } from '../../core/canonical.js';
import { RunInterrupted } from '../kernel/errors.js';
import { draft } from '../kernel/journal.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import type { ExternalAgentHooks } from '../suite/define.js';
import type { Injection } from '../suite/types.js';
import { resolveAgentCommand } from './command.js';
import { agentActor, agentTaskFile, stopReasonOf, type AgentJobState } from './logic.js';
import { agentEnvironment, makeWorkspace, removeWorkspace, startAgentProcess, type AgentProcess, type AgentProcessResult } from './process.js';
import { claimJobFolder } from './job-folder.js';
import { AgentRecorder } from './recorder.js';
import { AgentSession } from './session.js';
import type { AgentGateway, AgentLimits } from '../kernel/agent-gateway.js';
import { captureWorkspace, seedWorkspace, writingTools } from './workspace.js';
import type { WorkspaceChanges } from '../suite/types.js';

/** The most of the result file read as the answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface AgentRunInput {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  hooks: ExternalAgentHooks;
  limits: AgentLimits;
  gateway: () => Promise<AgentGateway>;
  /** The job's events before the agent's (JobStarted): a session's deadline starts at it. */
  started: readonly StoredEvent[];
}

/** How the agent's part of the job ended: what the grader and the job's end are decided from. */
export interface AgentRunOutput {
  reason: AgentStopReason;
  state: AgentJobState;
  answer: string | null;
  code: number | null;
  signal: string | null;
  /** A session suite's final environment (what its grader scores); undefined for other suites. */
  environment?: unknown;
  /** The workspace's changes as the agent left it, for a suite with a workspace (see WorkspaceSpec); undefined for other suites. */
  workspace?: WorkspaceChanges;
}

/**
 * Runs the job's agent to its end and records AgentLaunched … AgentExited. A session scenario's
 * worker_restart ends the agent's process and starts a fresh one on the same task and workspace
 * (AgentLaunched again); the job ends when a process ends with no restart due.
 */
export async function runExternalAgent(input: AgentRunInput): Promise<AgentRunOutput> {
  const { job, journal, provider, hooks, limits } = input;
  const resolved = await resolveAgentCommand(hooks.spec, { agent: hooks.name });
  const task = hooks.task();
  const taskFile = agentTaskFile({ runId: journal.runId, job, arm: hooks.arm, agent: hooks.name, model: provider.model, task, limits });
  const taskBytes = Buffer.from(`${canonicalJson(taskFile, 2)}\n`);
  let proc: AgentProcess | null = null;
  // Set by the recorder when a session's worker_restart is recorded: the next process is due.
  const due: { restart: Injection | null } = { restart: null };
  const actor = agentActor(journal.jobId);
  const session = hooks.session ? new AgentSession({ journal, provider, session: hooks.session, actor }) : undefined;
  const recorder = new AgentRecorder({
    journal,
    provider,
    hooks,
    tools: task.tools,
    limits,
    ...(session ? { session } : {}),
    onFatal: () => proc?.kill(),
    // Killed before the tool's reply reaches it: the old process acts on nothing after the restart.
    onRestart: (injection) => {
      due.restart = injection;
      proc?.kill();
    },
  });
  recorder.fold(input.started);
  const taskBlob = await journal.blobs.put(taskBytes);
  const launch = async () =>
    recorder.fold([await journal.scope.emit(actor, draft('AgentLaunched', { agent: hooks.name, command: hooks.spec.command, task: taskBlob }))]);
  await launch();

  // The same folder on every run of this job (job-folder.ts), so an agent that names its working
  // directory sends the recorded path on resume and replay; a fresh one if another process holds it.
  const fixed = await claimJobFolder(journal.runId, job.jobId);
  const dir = fixed?.path ?? (await makeWorkspace());
  try {
    const workspace = join(dir, 'workspace');
    await mkdir(workspace);
    // Workspace hook: a suite whose work is files seeds the folder (its tools' writes follow each call, below).
    if (hooks.workspace) await seedWorkspace(workspace, hooks.workspace.files);
    const taskPath = join(dir, 'task.json');
    const resultPath = join(dir, 'result');
    await writeFile(taskPath, taskBytes);
    const gateway = await input.gateway();
    // One time limit for the job, however many processes its restarts take.
    const endsAt = performance.now() + limits.timeLimitMs;
    let end: AgentProcessResult;
    for (;;) {
      const round = recorder.nextRound();
      const handlers = hooks.workspace ? writingTools(round, workspace, hooks.workspace, () => recorder.state.artifact) : round;
      const endpoints = gateway.register(handlers, provider.passThrough ? { passThrough: provider.passThrough } : undefined);
      try {
        const env = agentEnvironment({
          from: process.env,
          pass: hooks.spec.env,
          workspace,
          vars: {
            EVALOG_TASK: taskPath,
            OPENAI_BASE_URL: endpoints.baseUrl,
            OPENAI_API_KEY: endpoints.token,
            // Anthropic's clients (the SDK, Claude Code) append /v1/messages themselves; same per-job token.
            ANTHROPIC_BASE_URL: endpoints.anthropicBaseUrl,
            ANTHROPIC_API_KEY: endpoints.token,
            EVALOG_MCP_URL: endpoints.mcpUrl,
            EVALOG_WORKSPACE: workspace,
            EVALOG_RESULT: resultPath,
          },
        });
        const timeLimitMs = Math.max(1, Math.round(endsAt - performance.now()));
        proc = startAgentProcess({ argv: resolved.argv, cwd: workspace, env, timeLimitMs, signal: provider.signal });
        end = await proc.done;
        await recorder.settled();
      } finally {
        endpoints.close();
      }
      if (recorder.failure !== null) throw recorder.failure;
      // An interrupted run leaves the job unfinished: resume runs the agent again against its record.
      if (end.ended === 'aborted' || provider.signal.aborted) throw new RunInterrupted();
      if (due.restart === null || end.ended === 'time_limit') break;
      due.restart = null;
      // The answer is the last process's: the workspace stays (a restart loses memory, not disk).
      await rm(resultPath, { force: true });
      await launch();
    }
    const answer = (await readAnswer(resultPath)) ?? textOrNull(end.stdout.toString('utf8').trim());
    const reason = stopReasonOf(end, recorder.state);
    const exited = await exitData(journal, recorder.state, { reason, end, answer });
    await recorder.diverges('exit', (r) => (r.type === 'AgentExited' ? null : { field: 'kind', detail: `the record holds ${r.type} here, the agent exited` }));
    recorder.fold([await journal.scope.emit(actor, draft('AgentExited', keepRecordedLogs(journal, exited)))]);
    const out: AgentRunOutput = { reason, state: recorder.state, answer, code: end.code, signal: end.signal };
    // Workspace hook: what the agent left in the folder goes to the grader, which records it.
    if (hooks.workspace) out.workspace = await captureWorkspace(workspace, hooks.workspace.files);
    return session ? { ...out, environment: session.state.environment } : out;
  } finally {
    await (fixed ? fixed.release() : removeWorkspace(dir));
  }
}

async function exitData(
  journal: JobJournal,
  s: AgentJobState,
  o: { reason: AgentStopReason; end: AgentProcessResult; answer: string | null },
): Promise<DataOf<'AgentExited'>> {
  const stream = async (bytes: Buffer, count: number, truncated: boolean) => ({
    blob: bytes.length > 0 ? await journal.blobs.put(bytes) : null,
    bytes: count,
    truncated,
  });
  const { end } = o;
  return {
    reason: o.reason,
    code: end.code,
    signal: end.signal,
    answer: o.answer,
    modelCalls: s.modelCalls,
    toolCalls: s.toolCalls,
    stdout: await stream(end.stdout, end.stdoutBytes, end.stdoutTruncated),
    stderr: await stream(end.stderr, end.stderrBytes, end.stderrTruncated),
  };
}

// Replay and resume compare what the agent concluded (reason, exit, answer, counts), not its logs:
// an agent that prints a timestamp has not diverged. When the conclusion matches the record, the
// recorded logs are kept, so the re-emitted event is the logged one.
function keepRecordedLogs(journal: JobJournal, data: DataOf<'AgentExited'>): DataOf<'AgentExited'> {
  const recorded: StoredEvent | undefined = journal.scope.peek();
  if (recorded?.type !== 'AgentExited') return data;
  const r = recorded.data;
  const same =
    r.reason === data.reason &&
    r.code === data.code &&
    r.signal === data.signal &&
    r.answer === data.answer &&
    r.modelCalls === data.modelCalls &&
    r.toolCalls === data.toolCalls;
  return same ? { ...data, stdout: r.stdout, stderr: r.stderr } : data;
}

async function readAnswer(path: string): Promise<string | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return null;
  }
  return bytes.subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

function textOrNull(s: string): string | null {
  return s === '' ? null : s;
}
