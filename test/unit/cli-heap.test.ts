// The CLI's heap settings, in a real Node process of its own (V8's flags are the whole process's).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { YOUNG_GENERATION_CAP } from '../../src/cli/heap.js';
import { tempDir } from '../support/cli.js';

/** With the cap set, allocates in chunks with survivors (a run's pattern), yielding between chunks; the young generation's size. */
function youngGenerationAfterWork(dir: string): number {
  const script = join(dir, 'young.mts');
  writeFileSync(
    script,
    `import { getHeapSpaceStatistics } from 'node:v8';
import { capYoungGeneration } from ${JSON.stringify(pathToFileURL(resolve('src/cli/heap.ts')).href)};
capYoungGeneration();
const kept: unknown[] = [];
for (let round = 0; round < 60; round += 1) {
  for (let i = 0; i < 100_000; i += 1) {
    const o = { a: i, b: 'x' + i, c: [i, i + 1, i + 2] };
    if (i % 50 === 0) kept.push(o);
  }
  // A timer's turn, after the GC observer's callbacks have run (as a run's event loop turns).
  await new Promise((r) => setTimeout(r, 1));
}
const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!;
console.log(JSON.stringify({ size: young.space_size, kept: kept.length }));
`,
  );
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the child failed: ${r.stderr}`);
  return (JSON.parse(r.stdout.trim()) as { size: number }).size;
}

describe('cli heap: the young generation is capped at Node 20’s size', function () {
  this.timeout(60_000);

  it(`stops growing at ${YOUNG_GENERATION_CAP / 2 ** 20} MiB (Node 24 grows it to 128 MiB and more without the cap; Node 20 never passes it)`, async () => {
    const tmp = await tempDir('evalog-heap-');
    try {
      const size = youngGenerationAfterWork(tmp.dir);
      expect(size, `new space ${size} bytes`).to.be.at.most(YOUNG_GENERATION_CAP);
      expect(size, 'the space still grew to the cap').to.be.at.least(YOUNG_GENERATION_CAP / 2);
    } finally {
      await tmp.cleanup();
    }
  });
});
