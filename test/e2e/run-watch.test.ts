// `evalog run ./suite.ts --watch` in a real child process against a real HTTP endpoint that counts
// the calls reaching it: one run at the start; a save of one case runs again with the response
// cache on, so exactly that case's request reaches the endpoint, and the terminal names it as
// flipped; a save that breaks the suite file is its one line and the loop keeps watching; Ctrl-C
// ends the loop with the last run's exit code.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startChatEndpoint, type ChatEndpoint } from '../support/chat-endpoint.js';
import { apiUrl, collect, readJsonl, startEvalog, tempDir, type CliResult } from '../support/cli.js';

const API = apiUrl();
const ZOD = import.meta.resolve('zod');

/** A one-call suite that reads cases.jsonl beside it, written as a user would (imports by URL: the temp folder has no node_modules). */
const SUITE = `import { readFile } from 'node:fs/promises';
import { z } from ${JSON.stringify(ZOD)};
import { baseConfigShape, defineSuite } from ${JSON.stringify(API)};

type Capital = { question: string; expected: string };
const CASES = new URL('./cases.jsonl', import.meta.url);

export default defineSuite({
  name: 'capitals',
  description: 'one call per case, graded by the expected city in the answer',
  shape: 'single-call',
  configSchema: z.object({ ...baseConfigShape }).strict(),
  defaults: {
    repetitions: 1, concurrency: 2, seed: 1, orderSeed: 1, cases: null, model: { temperature: 0, maxTokens: 64 },
    worker: { turnCap: 1, timeLimitMs: 60_000 }, provider: { timeoutMs: 10_000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, maxRetryAfterMs: 1000 },
  },
  prepare: async () => ({
    cases: (await readFile(CASES, 'utf8')).split('\\n').filter((l) => l.trim() !== '').map((l) => {
      const { id, ...data } = JSON.parse(l) as { id: string } & Capital;
      return { id, data };
    }),
  }),
  arms: () => ['default'],
  call: { request: (c) => ({ messages: [{ role: 'user', content: c.data.question }], tools: [] }) },
  grade: (c, work) => ({
    checks: [{ checkId: 'city', visibility: 'hidden', passed: (work.answer ?? '').includes(c.data.expected), detail: work.answer }],
    firstRevisionPassed: null,
  }),
});
`;

const CASES = [
  { id: 'france', question: 'What is the capital of France?', expected: 'Paris' },
  { id: 'japan', question: 'What is the capital of Japan?', expected: 'Tokyo' },
  { id: 'peru', question: 'What is the capital of Peru?', expected: 'Lima' },
];
const jsonl = (cases: readonly object[]) => `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`;

/** The child's output so far, and a way to wait for a line of it. */
function follow(child: ChildProcess) {
  const seen = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (seen.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (seen.stderr += d.toString()));
  const until = (what: string, test: () => boolean, ms = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const tick = setInterval(() => {
        if (test()) {
          clearInterval(tick);
          resolve();
        } else if (child.exitCode !== null || Date.now() - started > ms) {
          clearInterval(tick);
          reject(new Error(`no ${what} (exit ${child.exitCode})\nstdout:\n${seen.stdout}\nstderr:\n${seen.stderr}`));
        }
      }, 50);
    });
  const count = (text: string, needle: string) => text.split(needle).length - 1;
  /** Waits until the loop has waited for a save `n` times (run n is over and reported). */
  const waiting = (n: number) => until(`wait number ${n}`, () => count(seen.stderr, 'waiting for a save') >= n);
  return { seen, until, waiting };
}

describe('evalog run ./suite.ts --watch (a child process, a real HTTP endpoint counting calls)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let endpoint: ChatEndpoint;

  before(async () => {
    tmp = await tempDir();
    endpoint = await startChatEndpoint((p) => (p.includes('France') ? 'Paris' : p.includes('Japan') ? 'The capital is Tokyo.' : 'Lima'));
  });
  after(async () => {
    await endpoint.close();
    await tmp.cleanup();
  });

  it('a saved case runs again with one call at the endpoint and is named as flipped; a broken save is one line; Ctrl-C ends with the last exit code', async () => {
    await writeFile(join(tmp.dir, 'suite.ts'), SUITE);
    await writeFile(join(tmp.dir, 'cases.jsonl'), jsonl(CASES));
    const env = { EVALOG_BASE_URL: endpoint.url, EVALOG_API_KEY: 'sk-test', EVALOG_CACHE_DIR: undefined, NO_COLOR: '1' };
    const child = startEvalog(['run', './suite.ts', '--model', 'm-1', '--watch'], { cwd: tmp.dir, env });
    const done: Promise<CliResult> = collect(child);
    const out = follow(child);

    await out.waiting(1);
    expect(endpoint.calls, 'run 1 calls once per case').to.equal(3);
    expect(out.seen.stdout).to.match(/evalog watch: run 1 \(runs\/suite-\d{8}-\d{6}-001\), exit 0\n {2}3\/3 passed \(100\.0%\)\n/);

    // One case saved with a new question: only its request is new, and the endpoint answers it wrongly.
    const before = endpoint.calls;
    await writeFile(join(tmp.dir, 'cases.jsonl'), jsonl(CASES.map((c) => (c.id === 'japan' ? { ...c, question: 'What is the capital of Nippon?' } : c))));
    await out.waiting(2);
    expect(endpoint.calls - before, 'the cache answered the unchanged cases').to.equal(1);
    expect(out.seen.stderr).to.include('evalog: watch: cases.jsonl changed: run 2');
    const second = out.seen.stdout.slice(out.seen.stdout.indexOf('evalog watch: run 2'));
    expect(second).to.match(/^evalog watch: run 2 \(runs\/suite-\d{8}-\d{6}-002\), exit 0\n/);
    expect(second).to.include('  2/3 passed (66.7%), was 3/3 passed (100.0%); 1 flipped against run 1\n    now failing  japan\n');
    expect(second).not.to.include('france').and.not.to.include('peru');

    // A save that breaks the suite file: its one line, no stack, and the loop waits for the next save.
    await writeFile(join(tmp.dir, 'suite.ts'), `${SUITE}\nexport const broken = ;\n`);
    await out.waiting(3);
    const third = out.seen.stderr.slice(out.seen.stderr.indexOf('suite.ts changed: run 3'));
    const errors = third.split('\n').filter((l) => l.includes('suite file'));
    expect(errors, third).to.have.length(1);
    expect(errors[0]).to.match(/^evalog: suite file suite\.ts(:\d+)?: /);
    expect(third).not.to.match(/^\s+at /m);
    expect(out.seen.stdout).not.to.include('evalog watch: run 3');

    child.kill('SIGINT');
    const result = await done;
    expect(result.code, 'the last run was refused: exit 2').to.equal(2);
    expect(result.stderr).to.include('evalog: watch: ended after 3 runs; exit 2');

    // Each run of the loop is a run folder of its own under runs/; the refused one left none.
    const folders = (await readdir(join(tmp.dir, 'runs'))).sort();
    expect(folders).to.have.length(2);
    expect(folders[0]).to.match(/-001$/);
    expect(folders[1]).to.match(/-002$/);
    const rows = await readJsonl<{ case_id: string; passed: boolean }>(join(tmp.dir, 'runs', folders[1]!, 'rows.jsonl'));
    expect(rows.map((r) => [r.case_id, r.passed]).sort()).to.deep.equal([
      ['france', true],
      ['japan', false],
      ['peru', true],
    ]);
    const runJson = JSON.parse(await readFile(join(tmp.dir, 'runs', folders[1]!, 'run.json'), 'utf8'));
    expect(runJson.provenance.cache).to.deep.equal({ dir: '.evalog-cache' });
  });
});
