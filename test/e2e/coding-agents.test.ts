// Claude Code and Codex CLI as evaluated agents, offline: `evalog run coding --agent <wrapper>`
// with the example wrappers of examples/agents/, each CLI a real child process speaking its own
// protocol (Anthropic Messages, OpenAI Responses) to evalog's recording proxy, the run's endpoint a
// scripted model in its own process (`evalog mock-server`). The work is graded from the workspace
// the CLI left, through its own tools (Claude Code's Write/Read/Bash, Codex's exec_command).
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { type CliResult, readJsonl, runEvalog, tempDir } from '../support/cli.js';
import type { Json } from '../support/outputs.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const file = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const require = createRequire(import.meta.url);

/** Whether a module resolves from this repository (the CLIs are devDependencies). */
const resolves = (id: string) => {
  try {
    require.resolve(id);
    return true;
  } catch {
    return false;
  }
};

const CLIS = {
  'claude-code': {
    wrapper: file('../../examples/agents/claude-code/agent.mjs'),
    protocol: 'messages',
    installed: resolves('@anthropic-ai/claude-code/package.json'),
    /** What the CLI's first request shows of the wrapper's setup. */
    setup: (body: Json) => ({
      tools: toolNames(body),
      // Claude Code names its memory folder under HOME in its prompt: HOME is beside the workspace.
      homeBesideWorkspace: systemText(body).includes('/claude-home/.claude/'),
    }),
    expected: { tools: ['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write'], homeBesideWorkspace: true },
  },
  codex: {
    wrapper: file('../../examples/agents/codex/agent.mjs'),
    protocol: 'responses',
    installed: resolves('@openai/codex/bin/codex.js'),
    setup: (body: Json) => ({
      tools: toolNames(body),
      // Only function tools: hosted ones (web search, tool search) and freeform apply_patch are off.
      onlyFunctions: ((body.tools ?? []) as Json[]).every((t) => t.type === 'function'),
    }),
    expected: { tools: ['exec_command', 'request_user_input', 'view_image', 'write_stdin'], onlyFunctions: true },
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
function notReady(cli: Cli): string | null {
  const src = (rel: string) => (existsSync(file(rel)) ? readFileSync(file(rel), 'utf8') : '');
  if (!CLIS[cli].installed) return `${cli} is not installed (npm devDependency)`;
  if (!/\bcoding\b/.test(src('../../src/app/registry.ts'))) return 'the coding suite is not registered yet';
  const adapter = CLIS[cli].protocol === 'messages' ? 'messagesAdapter' : 'responsesAdapter';
  if (!new RegExp(`${CLIS[cli].protocol}: ${adapter}`).test(src('../../src/harness/external/gateway.ts')))
    return `the proxy does not route ${CLIS[cli].protocol} requests yet`;
  return null;
}

/** What a run's log says, per job: the protocols of its model requests, its MCP calls, its workspace's changed files. */
async function logFacts(root: string, runId: string) {
  const log = await FileEventLog.open({ root });
  const blobs = log.blobs(runId);
  const jobs = new Map<string, { protocols: string[]; first: Json | null; mcpCalls: number; changed: string[] | null; exits: number }>();
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
  }
  await log.close();
  return { completed, jobs };
}

describe('coding agents (Claude Code, Codex CLI) through the recording proxy, offline (e2e)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;

  before(async () => {
    if ((Object.keys(CLIS) as Cli[]).every((c) => notReady(c) !== null)) return;
    tmp = await tempDir('evalog-coding-agents-');
    server = await startMockServer([], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  const runCoding = (cli: Cli): Promise<CliResult> =>
    runEvalog(['run', 'coding', '--model', 'evalog-scripted', '--repetitions', '1', '--agent', `node ${CLIS[cli].wrapper}`, '--out', `runs/${cli}`], {
      cwd: tmp.dir,
      env: { EVALOG_BASE_URL: server.url },
    });

  for (const cli of Object.keys(CLIS) as Cli[]) {
    const reason = notReady(cli);
    const title = `${cli}: every job answers, speaking only ${CLIS[cli].protocol} to the proxy, and the hidden tests grade the workspace it changed with its own tools`;
    it(reason ? `${title} (skipped: ${reason})` : title, async function () {
      if (reason) this.skip(); // the reason is in the title: a part this test needs is not built yet
      const r = await runCoding(cli);
      expect(r.code, r.stderr).to.equal(0);
      const rows = await readJsonl(join(tmp.dir, 'runs', cli, 'rows.jsonl'));
      expect(rows.length, 'rows').to.be.greaterThan(0);
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
  }
});
