// Scale-out throughput: the same smoke run (jobs/s) done by 1, 2 and 4 `evalog worker` processes,
// side by side in one run (interleaved reps, medians), against the scripted model in its own
// process with a fixed model latency (default 200 ms), so that jobs are model-bound as real ones
// are. Throughput is measured from the log: jobs ÷ (last job end − first claim), which leaves out
// process start-up of the coordinator and workers (started and ready before the run).
// Run by hand (after `npm run build`): npx tsx bench/scale.ts [--workers 1,2,4] [--reps 3]
//   [--repetitions 8] [--concurrency 4] [--latency-ms 200]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { StoredEvent } from '../src/events/index.js';
import { JetStreamEventLog } from '../src/log/jetstream/index.js';
import { startNatsServer } from '../test/support/nats-server.js';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2,4' },
    reps: { type: 'string', default: '3' },
    repetitions: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '4' },
    'latency-ms': { type: 'string', default: '200' },
  },
});
const COUNTS = values.workers.split(',').map(Number);
const REPS = Number(values.reps);
const BIN = join(import.meta.dirname, '..', 'bin', 'evalog.js');

/** Starts `evalog ARGS` from the built package; resolves with the process once `ready` matched. */
function evalog(args: string[], cwd: string, env: Record<string, string>, ready?: RegExp): Promise<ChildProcess & { output: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const proc = Object.assign(child, { output: () => out });
  return new Promise((resolve, reject) => {
    const on = (d: Buffer) => {
      out += d.toString();
      if (ready?.test(out)) resolve(proc);
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => (ready ? reject(new Error(`evalog ${args[0]} exited ${code}:\n${out}`)) : resolve(proc)));
    if (!ready) resolve(proc);
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

async function jobsPerSecond(url: string, runId: string): Promise<{ jobs: number; seconds: number }> {
  const log = await JetStreamEventLog.connect({ servers: url });
  let first = Infinity;
  let last = 0;
  let jobs = 0;
  for await (const e of log.read(runId) as AsyncIterable<StoredEvent>) {
    const t = Date.parse(e.at);
    if (e.type === 'JobClaimed') first = Math.min(first, t);
    if (e.type === 'JobSucceeded' || e.type === 'JobFailed') {
      last = Math.max(last, t);
      jobs += 1;
    }
  }
  await log.close();
  return { jobs, seconds: (last - first) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalog-scale-'));
  const nats = await startNatsServer();
  const mock = await evalog(['mock-server', '--port', '0', '--latency-ms', values['latency-ms']], dir, {}, /http:\/\/127\.0\.0\.1:\d+\/v1/);
  const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(mock.output())![1]!;
  const env = { EVALOG_BASE_URL: url };
  const results = new Map<number, number[]>(COUNTS.map((n) => [n, []]));
  try {
    for (let rep = 1; rep <= REPS; rep += 1) {
      for (const n of COUNTS) {
        const workers = await Promise.all(
          Array.from({ length: n }, () =>
            evalog(
              ['worker', '--nats', nats.url, '--suite', 'smoke', '--concurrency', values.concurrency, '--model', 'evalog-scripted'],
              dir,
              env,
              /taking jobs/,
            ),
          ),
        );
        const runId = `scale-${n}w-${rep}`;
        const run = await evalog(
          [
            'run',
            'smoke',
            '--nats',
            nats.url,
            '--workers',
            'external',
            '--out',
            join(dir, runId),
            '--repetitions',
            values.repetitions,
            '--model',
            'evalog-scripted',
          ],
          dir,
          env,
        );
        const code = await exited(run);
        if (code !== 0) throw new Error(`run ${runId} exited ${code}`);
        for (const w of workers) w.kill('SIGTERM');
        await Promise.all(workers.map(exited));
        const { jobs, seconds } = await jobsPerSecond(nats.url, runId);
        results.get(n)!.push(jobs / seconds);
        console.log(`rep ${rep}: ${n} worker(s): ${jobs} jobs in ${seconds.toFixed(2)} s = ${(jobs / seconds).toFixed(2)} jobs/s`);
      }
    }
  } finally {
    mock.kill('SIGTERM');
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const base = median(results.get(COUNTS[0]!)!);
  console.log(
    `\n${cpus().length} CPUs (${cpus()[0]?.model}), Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`model latency ${values['latency-ms']} ms, worker concurrency ${values.concurrency}, ${values.repetitions} repetitions of smoke (8 jobs each)`);
  console.log('workers  median jobs/s  ratio to 1 worker');
  for (const n of COUNTS) {
    const m = median(results.get(n)!);
    console.log(`${String(n).padStart(7)}  ${m.toFixed(2).padStart(13)}  ${(m / base).toFixed(2).padStart(17)}`);
  }
}

await main();
