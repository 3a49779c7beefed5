// Memory of `evalog view` over a folder of large runs: one real dataset run of N jobs (scripted
// model over HTTP, through the CLI code in-process), copied to R run folders under their own run
// ids, then a viewer server in a child process (so its RSS is its own) that fetches the runs list
// and every run page through its HTTP API, once with --max-runs at its default and once with a cap
// above R (every run held: the viewer before the cap). Prints peak and final RSS of each child.
// Run by hand: npx tsx bench/view-memory.ts [--runs 20] [--jobs 3000] [--caps 8,1000] [--dir /tmp] [--old-space MB]
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { scriptedPlayers } from '../src/app/index.js';
import { runCli } from '../src/cli/main.js';
import type { EvalogEvent } from '../src/events/index.js';
import { FileEventLog } from '../src/log/index.js';
import { startScriptedModel } from '../src/providers/scripted/index.js';
import { DEFAULT_MAX_RUNS, startViewServer } from '../src/view/index.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    jobs: { type: 'string', default: '3000' },
    caps: { type: 'string', default: `${DEFAULT_MAX_RUNS},1000` },
    dir: { type: 'string', default: tmpdir() },
    // Runs each child with --max-old-space-size=MB: GC then works to keep RSS near what is held.
    'old-space': { type: 'string' },
    // Internal: serve and browse `root` in this (child) process with this cap.
    child: { type: 'string' },
    root: { type: 'string' },
  },
});
const SELF = fileURLToPath(import.meta.url);
const MB = (bytes: number) => bytes / 1048576;
const runIds = (n: number) => Array.from({ length: n }, (_, i) => `big-${String(i + 1).padStart(2, '0')}`);

/** The child: a server with the cap, every run page fetched in turn; RSS sampled after each. */
async function child(root: string, cap: number): Promise<void> {
  const ids = runIds(Number(values.runs));
  const log = await FileEventLog.open({ root });
  const server = await startViewServer({ log, discover: async () => ids, port: 0, maxRuns: cap });
  const t0 = performance.now();
  const get = async (p: string) => {
    const res = await fetch(`${server.url}api/${p}`);
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status}`);
    return (await res.json()) as { rows?: unknown[]; runs?: unknown[] };
  };
  const list = await get('runs');
  let rows = 0;
  for (const id of ids) rows += (await get(`runs/${id}`)).rows!.length;
  const seconds = (performance.now() - t0) / 1000;
  // Measured with the server still up: what it keeps holding once every run was viewed.
  global.gc?.();
  const held = server.memory().held.length;
  const final = process.memoryUsage();
  await server.close();
  await log.close();
  process.stdout.write(
    `${JSON.stringify({ cap, listed: list.runs!.length, rows, held, seconds, peakMB: process.resourceUsage().maxRSS / 1024, finalMB: MB(final.rss), heapMB: MB(final.heapUsed) })}\n`,
  );
}

function spawnChild(root: string, cap: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        '--expose-gc',
        ...(values['old-space'] ? [`--max-old-space-size=${values['old-space']}`] : []),
        '--import',
        'tsx',
        SELF,
        '--child',
        String(cap),
        '--root',
        root,
        '--runs',
        values.runs!,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    p.stdout.on('data', (c) => (out += String(c)));
    p.on('error', reject);
    // exit -1: killed by a signal (V8 aborts when it runs out of heap).
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>) : resolve({ exit: code ?? -1 })));
  });
}

/** One dataset run of `jobs` cases, then copies of it under the other run ids. */
async function makeRuns(root: string, jobs: number, runs: number): Promise<void> {
  const data = join(root, '..', 'data.jsonl');
  const lines = Array.from({ length: jobs }, (_, i) =>
    JSON.stringify({ id: `case-${i}`, input: `What is ${i} plus ${i}? Case ${i} of the bench.`, expected: String(2 * i) }),
  );
  await writeFile(data, `${lines.join('\n')}\n`);
  const [first, ...rest] = runIds(runs);
  const model = await startScriptedModel({ players: [...scriptedPlayers()] });
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  try {
    const env = { ...process.env, EVALOG_BASE_URL: model.url, EVALOG_MODEL: 'evalog-scripted', EVALOG_API_KEY: 'sk-bench' };
    const code = await runCli(['run', 'dataset', '--data', data, '--out', join(root, first!), '--concurrency', '32'], {
      stdout: sink,
      stderr: process.stderr,
      env,
      cwd: root,
    });
    if (code !== 0 && code !== 3) throw new Error(`the dataset run exited ${code}`);
  } finally {
    await model.close();
  }
  const log = await FileEventLog.open({ root });
  const events: EvalogEvent[] = [];
  for await (const { seq: _seq, ...e } of log.read(first!)) events.push(e as EvalogEvent);
  for (const id of rest) {
    // The folder's outputs and blobs are copied; its log is written anew under the copy's run id.
    await cp(join(root, first!), join(root, id), { recursive: true, filter: (src) => !src.startsWith(join(root, first!, 'log')) });
    await log.append(events.map((e) => ({ ...e, runId: id }) as EvalogEvent));
  }
  await log.close();
}

async function main(): Promise<void> {
  const runs = Number(values.runs);
  const jobs = Number(values.jobs);
  const caps = values.caps!.split(',').map(Number);
  const work = await mkdtemp(join(values.dir!, 'evalog-bench-view-'));
  const root = join(work, 'runs');
  try {
    process.stdout.write(
      `# bench/view-memory.ts  ${new Date().toISOString()}  nproc=${cpus().length}  node ${process.version}  load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    const t0 = performance.now();
    await makeRuns(root, jobs, runs);
    process.stdout.write(`${runs} runs of ${jobs} jobs written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    for (const cap of caps) {
      const r = await spawnChild(root, cap);
      // Out of heap (with --old-space): reported, not thrown, so the other cap is still measured.
      if (r.exit !== undefined) {
        process.stdout.write(
          `  --max-runs ${String(cap).padEnd(5)} the viewer died (exit ${r.exit}; its stderr above: out of heap with --max-old-space-size=${values['old-space']})\n`,
        );
        continue;
      }
      process.stdout.write(
        `  --max-runs ${String(cap).padEnd(5)} listed ${r.listed}  rows ${r.rows}  held at the end ${r.held}  ${r.seconds!.toFixed(1)} s  peak RSS ${r.peakMB!.toFixed(0)} MB  final RSS ${r.finalMB!.toFixed(0)} MB (heap used ${r.heapMB!.toFixed(0)} MB, after gc)  load ${loadavg()[0]!.toFixed(2)}\n`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (values.child !== undefined) await child(values.root!, Number(values.child));
else await main();
