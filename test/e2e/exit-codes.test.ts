// Exit codes, the pre-flight check, the breaker and a partial run's state, through the real CLI in
// child processes against a real HTTP server (an OpenAI-compatible stand-in whose answers the
// test switches), and the built-in scripted model for the pass threshold.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collect, readJsonl, runEvalog, runEvalogHere, startEvalog, tempDir } from '../support/cli.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const SECRET = 'sk-test-EXITS-SECRET';
// No endpoint from the test's own environment: each test names the one it means.
const NO_ENDPOINT = { EVALOG_BASE_URL: undefined, OPENAI_BASE_URL: undefined, EVALOG_MODEL: undefined, EVALOG_API_KEY: undefined, OPENAI_API_KEY: undefined };

type Mode = 'ok' | 'some-fail' | 'all-fail' | 'unauthorized' | 'slow';

/** An OpenAI-compatible stand-in: GET /models and POST /chat/completions, answering by `mode`. */
class StandIn {
  mode: Mode = 'ok';
  readonly seen: { method: string; url: string; authorization: string | undefined }[] = [];
  chats = 0;
  onChat: ((n: number) => void) | null = null;
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server?.closeAllConnections();
      this.server?.close(() => r());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    this.seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (this.mode === 'unauthorized') return json(401, { error: { message: 'invalid api key' } });
    if (req.method === 'GET' && req.url === '/v1/models') return json(200, { object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'test' }] });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(404, { error: { message: 'not found' } });
    this.chats += 1;
    this.onChat?.(this.chats);
    const request = JSON.parse(body) as { messages: { content: string }[] };
    const text = request.messages.map((m) => m.content).join('\n');
    if (this.mode === 'all-fail' || (this.mode === 'some-fail' && text.includes('FAIL')))
      return json(400, { error: { message: 'bad request from the stand-in' } });
    if (this.mode === 'slow') await new Promise((r) => setTimeout(r, 300));
    return json(200, {
      id: `c${this.chats}`,
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    });
  }
}

/** Ten cases whose answer "ok" passes; the ones named FAIL make the stand-in refuse the call (HTTP 400). */
const cases = (failing: number) =>
  Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `case-${i}`, input: i < failing ? `question ${i} FAIL` : `question ${i}`, expected: 'ok' }))
    .join('\n')
    .concat('\n');

const exists = (path: string) =>
  readFile(path).then(
    () => true,
    (e: NodeJS.ErrnoException) => (e.code === 'EISDIR' ? true : e.code === 'ENOENT' ? false : Promise.reject(e)),
  );

/** A port that was just listening and is closed now: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('exit codes, pre-flight, breaker and partial runs (child processes, real HTTP server)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  const server = new StandIn();
  const endpoint = () => ['--base-url', server.url, '--model', 'm'];

  before(async () => {
    tmp = await tempDir();
    await server.start();
    await writeFile(join(tmp.dir, 'ten.jsonl'), cases(0));
    await writeFile(join(tmp.dir, 'two-fail.jsonl'), cases(2));
  });
  beforeEach(() => {
    server.mode = 'ok';
    server.onChat = null;
  });
  after(async () => {
    await server.close();
    await tmp.cleanup();
  });

  it('a dead endpoint (a closed port) exits 2 before anything is written, naming --base-url and its origin', async () => {
    const port = await closedPort();
    const r = await runEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/dead', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm'], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr)
      .to.include('--base-url')
      .and.include(`http://127.0.0.1:${port}`)
      .and.match(/connection refused/);
    expect(r.stderr).not.to.match(/\n\s+at /);
    expect(await exists(join(tmp.dir, 'runs/dead'))).to.equal(false);
  });

  it('a port fetch never connects to (9, on its blocklist) exits 2 before anything is written', async () => {
    const r = await runEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/blocked', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.match(/--base-url \(http:\/\/127\.0\.0\.1:9\).*port/);
    expect(await exists(join(tmp.dir, 'runs/blocked'))).to.equal(false);
  });

  it('a refused key (401 at GET /models) exits 2 naming the variables, never the key, and makes no model call', async () => {
    server.mode = 'unauthorized';
    const before = server.seen.length;
    const r = await runEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/auth', '--model', 'm'], {
      cwd: tmp.dir,
      env: { ...NO_ENDPOINT, EVALOG_BASE_URL: server.url, EVALOG_API_KEY: SECRET },
    });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.include('EVALOG_BASE_URL').and.include('EVALOG_API_KEY').and.include('HTTP 401');
    expect(r.stderr + r.stdout).not.to.include(SECRET);
    const calls = server.seen.slice(before);
    // One free check, with the key the model calls would send anyway; no chat completion.
    expect(calls.map((c) => `${c.method} ${c.url}`)).to.deep.equal(['GET /v1/models']);
    expect(calls[0]!.authorization).to.equal(`Bearer ${SECRET}`);
    expect(await exists(join(tmp.dir, 'runs/auth'))).to.equal(false);
  });

  it('a run with failed jobs (the endpoint refuses some calls) completes, writes its outputs and exits 3 saying why', async () => {
    server.mode = 'some-fail';
    const r = await runEvalog(['run', 'dataset', '--data', 'two-fail.jsonl', '--out', 'runs/some', '--concurrency', '1', ...endpoint()], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stderr).to.match(/evalog: 2 of 10 jobs ended in errors \(last: provider_failed: /);
    const rows = await readJsonl<{ status: string; passed: boolean }>(join(tmp.dir, 'runs/some/rows.jsonl'));
    expect(rows.map((x) => x.status).sort()).to.deep.equal([...Array(2).fill('failed'), ...Array(8).fill('succeeded')]);
    // 3 wins over 1: the threshold is not met either, but errors are what the run must report.
    const both = await runEvalog(['run', 'dataset', '--data', 'two-fail.jsonl', '--out', 'runs/some-2', '--fail-under', '0.99', ...endpoint()], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(both.code, both.stderr).to.equal(3);
  });

  it('--fail-under 0.9 on a run whose pass rate is 0.8 exits 1; 0.8 exits 0; resume applies the recorded threshold', async () => {
    // Eight cases the scripted model's answers pass and two it fails (examples/qa.jsonl, see dataset.test.ts).
    await mkdir(join(tmp.dir, 'examples'), { recursive: true });
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'examples/qa.jsonl'));
    const pick = ['author-hamlet', 'boiling-point', 'capital-france', 'echo', 'json-mars', 'largest-planet', 'multiply', 'sqrt-144', 'divide', 'sky-color'];
    const lines = (await readFile(join(tmp.dir, 'examples/qa.jsonl'), 'utf8')).split('\n').filter((l) => l && pick.includes(JSON.parse(l).id));
    expect(lines).to.have.length(10);
    await writeFile(join(tmp.dir, 'eight.jsonl'), `${lines.join('\n')}\n`);

    const under = await runEvalog(['run', 'dataset', '--data', 'eight.jsonl', '--out', 'runs/fu', '--fail-under', '0.9'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(under.code, under.stderr).to.equal(1);
    expect(under.stderr).to.include('--fail-under 0.9 not met: pass rate 0.800 (8 of 10 jobs with a verdict)');
    expect(await exists(join(tmp.dir, 'runs/fu/summary.json'))).to.equal(true);
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/fu/run.json'), 'utf8'));
    expect(run.provenance.fail_under).to.equal(0.9);

    const met = await runEvalog(['run', 'dataset', '--data', 'eight.jsonl', '--out', 'runs/fu-met', '--fail-under', '0.8'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(met.code, met.stderr).to.equal(0);
    // Without the flag the same run exits 0: a case that did not pass is a result, not an error.
    const none = await runEvalog(['run', 'dataset', '--data', 'eight.jsonl', '--out', 'runs/fu-none'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(none.code, none.stderr).to.equal(0);
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/fu-none/run.json'), 'utf8')).provenance).not.to.have.property('fail_under');

    // The run knows its threshold: a resume of it applies it again, and its own flag replaces it.
    const resumed = await runEvalog(['resume', 'runs/fu'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(resumed.code, resumed.stderr).to.equal(1);
    const lowered = await runEvalog(['resume', 'runs/fu', '--fail-under', '0.5'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(lowered.code, lowered.stderr).to.equal(0);
  });

  it('--fail-under out of range is bad input (exit 2) naming the flag, before anything is written', async () => {
    const r = await runEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/bad-rate', '--fail-under', '1.5'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.include('--fail-under');
    expect(await exists(join(tmp.dir, 'runs/bad-rate'))).to.equal(false);
  });

  it('the breaker: every call fails, the run stops after N failed jobs in a row (exit 130, resumable); resume against a healthy endpoint completes', async () => {
    server.mode = 'all-fail';
    const stopped = await runEvalog(
      ['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/br', '--concurrency', '1', '--max-consecutive-failures', '3', ...endpoint()],
      { cwd: tmp.dir, env: NO_ENDPOINT },
    );
    expect(stopped.code, stopped.stderr).to.equal(130);
    expect(stopped.stderr).to.match(
      /evalog: stopped after 3 jobs in a row failed \(last: provider_failed: .*\); fix the cause and continue with: evalog resume /,
    );
    expect(await exists(join(tmp.dir, 'runs/br/rows.jsonl'))).to.equal(false);

    const listed = await runEvalogHere(['runs', '--json'], { cwd: tmp.dir, env: NO_ENDPOINT });
    const br = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((x) => x.runId === 'br');
    expect(br).to.deep.include({ status: 'interrupted' });
    expect(br.jobs).to.deep.include({ planned: 10, failed: 3, succeeded: 0, pending: 7 });

    server.mode = 'ok';
    const resumed = await runEvalog(['resume', 'runs/br', ...endpoint()], { cwd: tmp.dir, env: NO_ENDPOINT });
    // Complete now; the three jobs that failed stay failed (their errors are results), so exit 3.
    expect(resumed.code, resumed.stderr).to.equal(3);
    const rows = await readJsonl<{ status: string }>(join(tmp.dir, 'runs/br/rows.jsonl'));
    expect(rows.filter((x) => x.status === 'succeeded')).to.have.length(7);
    expect(rows.filter((x) => x.status === 'failed')).to.have.length(3);
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/br/summary.json'), 'utf8'));
    expect(summary).not.to.have.property('partial');
  });

  it('a resume counts failures from zero: three recorded failures and --max-consecutive-failures 3 do not stop it at once', async () => {
    server.mode = 'all-fail';
    const first = await runEvalog(
      ['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/br2', '--concurrency', '1', '--max-consecutive-failures', '3', ...endpoint()],
      { cwd: tmp.dir, env: NO_ENDPOINT },
    );
    expect(first.code, first.stderr).to.equal(130);
    const chats = server.chats;
    const again = await runEvalog(['resume', 'runs/br2', '--max-consecutive-failures', '3', ...endpoint()], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(again.code, again.stderr).to.equal(130);
    // Three new jobs ran (each one call: a 400 is not retried) before it stopped again.
    expect(server.chats - chats).to.equal(3);
    const listed = await runEvalogHere(['runs', '--json'], { cwd: tmp.dir, env: NO_ENDPOINT });
    const br2 = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((x) => x.runId === 'br2');
    expect(br2.jobs).to.deep.include({ failed: 6, pending: 4 });
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`a run stopped by ${signal} is listed as interrupted; rebuild and its summary say "partial: N of 10 jobs"`, async () => {
      server.mode = 'slow';
      const id = `stop-${signal.toLowerCase()}`;
      const child = startEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', `runs/${id}`, '--concurrency', '1', ...endpoint()], {
        cwd: tmp.dir,
        env: NO_ENDPOINT,
      });
      const from = server.chats;
      // Stopped while its fourth call is in flight: three jobs have ended.
      server.onChat = (n) => {
        if (n - from === 4 && child.exitCode === null) child.kill(signal);
      };
      const r = await collect(child);
      if (signal === 'SIGINT') expect(r.code, r.stderr).to.equal(130);
      else expect(r.signal).to.equal('SIGKILL');

      const listed = await runEvalogHere(['runs'], { cwd: tmp.dir, env: NO_ENDPOINT });
      const line = listed.stdout.split('\n').find((l) => l.startsWith(`${id} `));
      expect(line, listed.stdout).to.match(/ interrupted /);
      expect(line).to.include(`continue with: evalog resume ${join('runs', id)}`);

      const rebuilt = await runEvalogHere(['rebuild', `runs/${id}`], { cwd: tmp.dir, env: NO_ENDPOINT });
      expect(rebuilt.code, rebuilt.stderr).to.equal(0);
      expect(rebuilt.stdout).to.match(/^partial: 3 of 10 jobs/);
      const summary = JSON.parse(await readFile(join(tmp.dir, `runs/${id}/rebuilt/summary.json`), 'utf8'));
      expect(summary.partial).to.deep.equal({ jobs_ended: 3, jobs_planned: 10 });
    });
  }

  it('a complete run says nothing of partial: its summary has no such field and its table no such line', async () => {
    const r = await runEvalog(['run', 'dataset', '--data', 'ten.jsonl', '--out', 'runs/whole', ...endpoint()], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).not.to.include('partial');
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/whole/summary.json'), 'utf8'))).not.to.have.property('partial');
  });
});
