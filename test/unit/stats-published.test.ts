// Recomputes the published deer-flow qa.stats.json (pr4789-reproduction-v1) from its rows and
// compares every value with exact float equality. The fixtures live outside the repository.
import { expect } from 'chai';
import {
  PUBLISHED_BOOTSTRAP,
  bootstrapDifferences,
  exactMcNemar,
  pairOutcomes,
  pairedBootstrap,
  pairedSuiteStats,
  type ArmOutcome,
  type SuiteStats,
} from '../../src/stats/index.js';
import { DEERMEM_PR4789, publishedFolder } from '../support/published.js';

// Beside the project root, never copied in (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);

interface QaRow {
  case_id: string;
  policy: string;
  source: string;
  capacity: number;
  grade_correct: boolean;
}
interface QaStats {
  policies: [string, string];
  suites: Record<'official' | 'synthetic' | 'overall', SuiteStats>;
}

const SUITES = {
  official: (r: QaRow) => r.source === 'longmemeval',
  synthetic: (r: QaRow) => r.source === 'synthetic',
  overall: (_: QaRow) => true,
} as const;

PUBLISHED.describe('stats: published deermem-eviction pr4789-v1 recomputes bit for bit', () => {
  // Read while mocha collects the tests: this body runs only when the folder is there.
  const rows = PUBLISHED.read('qa.rows.jsonl')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as QaRow);
  const published = JSON.parse(PUBLISHED.read('qa.stats.json')) as QaStats;
  const outcomes = (filter: (r: QaRow) => boolean): ArmOutcome[] =>
    rows.filter((r) => r.capacity === 7 && filter(r)).map((r) => ({ caseId: r.case_id, arm: r.policy, correct: r.grade_correct }));

  it('the fixture is what the spec describes (90 rows, capacity 7, two policies)', () => {
    expect(rows).to.have.length(90);
    expect(new Set(rows.map((r) => r.capacity))).to.deep.equal(new Set([7]));
    expect(published.policies).to.deep.equal(['confidence', 'hybrid-v1']);
  });

  for (const [name, filter] of Object.entries(SUITES) as [keyof typeof SUITES, (r: QaRow) => boolean][]) {
    it(`${name}: cases, McNemar table and p-value, bootstrap difference and CI`, () => {
      const [first, second] = published.policies;
      const paired = pairOutcomes(outcomes(filter), first, second);
      const mine = pairedSuiteStats(paired, PUBLISHED_BOOTSTRAP);
      // deep.equal on numbers is strict (===) equality: no tolerance anywhere.
      expect(mine).to.deep.equal(published.suites[name]);
    });
  }

  it('the headline numbers of the fixture README, spelled out', () => {
    const stat = (name: keyof typeof SUITES) => {
      const { pairs } = pairOutcomes(outcomes(SUITES[name]), 'confidence', 'hybrid-v1');
      return { p: exactMcNemar(pairs).p_value, b: pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP) };
    };
    const official = stat('official');
    expect(official.p).to.equal(0.0018310546875);
    expect([official.b.mean_difference, official.b.lower, official.b.upper]).to.deep.equal([0.30000000000000004, 0.15000000000000002, 0.45000000000000007]);
    const synthetic = stat('synthetic');
    expect(synthetic.p).to.equal(0.125);
    expect([synthetic.b.mean_difference, synthetic.b.lower, synthetic.b.upper]).to.deep.equal([0.8, 0.4, 1.0]);
    const overall = stat('overall');
    expect(overall.p).to.equal(0.00014495849609375);
    expect([overall.b.mean_difference, overall.b.lower, overall.b.upper]).to.deep.equal([0.3555555555555555, 0.20000000000000007, 0.5111111111111111]);
  });

  it('pairs enter the bootstrap sorted by case id: row-file order is not assumed', () => {
    const shuffledInput = [...outcomes(SUITES.official)].reverse();
    const { caseIds } = pairOutcomes(shuffledInput, 'confidence', 'hybrid-v1');
    expect(caseIds).to.deep.equal([...caseIds].sort());
    expect(pairedBootstrap(pairOutcomes(shuffledInput, 'confidence', 'hybrid-v1').pairs, PUBLISHED_BOOTSTRAP)).to.deep.equal(
      published.suites.official.bootstrap,
    );
  });

  it('the order does matter: another pairing order gives other resampled differences', () => {
    // At this coarse grid (steps of 1/40) the reversed order happens to give the same interval,
    // so the draws themselves are compared.
    const { pairs } = pairOutcomes(outcomes(SUITES.official), 'confidence', 'hybrid-v1');
    const { seed, iterations } = PUBLISHED_BOOTSTRAP;
    const sorted = Array.from(bootstrapDifferences(pairs, seed, iterations));
    const reversed = Array.from(bootstrapDifferences([...pairs].reverse(), seed, iterations));
    expect(reversed).to.not.deep.equal(sorted);
  });
});
