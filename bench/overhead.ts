// Per-case overhead of evalog against a bare `openai` client loop: the same N one-call cases
// (a JSONL of `Reply with exactly: answer-i` → `answer-i`, exact match) through
//   (a) bare:      the `openai` client, K requests in flight, exact-match check, results to a JSONL file;
//   (b) embedded:  `evalog run dataset --data F --concurrency K` (the embedded file log), a child process;
//   (c) jetstream: the same with `--nats URL` (a nats-server started here on a free loopback port, temp store);
// all against one deterministic OpenAI-compatible server (`evalog mock-server`, its own process) with
// 0 or 50 ms latency. Every side is a child process timed the same way: wall time from spawn to exit,
// and user + sys CPU seconds and peak RSS from /usr/bin/time (or, without it, the child's own report).
// Sides run as compiled JavaScript (bench/support/build.ts), as an installed evalog runs from dist/.
// Repetitions interleave the sides (order rotated); figures are medians.
// Run by hand: npx tsx bench/overhead.ts [--n 1000,10000] [--inflight 16,64] [--latency 0,50] [--reps 3] [--sides bare,embedded,jetstream]
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileForBench, compiledPath, EVALOG_JS } from './support/build.js';
import { type Measured, measure, median, startMockServer, TIME, writeCases } from './support/measure.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000,10000' },
    inflight: { type: 'string', default: '16,64' },
    latency: { type: 'string', default: '0,50' },
    reps: { type: 'string', default: '3' },
    sides: { type: 'string', default: 'bare,embedded,jetstream' },
    dir: { type: 'string', default: tmpdir() },
    // Writes a V8 CPU profile of every evalog side into this folder (node --cpu-prof).
    'cpu-prof': { type: 'string' },
    // Reuses the compiled tree of an earlier run (.tmp/bench-js) instead of compiling again.
    'no-compile': { type: 'boolean', default: false },
    // Internal: the bare client loop, run in a child process.
    child: { type: 'string' },
    data: { type: 'string' },
    out: { type: 'string' },
    'base-url': { type: 'string' },
    k: { type: 'string' },
  },
});

const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------
// (a) The bare client loop, in its own process: what a user would write without a runner.

async function bareLoop(): Promise<void> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ baseURL: values['base-url']!, apiKey: 'bench', maxRetries: 0 });
  const cases = readFileSync(values.data!, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; input: string; expected: string });
  const out = createWriteStream(values.out!);
  const k = Number(values.k);
  let next = 0;
  let passed = 0;
  const lane = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const r = await client.chat.completions.create({ model: 'bench-model', messages: [{ role: 'user', content: c.input }] });
      const answer = r.choices[0]?.message.content ?? '';
      const ok = answer === c.expected;
      if (ok) passed += 1;
      out.write(`${JSON.stringify({ id: c.id, answer, passed: ok, usage: r.usage ?? null })}\n`);
    }
  };
  await Promise.all(Array.from({ length: k }, lane));
  await new Promise<void>((resolve) => out.end(resolve));
  const ru = process.resourceUsage();
  process.stdout.write(`${JSON.stringify({ passed, cpu: (ru.userCPUTime + ru.systemCPUTime) / 1e6, maxRssMB: ru.maxRSS / 1024 })}\n`);
}

// ---------------------------------------------------------------------------------------------
// Running and timing child processes.

async function main(): Promise<void> {
  if (values.child === 'bare') return bareLoop();
  const ns = values.n.split(',').map(Number);
  const ks = values.inflight.split(',').map(Number);
  const latencies = values.latency.split(',').map(Number);
  const sides = values.sides.split(',');
  const reps = Number(values.reps);
  const compiled = values['no-compile'] ? compiledPath : await compileForBench();
  const evalog = EVALOG_JS;
  const bareScript = compiled(SELF);
  const work = await mkdtemp(join(values.dir, 'evalog-bench-overhead-'));
  let nats: { url: string; stop(): Promise<void> } | undefined;
  if (sides.includes('jetstream')) {
    const { startNatsServer } = await import('../test/support/nats-server.js');
    nats = await startNatsServer();
  }
  const nodeVersion = spawnSync(process.execPath, ['-v']).stdout.toString().trim();
  process.stdout.write(
    `# bench/overhead.ts  ${new Date().toISOString()}  nproc=${cpus().length}  node ${nodeVersion}  load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}  rusage via ${TIME ?? 'process.resourceUsage (bare only)'}\n`,
  );
  const rows: string[] = [];
  let runNo = 0;
  try {
    for (const latency of latencies) {
      const server = await startMockServer(evalog, latency);
      try {
        for (const n of ns) {
          const data = join(work, `cases-${n}.jsonl`);
          if (!existsSync(data)) writeCases(data, n);
          for (const k of ks) {
            const got = new Map<string, Measured[]>(sides.map((s) => [s, []]));
            for (let r = 0; r < reps; r += 1) {
              const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
              for (const side of order) {
                runNo += 1;
                const env = { ...process.env, EVALOG_API_KEY: 'bench', OPENAI_API_KEY: 'bench' };
                const prof =
                  values['cpu-prof'] && side !== 'bare'
                    ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof'], '--cpu-prof-name', `${side}-n${n}-k${k}-l${latency}-r${r}.cpuprofile`]
                    : [];
                let m: Measured & { stdout: string };
                if (side === 'bare') {
                  m = await measure(
                    process.execPath,
                    [bareScript, '--child', 'bare', '--data', data, '--out', join(work, `bare-${runNo}.jsonl`), '--base-url', server.url, '--k', String(k)],
                    env,
                    work,
                  );
                  const rep = JSON.parse(m.stdout.trim().split('\n').at(-1)!) as { passed: number; cpu: number; maxRssMB: number };
                  m.ok = rep.passed;
                  if (!TIME) Object.assign(m, { cpu: rep.cpu, maxRssMB: rep.maxRssMB });
                } else {
                  const outDir = join(work, `run-${side}-${runNo}`);
                  m = await measure(
                    process.execPath,
                    [
                      ...prof,
                      evalog,
                      'run',
                      'dataset',
                      '--data',
                      data,
                      '--out',
                      outDir,
                      '--concurrency',
                      String(k),
                      '--base-url',
                      server.url,
                      '--model',
                      'bench-model',
                      ...(side === 'jetstream' ? ['--nats', nats!.url] : []),
                    ],
                    env,
                    work,
                  );
                  const rowsText = readFileSync(join(outDir, 'rows.jsonl'), 'utf8');
                  m.ok = rowsText.split('\n').filter((l) => l.includes('"passed":true')).length;
                  await rm(outDir, { recursive: true, force: true });
                }
                if (m.ok !== n) throw new Error(`${side}: ${m.ok} of ${n} cases passed; the workload must pass every case`);
                got.get(side)!.push(m);
                process.stdout.write(
                  `  L=${latency}ms N=${n} K=${k} rep ${r + 1} ${side.padEnd(9)} ${m.wall.toFixed(2)} s wall  ${(n / m.wall).toFixed(0).padStart(6)} calls/s  ${m.cpu.toFixed(2)} s cpu  ${m.maxRssMB.toFixed(0)} MB  load ${loadavg()[0]!.toFixed(2)}\n`,
                );
              }
              await rm(join(work, `bare-${runNo}.jsonl`), { force: true });
            }
            const med = (s: string, f: (m: Measured) => number) => median(got.get(s)!.map(f));
            const baseRate = sides.includes('bare') ? med('bare', (m) => n / m.wall) : NaN;
            const baseRss = sides.includes('bare') ? med('bare', (m) => m.maxRssMB) : NaN;
            for (const s of sides) {
              const rate = med(s, (m) => n / m.wall);
              rows.push(
                `| ${latency} | ${n} | ${k} | ${s} | ${med(s, (m) => m.wall).toFixed(2)} | ${rate.toFixed(0)} | ${med(s, (m) => m.cpu).toFixed(2)} | ${med(s, (m) => m.maxRssMB).toFixed(0)} | ${s === 'bare' ? '—' : (rate / baseRate).toFixed(2)} | ${s === 'bare' ? '—' : (med(s, (m) => m.maxRssMB) / baseRss).toFixed(2)} |`,
              );
            }
          }
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await nats?.stop();
    await rm(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nmedians of ${reps}; load at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  process.stdout.write(
    '| latency ms | N | in flight | side | wall s | calls/s | CPU s | peak RSS MB | calls/s ÷ bare | RSS ÷ bare |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n',
  );
  process.stdout.write(`${rows.join('\n')}\n`);
}

await main();
