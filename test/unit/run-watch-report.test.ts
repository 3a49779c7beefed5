// The watch loop's report: per arm the pass rate, and the verdicts that flipped against the previous
// run of the loop, from the paired comparison (hand-made sides, hand-counted figures).
import { expect } from 'chai';
import type { Side, SideJob } from '../../src/projections/compare/index.js';
import { FLIPS_SHOWN, reportLines, watchReport, type LoopRun } from '../../src/cli/watch-report.js';

const job = (case_id: string, passed: boolean | null, repetition = 1): SideJob => ({
  case_id,
  repetition,
  passed,
  tokens: { input: null, output: null, total: null },
  seconds: null,
});
const side = (arm: string, jobs: SideJob[]): Side => ({ name: arm, run_id: 'r', arm, jobs });
const run = (n: number, sides: Side[]): LoopRun => ({ n, dir: `runs/s-${n}`, sides });

describe('watch report (evalog run --watch)', () => {
  it('the first run of the loop shows its pass rate only', () => {
    const r = watchReport(null, run(1, [side('default', [job('a', true), job('b', false), job('c', null)])]), 3);
    expect(r.previous_run).to.equal(null);
    expect(r.arms[0]).to.include({ jobs: 3, graded: 2, passed: 1, rate: 0.5 });
    expect(reportLines(r)).to.deep.equal(['evalog watch: run 1 (runs/s-1), exit 3', '  1/2 passed (50.0%)']);
  });

  it('names the cases that flipped each way, sorted, and counts only graded pairs', () => {
    const before = run(1, [side('default', [job('d', true), job('a', false), job('b', true), job('c', true), job('e', false)])]);
    // a: fail → pass; b, d: pass → fail; c unchanged; e failed before, errored now (not a pair); f is new.
    const now = run(2, [side('default', [job('a', true), job('b', false), job('c', true), job('d', false), job('e', null), job('f', true)])]);
    const r = watchReport(before, now, 0);
    const arm = r.arms[0]!;
    expect(arm.flipped.now_failing).to.deep.equal([
      { case_id: 'b', repetition: 1 },
      { case_id: 'd', repetition: 1 },
    ]);
    expect(arm.flipped.now_passing).to.deep.equal([{ case_id: 'a', repetition: 1 }]);
    expect(arm).to.include({ graded: 5, passed: 3, paired: 4, unpaired: 1 });
    expect(arm.previous).to.deep.equal({ jobs: 5, graded: 5, passed: 3, rate: 0.6 });
    expect(reportLines(r)).to.deep.equal([
      'evalog watch: run 2 (runs/s-2), exit 0',
      '  3/5 passed (60.0%), was 3/5 passed (60.0%); 3 flipped against run 1, 1 graded now only',
      '    now failing  b',
      '    now failing  d',
      '    now passing  a',
    ]);
  });

  it('nothing flipped when every verdict held, although the rate is compared', () => {
    const jobs = [job('a', true), job('b', false)];
    const r = watchReport(run(4, [side('default', jobs)]), run(7, [side('default', jobs)]), 0);
    expect(reportLines(r)[1]).to.equal('  1/2 passed (50.0%), was 1/2 passed (50.0%); no verdict flipped against run 4');
    expect(r.previous_run).to.deep.equal({ run: 4, dir: 'runs/s-4' });
  });

  it('pairs arm with arm and repetition with repetition; an arm new in this run is said to be', () => {
    const before = run(1, [side('long', [job('a', true, 1), job('a', true, 2)]), side('short', [job('a', false)])]);
    const now = run(2, [side('long', [job('a', true, 1), job('a', false, 2)]), side('short', [job('a', true)]), side('tiny', [job('a', true)])]);
    const r = watchReport(before, now, 0);
    expect(reportLines(r)).to.deep.equal([
      'evalog watch: run 2 (runs/s-2), exit 0',
      '  arm long: 1/2 passed (50.0%), was 2/2 passed (100.0%); 1 flipped against run 1',
      '    now failing  a (repetition 2)',
      '  arm short: 1/1 passed (100.0%), was 0/1 passed (0.0%); 1 flipped against run 1',
      '    now passing  a',
      '  arm tiny: 1/1 passed (100.0%); not in run 1',
    ]);
  });

  it(`shows ${FLIPS_SHOWN} flips per direction, then how many more`, () => {
    const ids = Array.from({ length: FLIPS_SHOWN + 3 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const r = watchReport(
      run(1, [
        side(
          'default',
          ids.map((id) => job(id, true)),
        ),
      ]),
      run(2, [
        side(
          'default',
          ids.map((id) => job(id, false)),
        ),
      ]),
      0,
    );
    const lines = reportLines(r);
    expect(lines.filter((l) => l.startsWith('    now failing'))).to.have.length(FLIPS_SHOWN);
    expect(lines.at(-1)).to.equal('    … and 3 more');
    expect(lines[1]).to.include(`${FLIPS_SHOWN + 3} flipped`);
  });

  it('a run with no graded job shows no rate', () => {
    const r = watchReport(null, run(1, [side('default', [job('a', null)])]), 3);
    expect(reportLines(r)[1]).to.equal('  0/0 passed');
    expect(r.arms[0]!.rate).to.equal(null);
  });
});
