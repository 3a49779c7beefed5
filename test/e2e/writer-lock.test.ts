import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { collect, runEvalog, startEvalog, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { startNatsServer } from '../support/nats-server.js';

// The run's writer lock comes before any effect: a resume of a run that a live process writes, a
// second of two concurrent resumes, and a resume of a log that cannot take an append are refused
// with exit 2 before a single request, and no attempt is ever sent twice.

const CASES = 400;
const MODEL = ['--model', 'evalog-scripted'];

interface UsageCall {
  job_id: string;
  call_id: string;
  outcome: string;
}

/** Requests per X-Evalog-Call key of one run, summed over the endpoints it was sent to. */
async function requestsOf(servers: MockServerProcess[], runId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const s of servers) {
    for (const [k, n] of Object.entries((await s.stats()).requestsByCallKey)) if (k.startsWith(`${runId}/`)) out.set(k, (out.get(k) ?? 0) + n);
  }
  return out;
}

/** Resolves once the child has reported `n` finished jobs on stderr. */
function afterJobs(child: ReturnType<typeof startEvalog>, n: number): Promise<void> {
  let done = 0;
  return new Promise((resolve) => {
    child.stderr!.on('data', (d: Buffer) => {
      done += (d.toString().match(/^job /gm) ?? []).length;
      if (done >= n) resolve();
    });
  });
}

/** Makes a file or folder refuse writes: immutable as root (root ignores modes), read-only otherwise. */
async function protect(path: string, folder: boolean): Promise<{ undo: () => Promise<void> } | null> {
  if (process.getuid?.() !== 0) {
    await chmod(path, folder ? 0o555 : 0o444);
    return { undo: () => chmod(path, folder ? 0o755 : 0o644) };
  }
  return spawnSync('chattr', ['+i', path]).status === 0 ? { undo: async () => void spawnSync('chattr', ['-i', path]) } : null;
}

describe('the writer lock comes before any effect (child processes, counting endpoint)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let fast: MockServerProcess;
  let quick: MockServerProcess;
  let slow: MockServerProcess;

  before(async () => {
    tmp = await tempDir();
    const lines = Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: `c${i}`, input: `Reply with exactly: A${i}`, expected: `A${i}` }));
    await writeFile(join(tmp.dir, 'cases.jsonl'), `${lines.join('\n')}\n`);
    // 400 ms a call (the scenario has 40 ms): the first run must still be mid-run, 8 calls in
    // flight, when the early resume (a whole process start on a loaded machine, with a cold tsx cache
    // in a fresh checkout) has come and gone: 400 cases take it 20 s. At 150 ms a CI run once saw
    // the first run finish all 400 cases before the kill. It is killed right after, so this costs no time.
    fast = await startMockServer(['--latency-ms', '400'], tmp.dir);
    // The concurrent resumes run against a slower endpoint, so the winner is still running when the loser asks.
    slow = await startMockServer(['--latency-ms', '200'], tmp.dir);
    // Resumes that only finish a run need no latency.
    quick = await startMockServer([], tmp.dir);
  });
  after(async () => {
    await fast?.stop();
    await slow?.stop();
    await quick?.stop();
    await tmp.cleanup();
  });

  it(`${CASES} cases at concurrency 8: a resume while the run is live exits 2 naming its pid and sends nothing; after a SIGKILL, of 2 concurrent resumes exactly one proceeds; every attempt is sent once and counted`, async () => {
    const runArgs = ['run', 'dataset', '--data', 'cases.jsonl', '--concurrency', '8', '--out', 'runs/big', ...MODEL];
    const first = startEvalog([...runArgs, '--verbose'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: fast.url } });
    const firstDone = collect(first);
    await afterJobs(first, 20);

    const early = await runEvalog(['resume', 'runs/big', ...MODEL], { cwd: tmp.dir, env: { EVALOG_BASE_URL: fast.url } });
    expect(early.code, early.stderr).to.equal(2);
    expect(early.stderr)
      .to.include(`process ${first.pid}`)
      .and.not.match(/^\s+at /m);
    expect(early.stderr).to.not.match(/^job /m);
    // The resume sent no attempt: any it had sent would be a second request under a key the run sends.
    const duringRun = await requestsOf([fast], 'big');
    expect(
      [...duringRun.values()].every((n) => n === 1),
      'no attempt sent twice',
    ).to.equal(true);

    first.kill('SIGKILL');
    expect((await firstDone).signal).to.equal('SIGKILL');
    const sentByFirst = await requestsOf([fast], 'big');

    const resumes = [0, 1].map(() => startEvalog(['resume', 'runs/big', ...MODEL], { cwd: tmp.dir, env: { EVALOG_BASE_URL: slow.url } }));
    const ends = await Promise.all(resumes.map(collect));
    const codes = ends.map((e) => e.code).sort();
    expect(codes, ends.map((e) => e.stderr).join('\n---\n')).to.deep.equal([0, 2]);
    const loser = ends.findIndex((e) => e.code === 2);
    expect(ends[loser]!.stderr)
      .to.include(`process ${resumes[1 - loser]!.pid}`)
      .and.not.match(/^\s+at /m);

    // usage.json has every case's attempt plus those in flight at the kill (outcome unknown, each retried).
    const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/big/usage.json'), 'utf8')) as { calls: UsageCall[] };
    const cut = usage.calls.filter((c) => c.outcome === 'unknown');
    // Eight calls run at once, so some were in flight when the first process was killed.
    expect(cut.length).to.be.within(1, 8);
    expect(usage.calls.length).to.equal(CASES + cut.length);
    const sent = await requestsOf([fast, slow], 'big');
    expect(
      [...sent].filter(([, n]) => n !== 1),
      'attempts sent more than once',
    ).to.deep.equal([]);
    const keys = new Set(usage.calls.map((c) => `big/${c.job_id}/${c.call_id}`));
    expect(
      [...sent.keys()].filter((k) => !keys.has(k)),
      'requests missing from usage.json',
    ).to.deep.equal([]);
    // The only attempts the endpoint may not have seen are cut-off ones recorded just before the kill.
    const unseen = usage.calls.filter((c) => !sent.has(`big/${c.job_id}/${c.call_id}`));
    expect(unseen.every((c) => c.outcome === 'unknown')).to.equal(true);
    expect(sent.size).to.equal(CASES + cut.length - unseen.length);
    // The first process's cut-off attempts were sent by it, their retries by the resume.
    expect(cut.every((c) => !sent.has(`big/${c.job_id}/${c.call_id}`) || sentByFirst.has(`big/${c.job_id}/${c.call_id}`))).to.equal(true);
  });

  it('on JetStream: a resume while the run is live exits 2 naming its pid and sends nothing; after a SIGKILL it finishes the run, every attempt sent once and counted', async () => {
    const nats = await startNatsServer();
    try {
      const args = ['--nats', nats.url, ...MODEL];
      const first = startEvalog(['run', 'dataset', '--data', 'cases.jsonl', '--concurrency', '8', '--out', 'runs/onnats', '--verbose', ...args], {
        cwd: tmp.dir,
        env: { EVALOG_BASE_URL: fast.url },
      });
      const firstDone = collect(first);
      await afterJobs(first, 20);
      const early = await runEvalog(['resume', 'onnats', '--out', 'runs/onnats', ...args], { cwd: tmp.dir, env: { EVALOG_BASE_URL: fast.url } });
      expect(early.code, early.stderr).to.equal(2);
      expect(early.stderr)
        .to.include(`process ${first.pid}`)
        .and.not.match(/^\s+at /m);
      expect(early.stderr).to.not.match(/^job /m);
      expect(
        [...(await requestsOf([fast], 'onnats')).values()].every((n) => n === 1),
        'no attempt sent twice',
      ).to.equal(true);
      first.kill('SIGKILL');
      await firstDone;
      // The dead writer was on this host: its lease is taken over at once.
      const resumed = await runEvalog(['resume', 'onnats', '--out', 'runs/onnats', ...args], { cwd: tmp.dir, env: { EVALOG_BASE_URL: quick.url } });
      expect(resumed.code, resumed.stderr).to.equal(0);
      const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/onnats/usage.json'), 'utf8')) as { calls: UsageCall[] };
      const cut = usage.calls.filter((c) => c.outcome === 'unknown');
      expect(usage.calls.length).to.equal(CASES + cut.length);
      const sent = await requestsOf([fast, quick], 'onnats');
      expect(
        [...sent].filter(([, n]) => n !== 1),
        'attempts sent more than once',
      ).to.deep.equal([]);
      const unseen = usage.calls.filter((c) => !sent.has(`onnats/${c.job_id}/${c.call_id}`));
      expect(unseen.every((c) => c.outcome === 'unknown')).to.equal(true);
      expect(sent.size).to.equal(CASES + cut.length - unseen.length);
    } finally {
      await nats.stop();
    }
  });

  for (const target of ['log/events.evlog', 'log']) {
    it(`a resume of a run whose ${target} cannot be written exits 2 naming it, before any request`, async function () {
      const name = target === 'log' ? 'ro-dir' : 'ro-file';
      const child = startEvalog(['run', 'dataset', '--data', 'cases.jsonl', '--concurrency', '8', '--out', `runs/${name}`, '--verbose', ...MODEL], {
        cwd: tmp.dir,
        env: { EVALOG_BASE_URL: fast.url },
      });
      const done = collect(child);
      await afterJobs(child, 10);
      child.kill('SIGKILL');
      await done;
      const path = join(tmp.dir, 'runs', name, target);
      const guard = await protect(path, target === 'log');
      if (!guard) this.skip(); // root without CAP_LINUX_IMMUTABLE: nothing can make the log unwritable for it
      try {
        const before = (await fast.stats()).requests;
        const r = await runEvalog(['resume', `runs/${name}`, ...MODEL], { cwd: tmp.dir, env: { EVALOG_BASE_URL: fast.url } });
        expect(r.code, r.stderr).to.equal(2);
        expect(r.stderr)
          .to.include(target === 'log' ? join('runs', name, 'log') : join('runs', name, 'log', 'events.evlog'))
          .and.include('not writable');
        expect(r.stderr).to.not.match(/^\s+at /m);
        expect((await fast.stats()).requests - before, 'requests sent by the refused resume').to.equal(0);
      } finally {
        await guard!.undo();
      }
      // Once writable again, the same run resumes to the end.
      const ok = await runEvalog(['resume', `runs/${name}`, ...MODEL], { cwd: tmp.dir, env: { EVALOG_BASE_URL: quick.url } });
      expect(ok.code, ok.stderr).to.equal(0);
    });
  }
});
