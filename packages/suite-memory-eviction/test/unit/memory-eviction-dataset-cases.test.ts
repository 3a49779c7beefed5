import { expect } from 'chai';
import { makeTestSetup, PUBLISHED_BANK_IDS, SPECIAL_ANSWERS } from '../../../../test/support/longmemeval.js';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import { buildCases, caseOffset } from '../../src/cases.js';
import { type LongMemEvalDataset, loadDataset } from '../../src/dataset.js';
import { DatasetError } from '../../src/errors.js';
import { renderEvidence } from '../../src/evidence.js';
import { loadProtocol, type Protocol } from '../../src/protocol.js';
import type { EvalCase, Fact } from '../../src/types.js';

// The published fixtures beside the project root (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);
const T180 = '2026-02-14T00:00:00Z';
const T30 = '2026-07-14T00:00:00Z';
const T7 = '2026-08-06T00:00:00Z';
const NOW = '2026-08-13T00:00:00Z';
const HOT = { accessHeat: 8, accessCount: 8, lastAccessedAt: NOW };

describe('memory-eviction cases: buildCases on the synthetic dataset (A3.7–A3.10)', () => {
  let setup: ReturnType<typeof makeTestSetup>;
  let protocol: Protocol;
  let dataset: LongMemEvalDataset;
  let cases: EvalCase[];
  const byId = (id: string) => cases.find((c) => c.case_id === id)!;
  const typeOf = (qid: string) => dataset.byId.get(qid)!.question_type;
  const categoryOf = (qid: string) => (typeOf(qid) === 'single-session-preference' ? 'preference' : 'context');
  /** Distractor i of a case: its fact, by the bank draw. */
  const distractor = (c: EvalCase, i: number): Fact => c.facts.find((f) => f.id.startsWith(`d_${c.case_id}_${i}_`))!;
  const drawnQid = (c: EvalCase, i: number) => PUBLISHED_BANK_IDS[(caseOffset('deermem-medium-v1', c.case_id, 40) + i) % 40]!;

  before(() => {
    setup = makeTestSetup();
    protocol = loadProtocol(undefined, { configPath: setup.config.path });
    dataset = loadDataset(setup.dataset.path, protocol.config.dataset.sha256);
    cases = buildCases(protocol, dataset);
  });
  after(() => setup.cleanup());

  it('builds 45 cases: scenarios in order, each KU then TR sorted, then the synthetic cases in manifest order', () => {
    expect(cases).to.have.length(45);
    const expectedIds = [...protocol.official.scenario_order.flatMap((s) => protocol.official.scenarios[s]), ...protocol.synthetic.cases.map((c) => c.case_id)];
    expect(cases.map((c) => c.case_id)).to.deep.equal(expectedIds);
    expect(cases.map((c) => c.scenario)).to.deep.equal([
      ...protocol.official.scenario_order.flatMap((s) => Array(10).fill(s)),
      ...Array(5).fill('correction_reserve'),
    ]);
    for (let s = 0; s < 4; s++) {
      const block = cases.slice(10 * s, 10 * s + 10);
      expect(block.map((c) => c.question_type)).to.deep.equal([...Array(5).fill('knowledge-update'), ...Array(5).fill('temporal-reasoning')]);
      expect(block.map((c) => c.loss_rank)).to.deep.equal([6, 6, 6, 8, 8, 8, 10, 10, 10, 10]);
      expect(block.every((c) => c.source === 'longmemeval')).to.equal(true);
    }
    expect(cases.slice(40).map((c) => [c.case_id, c.loss_rank, c.question_type, c.source])).to.deep.equal([
      ['correction_peanut_allergy', 6, 'synthetic-correction', 'synthetic'],
      ['correction_language', 8, 'synthetic-correction', 'synthetic'],
      ['correction_timezone', 8, 'synthetic-correction', 'synthetic'],
      ['correction_review_resolution', 10, 'synthetic-correction', 'synthetic'],
      ['correction_shipping_address', 10, 'synthetic-correction', 'synthetic'],
    ]);
  });

  it('gives every case 10 facts sorted by id: d_{case}_{i}_{bank[(offset+i) mod 40]} for i = 0..8, then gold_{case}', () => {
    for (const c of cases) {
      const ids = c.facts.map((f) => f.id);
      expect(ids, c.case_id).to.deep.equal([...Array.from({ length: 9 }, (_, i) => `d_${c.case_id}_${i}_${drawnQid(c, i)}`), `gold_${c.case_id}`]);
      expect(ids).to.deep.equal([...ids].sort());
      expect(c.support_fact_ids).to.deep.equal([`gold_${c.case_id}`]);
      expect(new Set(c.facts.map((f) => f.source)).size).to.equal(10);
      for (const f of c.facts) expect(Object.keys(c.usage).includes(f.id)).to.equal(f.id in c.usage);
    }
    // A10: 01493427 has offset 4, so its first distractor is bank[4].
    expect(byId('01493427').facts[0]!.id).to.equal('d_01493427_0_09d032c9');
    expect(byId('correction_peanut_allergy').facts[0]!.id).to.equal(`d_correction_peanut_allergy_0_${PUBLISHED_BANK_IDS[5]}`);
  });

  it('fills question, stringified answer, date and support content from the dataset row', () => {
    const c = byId('07741c44');
    const row = dataset.byId.get('07741c44')!;
    expect(c.question).to.equal(row.question);
    expect(c.question_date).to.equal('2023/05/20 (Sat) 02:21');
    expect(c.facts.find((f) => f.id === 'gold_07741c44')!.content).to.equal(renderEvidence(row));
    for (const [id, answer] of Object.entries(SPECIAL_ANSWERS)) expect(byId(id).answer, id).to.equal(answer);
    const d0 = distractor(c, 0);
    expect(d0.content).to.equal(renderEvidence(dataset.byId.get(drawnQid(c, 0))!));
    expect(d0.source).to.equal(`deermem-eviction-eval:${drawnQid(c, 0)}`);
  });

  it('builds synthetic cases from the manifest: support_fact as content, no date, answer NO', () => {
    const spec = protocol.synthetic.cases[2]!;
    const c = byId(spec.case_id);
    expect(c).to.deep.include({ question: spec.question, answer: 'NO', question_date: null, scenario: 'correction_reserve' });
    expect(c.facts.at(-1)).to.deep.equal({
      id: `gold_${spec.case_id}`,
      content: spec.support_fact,
      category: 'correction',
      confidence: 0.65,
      createdAt: T180,
      source: `deermem-eviction-eval:${spec.case_id}`,
    });
  });

  it('confirmation_help (01493427, loss 6): support 0.70 confirmed 7d; distractors 0.94−0.02i outranking, then 0.68−0.02(i−5)', () => {
    const c = byId('01493427');
    expect(c.facts.at(-1)).to.deep.include({ category: 'context', confidence: 0.7, createdAt: T180, lastConfirmedAt: T7, confirmationCount: 1 });
    expect(c.facts.slice(0, 9).map((f) => f.confidence)).to.deep.equal([
      0.94, 0.9199999999999999, 0.8999999999999999, 0.8799999999999999, 0.86, 0.68, 0.66, 0.64, 0.6200000000000001,
    ]); // CPython values
    for (let i = 0; i < 9; i++) {
      const f = distractor(c, i);
      expect(f).to.deep.equal({
        id: f.id,
        content: f.content,
        category: categoryOf(drawnQid(c, i)),
        confidence: f.confidence,
        createdAt: T180,
        source: f.source,
      });
    }
    expect(c.usage).to.deep.equal({});
  });

  it('access_help (10e09553, loss 8): support 0.70 with heat 8; distractors as confirmation_help', () => {
    const c = byId('10e09553');
    expect(c.loss_rank).to.equal(8);
    const gold = c.facts.at(-1)!;
    expect(gold).to.deep.include({ confidence: 0.7, createdAt: T180, category: 'context' });
    expect(gold).not.to.have.property('lastConfirmedAt');
    expect(c.usage).to.deep.equal({ [gold.id]: HOT });
    expect([0, 6, 7, 8].map((i) => distractor(c, i).confidence)).to.deep.equal([0.94, 0.82, 0.68, 0.66]);
  });

  it('confidence_control (1cea1afa, loss 6): support 0.95 at 30d; distractors 0.94−0.02i below 5, then 0.70 with odd confirmed and even hot', () => {
    const c = byId('1cea1afa');
    const gold = c.facts.at(-1)!;
    expect(gold).to.deep.equal({
      id: 'gold_1cea1afa',
      content: gold.content,
      category: 'context',
      confidence: 0.95,
      createdAt: T30,
      source: 'deermem-eviction-eval:1cea1afa',
    });
    expect([0, 1, 2, 3, 4].map((i) => distractor(c, i).confidence)).to.deep.equal([0.94, 0.9199999999999999, 0.8999999999999999, 0.8799999999999999, 0.86]);
    for (let i = 5; i < 9; i++) {
      const f = distractor(c, i);
      expect(f.confidence).to.equal(0.7);
      expect(f.createdAt).to.equal(T180);
      if (i % 2 === 1) expect(f).to.deep.include({ lastConfirmedAt: T7, confirmationCount: 1 });
      else expect(f).not.to.have.property('lastConfirmedAt');
    }
    expect(Object.keys(c.usage).sort()).to.deep.equal([distractor(c, 6).id, distractor(c, 8).id]);
    expect(c.usage[distractor(c, 6).id]).to.deep.equal(HOT);
  });

  it('noisy_signal_control (a3045048, loss 10): support 0.90; distractors 0.70, the 9 outranking ones alternate confirmed/hot', () => {
    const c = byId('a3045048');
    expect(c.loss_rank).to.equal(10);
    expect(c.facts.at(-1)).to.deep.include({ confidence: 0.9, createdAt: T180, category: 'context' });
    expect(c.facts.slice(0, 9).every((f) => f.confidence === 0.7)).to.equal(true);
    expect([1, 3, 5, 7].every((i) => distractor(c, i).lastConfirmedAt === T7)).to.equal(true);
    expect(Object.keys(c.usage).sort()).to.deep.equal([0, 2, 4, 6, 8].map((i) => distractor(c, i).id).sort());
    // loss 6: only i < 5 carry signals.
    const low = byId('26bdc477');
    expect(low.loss_rank).to.equal(6);
    expect(Object.keys(low.usage).sort()).to.deep.equal([0, 2, 4].map((i) => distractor(low, i).id).sort());
    expect(
      low.facts
        .filter((f) => f.lastConfirmedAt !== undefined)
        .map((f) => f.id)
        .sort(),
    ).to.deep.equal([1, 3].map((i) => distractor(low, i).id).sort());
  });

  it('correction_reserve (correction_language, loss 8): support 0.65 correction; distractors 0.90−0.03i, then 0.60−0.02(i−7)', () => {
    const c = byId('correction_language');
    expect(c.facts.at(-1)).to.deep.include({ category: 'correction', confidence: 0.65, createdAt: T180 });
    // CPython: [0.9 - 0.03 * i if i < 7 else 0.6 - 0.02 * (i - 7) for i in range(9)]
    expect(c.facts.slice(0, 9).map((f) => f.confidence)).to.deep.equal([0.9, 0.87, 0.8400000000000001, 0.81, 0.78, 0.75, 0.72, 0.6, 0.58]);
    expect(c.usage).to.deep.equal({});
  });

  it('is deterministic: building twice gives the same cases', () => {
    expect(buildCases(protocol, dataset)).to.deep.equal(cases);
  });

  it('refuses a dataset whose hash is not the one the config pins', () => {
    const other = loadProtocol();
    let err: unknown;
    try {
      buildCases(other, dataset);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(DatasetError);
    expect((err as Error).message)
      .to.include(dataset.sha256)
      .and.include(other.config.dataset.sha256);
  });

  PUBLISHED.describe('against the published rows', () => {
    type PublishedRow = { case_id: string; policy: string; kept_fact_ids: string[] };
    // Read while mocha collects the tests: this body runs only when the folder is there.
    const rows = PUBLISHED.read('qa.rows.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as PublishedRow);

    it('holds every published kept fact id in the case’s pool', () => {
      expect(rows).to.have.length(90);
      for (const r of rows) {
        const ids = byId(r.case_id).facts.map((f) => f.id);
        for (const id of r.kept_fact_ids) expect(ids, r.case_id).to.include(id);
      }
    });

    // An independent A4 scorer, here only to check that the A3.10 metadata (confidences, ages,
    // confirmations, heat) reproduces the published kept lists; the suite's selector lives elsewhere.
    it('reproduces all 90 published kept lists, in order, under a reference A4 scorer at capacity 7', () => {
      const now = Date.parse(NOW);
      const decay = (iso: string, h: number) => 2 ** (-Math.max(0, (now - Date.parse(iso)) / 86_400_000) / h);
      const select = (c: EvalCase, policy: string, max: number) => {
        const scored = c.facts.map((f, i) => {
          if (policy === 'confidence') return { f, i, s: f.confidence };
          const fresh = f.lastConfirmedAt ? decay(f.lastConfirmedAt, 90) : 0.5 * decay(f.createdAt, 90);
          const u = c.usage[f.id];
          const heat = u ? Math.min(1, Math.log(1 + u.accessHeat * decay(u.lastAccessedAt, 30)) / Math.log(9)) : 0;
          return { f, i, s: 0.65 * f.confidence + 0.25 * fresh + 0.1 * heat };
        });
        const ranked = [...scored].sort((a, b) => b.s - a.s || a.i - b.i);
        const chosen = new Set<string>();
        if (policy !== 'confidence') {
          const corrections = ranked.filter((r) => r.f.category.trim().toLowerCase() === 'correction');
          for (const r of corrections.slice(0, Math.min(10, Math.ceil(max * 0.1), max))) chosen.add(r.f.id);
        }
        for (const r of ranked) if (chosen.size < max) chosen.add(r.f.id);
        return ranked.filter((r) => chosen.has(r.f.id)).map((r) => r.f.id);
      };
      for (const r of rows) expect(select(byId(r.case_id), r.policy, 7), `${r.case_id}__${r.policy}`).to.deep.equal(r.kept_fact_ids);
    });
  });
});
