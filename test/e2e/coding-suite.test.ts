// The coding suite end to end, every evalog a child process on the built-in scripted model: the
// built-in parent and worker (the workspace is the artifact), node-agent.mjs over MCP (its
// write_file calls reach its workspace folder), and an agent that edits its folder with a shell
// tool of its own, as Codex CLI does. Each run's rows have verdicts and diffs, `evalog show`
// prints the diffs, `evalog replay` re-executes it to the same events, `evalog rebuild` writes the
// live outputs again byte for byte, and the viewer's job page shows the diff.
import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { type CliResult, readJsonl, runEvalog, tempDir } from '../support/cli.js';
import { launchBrowser, startViewer } from '../browser/support.js';

const NODE_AGENT = fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url));
const OUTPUTS = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json'];

// An agent with one tool of its own: it runs the model's shell commands in its working folder and
// tells the model what they printed (test durations left out, so it is a function of its task and
// the answers it gets, as replay needs). It never calls evalog's tools.
const SHELL_AGENT = `import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const task = JSON.parse(readFileSync(process.env.EVALOG_TASK, 'utf8'));
const tools = [{ type: 'function', function: { name: 'exec_command', description: 'Run a shell command in the working folder',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } } }];
const messages = [...task.messages];
for (let i = 0; i < task.limits.modelCalls; i++) {
  const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
    body: JSON.stringify({ model: task.model, messages, tools }) });
  if (!r.ok) { process.stderr.write('HTTP ' + r.status + '\\n'); process.exit(r.status === 403 ? 0 : 1); }
  const m = (await r.json()).choices[0].message;
  if (!m.tool_calls || m.tool_calls.length === 0) { writeFileSync(process.env.EVALOG_RESULT, m.content ?? ''); process.exit(0); }
  messages.push({ role: 'assistant', content: m.content ?? null, tool_calls: m.tool_calls });
  for (const t of m.tool_calls) {
    const p = spawnSync('/bin/sh', ['-c', JSON.parse(t.function.arguments).cmd], { encoding: 'utf8' });
    const out = (p.stdout + p.stderr).split('\\n').filter((l) => !l.includes('duration_ms')).join('\\n');
    messages.push({ role: 'tool', tool_call_id: t.id, content: 'Process exited with code ' + p.status + '\\nOutput:\\n' + out });
  }
}
`;

type Row = Record<string, unknown> & { job_id: string; case_id: string; verdict: string | null; diff?: { files: number; added: number; removed: number } };

/** One run of the suite in a folder of its own, with the commands every run is checked with. */
function codingRun(name: string, extra: (dir: string) => Promise<string[]>) {
  const state = { dir: '', run: null as CliResult | null, rows: [] as Row[], cleanup: async () => {} };
  before(async function () {
    this.timeout(600_000);
    const tmp = await tempDir(`evalog-coding-${name}-`);
    state.dir = tmp.dir;
    state.cleanup = tmp.cleanup;
    await mkdir(join(tmp.dir, 'runs'));
    state.run = await runEvalog(['run', 'coding', ...(await extra(tmp.dir)), '--out', 'runs/r'], { cwd: tmp.dir });
    state.rows = await readJsonl<Row>(join(tmp.dir, 'runs/r/rows.jsonl'));
  });
  after(() => state.cleanup());
  const evalog = (args: string[]) => runEvalog(args, { cwd: state.dir });
  return { state, evalog, folder: () => join(state.dir, 'runs/r') };
}

/** The checks every run gets: show prints the diffs, replay matches, rebuild is byte-identical. */
function sharedChecks(r: ReturnType<typeof codingRun>) {
  it('evalog show prints, for each graded job, the files and lines changed and the diff', async () => {
    const show = await r.evalog(['show', 'runs/r']);
    expect(show.code, show.stderr).to.equal(0);
    const jobs = show.stdout.split(/^== /m).slice(1);
    expect(jobs).to.have.length(r.state.rows.length);
    for (const job of jobs) expect(job, job.slice(0, 60)).to.match(/\n {2}diff: +(no file changed|1 file changed, \+\d+ −\d+)/);
    const changed = jobs.filter((j) => j.includes('1 file changed'));
    expect(changed.length).to.be.greaterThan(0);
    for (const job of changed)
      expect(job).to.match(/diff --git a\/src\/\S+\.js b\/src\/\S+\.js\n +--- a\/src\/\S+\n +\+\+\+ b\/src\/\S+\n +@@ -1,\d+ \+1,\d+ @@/);
  });

  it('evalog replay re-executes the run to the same events', async () => {
    const replay = await r.evalog(['replay', 'runs/r']);
    expect(replay.code, `${replay.stdout}\n${replay.stderr}`).to.equal(0);
    expect(replay.stdout).to.match(/every event matches/);
  });

  it('evalog rebuild writes the live outputs again, byte for byte', async () => {
    const rebuild = await r.evalog(['rebuild', 'runs/r', '--out', 'rebuilt']);
    expect(rebuild.code, rebuild.stderr).to.equal(0);
    for (const f of OUTPUTS) expect(await readFile(join(r.state.dir, 'rebuilt', f), 'utf8'), f).to.equal(await readFile(join(r.folder(), f), 'utf8'));
  });
}

/** Each row's case and verdict, and whether its diff changed a file. */
const verdicts = (rows: Row[]) => rows.map((row) => [row.job_id, row.verdict, row.diff?.files ?? null]);

describe('evalog run coding: the built-in worker on the scripted model', function () {
  this.timeout(600_000);
  const r = codingRun('builtin', async () => []);

  it('completes, each row with a verdict and a diff: the rules the player can follow pass, the others fail', () => {
    expect(r.state.run!.code, r.state.run!.stderr).to.equal(0);
    expect(r.state.run!.stderr).to.contain('scripted');
    const expected = ['clamp_value', 'fix_average', 'reverse_words', 'slugify_title', 'sum_numbers'].flatMap((c) =>
      ['full_brief', 'pointer_brief'].map((arm) => [
        `${c}:${arm}:1`,
        ['fix_average', 'slugify_title'].includes(c) ? 'fail' : 'pass',
        c === 'fix_average' ? 0 : 1,
      ]),
    );
    expect(verdicts(r.state.rows)).to.deep.equal(expected);
    const slug = r.state.rows.find((row) => row.case_id === 'slugify_title')!;
    expect(slug.checks).to.deep.equal({ 'hidden:slug_digits': false, 'hidden:slug_kept': false, 'hidden:slug_nothing': false });
    expect(String(slug.reason)).to.contain('no example for these arguments');
  });

  it('records the workspace with its diff as blobs, one WorkspaceCaptured per graded job', async () => {
    const log = await FileEventLog.open({ root: join(r.state.dir, 'runs') });
    try {
      const runId = 'r';
      const captured = [];
      for await (const e of log.read(runId)) if (e.type === 'WorkspaceCaptured') captured.push(e);
      expect(captured).to.have.length(10);
      const sum = captured.find((e) => e.jobId === 'sum_numbers:full_brief:1')!;
      if (sum.type !== 'WorkspaceCaptured') throw new Error('not a capture');
      const diff = Buffer.from(await log.blobs(runId).get(sum.data.diff!)).toString();
      expect(diff).to.contain('+  return numbers.reduce((total, n) => total + n, 0);');
      expect(Buffer.from(await log.blobs(runId).get(sum.data.files[0]!.blob!)).toString()).to.contain('export function sum(numbers)');
    } finally {
      await log.close();
    }
  });

  sharedChecks(r);

  // Like every browser test, it fails without Chromium (launchBrowser says how to install it).
  it("shows the diff on the viewer's job page", async () => {
    const [viewer, browser] = await Promise.all([startViewer(['--runs', 'runs'], r.state.dir), launchBrowser()]);
    try {
      const page = await browser.newPage();
      await page.goto(`${viewer.url}#/run/r/job/${encodeURIComponent('clamp_value:full_brief:1')}`);
      await page.locator('#workspace-diff').waitFor();
      expect(await page.locator('#workspace-summary').textContent()).to.equal('1 file changed, +2 −2');
      expect(await page.locator('#workspace-files li').allTextContents()).to.deep.equal(['src/clamp.js modified · +2 −2']);
      expect(await page.locator('#workspace-diff .add').allTextContents()).to.include('+  return Math.min(Math.max(value, low), high);\n');
      expect(await page.locator('#workspace-diff .del').allTextContents()).to.include("-  throw new Error('clamp is not written yet');\n");
    } finally {
      await browser.close();
      await viewer.stop();
    }
  });
});

describe('evalog run coding --agent node-agent.mjs: the suite tools over MCP, writes carried into the folder', function () {
  this.timeout(600_000);
  const r = codingRun('node-agent', async () => ['--agent', `node ${NODE_AGENT}`, '--case', 'sum_numbers', '--case', 'fix_average']);

  it('completes, graded from the folder the agent left: its rows have verdicts and diffs', () => {
    expect(r.state.run!.code, r.state.run!.stderr).to.equal(0);
    expect(verdicts(r.state.rows)).to.deep.equal([
      ['fix_average:full_brief:1', 'fail', 0],
      ['fix_average:pointer_brief:1', 'fail', 0],
      ['sum_numbers:full_brief:1', 'pass', 1],
      ['sum_numbers:pointer_brief:1', 'pass', 1],
    ]);
    expect(r.state.rows.every((row) => row.agent === 'agent' && row.stop_reason === 'answered')).to.equal(true);
  });

  sharedChecks(r);
});

describe('evalog run coding --agent <a shell agent>: an agent that edits its folder with a tool of its own', function () {
  this.timeout(600_000);
  const r = codingRun('shell-agent', async (dir) => {
    await writeFile(join(dir, 'shell-agent.mjs'), SHELL_AGENT);
    return ['--agent', `node ${join(dir, 'shell-agent.mjs')}`, '--case', 'reverse_words'];
  });

  it('completes, graded from what it wrote to disk with no evalog tool: its rows pass with a diff', () => {
    expect(r.state.run!.code, r.state.run!.stderr).to.equal(0);
    expect(verdicts(r.state.rows)).to.deep.equal([
      ['reverse_words:full_brief:1', 'pass', 1],
      ['reverse_words:pointer_brief:1', 'pass', 1],
    ]);
    expect(r.state.rows.map((row) => row.tool_calls)).to.deep.equal([0, 0]);
  });

  sharedChecks(r);
});
