// A run's summary.json compares its arms with the figures `evalog compare` prints for the same
// arms, for the suites whose rows have their own shape (context-snapshot's arms, context-engineering's
// cells): two runs of each on the scripted model, then `evalog compare --json` on the two folders.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runEvalogHere, tempDir } from '../support/cli.js';

type Block = Record<string, unknown> & { a: string; b: string };

describe("a run's summary `paired` is evalog compare's comparison of its arms (CLI in process)", function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir();
  });
  after(async () => {
    await tmp.cleanup();
  });

  for (const [suite, a, b] of [
    ['context-snapshot', 'isolated_handoff', 'snapshot'],
    ['context-engineering', 'baseline', 'candidate'],
  ] as const) {
    it(`${suite}: compare of two runs gives, for each run's own ${a} vs ${b}, its summary's block; the run prints its line`, async () => {
      const outs = [`${suite}-1`, `${suite}-2`];
      for (const out of outs) {
        const r = await runEvalogHere(['run', suite, '--out', `runs/${out}`], { cwd: tmp.dir });
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout).to.match(new RegExp(`^paired ${a} vs ${b}: \\d+ pairs, ${a} only \\d+, ${b} only \\d+, p[=<]`, 'm'));
      }
      const c = await runEvalogHere(['compare', ...outs.map((o) => `runs/${o}`), '--json'], { cwd: tmp.dir });
      expect(c.code, c.stderr).to.equal(0);
      const comparison = JSON.parse(c.stdout) as { comparisons: Block[] };
      expect(comparison.comparisons, 'four sides, every pair').to.have.length(6);
      for (const out of outs) {
        const summary = JSON.parse(await readFile(join(tmp.dir, 'runs', out, 'summary.json'), 'utf8')) as { paired: Block[] };
        expect(summary.paired).to.have.length(1);
        const own = comparison.comparisons.find((x) => x.a === `${out}:${a}` && x.b === `${out}:${b}`)!;
        expect(own, `${out}: its arms compared`).to.not.equal(undefined);
        expect({ ...own, a, b }).to.deep.equal(summary.paired[0]);
        expect(summary.paired[0]!.n, 'the arms pair on every case').to.be.greaterThan(0);
      }
    });
  }
});
