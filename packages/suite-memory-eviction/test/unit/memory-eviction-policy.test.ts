// The run-policy step (A7) on hand-built cases: pools follow A3.7–A3.10 (only metadata matters to
// the selector, so no dataset is needed). The 45 protocol cases are rebuilt from the published
// qa.rows.jsonl (ids, scenarios, question types), and the selector must reproduce all 90 published
// kept_fact_ids lists in order, plus the retention counts of A4.
import { expect } from 'chai';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import type { MemoryEvictionConfig } from '../../src/config.js';
import { evaluateCase, type PolicyRow, type PolicyRunConfig, runPolicy, selectorParamsFromConfig, summarizePolicyRows } from '../../src/policy-run.js';
import { DEFAULT_SELECTOR_PARAMS } from '../../src/selector.js';
import type { EvalCase, Fact, Scenario, UsageMap } from '../../src/types.js';

// Beside the project root, never copied in (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);
interface PublishedRow {
  case_id: string;
  source: 'longmemeval' | 'synthetic';
  scenario: Scenario;
  question_type: string;
  policy: string;
  kept_fact_ids: string[];
}
const readPublished = (): PublishedRow[] =>
  PUBLISHED.read('qa.rows.jsonl')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as PublishedRow);

const EVALUATION_TIME = '2026-08-13T00:00:00Z';
const EVAL = Date.parse(EVALUATION_TIME);
const daysAgo = (n: number) => new Date(EVAL - n * 86_400_000).toISOString().replace('.000Z', 'Z');

const CONFIG: PolicyRunConfig = {
  protocol_id: 'deermem-hybrid-v1-pr4789-reproduction-v1',
  evaluation_time: EVALUATION_TIME,
  pool: { capacities: [5, 7, 9] },
  policies: {
    hybrid_v1: {
      weights: { confidence: 0.65, confirmation: 0.25, access: 0.1 },
      confirmation_half_life_days: 90,
      access_half_life_days: 30,
      correction_reserved_fraction: 0.1,
      correction_reserved_max: 10,
    },
  },
};

/**
 * One case's pool per A3.9–A3.10. `sources[i]` names distractor i's source question (the id
 * suffix); the selector never reads it, nor the categories other than `correction`.
 */
function buildCase(
  caseId: string,
  source: 'longmemeval' | 'synthetic',
  scenario: Scenario,
  questionType: string,
  lossRank: number,
  sources: readonly string[],
): EvalCase {
  const outranking = lossRank - 1;
  const facts: Fact[] = [];
  const usage: UsageMap = {};
  const base = (id: string, confidence: number, category: string, qid: string): Fact => ({
    id,
    content: `content of ${id}`,
    category,
    confidence,
    createdAt: daysAgo(180),
    source: `deermem-eviction-eval:${qid}`,
  });
  const confirmed = (f: Fact): Fact => ({ ...f, lastConfirmedAt: daysAgo(7), confirmationCount: 1 });
  const heat = (f: Fact) => {
    usage[f.id] = { accessHeat: 8, accessCount: 8, lastAccessedAt: EVALUATION_TIME };
  };
  for (let i = 0; i < 9; i++) {
    let f = base(`d_${caseId}_${i}_${sources[i]}`, 0, 'context', sources[i]!);
    if (scenario === 'confirmation_help' || scenario === 'access_help') {
      f.confidence = i < outranking ? 0.94 - 0.02 * i : 0.68 - 0.02 * (i - outranking);
    } else if (scenario === 'confidence_control') {
      if (i < 5) f.confidence = 0.94 - 0.02 * i;
      else {
        f.confidence = 0.7;
        if (i % 2 === 1) f = confirmed(f);
        else heat(f);
      }
    } else if (scenario === 'noisy_signal_control') {
      f.confidence = 0.7;
      if (i < outranking) {
        if (i % 2 === 1) f = confirmed(f);
        else heat(f);
      }
    } else {
      f.confidence = i < outranking ? 0.9 - 0.03 * i : 0.6 - 0.02 * (i - outranking);
    }
    facts.push(f);
  }
  const goldId = `gold_${caseId}`;
  let gold: Fact;
  switch (scenario) {
    case 'confirmation_help':
      gold = confirmed(base(goldId, 0.7, 'context', caseId));
      break;
    case 'access_help':
      gold = base(goldId, 0.7, 'context', caseId);
      heat(gold);
      break;
    case 'confidence_control':
      gold = { ...base(goldId, 0.95, 'context', caseId), createdAt: daysAgo(30) };
      break;
    case 'noisy_signal_control':
      gold = base(goldId, 0.9, 'context', caseId);
      break;
    case 'correction_reserve':
      gold = base(goldId, 0.65, 'correction', caseId);
      break;
  }
  facts.push(gold);
  facts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    case_id: caseId,
    source,
    scenario,
    question_type: questionType,
    question: '?',
    answer: 'x',
    question_date: null,
    loss_rank: lossRank,
    facts,
    usage,
    support_fact_ids: [goldId],
  };
}

const LOSS_RANKS = [6, 6, 6, 8, 8, 8, 10, 10, 10, 10];
const SCENARIO_ORDER: Scenario[] = ['confirmation_help', 'access_help', 'confidence_control', 'noisy_signal_control'];
const SYNTHETIC = [
  ['peanut_allergy', 6],
  ['language', 8],
  ['timezone', 8],
  ['review_resolution', 10],
  ['shipping_address', 10],
] as const;

/** The 45 protocol cases (A3.7 order), with distractor source ids taken from the published kept lists where known. */
function protocolCases(published: PublishedRow[]): EvalCase[] {
  const byCase = new Map<string, PublishedRow[]>();
  for (const r of published) byCase.set(r.case_id, [...(byCase.get(r.case_id) ?? []), r]);
  const sourcesOf = (caseId: string): string[] => {
    const known = new Map<number, string>();
    for (const r of byCase.get(caseId)!) {
      for (const id of r.kept_fact_ids) {
        const m = new RegExp(`^d_${caseId}_(\\d)_(.+)$`).exec(id);
        if (m) known.set(Number(m[1]), m[2]!);
      }
    }
    return Array.from({ length: 9 }, (_, i) => known.get(i) ?? `unknown${i}`);
  };
  const cases: EvalCase[] = [];
  for (const scenario of SCENARIO_ORDER) {
    const ids = [...byCase.keys()].filter((id) => byCase.get(id)![0]!.scenario === scenario);
    const typed = ids
      .map((id) => ({ id, type: byCase.get(id)![0]!.question_type }))
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const [k, { id, type }] of typed.entries()) cases.push(buildCase(id, 'longmemeval', scenario, type, LOSS_RANKS[k]!, sourcesOf(id)));
  }
  for (const [name, rank] of SYNTHETIC) {
    const id = `correction_${name}`;
    cases.push(buildCase(id, 'synthetic', 'correction_reserve', 'synthetic-correction', rank, sourcesOf(id)));
  }
  return cases;
}

PUBLISHED.describe('memory-eviction policy run (A7)', () => {
  // Read while mocha collects the tests: this body runs only when the folder is there.
  const published = readPublished();
  const cases = protocolCases(published);
  const { rows, summary } = runPolicy(cases, CONFIG);

  it('rebuilds the 45 protocol cases: 40 official in 4 scenarios of 10, 5 synthetic, A3.7 loss ranks', () => {
    expect(cases).to.have.length(45);
    for (const s of SCENARIO_ORDER) {
      const inScenario = cases.filter((c) => c.scenario === s);
      expect(inScenario.map((c) => c.loss_rank)).to.deep.equal(LOSS_RANKS);
      expect(inScenario.slice(0, 5).every((c) => c.question_type === 'knowledge-update')).to.equal(true);
    }
    expect(cases.slice(40).map((c) => [c.case_id, c.loss_rank])).to.deep.equal(SYNTHETIC.map(([n, r]) => [`correction_${n}`, r]));
  });

  it('reproduces all 90 published kept_fact_ids lists at capacity 7, in order', () => {
    const mine = new Map(rows.filter((r) => r.capacity === 7).map((r) => [`${r.case_id}__${r.policy}`, r.kept_fact_ids]));
    expect(published).to.have.length(90);
    for (const p of published) expect(mine.get(`${p.case_id}__${p.policy}`), `${p.case_id} ${p.policy}`).to.deep.equal(p.kept_fact_ids);
  });

  it('emits case × capacity [5, 7, 9] × policy [confidence, hybrid-v1] rows in that loop order (270)', () => {
    expect(rows).to.have.length(270);
    expect(rows.slice(0, 6).map((r) => [r.case_id, r.capacity, r.policy])).to.deep.equal([
      [cases[0]!.case_id, 5, 'confidence'],
      [cases[0]!.case_id, 5, 'hybrid-v1'],
      [cases[0]!.case_id, 7, 'confidence'],
      [cases[0]!.case_id, 7, 'hybrid-v1'],
      [cases[0]!.case_id, 9, 'confidence'],
      [cases[0]!.case_id, 9, 'hybrid-v1'],
    ]);
    expect(rows.at(-1)!.case_id).to.equal('correction_shipping_address');
  });

  it('rows have exactly the A7 fields; scores are keyed by sorted fact id', () => {
    const row = rows.find((r) => r.case_id === 'correction_language' && r.policy === 'hybrid-v1' && r.capacity === 7)!; // loss rank 8
    expect(Object.keys(row).sort()).to.deep.equal([
      'capacity',
      'case_id',
      'evicted',
      'kept_fact_ids',
      'policy',
      'question_type',
      'reserved_correction_slots',
      'scenario',
      'schema_version',
      'scores',
      'source',
      'support_all_retained',
      'support_fact_ids',
      'support_recall',
    ]);
    expect(row.schema_version).to.equal(1);
    expect(row.reserved_correction_slots).to.equal(1);
    expect(Object.keys(row.scores)).to.deep.equal([...Object.keys(row.scores)].sort());
    expect(Object.keys(row.scores)).to.have.length(10);
    expect(row.evicted).to.have.length(3);
    expect(Object.keys(row.evicted[0]!).sort()).to.deep.equal(['category', 'components', 'fact_id', 'score']);
    expect(row.kept_fact_ids.at(-1)).to.equal(`gold_${row.case_id}`);
    expect(row.support_all_retained).to.equal(true);
    expect(row.support_recall).to.equal(1);
  });

  it('support retention of A4: confidence 20/27/35 of 45, hybrid 35/45/45 at capacities 5/7/9', () => {
    const retained = (policy: string, capacity: number) => rows.filter((r) => r.policy === policy && r.capacity === capacity && r.support_all_retained).length;
    expect([5, 7, 9].map((c) => retained('confidence', c))).to.deep.equal([20, 27, 35]);
    expect([5, 7, 9].map((c) => retained('hybrid-v1', c))).to.deep.equal([35, 45, 45]);
  });

  it('summary: per-scenario retention at 7 (conf 3/3/10/10/1 vs hybrid 10/10/10/10/5) and hybrid access_help 0/10 at 5', () => {
    const group = (scenario: string, capacity: number, policy: string) =>
      summary.groups.find((g) => g.scenario === scenario && g.capacity === capacity && g.policy === policy)!;
    const order = ['confirmation_help', 'access_help', 'confidence_control', 'noisy_signal_control', 'correction_reserve'];
    expect(order.map((s) => group(s, 7, 'confidence').support_all_retained)).to.deep.equal([3, 3, 10, 10, 1]);
    expect(order.map((s) => group(s, 7, 'hybrid-v1').support_all_retained)).to.deep.equal([10, 10, 10, 10, 5]);
    expect(group('access_help', 5, 'hybrid-v1')).to.deep.equal({
      source: 'longmemeval',
      scenario: 'access_help',
      capacity: 5,
      policy: 'hybrid-v1',
      cases: 10,
      support_all_retained: 0,
      support_all_retained_rate: 0,
      mean_support_recall: 0,
    });
    expect(group('correction_reserve', 7, 'confidence')).to.deep.equal({
      source: 'synthetic',
      scenario: 'correction_reserve',
      capacity: 7,
      policy: 'confidence',
      cases: 5,
      support_all_retained: 1,
      support_all_retained_rate: 0.2,
      mean_support_recall: 0.2,
    });
  });

  it('summary: schema, protocol id, 30 groups sorted by (source, scenario, capacity, policy)', () => {
    expect(summary.schema_version).to.equal(1);
    expect(summary.protocol_id).to.equal(CONFIG.protocol_id);
    expect(summary.groups).to.have.length(30);
    const keys = summary.groups.map((g) => [g.source, g.scenario, g.capacity, g.policy] as const);
    const sorted = [...keys].sort((a, b) =>
      a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] !== b[1] ? (a[1] < b[1] ? -1 : 1) : a[2] !== b[2] ? a[2] - b[2] : a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0,
    );
    expect(keys).to.deep.equal(sorted);
    expect(keys[0]).to.deep.equal(['longmemeval', 'access_help', 5, 'confidence']);
    expect(keys.at(-1)).to.deep.equal(['synthetic', 'correction_reserve', 9, 'hybrid-v1']);
    for (const g of summary.groups) expect(g.support_all_retained_rate).to.equal(g.support_all_retained / g.cases);
  });

  it('summarizes capacities numerically and averages recall per group', () => {
    const mk = (capacity: number, recall: number): PolicyRow => ({ ...rows[0]!, capacity, support_recall: recall, support_all_retained: recall === 1 });
    const s = summarizePolicyRows('p', [mk(10, 1), mk(9, 0.5), mk(9, 1)]);
    expect(s.groups.map((g) => [g.capacity, g.cases, g.mean_support_recall, g.support_all_retained])).to.deep.equal([
      [9, 2, 0.75, 1],
      [10, 1, 1, 1],
    ]);
  });

  it('config: the hybrid block maps onto the selector parameters; evaluation_time may be epoch ms', () => {
    const fromLoader = (c: MemoryEvictionConfig): PolicyRunConfig => c; // the A1 config type fits, checked by tsc
    void fromLoader;
    expect(selectorParamsFromConfig(CONFIG.policies.hybrid_v1)).to.deep.equal(DEFAULT_SELECTOR_PARAMS);
    const again = runPolicy(cases.slice(0, 2), { ...CONFIG, evaluation_time: EVAL });
    expect(again.rows).to.deep.equal(rows.slice(0, 12));
    expect(() => runPolicy(cases, { ...CONFIG, evaluation_time: 'tomorrow' })).to.throw(RangeError, /evaluation_time/);
  });

  it('is deterministic: a second run is identical', () => {
    expect(runPolicy(cases, CONFIG)).to.deep.equal({ rows, summary });
  });
});

// Hand-built, no published row needed.
describe('memory-eviction policy run (A7): one hand-built case', () => {
  it('support recall counts the retained share of several support facts', () => {
    const c = buildCase(
      'multi',
      'longmemeval',
      'confirmation_help',
      'knowledge-update',
      8,
      Array.from({ length: 9 }, (_, i) => `s${i}`),
    );
    const row = evaluateCase({ ...c, support_fact_ids: ['gold_multi', 'd_multi_8_s8'] }, 'confidence', 7, DEFAULT_SELECTOR_PARAMS, BigInt(EVAL) * 1000n);
    expect(row.support_all_retained).to.equal(false);
    expect(row.support_recall).to.equal(0);
    const hybrid = evaluateCase({ ...c, support_fact_ids: ['gold_multi', 'd_multi_8_s8'] }, 'hybrid-v1', 7, DEFAULT_SELECTOR_PARAMS, BigInt(EVAL) * 1000n);
    expect(hybrid.support_recall).to.equal(0.5);
    expect(() => evaluateCase({ ...c, support_fact_ids: [] }, 'confidence', 7, DEFAULT_SELECTOR_PARAMS, 0n)).to.throw(RangeError);
  });
});
