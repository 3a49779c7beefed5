// Claude Code and Codex CLI as evaluated agents, offline: `evalog run coding --agent <wrapper>`
// with the example wrappers of examples/agents/, each CLI a real child process speaking its own
// protocol (Anthropic Messages, OpenAI Responses) to evalog's recording proxy, the run's endpoint a
// scripted model in its own process (`evalog mock-server`). The work is graded from the workspace
// the CLI left, through its own tools (Claude Code's Write/Read/Bash, Codex's exec_command).
// Then determinism: each run is replayed, and a run SIGKILLed mid-way is resumed, the scripted
// server counting what it completes. Claude Code replays and resumes whole; Codex puts a random
// `Chunk ID` and the wall time in each command's output (the model sees them), so its jobs diverge
// at request 2, the first request carrying a command's output, and exactly there.
import { expect } from 'chai';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { type CliResult, readJsonl, runEvalog, runKilledAfterJobs, tempDir } from '../support/cli.js';
import type { Json } from '../support/outputs.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const file = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));

const CLIS = {
  'claude-code': {
    wrapper: file('../../examples/agents/claude-code/agent.mjs'),
    protocol: 'messages',
    /** What the CLI's first request shows of the wrapper's setup. */
    setup: (body: Json) => ({
      tools: toolNames(body),
      // Claude Code names its memory folder under HOME in its prompt: HOME is beside the workspace.
      homeBesideWorkspace: systemText(body).includes('/claude-home/.claude/'),
    }),
    expected: { tools: ['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write'], homeBesideWorkspace: true },
    /** Where a replay or resume of its jobs leaves the record: nowhere. */
    diverges: null,
  },
  codex: {
    wrapper: file('../../examples/agents/codex/agent.mjs'),
    protocol: 'responses',
    setup: (body: Json) => ({
      tools: toolNames(body),
      // Only function tools: hosted ones (web search, tool search) and freeform apply_patch are off.
      onlyFunctions: ((body.tools ?? []) as Json[]).every((t) => t.type === 'function'),
    }),
    expected: { tools: ['exec_command', 'request_user_input', 'view_image', 'write_stdin'], onlyFunctions: true },
    // Request 2 is the first to carry a command's output, which holds a random chunk id and the
    // wall time: its translated message 6 (system, developer, user context, task, the call, its output).
    diverges: { index: 2, kind: 'model', field: 'messages[5]' },
  },
} as const;
type Cli = keyof typeof CLIS;

/** The sorted names of a request's tools. */
function toolNames(body: Json): string[] {
  return ((body.tools ?? []) as Json[]).map((t) => String(t.name)).sort();
}

/** The text of an Anthropic request's system prompt (a string or text blocks). */
function systemText(body: Json): string {
  const system = body.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: Json) => String(b.text ?? '')).join('\n') : '';
}

/** Why the runs cannot be made yet, or null: the parts other helpers build, read from the source. */
/** What a run's log says, per job: the protocols of its model requests, its MCP calls, its workspace's changed files. */
async function logFacts(root: string, runId: string) {
  const log = await FileEventLog.open({ root });
  const blobs = log.blobs(runId);
  const jobs = new Map<string, { protocols: string[]; first: Json | null; mcpCalls: number; changed: string[] | null; exits: number }>();
  const diverged: Json[] = [];
  let successes = 0;
  const job = (id: string) => {
    const known = jobs.get(id);
    if (known) return known;
    const fresh = { protocols: [] as string[], first: null as Json | null, mcpCalls: 0, changed: null as string[] | null, exits: 0 };
    jobs.set(id, fresh);
    return fresh;
  };
  let completed = false;
  for await (const e of log.read(runId)) {
    if (e.type === 'RunCompleted') completed = true;
    if (e.type === 'AgentRequestReceived') {
      const j = job(e.jobId!);
      j.protocols.push(e.data.protocol);
      j.first ??= JSON.parse(Buffer.from(await blobs.get(e.data.body)).toString('utf8')) as Json;
    }
    if (e.type === 'ToolCalled') job(e.jobId!).mcpCalls += 1;
    if (e.type === 'WorkspaceCaptured') job(e.jobId!).changed = e.data.files.map((f) => f.path);
    if (e.type === 'AgentExited') job(e.jobId!).exits += 1;
    if (e.type === 'ProviderCallSucceeded') successes += 1;
    if (e.type === 'AgentDiverged') diverged.push({ job: e.jobId, index: e.data.index, kind: e.data.kind, field: e.data.field });
  }
  await log.close();
  return { completed, jobs, successes, diverged };
}

describe('coding agents (Claude Code, Codex CLI) through the recording proxy, offline (e2e)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;

  before(async () => {
    tmp = await tempDir('evalog-coding-agents-');
    server = await startMockServer([], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  // Two of the five cases (4 jobs, both arms): each job is a CLI process of several CPU-seconds, and
  // two cases the scripted model solves with tool turns (read, write, run the tests) prove what
  // five do. Coding runs 2 jobs at a time, so a kill after the first finished job leaves calls to resume.
  const runArgs = (cli: Cli, name: string) => [
    'run',
    'coding',
    '--model',
    'evalog-scripted',
    '--repetitions',
    '1',
    '--case',
    'sum_numbers',
    '--case',
    'clamp_value',
    '--agent',
    `node ${CLIS[cli].wrapper}`,
    '--out',
    `runs/${name}`,
  ];
  const io = () => ({ cwd: tmp.dir, env: { EVALOG_BASE_URL: server.url } });
  const runCoding = (cli: Cli): Promise<CliResult> => runEvalog(runArgs(cli, cli), io());

  for (const cli of Object.keys(CLIS) as Cli[]) {
    const title = `${cli}: every job answers, speaking only ${CLIS[cli].protocol} to the proxy, and the hidden tests grade the workspace it changed with its own tools`;
    it(title, async () => {
      const r = await runCoding(cli);
      expect(r.code, r.stderr).to.equal(0);
      const rows = await readJsonl(join(tmp.dir, 'runs', cli, 'rows.jsonl'));
      expect(rows.length, 'rows: 2 cases × 2 arms').to.equal(4);
      const facts = await logFacts(join(tmp.dir, 'runs'), cli);
      expect(facts.completed, 'the run completed').to.equal(true);
      for (const row of rows) {
        const id = String(row.job_id);
        expect(row, id).to.deep.include({ stop_reason: 'answered', status: 'succeeded' });
        const job = facts.jobs.get(id)!;
        expect(job.exits, `${id}: one process`).to.equal(1);
        // At least one tool turn: a request, the CLI ran a tool, a request with its result.
        expect(job.protocols.length, `${id}: model requests`).to.be.greaterThan(1);
        expect(new Set(job.protocols), `${id}: protocols`).to.deep.equal(new Set([CLIS[cli].protocol]));
        expect(job.mcpCalls, `${id}: the work was done with the CLI's own tools, not evalog's MCP tools`).to.equal(0);
        expect(CLIS[cli].setup(job.first!), `${id}: the CLI's first request`).to.deep.equal(CLIS[cli].expected);
        // What passed was graded on files the CLI changed: the starting repository fails its hidden tests.
        if (row.passed === true) expect(job.changed, `${id}: a passing job changed files`).to.not.be.empty;
      }
      expect(rows.filter((row) => row.passed === true).length, 'jobs whose hidden tests pass').to.be.greaterThan(0);
    });

    const expected = CLIS[cli].diverges;
    const replayTitle = expected
      ? `${cli}: evalog replay of that run diverges exactly at request ${expected.index} (${expected.field}: a command's output holds a random chunk id and the wall time), exit 1`
      : `${cli}: evalog replay of that run matches every event (the same workspace path, the record-only session ids left out)`;
    it(replayTitle, async () => {
      const replay = await runEvalog(['replay', `runs/${cli}`], io());
      if (expected === null) {
        expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
        expect(replay.stdout).to.match(/every event matches/);
        return;
      }
      expect(replay.code, replay.stdout + replay.stderr).to.equal(1);
      expect(replay.stdout).to.match(
        new RegExp(`the agent's request ${expected.index} \\(${expected.kind}\\) differs from the record at ${expected.field.replace(/[[\]]/g, '\\$&')}:`),
      );
    });

    const resumeTitle = expected
      ? `${cli}: SIGKILL mid-run, then evalog resume: no completed call is sent again, and each resumed job diverges at request ${expected.index} (${expected.field}) only`
      : `${cli}: SIGKILL mid-run, then evalog resume: no completed call is sent again, no job diverges, and the run completes`;
    it(resumeTitle, async () => {
      const name = `${cli}-killed`;
      const root = join(tmp.dir, 'runs');
      const killed = await runKilledAfterJobs(runArgs(cli, name), io(), 1);
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
      const stopped = await logFacts(root, name);
      expect(stopped.completed, 'the run had completed before the kill').to.equal(false);

      const before = (await server.stats()).completed;
      const resumed = await runEvalog(['resume', `runs/${name}`, '--model', 'evalog-scripted'], io());
      expect(resumed.code, resumed.stdout + resumed.stderr).to.equal(0);
      const after = (await server.stats()).completed;
      const final = await logFacts(root, name);
      expect(final.completed, 'the resumed run completed').to.equal(true);
      // Every call the resume completed upstream is a new success in the log: no logged one was sent again.
      expect(after - before, 'calls the resume completed upstream').to.equal(final.successes - stopped.successes);
      expect(final.successes - stopped.successes, 'the resume had calls left to make').to.be.greaterThan(0);
      const divergences = final.diverged.map(({ index, kind, field }) => ({ index, kind, field }));
      if (expected === null) expect(divergences, 'divergences').to.deep.equal([]);
      // A job the kill cut before its second request had nothing to diverge on: at most one each.
      else for (const d of divergences) expect(d).to.deep.equal(expected);
      expect(new Set(final.diverged.map((d) => d.job)).size, 'one divergence per job at most').to.equal(final.diverged.length);
      const rows = await readJsonl(join(root, name, 'rows.jsonl'));
      expect(rows.filter((row) => row.status === 'succeeded').length, 'jobs that succeeded').to.equal(rows.length);
    });
  }
});
