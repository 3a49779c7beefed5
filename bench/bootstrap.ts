// The paired bootstrap of a run summary (10 000 CPython-exact resamples of the pairs), timed alone
// at a few pair counts: a large run's summary draws pairs × 10 000 numbers (bench/README.md, rebuild).
// Run by hand: npx tsx bench/bootstrap.ts [--pairs 1000,5700,22500] [--reps 5]
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/core/prng.js';
import { PUBLISHED_BOOTSTRAP, pairedBootstrap, type Pair } from '../src/stats/index.js';

const { values } = parseArgs({ options: { pairs: { type: 'string', default: '1000,5700,22500' }, reps: { type: 'string', default: '5' } } });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

for (const n of values.pairs.split(',').map(Number)) {
  const rand = mulberry32(n);
  const pairs: Pair[] = Array.from({ length: n }, () => [rand() < 0.7, rand() < 0.8]);
  const ms: number[] = [];
  let result = '';
  for (let r = 0; r < Number(values.reps); r += 1) {
    const t0 = performance.now();
    const b = pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP);
    ms.push(performance.now() - t0);
    result = `[${b.lower}, ${b.upper}]`;
  }
  process.stdout.write(
    `${String(n).padStart(6)} pairs  median ${median(ms).toFixed(0).padStart(5)} ms  (${ms.map((m) => m.toFixed(0)).join(' ')})  interval ${result}\n`,
  );
}
