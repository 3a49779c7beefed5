import { expect } from 'chai';
import {
  checkProtocols,
  CompareInputError,
  compareRuns,
  compareSides,
  ProtocolMismatchError,
  protocolDifference,
  protocolOf,
  sidePairs,
  sidesOf,
  type Side,
  type SideJob,
} from '../../src/projections/compare/index.js';
import { mcnemarExactP, PUBLISHED_BOOTSTRAP } from '../../src/stats/index.js';

type RowSpec = { case_id: string; arm?: string; repetition?: number; status?: string; passed: boolean | null; tokens?: number | null; seconds?: number | null };
const row = (r: RowSpec): Record<string, unknown> => {
  const t = r.tokens === undefined ? 10 : r.tokens;
  return {
    job_id: `${r.case_id}:${r.arm ?? 'default'}:${r.repetition ?? 1}`,
    case_id: r.case_id,
    arm: r.arm ?? 'default',
    repetition: r.repetition ?? 1,
    status: r.status ?? 'succeeded',
    passed: r.passed,
    seconds: r.seconds === undefined ? 1 : r.seconds,
    usage: {
      total:
        t === null
          ? { input_tokens: 4, output_tokens: null, total_tokens: null, unknown_calls: 1, complete: false }
          : { input_tokens: t, output_tokens: 1, total_tokens: t + 1, unknown_calls: 0, complete: true },
    },
  };
};
const job = (case_id: string, passed: boolean | null, more: Partial<SideJob> = {}): SideJob => ({
  case_id,
  repetition: 1,
  passed,
  tokens: { input: 10, output: 1, total: 11 },
  seconds: 1,
  ...more,
});
const side = (name: string, jobs: SideJob[]): Side => ({ name, run_id: name, arm: 'default', jobs });
const opts = PUBLISHED_BOOTSTRAP;

describe('evalog compare: sides, pairing and protocol (pure)', () => {
  describe('sidesOf', () => {
    it('a run of one arm is one side named by the run; a run of several arms gives <run>:<arm> per arm, in argument order', () => {
      const sides = sidesOf([
        { runId: 'r2', rows: [row({ case_id: 'x', passed: true })] },
        { runId: 'r1', rows: [row({ case_id: 'x', arm: 'zeta', passed: true }), row({ case_id: 'x', arm: 'alpha', passed: false })] },
      ]);
      expect(sides.map((s) => [s.name, s.run_id, s.arm])).to.deep.equal([
        ['r2', 'r2', 'default'],
        ['r1:alpha', 'r1', 'alpha'],
        ['r1:zeta', 'r1', 'zeta'],
      ]);
    });

    it('--arm takes that arm of each run, and refuses a run without it, naming its arms', () => {
      const runs = [
        { runId: 'a', rows: [row({ case_id: 'x', arm: 'base', passed: true }), row({ case_id: 'x', arm: 'cand', passed: false })] },
        { runId: 'b', rows: [row({ case_id: 'x', arm: 'cand', passed: true })] },
      ];
      expect(sidesOf(runs, 'cand').map((s) => s.name)).to.deep.equal(['a:cand', 'b:cand']);
      expect(() => sidesOf(runs, 'base')).to.throw(CompareInputError, '--arm base: run b has no such arm (its arms: cand)');
    });

    it('a failed job is not graded (its passed:false is no verdict); a run named twice and rows without a case are refused', () => {
      const [s] = sidesOf([{ runId: 'a', rows: [row({ case_id: 'x', status: 'failed', passed: false }), row({ case_id: 'y', passed: false })] }]);
      expect(s!.jobs.map((j) => j.passed)).to.deep.equal([null, false]);
      expect(() =>
        sidesOf([
          { runId: 'a', rows: [row({ case_id: 'x', passed: true })] },
          { runId: 'a', rows: [] },
        ]),
      ).to.throw(CompareInputError, 'named twice');
      expect(() => sidesOf([{ runId: 'a', rows: [{ job_id: 'j', passed: true }] }])).to.throw(CompareInputError, "run a's rows have no case_id");
    });

    it('usage is known only when every call reported it: a partial sum is unknown, not a smaller number', () => {
      const [s] = sidesOf([{ runId: 'a', rows: [row({ case_id: 'x', passed: true, tokens: null }), row({ case_id: 'y', passed: true, tokens: 7 })] }]);
      expect(s!.jobs.map((j) => j.tokens.input)).to.deep.equal([null, 7]);
    });
  });

  describe('compareSides', () => {
    it('counts pairs, discordants and the exact McNemar p as the binomial sum gives; unpaired jobs are counted, by why', () => {
      const a = side('a', [
        job('c1', true),
        job('c2', true),
        job('c3', true),
        job('c4', false),
        job('c5', false),
        job('c6', true),
        job('c7', null),
        job('c8', true),
      ]);
      const b = side('b', [
        job('c1', true),
        job('c2', false),
        job('c3', false),
        job('c4', true),
        job('c5', false),
        job('c6', false),
        job('c7', true),
        job('c9', true),
      ]);
      const x = compareSides(a, b, opts);
      expect({ n: x.n, both: x.both, neither: x.neither, a_only: x.a_only, b_only: x.b_only, passed_a: x.passed_a, passed_b: x.passed_b }).to.deep.equal({
        n: 6,
        both: 1,
        neither: 1,
        a_only: 3,
        b_only: 1,
        passed_a: 4,
        passed_b: 2,
      });
      // Two-sided exact: 2·Σ_{k≤1} C(4,k)/2^4 = 2·5/16.
      expect(x.mcnemar_p).to.equal(10 / 16);
      expect(x.mcnemar_p).to.equal(mcnemarExactP(3, 1));
      expect(x.unpaired).to.deep.equal({ total: 3, missing_a: 1, missing_b: 1, ungraded_a: 1, ungraded_b: 0 });
      expect(x.flipped).to.deep.equal({
        a_only: [
          { case_id: 'c2', repetition: 1 },
          { case_id: 'c3', repetition: 1 },
          { case_id: 'c6', repetition: 1 },
        ],
        b_only: [{ case_id: 'c4', repetition: 1 }],
      });
      expect(x.rate_a).to.equal(4 / 6);
      expect(x.bootstrap!.difference).to.equal(2 / 6 - 4 / 6);
      expect(x.bootstrap!.lower).to.be.at.most(x.bootstrap!.difference);
      expect(x.bootstrap!.upper).to.be.at.least(x.bootstrap!.difference);
    });

    it('pairs by case and repetition, flips sorted by case then repetition; the bootstrap does not depend on the rows order, and follows the seed', () => {
      const jobsA = [job('b', true, { repetition: 2 }), job('b', true, { repetition: 10 }), job('a', false), job('b', true)];
      const jobsB = [job('b', false, { repetition: 10 }), job('b', false, { repetition: 2 }), job('a', true), job('b', true)];
      const x = compareSides(side('a', jobsA), side('b', jobsB), opts);
      expect(x.flipped.a_only).to.deep.equal([
        { case_id: 'b', repetition: 2 },
        { case_id: 'b', repetition: 10 },
      ]);
      expect(x.flipped.b_only).to.deep.equal([{ case_id: 'a', repetition: 1 }]);
      const y = compareSides(side('a', [...jobsA].reverse()), side('b', [...jobsB].reverse()), opts);
      expect(y).to.deep.equal(x);
      const other = compareSides(side('a', jobsA), side('b', jobsB), { ...opts, seed: 1 });
      expect(other.bootstrap!.seed).to.equal(1);
      expect(x.bootstrap!.seed).to.equal(4789);
      expect(x.bootstrap!.iterations).to.equal(10000);
    });

    it('token and time deltas are means over the pairs known on both sides, with the unknown ones counted beside, never as 0', () => {
      const a = side('a', [
        job('x', true, { tokens: { input: 10, output: 2, total: 12 }, seconds: 2 }),
        job('y', true, { tokens: { input: null, output: null, total: null }, seconds: null }),
      ]);
      const b = side('b', [
        job('x', true, { tokens: { input: 30, output: 4, total: 34 }, seconds: 1 }),
        job('y', true, { tokens: { input: 5, output: 1, total: 6 }, seconds: 3 }),
      ]);
      const x = compareSides(a, b, opts);
      expect(x.tokens.input).to.deep.equal({ known: 1, unknown: 1, mean_a: 10, mean_b: 30, mean_difference: 20 });
      expect(x.seconds).to.deep.equal({ known: 1, unknown: 1, mean_a: 2, mean_b: 1, mean_difference: -1 });
    });

    it('without a pair every statistic is null and the jobs are all unpaired', () => {
      const x = compareSides(side('a', [job('x', true)]), side('b', [job('y', false), job('x', null)]), opts);
      expect([x.n, x.mcnemar_p, x.bootstrap, x.rate_a]).to.deep.equal([0, null, null, null]);
      expect(x.unpaired).to.deep.equal({ total: 2, missing_a: 1, missing_b: 0, ungraded_a: 0, ungraded_b: 1 });
      expect(x.tokens.total.mean_difference).to.equal(null);
    });
  });

  it('sidePairs: every pair up to six sides, else each against the first', () => {
    expect(sidePairs(3)).to.deep.equal([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(sidePairs(6)).to.have.length(15);
    expect(sidePairs(7)).to.deep.equal([1, 2, 3, 4, 5, 6].map((j) => [0, j]));
  });

  describe('protocol', () => {
    const dataset = (sha: string, grader = 'exact') => ({
      suite: 'dataset',
      config: { data: { path: '/x/qa.jsonl', sha256: sha }, grader, prompts: '{{input}}' },
      provenance: { manifests: { 'smoke/cases.v1.json': 's1', 'memory-eviction/config.v1.json': 'm1' } },
    });
    it("a dataset's protocol is its case file's sha256 and its grader; other suites' manifests and the prompt are not part of it", () => {
      expect(protocolOf(dataset('aa'))).to.deep.equal([
        ['config.data.sha256', 'aa'],
        ['config.grader', 'exact'],
      ]);
      expect(protocolDifference(dataset('aa'), { ...dataset('aa'), config: { ...dataset('aa').config, prompts: 'Q: {{input}}' } })).to.equal(null);
      expect(protocolDifference(dataset('aa'), dataset('bb'))).to.equal('protocol config.data.sha256 aa vs bb');
      expect(protocolDifference(dataset('aa'), dataset('aa', 'contains'))).to.equal('protocol config.grader exact vs contains');
    });

    it("a suite's own bundled manifests, a protocol folder's files and the protocol id are part of it", () => {
      const smoke = (h: string) => ({ suite: 'smoke', config: {}, provenance: { manifests: { 'smoke/cases.v1.json': h, 'dataset/x': 'same' } } });
      expect(protocolDifference(smoke('s1'), smoke('s2'))).to.equal('protocol manifests.smoke/cases.v1.json s1 vs s2');
      const cs = (h: string, id = 'p-1') => ({
        suite: 'context-snapshot',
        config: { protocol: id, protocolFiles: [{ file: 'config.json', sha256: h, pinned: 'pin' }] },
        provenance: {},
      });
      expect(protocolDifference(cs('h1'), cs('h2'))).to.equal('protocol config.protocolFiles[0].sha256 h1 vs h2');
      expect(protocolDifference(cs('h1'), cs('h1', 'p-2'))).to.equal('protocol config.protocol p-1 vs p-2');
    });

    it('different suites are refused naming both, unless forced (then listed)', () => {
      const runs = [
        { runId: 'a', run: dataset('aa') },
        { runId: 's', run: { suite: 'smoke', config: {}, provenance: {} } },
      ];
      expect(() => checkProtocols(runs, false)).to.throw(
        ProtocolMismatchError,
        'evalog compare: runs a and s differ: suite dataset vs smoke (--force compares them anyway)',
      );
      expect(checkProtocols(runs, true)).to.deep.equal(['runs a and s differ: suite dataset vs smoke']);
    });
  });

  it('compareRuns: the sides with their suite, model and counts, and a comparison per pair of sides', () => {
    const run = {
      suite: 'dataset',
      config: { data: { sha256: 'aa' }, grader: 'exact' },
      provenance: {},
      model: { name: 'm', scripted: false, apiKeyEnv: null, baseUrlEnv: null },
    };
    const c = compareRuns(
      [
        { runId: 'a', rows: [row({ case_id: 'x', passed: true }), row({ case_id: 'y', passed: false, status: 'failed' })], run },
        { runId: 'b', rows: [row({ case_id: 'x', passed: false }), row({ case_id: 'y', passed: true })], run },
      ],
      { force: false, bootstrap: opts },
    );
    expect(c.sides).to.deep.equal([
      { name: 'a', run_id: 'a', arm: 'default', suite: 'dataset', model: 'm', jobs: 2, graded: 1, passed: 1 },
      { name: 'b', run_id: 'b', arm: 'default', suite: 'dataset', model: 'm', jobs: 2, graded: 2, passed: 1 },
    ]);
    expect(c.comparisons.map((x) => [x.a, x.b, x.n, x.a_only, x.b_only])).to.deep.equal([['a', 'b', 1, 1, 0]]);
    expect(c.differences).to.deep.equal([]);
  });
});
