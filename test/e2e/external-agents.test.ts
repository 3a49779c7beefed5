// External agents end to end: `evalog run <suite> --agent ...` with the example agents and with
// fixture agents, every agent a real child process speaking to evalog's loopback proxy and MCP
// endpoint, and the run's endpoint a scripted model in its own process (`evalog mock-server`),
// whose counters show what reached it. Runs that several tests read are made once (memo).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, copyFile, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { namedCore } from '../../src/projections/index.js';
import { totalsByAttribution } from '../../src/projections/usage/report.js';
import { compareArms, viewRow } from '../../src/view/index.js';
import { type CliResult, listFiles, readJsonl, runEvalog, runKilledAfterJobs, tempDir, withoutWallClock } from '../support/cli.js';
import { checkAttemptsAccounted } from '../support/attempts.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { type Json, readJson } from '../support/outputs.js';

const file = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const NODE_AGENT = file('../../examples/agents/node-agent.mjs');
const PYTHON_AGENT = file('../../examples/agents/python_agent.py');
const FIXTURES = file('../fixtures/agents/');
const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
const NO_PYTHON = 'skipped: python3 is not on PATH, so the Python example agent cannot run';

/** The example agents, as `--agent` values. */
const AGENTS = {
  node: `node ${NODE_AGENT}`,
  'node --stream': `node ${NODE_AGENT} --stream`,
  python: `python3 ${PYTHON_AGENT}`,
} as const;
type AgentKey = keyof typeof AGENTS;
const SMOKE_ARGS = ['--repetitions', '1', '--model', 'evalog-scripted'];

/** What a run's log says, per job: its model requests, tool calls, the agent's answer and divergences. */
interface LogFacts {
  completed: boolean;
  requested: number;
  successes: number;
  jobs: Map<string, { command: string[] | null; requests: number; tools: number; answer: string | null; exits: number }>;
  diverged: number;
}

async function logFacts(root: string, runId: string): Promise<LogFacts> {
  const log = await FileEventLog.open({ root });
  const facts: LogFacts = { completed: false, requested: 0, successes: 0, jobs: new Map(), diverged: 0 };
  const job = (id: string) => {
    const known = facts.jobs.get(id);
    if (known) return known;
    const fresh = { command: null, requests: 0, tools: 0, answer: null, exits: 0 };
    facts.jobs.set(id, fresh);
    return fresh;
  };

  for await (const e of log.read(runId)) {
    if (e.type === 'RunCompleted') facts.completed = true;
    if (e.type === 'ProviderCallRequested') {
      facts.requested += 1;
      job(e.jobId!).requests += 1;
    }
    if (e.type === 'ProviderCallSucceeded') facts.successes += 1;
    if (e.type === 'ToolCalled') job(e.jobId!).tools += 1;
    if (e.type === 'AgentDiverged') facts.diverged += 1;
    if (e.type === 'AgentLaunched') job(e.jobId!).command = e.data.command;
    if (e.type === 'AgentExited') {
      job(e.jobId!).answer = e.data.answer;
      job(e.jobId!).exits += 1;
    }
  }
  await log.close();
  return facts;
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('external agents (--agent: agent processes, recording proxy, MCP tools; e2e)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;
  let env: Record<string, string>;
  const memo = new Map<string, Promise<CliResult>>();
  /** `evalog run` into runs/NAME, once per name: several tests read the same run. */
  const runOnce = (name: string, args: string[], extraEnv: Record<string, string | undefined> = {}) => {
    const known = memo.get(name);
    if (known) return known;
    const started = runEvalog(['run', ...args, '--out', `runs/${name}`], { cwd: tmp.dir, env: { ...env, ...extraEnv } });
    memo.set(name, started);
    return started;
  };
  /** The run folder of an example agent's smoke run: `smoke-node`, `smoke-node-stream`, `smoke-python`. */
  const smokeName = (agent: AgentKey) => `smoke-${agent.replace(/\W+/g, '-')}`;
  const smokeRun = (agent: AgentKey) => runOnce(smokeName(agent), ['smoke', ...SMOKE_ARGS, '--agent', AGENTS[agent]]);
  const out = (name: string, f: string) => join(tmp.dir, 'runs', name, f);

  before(async () => {
    tmp = await tempDir('evalog-agents-');
    server = await startMockServer([], tmp.dir);
    env = { EVALOG_BASE_URL: server.url };
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  describe('smoke: each example agent completes, and rows, summary and usage are its recorded calls', () => {
    for (const agent of Object.keys(AGENTS) as AgentKey[]) {
      const title = `${agent} agent: 8 rows answered with tool calls and usage; usage.json is the log's requests; run.json records the agent's file`;
      it(agent === 'python' && !HAS_PYTHON ? `${title} (${NO_PYTHON})` : title, async function () {
        if (agent === 'python' && !HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so the Python example agent cannot run
        const r = await smokeRun(agent);
        expect(r.code, r.stderr).to.equal(0);
        const name = smokeName(agent);
        const rows = await readJsonl(out(name, 'rows.jsonl'));
        expect(rows).to.have.length(8);
        const facts = await logFacts(join(tmp.dir, 'runs'), name);
        for (const row of rows) {
          expect(row, String(row.job_id)).to.deep.include({ agent: 'agent', stop_reason: 'answered', status: 'succeeded' });
          const usage = row.usage as { total: { total_tokens: number | null; complete: boolean } } | null;
          expect(usage?.total.complete, `${row.job_id}: usage of every call known`).to.equal(true);
          expect(usage?.total.total_tokens).to.be.greaterThan(0);
          // The row's counts are the job's recorded model requests and MCP tool calls.
          const job = facts.jobs.get(row.job_id as string)!;
          expect(row.tool_calls, `${row.job_id}: tool calls`).to.be.greaterThan(0).and.equal(job.tools);
          expect(row.calls, `${row.job_id}: calls`).to.equal(job.requests);
        }
        expect(rows.filter((row) => row.passed === true).length, 'jobs that passed').to.be.greaterThan(0);
        const usage = await readJson<{ calls: Json[]; report: { calls: number } }>(out(name, 'usage.json'));
        expect(usage.report.calls).to.equal(facts.requested).and.equal(usage.calls.length);
        const summary = await readJson<{ arms: Record<string, { calls: number; n: number }> }>(out(name, 'summary.json'));
        expect(Object.keys(summary.arms)).to.deep.equal(['brief_handoff', 'full_handoff']);
        expect(Object.values(summary.arms).reduce((s, a) => s + a.calls, 0)).to.equal(facts.requested);
        const run = await readJson<{ provenance: { agents: Record<string, { command: string[]; cwd: string; files: { arg: string; sha256: string }[] }> } }>(
          out(name, 'run.json'),
        );
        const file = agent === 'python' ? PYTHON_AGENT : NODE_AGENT;
        expect(run.provenance.agents.agent!.command).to.deep.equal(AGENTS[agent].split(' '));
        expect(run.provenance.agents.agent!.files).to.deep.equal([{ arg: file, sha256: await sha256(file) }]);
      });
    }
  });

  describe('context-snapshot: each example agent completes both arms, its artifacts graded', () => {
    for (const agent of ['node', 'python'] as const) {
      const title = `${agent} agent: 16 rows (8 tasks × 2 arms × 1 repetition), artifacts saved and some correct`;
      it(agent === 'python' && !HAS_PYTHON ? `${title} (${NO_PYTHON})` : title, async function () {
        if (agent === 'python' && !HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so the Python example agent cannot run
        const name = `cs-${agent}`;
        const r = await runOnce(name, ['context-snapshot', '--model', 'evalog-scripted', '--concurrency', '4', '--agent', AGENTS[agent]]);
        expect(r.code, r.stderr).to.equal(0);
        const rows = await readJsonl(out(name, 'rows.jsonl'));
        expect(rows).to.have.length(16);
        const byArm = (arm: string) => rows.filter((row) => row.arm === arm).length;
        expect([byArm('isolated_handoff'), byArm('snapshot')]).to.deep.equal([8, 8]);
        expect(new Set(rows.map((row) => row.repetition)).size, 'one repetition').to.equal(1);
        for (const row of rows) {
          expect(row.executor_status, String(row.job_id)).to.equal('completed');
          expect(row.artifact_sha256, `${row.job_id}: an artifact was saved`).to.be.a('string');
        }
        expect(rows.filter((row) => row.artifact_correct === true).length, 'artifacts that pass every check').to.be.greaterThan(0);
        expect((await listFiles(out(name, 'artifacts'))).length).to.be.greaterThan(0);
      });
    }
  });

  describe('SIGKILL mid-run, then evalog resume', () => {
    for (const agent of ['node', 'python'] as const) {
      const title = `${agent} agent: resume completes, sends no logged call again, and its rows equal an uninterrupted run's`;
      it(agent === 'python' && !HAS_PYTHON ? `${title} (${NO_PYTHON})` : title, async function () {
        if (agent === 'python' && !HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so the Python example agent cannot run
        const name = `killed-${agent}`;
        // The workspaces go to a temp folder of this test's own, to see which ones the kill left.
        const agentTmp = join(tmp.dir, `tmp-${agent}`);
        await mkdir(agentTmp);
        // A job's fixed folder (evalog-job-…, and its .claims), or a fresh one where that was held.
        const workspaces = async () => (await readdir(agentTmp)).filter((n) => n.startsWith('evalog-agent-') || n.startsWith('evalog-job-'));
        const killEnv = { ...env, TMPDIR: agentTmp };
        const killed = await runKilledAfterJobs(
          ['run', 'smoke', ...SMOKE_ARGS, '--agent', AGENTS[agent], '--out', `runs/${name}`],
          { cwd: tmp.dir, env: killEnv },
          3,
        );
        expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
        expect((await workspaces()).length, 'the workspaces of the jobs in flight at the kill').to.be.greaterThan(0);
        const root = join(tmp.dir, 'runs');
        const stopped = await logFacts(root, name);
        expect(stopped.completed, 'the run had completed before the kill').to.equal(false);
        const ended = [...stopped.jobs.values()].filter((j) => j.exits > 0).length;
        expect(ended, 'jobs ended before the kill').to.be.within(3, 7);

        const before = (await server.stats()).completed;
        const resumed = await runEvalog(['resume', `runs/${name}`, '--model', 'evalog-scripted'], { cwd: tmp.dir, env: killEnv });
        expect(resumed.code, resumed.stderr).to.equal(0);
        expect(await workspaces(), 'the killed process is gone, so the resume removed its workspaces (and its own)').to.deep.equal([]);
        const after = (await server.stats()).completed;
        const final = await logFacts(root, name);
        expect(final.completed).to.equal(true);
        // Every call the resume completed upstream is a new success in the log: no logged one was sent again.
        expect(after - before).to.equal(final.successes - stopped.successes);
        expect(final.diverged, 'the deterministic agent diverged from its record').to.equal(0);

        const cut = await checkAttemptsAccounted(server, join(root, name), name);
        const cutJobs = new Set(cut.map((c) => c.job_id));
        const reference = await smokeRun(agent);
        expect(reference.code, reference.stderr).to.equal(0);
        const rows = (await readJsonl(out(name, 'rows.jsonl'))).map(withoutWallClock);
        const refRows = (await readJsonl(out(smokeName(agent), 'rows.jsonl'))).map(withoutWallClock);
        const outcome = (r: Json) => ({ job: r.job_id, passed: r.passed, checks: r.checks, stop: r.stop_reason, tools: r.tool_calls, turns: r.turns });
        expect(rows.map(outcome)).to.deep.equal(refRows.map(outcome));
        // A job with an attempt cut off by the kill has one more (unknown) call; every other job matches whole.
        expect(rows.filter((r) => !cutJobs.has(r.job_id as string))).to.deep.equal(refRows.filter((r) => !cutJobs.has(r.job_id as string)));
        // Across the killed run and its resume, the endpoint completed for each job exactly the calls
        // an uninterrupted run completes (a call sent again under a new id would add one), besides
        // attempts cut off by the kill: one the endpoint answered before evalog could log it is retried.
        const cutKeys = new Set(cut.map((c) => `${name}/${c.job_id}/${c.call_id}`));
        const completed = Object.keys((await server.stats()).completedByCallKey).filter((k) => k.startsWith(`${name}/`) && !cutKeys.has(k));
        const perJob = (id: string) => completed.filter((k) => k.startsWith(`${name}/${id}/`)).length;
        expect(refRows.map((r) => [r.job_id, perJob(r.job_id as string)])).to.deep.equal(refRows.map((r) => [r.job_id, r.calls]));
      });
    }
  });

  describe('replay, divergence, and a changed agent file', () => {
    it('evalog replay of an external-agent run re-runs the agent against its record and passes', async () => {
      const r = await smokeRun('node');
      expect(r.code, r.stderr).to.equal(0);
      const before = (await server.stats()).requests;
      const replay = await runEvalog(['replay', `runs/${smokeName('node')}`], { cwd: tmp.dir, env });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
      expect(replay.stdout).to.match(/every event matches \(8 jobs\)/);
      expect((await server.stats()).requests - before, 'requests replay sent upstream').to.equal(0);
    });

    it('an agent whose first request depends on a passed-through variable: replay with another value reports request 1 and its field', async () => {
      // The config names the agent's file relative to its own cwd, which is relative to the config file.
      const cfg = join(tmp.dir, 'cfg');
      await mkdir(cfg, { recursive: true });
      await copyFile(join(FIXTURES, 'variant-agent.mjs'), join(cfg, 'variant-agent.mjs'));
      await writeFile(join(cfg, 'variant.json'), JSON.stringify({ agent: { command: ['node', 'variant-agent.mjs'], cwd: '.', env: ['AGENT_VARIANT'] } }));
      const args = ['smoke', '--config', 'cfg/variant.json', '--case', 'fruit_basket', ...SMOKE_ARGS];
      const r = await runOnce('variant', args, { AGENT_VARIANT: 'alpha-7f3' });
      expect(r.code, r.stderr).to.equal(0);
      const run = await readJson<{ config: { agent: Json }; provenance: { agents: { agent: Json } } }>(out('variant', 'run.json'));
      const cwd = await realpath(cfg);
      expect(run.config.agent).to.deep.equal({ command: ['node', 'variant-agent.mjs'], cwd, env: ['AGENT_VARIANT'] });
      expect(run.provenance.agents.agent).to.deep.equal({
        command: ['node', 'variant-agent.mjs'],
        cwd,
        files: [{ arg: 'variant-agent.mjs', sha256: await sha256(join(cfg, 'variant-agent.mjs')) }],
      });
      // The variable's value reached the agent (its answer says so); run.json records only its name.
      expect(await readFile(out('variant', 'run.json'), 'utf8')).to.not.include('alpha-7f3');
      const facts = await logFacts(join(tmp.dir, 'runs'), 'variant');
      expect([...facts.jobs.values()].map((j) => j.answer?.startsWith('variant alpha-7f3: '))).to.deep.equal([true, true]);

      const same = await runEvalog(['replay', 'runs/variant'], { cwd: tmp.dir, env: { ...env, AGENT_VARIANT: 'alpha-7f3' } });
      expect(same.code, same.stdout + same.stderr).to.equal(0);
      const other = await runEvalog(['replay', 'runs/variant'], { cwd: tmp.dir, env: { ...env, AGENT_VARIANT: 'beta-7f3' } });
      expect(other.code, other.stdout + other.stderr).to.equal(1);
      expect(other.stdout).to.match(/^divergence at seq \d+ .*job fruit_basket:\w+:\d+:$/m);
      // The task's messages and then the variant's: the third message is the first to differ.
      expect(other.stdout).to.match(/the agent's request 1 \(model\) differs from the record at messages\[2\]/);
    });

    it('resume refuses an agent whose file changed after the run started, naming the file (exit 2)', async () => {
      const dir = join(tmp.dir, 'edit');
      await mkdir(dir, { recursive: true });
      await copyFile(join(FIXTURES, 'variant-agent.mjs'), join(dir, 'agent.mjs'));
      const args = ['run', 'smoke', ...SMOKE_ARGS, '--concurrency', '1', '--agent', 'node edit/agent.mjs', '--out', 'runs/edited'];
      const killed = await runKilledAfterJobs(args, { cwd: tmp.dir, env }, 1);
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
      expect((await logFacts(join(tmp.dir, 'runs'), 'edited')).completed).to.equal(false);
      await appendFile(join(dir, 'agent.mjs'), '// changed\n');
      const resumed = await runEvalog(['resume', 'runs/edited', '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
      expect(resumed.code, resumed.stderr).to.equal(2);
      expect(resumed.stderr)
        .to.include('edit/agent.mjs')
        .and.match(/changed/);
      expect(resumed.stderr, 'a one-line message, not a stack trace').to.not.match(/\n\s+at /);
      expect((await logFacts(join(tmp.dir, 'runs'), 'edited')).completed).to.equal(false);
    });
  });

  it(`agents as arms: --agent a=node… --agent b=python3… give arms a and b, paired by case and seed${HAS_PYTHON ? '' : ` (${NO_PYTHON})`}`, async function () {
    if (!HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so the Python example agent cannot run
    const r = await runOnce('arms', ['smoke', ...SMOKE_ARGS, '--agent', `a=${AGENTS.node}`, '--agent', `b=${AGENTS.python}`]);
    expect(r.code, r.stderr).to.equal(0);
    const summary = await readJson<{ arms: Record<string, { n: number; succeeded: number; pass_rate: number | null; stop_reasons: Json }> }>(
      out('arms', 'summary.json'),
    );
    expect(Object.keys(summary.arms)).to.deep.equal(['a', 'b']);
    for (const arm of ['a', 'b']) expect(summary.arms[arm]).to.deep.include({ n: 4, succeeded: 4, stop_reasons: { answered: 4 } });
    const rows = await readJsonl(out('arms', 'rows.jsonl'));
    const facts = await logFacts(join(tmp.dir, 'runs'), 'arms');
    const commands = { a: AGENTS.node.split(' '), b: AGENTS.python.split(' ') };
    for (const row of rows) {
      expect(row.agent, String(row.job_id)).to.equal(row.arm);
      expect(facts.jobs.get(row.job_id as string)!.command, `${row.job_id}: the arm's agent ran`).to.deep.equal(commands[row.arm as 'a' | 'b']);
    }
    // Each agent is given the task as the suite's first arm (brief_handoff) presents it: arm a's jobs
    // conclude as the node agent's brief_handoff jobs of a run with the suite's own arms.
    expect((await smokeRun('node')).code).to.equal(0);
    const brief = (await readJsonl(out(smokeName('node'), 'rows.jsonl'))).filter((row) => row.arm === 'brief_handoff');
    const concluded = (row: Json) => ({ case: row.case_id, passed: row.passed, checks: row.checks, calls: row.calls, tools: row.tool_calls, usage: row.usage });
    expect(rows.filter((row) => row.arm === 'a').map(concluded)).to.deep.equal(brief.map(concluded));
    // Paired: every case and repetition ran under both agents with the same seed.
    const key = (row: Json) => `${row.case_id}/${row.repetition}`;
    const seeds = new Map<string, Set<unknown>>();
    for (const row of rows) seeds.set(key(row), (seeds.get(key(row)) ?? new Set()).add(row.seed));
    expect(seeds.size).to.equal(4);
    for (const [k, s] of seeds) expect(s.size, `${k}: one seed for both arms`).to.equal(1);
    const compared = compareArms(
      // Rows read back from rows.jsonl carry the core's names; their usage by attribution is not needed to pair.
      rows.map((row) => viewRow(namedCore(row, { job_id: String(row.job_id), usage: totalsByAttribution([]) }))),
      ['a', 'b'],
      'a',
      'b',
      [],
    );
    const { incomplete, ...table } = compared.table;
    expect(incomplete, 'pairs missing a side').to.equal(0);
    expect(Object.values(table).reduce((s, n) => s + n, 0)).to.equal(4);
    expect(summary.arms.a!.pass_rate).to.equal((table.both_pass + table.only_a) / 4);
    expect(summary.arms.b!.pass_rate).to.equal((table.both_pass + table.only_b) / 4);
    // The summary's own paired comparison of the two agents counts as the viewer does, and the table prints it.
    const paired = (await readJson<{ paired: Json[] }>(out('arms', 'summary.json'))).paired;
    expect(paired).to.have.length(1);
    expect(paired[0]).to.deep.include({
      a: 'a',
      b: 'b',
      n: 4,
      both: table.both_pass,
      a_only: table.only_a,
      b_only: table.only_b,
      neither: table.both_fail,
    });
    expect((paired[0]!.unpaired as { total: number }).total).to.equal(0);
    expect(r.stdout).to.include(`paired a vs b: 4 pairs, a only ${table.only_a}, b only ${table.only_b}, p=`);
  });

  it("secrets: an agent's environment is exactly the contract's variables, and neither it, its workspace nor the run folder holds the key or the endpoint", async () => {
    const secret = 'sk-test-SECRET-4f7c1d9e';
    const hostPort = new URL(server.url).host;
    const r = await runOnce('secrets', ['smoke', ...SMOKE_ARGS, '--case', 'fruit_basket', '--agent', `node ${join(FIXTURES, 'env-dump-agent.mjs')}`], {
      EVALOG_API_KEY: secret,
      // What else a user's shell may hold: none of it may reach the agent.
      OPENAI_API_KEY: secret,
      OPENAI_BASE_URL: server.url,
      GITHUB_TOKEN: secret,
      PLAIN_SETTING: 'not passed through',
      NODE_OPTIONS: undefined,
      LANG: 'C.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      LC_ALL: undefined,
    });
    expect(r.code, r.stderr).to.equal(0);
    const facts = await logFacts(join(tmp.dir, 'runs'), 'secrets');
    const dumps = [...facts.jobs.values()].map(
      (j) => JSON.parse(j.answer ?? 'null') as { status: number; env: Record<string, string>; workspace: { path: string; content: string }[]; task: string },
    );
    expect(dumps).to.have.length(2);
    const contract = [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'EVALOG_MCP_URL',
      'EVALOG_RESULT',
      'EVALOG_TASK',
      'EVALOG_WORKSPACE',
      'HOME',
      'LANG',
      'LC_CTYPE',
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'PATH',
    ];
    for (const d of dumps) {
      expect(d.status, 'the agent reached the model through its proxy').to.equal(200);
      expect(Object.keys(d.env).sort()).to.deep.equal(contract);
      for (const [k, v] of Object.entries(d.env)) {
        expect(v, k).to.not.include(secret);
        expect(v, k).to.not.include(hostPort);
      }
      for (const k of ['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'EVALOG_MCP_URL']) expect(new URL(d.env[k]!).hostname, k).to.equal('127.0.0.1');
      expect(d.env.ANTHROPIC_API_KEY, "Anthropic's clients get the same per-job token").to.equal(d.env.OPENAI_API_KEY);
      expect(d.env.PATH).to.equal(process.env.PATH);
      expect(d.env.HOME).to.equal(d.env.EVALOG_WORKSPACE);
      expect(d.workspace, 'a fresh, empty workspace').to.deep.equal([]);
      expect(d.task).to.not.include(secret).and.not.include(hostPort);
    }
    expect(dumps[0]!.env.OPENAI_API_KEY, 'one token per job').to.not.equal(dumps[1]!.env.OPENAI_API_KEY);
    for (const f of await listFiles(join(tmp.dir, 'runs/secrets'))) {
      const bytes = await readFile(join(tmp.dir, 'runs/secrets', f));
      expect(bytes.includes(secret), `${f} holds the API key`).to.equal(false);
      expect(bytes.includes(hostPort), `${f} holds the endpoint`).to.equal(false);
    }
    expect(r.stdout + r.stderr).to.not.include(secret);
  });

  it("another job's token is refused (HTTP 401) on this job's proxy and MCP endpoint, and this job's token on the other's; its own works", async () => {
    const shared = join(tmp.dir, 'tokens.txt');
    const agent = `node ${join(FIXTURES, 'token-swap-agent.mjs')} ${shared}`;
    const r = await runOnce('tokens', ['smoke', ...SMOKE_ARGS, '--case', 'fruit_basket', '--concurrency', '2', '--agent', agent]);
    expect(r.code, r.stderr).to.equal(0);
    const facts = await logFacts(join(tmp.dir, 'runs'), 'tokens');
    const answers = [...facts.jobs.values()].map((j) => JSON.parse(j.answer ?? 'null') as Json);
    expect(answers).to.deep.equal(
      [0, 1].map(() => ({ distinct: true, ownUrlOtherToken: 401, otherUrlOwnToken: 401, ownMcpOtherToken: 401, ownUrlOwnToken: 200 })),
    );
    // Only the call with the job's own token reached its record.
    expect([...facts.jobs.values()].map((j) => j.requests)).to.deep.equal([1, 1]);
  });
});
