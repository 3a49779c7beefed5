// The effect of an external-agent job: start the agent's process in a fresh workspace with its
// task, its proxy and MCP endpoints registered with the gateway, wait for it to end, and record
// how it ended. Everything the agent did in between was recorded by the AgentRecorder.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentStopReason, DataOf, PlannedJob, StoredEvent } from '../../events/index.js';
import { canonicalJson } from '../../core/canonical.js';
import { RunInterrupted } from '../errors.js';
import { draft } from '../journal.js';
import type { JobJournal, ProviderPort } from '../ports.js';
import type { ExternalAgentHooks } from '../suite/define.js';
import { resolveAgentCommand } from './command.js';
import { agentTaskFile, stopReasonOf, type AgentJobState } from './logic.js';
import { agentEnvironment, makeWorkspace, removeWorkspace, startAgentProcess, type AgentProcess, type AgentProcessResult } from './process.js';
import { AgentRecorder } from './recorder.js';
import type { AgentGateway, AgentLimits } from './types.js';

/** The most of the result file read as the answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface AgentRunInput {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  hooks: ExternalAgentHooks;
  limits: AgentLimits;
  gateway: () => Promise<AgentGateway>;
}

/** How the agent's part of the job ended: what the grader and the job's end are decided from. */
export interface AgentRunOutput {
  reason: AgentStopReason;
  state: AgentJobState;
  answer: string | null;
  code: number | null;
  signal: string | null;
}

/** Runs the job's agent to its end and records AgentLaunched … AgentExited. */
export async function runExternalAgent(input: AgentRunInput): Promise<AgentRunOutput> {
  const { job, journal, provider, hooks, limits } = input;
  const resolved = await resolveAgentCommand(hooks.spec, { agent: hooks.name });
  const task = hooks.task();
  const taskFile = agentTaskFile({ runId: journal.runId, job, arm: hooks.arm, agent: hooks.name, model: provider.model, task, limits });
  const taskBytes = Buffer.from(`${canonicalJson(taskFile, 2)}\n`);
  let proc: AgentProcess | null = null;
  const recorder = new AgentRecorder({ journal, provider, hooks, tools: task.tools, limits, onFatal: () => proc?.kill() });
  const actor = recorder.actor;
  const taskBlob = await journal.blobs.put(taskBytes);
  recorder.fold([await journal.scope.emit(actor, draft('AgentLaunched', { agent: hooks.name, command: hooks.spec.command, task: taskBlob }))]);

  const dir = await makeWorkspace();
  try {
    const workspace = join(dir, 'workspace');
    await mkdir(workspace);
    const taskPath = join(dir, 'task.json');
    const resultPath = join(dir, 'result');
    await writeFile(taskPath, taskBytes);
    const gateway = await input.gateway();
    const endpoints = gateway.register(recorder);
    let end: AgentProcessResult;
    try {
      const env = agentEnvironment({
        from: process.env,
        pass: hooks.spec.env,
        workspace,
        vars: {
          EVALOG_TASK: taskPath,
          OPENAI_BASE_URL: endpoints.baseUrl,
          OPENAI_API_KEY: endpoints.token,
          EVALOG_MCP_URL: endpoints.mcpUrl,
          EVALOG_WORKSPACE: workspace,
          EVALOG_RESULT: resultPath,
        },
      });
      proc = startAgentProcess({ argv: resolved.argv, cwd: workspace, env, timeLimitMs: limits.timeLimitMs, signal: provider.signal });
      end = await proc.done;
      await recorder.settled();
    } finally {
      endpoints.close();
    }
    if (recorder.failure !== null) throw recorder.failure;
    // An interrupted run leaves the job unfinished: resume runs the agent again against its record.
    if (end.ended === 'aborted' || provider.signal.aborted) throw new RunInterrupted();
    const answer = (await readAnswer(resultPath)) ?? textOrNull(end.stdout.toString('utf8').trim());
    const reason = stopReasonOf(end, recorder.state);
    const exited = await exitData(journal, recorder.state, { reason, end, answer });
    await recorder.diverges('exit', (r) => (r.type === 'AgentExited' ? null : { field: 'kind', detail: `the record holds ${r.type} here, the agent exited` }));
    recorder.fold([await journal.scope.emit(actor, draft('AgentExited', keepRecordedLogs(journal, exited)))]);
    return { reason, state: recorder.state, answer, code: end.code, signal: end.signal };
  } finally {
    await removeWorkspace(dir);
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
