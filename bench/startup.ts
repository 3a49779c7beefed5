// Start-up: whole processes that do (almost) nothing, side by side, to see what evalog costs before
// its first job. Sides, each a child process timed from spawn to exit (CPU and peak RSS from
// /usr/bin/time), against one `evalog mock-server` with 0 ms latency:
//   bare      the `openai` client loop of bench/overhead.ts on one case;
//   run       `evalog run dataset` on the same one case (embedded log, outputs written);
//   version   `evalog --version` (the CLI's own floor: no command is imported);
//   help      `evalog run --help` (the run command's modules imported, nothing run).
// Repetitions interleave the sides (order rotated); figures are medians, with run ÷ bare.
// Run by hand: npx tsx bench/startup.ts [--reps 9] [--no-compile]
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileForBench, compiledPath, EVALOG_JS } from './support/build.js';
import { type Measured, measure, median, startMockServer, writeCases } from './support/measure.js';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '9' },
    'no-compile': { type: 'boolean', default: false },
  },
});

const SIDES = ['bare', 'run', 'version', 'help'] as const;
type Side = (typeof SIDES)[number];

async function main(): Promise<void> {
  const reps = Number(values.reps);
  const compiled = values['no-compile'] ? compiledPath : await compileForBench();
  const bare = compiled(fileURLToPath(new URL('./overhead.ts', import.meta.url)));
  const work = await mkdtemp(join(tmpdir(), 'evalog-bench-startup-'));
  const data = join(work, 'one.jsonl');
  writeCases(data, 1);
  const server = await startMockServer(EVALOG_JS, 0);
  const env = { ...process.env, EVALOG_API_KEY: 'bench', OPENAI_API_KEY: 'bench' };
  const node = process.execPath;
  const argsOf = (side: Side, i: number): string[] => {
    switch (side) {
      case 'bare':
        return [bare, '--child', 'bare', '--data', data, '--out', join(work, `bare-${i}.jsonl`), '--base-url', server.url, '--k', '1'];
      case 'run':
        return [EVALOG_JS, 'run', 'dataset', '--data', data, '--out', join(work, `run-${i}`), '--base-url', server.url, '--model', 'bench-model'];
      case 'version':
        return [EVALOG_JS, '--version'];
      case 'help':
        return [EVALOG_JS, 'run', '--help'];
    }
  };
  process.stdout.write(
    `# bench/startup.ts  ${new Date().toISOString()}  nproc=${cpus().length}  node ${process.version}  load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  const got = new Map<Side, Measured[]>(SIDES.map((s) => [s, []]));
  try {
    for (let r = 0; r < reps; r++) {
      for (const side of SIDES.map((_, i) => SIDES[(i + r) % SIDES.length]!)) {
        const i = r * SIDES.length + SIDES.indexOf(side);
        const m = await measure(node, argsOf(side, i), env, work);
        if (side === 'run' && !readFileSync(join(work, `run-${i}`, 'rows.jsonl'), 'utf8').includes('"passed":true')) {
          throw new Error('run: the one case did not pass');
        }
        got.get(side)!.push(m);
        process.stdout.write(`  rep ${r + 1} ${side.padEnd(8)} ${m.wall.toFixed(3)} s wall  ${m.cpu.toFixed(2)} s cpu  ${m.maxRssMB.toFixed(0)} MB\n`);
      }
    }
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
  const med = (s: Side, f: (m: Measured) => number) => median(got.get(s)!.map(f));
  process.stdout.write(
    `\nmedians of ${reps}; load at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  process.stdout.write('| side | wall s | CPU s | peak RSS MB | wall ÷ bare | RSS ÷ bare |\n| --- | --- | --- | --- | --- | --- |\n');
  for (const s of SIDES) {
    const ratio = (f: (m: Measured) => number) => (s === 'bare' ? '—' : (med(s, f) / med('bare', f)).toFixed(2));
    process.stdout.write(
      `| ${s} | ${med(s, (m) => m.wall).toFixed(3)} | ${med(s, (m) => m.cpu).toFixed(2)} | ${med(s, (m) => m.maxRssMB).toFixed(0)} | ${ratio((m) => m.wall)} | ${ratio((m) => m.maxRssMB)} |\n`,
    );
  }
}

await main();
