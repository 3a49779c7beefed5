// What the agent-protocols e2e files share: the example agents built on real SDKs (OpenAI Responses
// and Anthropic Messages), a scripted-model server of their own, runs made once per file, what a
// run's log says per job, and edited copies of a run's log for replay to find.
import { expect } from 'chai';
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../../src/core/canonical.js';
import type { EvalogEvent, StoredEvent } from '../../src/events/index.js';
import { FileEventLog, runLogPaths } from '../../src/log/file/index.js';
import { type CliResult, readJsonl, runEvalogHere, tempDir } from '../support/cli.js';
import { type MockServerProcess, startMockServer } from '../support/mock-server.js';
import { type Json, readJson } from '../support/outputs.js';

const file = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));

/** The example agents of examples/agents/ by folder, with the protocol each speaks. */
export const EXAMPLES = {
  node: { file: file('../../examples/agents/node-agent.mjs'), protocol: 'chat' },
  'openai-agents-sdk': { file: file('../../examples/agents/openai-agents-sdk/agent.mjs'), protocol: 'responses' },
  'ai-sdk-responses': { file: file('../../examples/agents/ai-sdk-responses/agent.mjs'), protocol: 'responses' },
  'anthropic-sdk': { file: file('../../examples/agents/anthropic-sdk/agent.mjs'), protocol: 'messages' },
  'ai-sdk-anthropic': { file: file('../../examples/agents/ai-sdk-anthropic/agent.mjs'), protocol: 'messages' },
} as const;
/** An example agent's folder name. */
export type Example = keyof typeof EXAMPLES;

/** The `--agent` value of an example, streamed or not. */
export const agentCommand = (agent: Example, stream: boolean) => `node ${EXAMPLES[agent].file}${stream ? ' --stream' : ''}`;
/** The run name of an example's smoke run: `smoke-anthropic-sdk-stream`, say. */
export const smokeName = (agent: Example, stream: boolean) => `smoke-${agent}${stream ? '-stream' : ''}`;
/** Smoke on the scripted model, one repetition: 8 jobs (4 cases × 2 arms). */
export const SMOKE_ARGS = ['--repetitions', '1', '--model', 'evalog-scripted'];
/**
 * The cases of an example agent's smoke run: the shortest order and the longest (4 jobs, both
 * arms). Every job is an SDK process of one to two CPU-seconds, and what the run proves (the
 * protocol's requests, MCP tool calls, usage, calls as the chat agent's) holds per job.
 */
export const SMOKE_CASES = ['--case', 'hardware_run', '--case', 'bakery_order'];

/** What a run's log says, per job: its protocol requests, model requests, tool calls, answers. */
export interface LogFacts {
  completed: boolean;
  requested: number;
  successes: number;
  diverged: number;
  jobs: Map<string, { received: string[]; requests: number; tools: number; exits: number; answer: string | null; code: number | null }>;
}

/** Reads `runId`'s log under `root`. */
export async function logFacts(root: string, runId: string): Promise<LogFacts> {
  const log = await FileEventLog.open({ root });
  const facts: LogFacts = { completed: false, requested: 0, successes: 0, diverged: 0, jobs: new Map() };
  const job = (id: string) => {
    const known = facts.jobs.get(id) ?? { received: [], requests: 0, tools: 0, exits: 0, answer: null, code: null };
    facts.jobs.set(id, known);
    return known;
  };
  try {
    for await (const e of log.read(runId)) {
      if (e.type === 'RunCompleted') facts.completed = true;
      if (e.type === 'ProviderCallSucceeded') facts.successes += 1;
      if (e.type === 'AgentDiverged') facts.diverged += 1;
      if (!e.jobId) continue;
      if (e.type === 'AgentRequestReceived') job(e.jobId).received.push(e.data.protocol);
      if (e.type === 'ProviderCallRequested') {
        facts.requested += 1;
        job(e.jobId).requests += 1;
      }
      if (e.type === 'ToolCalled') job(e.jobId).tools += 1;
      if (e.type === 'AgentExited') {
        job(e.jobId).exits += 1;
        job(e.jobId).answer = e.data.answer;
        job(e.jobId).code = e.data.code;
      }
    }
  } finally {
    await log.close();
  }
  return facts;
}

/** A file's scripted-model server and temp folder, and its runs made once each (several tests read them). */
export interface ProtocolFixture {
  readonly dir: string;
  readonly server: MockServerProcess;
  readonly env: Record<string, string>;
  /** `evalog run ARGS --out runs/NAME` (in process), once per name. */
  runOnce(name: string, args: string[]): Promise<CliResult>;
  /** The smoke run of an example agent (SMOKE_CASES), streamed or not, once. */
  smokeRun(agent: Example, stream: boolean): Promise<CliResult>;
  /** A file of runs/NAME. */
  out(name: string, f: string): string;
  close(): Promise<void>;
}

/** Starts the scripted-model server (`evalog mock-server`, a process of its own) in a fresh temp folder. */
export async function protocolFixture(prefix: string): Promise<ProtocolFixture> {
  const tmp = await tempDir(prefix);
  const server = await startMockServer([], tmp.dir);
  const env = { EVALOG_BASE_URL: server.url };
  const memo = new Map<string, Promise<CliResult>>();
  const runOnce = (name: string, args: string[]) => {
    const known = memo.get(name) ?? runEvalogHere(['run', ...args, '--out', `runs/${name}`], { cwd: tmp.dir, env });
    memo.set(name, known);
    return known;
  };
  return {
    dir: tmp.dir,
    server,
    env,
    runOnce,
    smokeRun: (agent, stream) => runOnce(smokeName(agent, stream), ['smoke', ...SMOKE_ARGS, ...SMOKE_CASES, '--agent', agentCommand(agent, stream)]),
    out: (name, f) => join(tmp.dir, 'runs', name, f),
    async close() {
      await server.stop();
      await tmp.cleanup();
    },
  };
}

/** What a job concluded, as far as it does not depend on the scripted model's per-request randomness. */
const conclusion = (r: Json) => ({ job: r.job_id, status: r.status, stop: r.stop_reason, calls: r.calls, tools: r.tool_calls });

/**
 * Checks a finished smoke run of a protocol agent: 4 rows (SMOKE_CASES) answered with tool calls and known usage,
 * every model request received in the agent's protocol, usage.json the log's requests, and each
 * job's calls and tool calls those of the chat completions agent's run of the same cases (the
 * scripted worker looks up every missing price, then writes the answer, whatever the protocol).
 */
export async function expectSmokeRun(fx: ProtocolFixture, agent: Example, stream: boolean): Promise<void> {
  const name = smokeName(agent, stream);
  const r = await fx.smokeRun(agent, stream);
  expect(r.code, r.stdout + r.stderr).to.equal(0);
  const rows = await readJsonl(fx.out(name, 'rows.jsonl'));
  expect(rows).to.have.length(4);
  const facts = await logFacts(join(fx.dir, 'runs'), name);
  for (const row of rows) {
    const id = String(row.job_id);
    expect(row, id).to.deep.include({ agent: 'agent', stop_reason: 'answered', status: 'succeeded' });
    const usage = row.usage as { total: { total_tokens: number | null; complete: boolean } } | null;
    expect(usage?.total.complete, `${id}: usage of every call known`).to.equal(true);
    expect(usage?.total.total_tokens, `${id}: tokens`).to.be.greaterThan(0);
    const job = facts.jobs.get(id)!;
    expect(row.tool_calls, `${id}: tool calls over MCP`).to.be.greaterThan(0).and.equal(job.tools);
    expect(row.calls, `${id}: calls`).to.equal(job.requests);
    // One AgentRequestReceived per request, each in the protocol the agent's SDK speaks.
    expect(job.received, `${id}: requests received`).to.deep.equal(Array(job.requests).fill(EXAMPLES[agent].protocol));
  }
  expect(rows.filter((row) => row.passed === true).length, 'jobs that passed').to.be.greaterThan(0);
  const usage = await readJson<{ calls: Json[]; report: { calls: number } }>(fx.out(name, 'usage.json'));
  expect(usage.report.calls).to.equal(facts.requested).and.equal(usage.calls.length);
  const reference = await fx.smokeRun('node', false);
  expect(reference.code, reference.stderr).to.equal(0);
  const chatRows = await readJsonl(fx.out(smokeName('node', false), 'rows.jsonl'));
  expect(rows.map(conclusion)).to.deep.equal(chatRows.map(conclusion));
}

/**
 * How an example agent stops on evalog's refusals: a token budget used up (403) is exit 0 and the
 * stop reason `budget:tokens`; an upstream failing after evalog's retries (502, from `faulty`, a
 * server whose every answer is a 500) is exit 1, the job failed as `agent_failed` (the run exits 3).
 */
export async function expectStops(fx: ProtocolFixture, faulty: MockServerProcess, agent: Example, stream: boolean): Promise<void> {
  const tag = `${agent}${stream ? '-stream' : ''}`;
  const command = ['node', EXAMPLES[agent].file, ...(stream ? ['--stream'] : [])];
  await writeFile(join(fx.dir, `budget-${tag}.json`), JSON.stringify({ agent: { command, limits: { tokens: 700 } } }));
  const args = ['smoke', ...SMOKE_ARGS, '--case', 'fruit_basket'];
  const budget = await fx.runOnce(`budget-${tag}`, [...args, '--config', `budget-${tag}.json`]);
  expect(budget.code, budget.stdout + budget.stderr).to.equal(0);
  const budgetRows = await readJsonl(fx.out(`budget-${tag}`, 'rows.jsonl'));
  const stopped = budgetRows.filter((r) => r.stop_reason === 'budget:tokens');
  expect(stopped.length, 'jobs stopped by the token budget').to.be.greaterThan(0);
  const budgetFacts = await logFacts(join(fx.dir, 'runs'), `budget-${tag}`);
  for (const r of stopped) expect(budgetFacts.jobs.get(String(r.job_id))).to.deep.include({ code: 0, answer: null });

  const failed = await runEvalogHere(['run', ...args, '--agent', agentCommand(agent, stream), '--out', `runs/fault-${tag}`], {
    cwd: fx.dir,
    env: { EVALOG_BASE_URL: faulty.url },
  });
  expect(failed.code, 'jobs ended in errors: exit 3').to.equal(3);
  const faultRows = await readJsonl(fx.out(`fault-${tag}`, 'rows.jsonl'));
  expect(faultRows).to.have.length(2);
  const failure = (r: Json) => [r.status, r.stop_reason, (r.failure as Json | null)?.reason];
  expect(faultRows.map(failure)).to.deep.equal(faultRows.map(() => ['failed', 'exited_nonzero', 'agent_failed']));
  const faultFacts = await logFacts(join(fx.dir, 'runs'), `fault-${tag}`);
  expect([...faultFacts.jobs.values()].map((j) => j.code)).to.deep.equal(faultRows.map(() => 1));
}

type Edit = (events: StoredEvent[], log: FileEventLog) => Promise<StoredEvent[]>;

/**
 * A copy of run `name` in `<dir>/edited-<tag>/<name>`: its outputs and blobs as they are, its events
 * re-encoded through the file log's writer after `edit` (frames and CRCs valid, only the edit differs).
 * Returns the copy's folder, relative to `dir`.
 */
export async function editedCopy(dir: string, name: string, tag: string, edit: Edit): Promise<string> {
  const root = join(dir, `edited-${tag}`);
  await cp(join(dir, 'runs', name), join(root, name), { recursive: true });
  await rm(runLogPaths(root, name).events);
  const source = await FileEventLog.open({ root: join(dir, 'runs') });
  const events: StoredEvent[] = [];
  try {
    for await (const e of source.read(name)) events.push(e);
  } finally {
    await source.close();
  }
  const log = await FileEventLog.open({ root });
  try {
    const edited = await edit(events, log);
    await log.append(edited.map(({ seq: _seq, ...e }) => e as EvalogEvent));
  } finally {
    await log.close();
  }
  return join(`edited-${tag}`, name);
}

/** The middle one of the events `pick` chooses, so an edit lands mid-run. */
function middle(events: readonly StoredEvent[], pick: (e: StoredEvent, i: number) => boolean): StoredEvent {
  const hits = events.filter(pick);
  expect(hits.length, 'the log has such an event').to.be.greaterThan(0);
  return hits[Math.floor(hits.length / 2)]!;
}
const replace = (events: StoredEvent[], target: StoredEvent, by: StoredEvent) => events.map((e) => (e === target ? by : e));

/**
 * An edit to a translated request: the last message of a ProviderCallRequested that an agent's
 * protocol request became (the event after its AgentRequestReceived) is rewritten. Returns the
 * edit and, once it has run, the job it touched.
 */
export function editTranslatedMessage(): { edit: Edit; job: () => string } {
  let job = '';
  const edit: Edit = async (events, log) => {
    const target = middle(events, (e, i) => e.type === 'ProviderCallRequested' && events[i - 1]?.type === 'AgentRequestReceived');
    if (target.type !== 'ProviderCallRequested') throw new Error('unreachable');
    job = target.jobId!;
    const blobs = log.blobs(target.runId);
    const last = target.data.messages.at(-1)!;
    const message = JSON.parse(Buffer.from(await blobs.get(last)).toString('utf8')) as { content: unknown };
    const ref = await blobs.put(Buffer.from(canonicalJson({ ...message, content: `${JSON.stringify(message.content)} (edited)` })));
    expect(ref).to.not.equal(last);
    return replace(events, target, { ...target, data: { ...target.data, messages: [...target.data.messages.slice(0, -1), ref] } });
  };
  return { edit, job: () => job };
}

/** An edit to a received request: an AgentRequestReceived's body blob replaced by an edited body. */
export function editReceivedBody(): { edit: Edit; job: () => string } {
  let job = '';
  const edit: Edit = async (events, log) => {
    const target = middle(events, (e) => e.type === 'AgentRequestReceived');
    if (target.type !== 'AgentRequestReceived') throw new Error('unreachable');
    job = target.jobId!;
    const blobs = log.blobs(target.runId);
    const body = JSON.parse(Buffer.from(await blobs.get(target.data.body)).toString('utf8')) as Json;
    // A field the comparison keeps (not one of record-only.ts's, such as Responses' `metadata`).
    const ref = await blobs.put(Buffer.from(canonicalJson({ ...body, edited_by_test: 'yes' })));
    expect(ref).to.not.equal(target.data.body);
    return replace(events, target, { ...target, data: { ...target.data, body: ref } });
  };
  return { edit, job: () => job };
}
