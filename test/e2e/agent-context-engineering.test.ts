// An external agent on a session suite, end to end: `evalog run context-engineering --agent ...`
// with the example Node agent (a real child process per job, the real `openai` client and MCP SDK)
// against a scripted model in its own process (`evalog mock-server`), whose counters show what
// reached it. The scripted model plays the agent's requests as it plays the built-in worker's,
// following the instructions of the cell's prompt, so the cells must keep their verdicts.
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { type CliResult, collect, readJsonl, runEvalog, startEvalog, tempDir, withoutWallClock } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const AGENT = `node ${fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url))}`;
const CASES = ['query_failure', 'recovery_context_switch', 'recovery_worker_restart', 'stale_evidence'];
const ARGS = ['context-engineering', '--model', 'evalog-scripted', ...CASES.flatMap((c) => ['--case', c]), '--agent', AGENT];

async function eventsOf(root: string, runId: string): Promise<StoredEvent[]> {
  const log = await FileEventLog.open({ root });
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  await log.close();
  return out;
}

async function blobOf(root: string, runId: string, hash: string): Promise<string> {
  const log = await FileEventLog.open({ root });
  try {
    return Buffer.from(await log.blobs(runId).get(hash)).toString('utf8');
  } finally {
    await log.close();
  }
}

const count = (events: readonly StoredEvent[], type: string) => events.filter((e) => e.type === type).length;

describe('an external agent on context-engineering (a session suite; child processes, scripted model)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;
  let env: Record<string, string>;
  let reference: Promise<CliResult>;
  const root = () => join(tmp.dir, 'runs');
  const rowsOf = (name: string) => readJsonl(join(root(), name, 'rows.jsonl'));

  before(async () => {
    tmp = await tempDir('evalog-agent-ce-');
    server = await startMockServer([], tmp.dir);
    env = { EVALOG_BASE_URL: server.url };
    reference = runEvalog(['run', ...ARGS, '--out', 'runs/agent'], { cwd: tmp.dir, env });
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  it("completes with the scenarios' scoring: the careful cell passes, the quick one makes each scenario's mistake (but a context switch, which cannot replace the agent's conversation)", async () => {
    const r = await reference;
    expect(r.code, r.stderr).to.equal(0);
    const rows = await rowsOf('agent');
    expect(rows).to.have.length(8);
    expect(rows.every((row) => row.agent === 'agent' && row.stop_reason === 'answered' && row.status === 'succeeded')).to.equal(true);
    const verdict = (row: Record<string, unknown>) => [row.cell, row.case, row.success, row.failure_types];
    expect(rows.map(verdict)).to.deep.equal([
      ['baseline', 'query_failure', false, ['evidence', 'state']],
      ['baseline', 'recovery_context_switch', true, []],
      ['baseline', 'recovery_worker_restart', false, ['duplicate_effect', 'stale_misuse', 'state']],
      ['baseline', 'stale_evidence', false, ['evidence', 'stale_misuse', 'state']],
      ['candidate', 'query_failure', true, []],
      ['candidate', 'recovery_context_switch', true, []],
      ['candidate', 'recovery_worker_restart', true, []],
      ['candidate', 'stale_evidence', true, []],
    ]);
    const row = (cell: string, c: string) => rows.find((x) => x.cell === cell && x.case === c)!;
    // The harness ran the query tool's calls; the careful cell reran the failed and cut ones.
    expect(row('baseline', 'query_failure').calls).to.include({ query: 3 });
    expect(row('candidate', 'query_failure').calls).to.include({ query: 5 });
    expect(row('candidate', 'query_failure').injections).to.deep.equal({ query_failure: 1, query_truncation: 1 });
    expect(row('candidate', 'recovery_worker_restart')).to.deep.include({ duplicate_effects: 0, injections: { worker_restart: 1 } });
  });

  it("gives the agent the cell's task, model and budgets, and starts a fresh process at the worker restart", async () => {
    expect((await reference).code).to.equal(0);
    const events = await eventsOf(root(), 'agent');
    const job = (id: string) => events.filter((e) => e.jobId === id);
    const restart = job('recovery_worker_restart:candidate:1');
    expect([count(restart, 'AgentLaunched'), count(restart, 'FaultInjected'), count(restart, 'AgentExited')]).to.deep.equal([2, 1, 1]);
    const kinds = restart.map((e) => e.type);
    expect(kinds.indexOf('FaultInjected')).to.be.below(kinds.lastIndexOf('AgentLaunched'));
    const launched = restart.find((e) => e.type === 'AgentLaunched')!;
    const task = JSON.parse(await blobOf(root(), 'agent', (launched.data as { task: string }).task)) as Record<string, unknown>;
    expect(task).to.deep.include({ model: 'evalog-scripted', arm: 'candidate', limits: { modelCalls: 16, tokens: null, timeLimitMs: 120_000 } });
    expect((task.tools as { name: string }[]).map((t) => t.name)).to.deep.equal(['read_source', 'read_state', 'apply_migration', 'set_record', 'submit']);
    expect(String((task.messages as { content: string }[])[0]!.content)).to.match(/^\[evalog:context-engineering:agent preset=verify-v1\]/);
  });

  it('replays: the agents are run again against their record, every event matches, nothing is sent upstream', async () => {
    expect((await reference).code).to.equal(0);
    const before = (await server.stats()).requests;
    const replay = await runEvalog(['replay', 'runs/agent'], { cwd: tmp.dir, env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(8 jobs\)/);
    expect((await server.stats()).requests - before, 'requests replay sent upstream').to.equal(0);
  });

  it('SIGKILL right after a worker restart, then resume: no logged call is sent again and the rows equal the uninterrupted run', async () => {
    expect((await reference).code).to.equal(0);
    // `evalog watch` follows the log as it grows: the run is killed at an exact event, not after a guessed time.
    const watch = startEvalog(['watch', 'runs/killed', '--wait', '--type', 'FaultInjected', '--json'], { cwd: tmp.dir });
    await new Promise((r) => setTimeout(r, 500));
    const run = startEvalog(['run', ...ARGS, '--out', 'runs/killed'], { cwd: tmp.dir, env });
    let seen = '';
    watch.stdout!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (/"kind":"worker_restart"/.test(seen) && run.exitCode === null) run.kill('SIGKILL');
    });
    const killed = await collect(run);
    watch.kill();
    expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
    const stopped = await eventsOf(root(), 'killed');
    expect(count(stopped, 'RunCompleted'), 'the run had completed before the kill').to.equal(0);
    // Killed mid-job: a restarted job had recorded its restart and not ended, so resume starts its agent again against the record.
    const restarted = new Set(stopped.filter((e) => e.type === 'FaultInjected' && e.data.kind === 'worker_restart').map((e) => e.jobId));
    const ended = new Set(stopped.filter((e) => e.type === 'JobSucceeded' || e.type === 'JobFailed').map((e) => e.jobId));
    expect(
      [...restarted].filter((j) => !ended.has(j)),
      'restarted jobs unfinished at the kill',
    ).to.have.length.greaterThan(0);
    const before = (await server.stats()).completed;
    const resumed = await runEvalog(['resume', 'runs/killed', '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
    expect(resumed.code, resumed.stderr).to.equal(0);
    const after = (await server.stats()).completed;
    const final = await eventsOf(root(), 'killed');
    expect(count(final, 'RunCompleted')).to.equal(1);
    // Every call the resume completed upstream is a new success in the log: none of the logged ones was sent again.
    expect(after - before).to.equal(count(final, 'ProviderCallSucceeded') - count(stopped, 'ProviderCallSucceeded'));
    expect(count(final, 'AgentDiverged'), 'the deterministic agent diverged from its record').to.equal(0);
    const outcome = (row: Record<string, unknown>) => {
      const { calls: _c, usage: _u, ...rest } = withoutWallClock(row);
      return { ...rest, wall_seconds: null };
    };
    const rows = await rowsOf('killed');
    const ref = await rowsOf('agent');
    expect(rows.map(outcome)).to.deep.equal(ref.map(outcome));
    // A job with an attempt cut off by the kill (settled unknown, then retried) has one more call; every other row matches whole.
    const cut = new Set(final.filter((e) => e.type === 'ProviderCallFailed' && e.data.kind === 'unknown').map((e) => e.jobId));
    const whole = (row: Record<string, unknown>) => ({ ...withoutWallClock(row), wall_seconds: null });
    const uncut = (list: Record<string, unknown>[]) => list.filter((row) => !cut.has(row.job_id as string)).map(whole);
    expect(uncut(rows)).to.deep.equal(uncut(ref));
  });
});
