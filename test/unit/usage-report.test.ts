import { expect } from 'chai';
import {
  aggregateUsage,
  callUsage,
  InvalidCallRecordError,
  normalizeRecord,
  USAGE_FIELDS,
  type UsageReport,
  type UsageTotals,
} from '../../src/projections/usage/index.js';

// The record-level test vectors of the context-engineering spec (DSH eval tests @5ee6e9b1), table-driven.
interface Vector {
  name: string;
  records: unknown[];
  check(report: UsageReport): void;
}

const VECTORS: Vector[] = [
  {
    name: 'main 100/20 cacheRead 75, query failure 40/3, child aborted without usage, junk attribution/outcome',
    records: [
      { callId: 'main-1', attribution: 'main', outcome: 'success', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 75 } },
      { callId: 'query-1', attribution: 'query', outcome: 'failure', usage: { inputTokens: 40, outputTokens: 3 } },
      { callId: 'child-1', attribution: 'child', outcome: 'aborted' },
      { callId: 'unknown-1', attribution: 'not-real', outcome: 'not-real' },
    ],
    check(r) {
      expect(r.calls).to.equal(4);
      expect(r.failed.calls).to.equal(2);
      expect(r.failed.usage.fields.inputTokens).to.deep.equal({ sum: 40, knownCalls: 1, unknownCalls: 1 });
      expect(r.usage.fields.cacheReadTokens).to.deep.equal({ sum: 75, knownCalls: 1, unknownCalls: 3 });
      expect(r.usage.fields.cacheWriteTokens.sum).to.equal(null);
      expect(r.byAttribution.query.outcomes.failure).to.equal(1);
      expect(r.byAttribution.unknown.calls).to.equal(1);
      expect(r.byAttribution.unknown.outcomes.unknown).to.equal(1);
      expect(r.billing).to.deep.equal({ status: 'unknown' });
    },
  },
  {
    name: 'an identical duplicate plus a conflicting one on one callId',
    records: [
      { callId: 'retry-1', attribution: 'query', outcome: 'failure', usage: { inputTokens: 9, outputTokens: 1 } },
      { callId: 'retry-1', attribution: 'query', outcome: 'failure', usage: { outputTokens: 1, inputTokens: 9 } },
      { callId: 'retry-1', attribution: 'query', outcome: 'success', usage: { inputTokens: 10, outputTokens: 2 } },
    ],
    check(r) {
      expect(r.calls).to.equal(1);
      expect(r.outcomes.unknown).to.equal(1);
      expect(r.usage.callsWithoutUsage).to.equal(1);
      expect(r.byAttribution.query.calls, 'agreed attribution is kept').to.equal(1);
      expect(r.diagnostics.conflictingCallIds).to.deep.equal(['retry-1']);
    },
  },
];

describe('usage report: spec test vectors', () => {
  for (const v of VECTORS) {
    it(v.name, () => {
      v.check(aggregateUsage(v.records));
      v.check(aggregateUsage([...v.records].reverse()));
    });
  }
});

describe('usage report: record normalisation', () => {
  it('needs a non-empty string callId', () => {
    for (const bad of [{}, { callId: '' }, { callId: 7 }, null, 'x', []]) {
      expect(() => normalizeRecord(bad), JSON.stringify(bad)).to.throw(InvalidCallRecordError, /non-empty callId/);
    }
  });

  it('maps attribution and outcome outside their sets to unknown; keeps provider and model only as strings', () => {
    expect(normalizeRecord({ callId: 'a', attribution: 'MAIN', outcome: 'ok', provider: 3, model: null })).to.deep.equal({
      callId: 'a',
      attribution: 'unknown',
      outcome: 'unknown',
    });
    expect(normalizeRecord({ callId: 'a', attribution: 'child', outcome: 'aborted', provider: 'deepseek', model: 'deepseek-chat' })).to.deep.equal({
      callId: 'a',
      attribution: 'child',
      outcome: 'aborted',
      provider: 'deepseek',
      model: 'deepseek-chat',
    });
  });

  it('keeps usage only when one field is a finite number >= 0 and every present field is valid; projects it onto the report fields', () => {
    const cases: [unknown, unknown][] = [
      [{ inputTokens: 5, extra: 'ignored' }, { inputTokens: 5 }],
      [{ inputTokens: 0 }, { inputTokens: 0 }],
      [{ inputTokens: 5, outputTokens: -1 }, undefined],
      [{ inputTokens: 5, outputTokens: null }, undefined],
      [{ inputTokens: 5, outputTokens: '2' }, undefined],
      [{ inputTokens: Infinity }, undefined],
      [{ inputTokens: Number.NaN }, undefined],
      [{}, undefined],
      [{ prompt_tokens: 5 }, undefined],
      [[5], undefined],
      [null, undefined],
      [
        { reasoningTokens: 1.5, cacheWriteTokens: 2 },
        { cacheWriteTokens: 2, reasoningTokens: 1.5 },
      ],
    ];
    for (const [usage, expected] of cases) expect(normalizeRecord({ callId: 'a', usage }).usage, JSON.stringify(usage)).to.deep.equal(expected);
  });

  it('keeps billing verbatim when present', () => {
    expect(normalizeRecord({ callId: 'a', billing: { usd: '0.01' } }).billing).to.deep.equal({ usd: '0.01' });
    expect(normalizeRecord({ callId: 'a', billing: null })).to.have.property('billing', null);
    expect(normalizeRecord({ callId: 'a' })).to.not.have.property('billing');
  });
});

describe('usage report: shape and rules', () => {
  const records = [
    { callId: 'b', attribution: 'main', outcome: 'success', usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 } },
    { callId: 'a', attribution: 'child', outcome: 'success', usage: { inputTokens: 50, cacheReadTokens: 30 } },
    { callId: 'c', attribution: 'child', outcome: 'failure' },
    { callId: 'd', attribution: 'query', outcome: 'aborted' },
    { callId: 'e', attribution: 'unknown', outcome: 'unknown', usage: { inputTokens: -1 } },
  ];
  const report = aggregateUsage(records);

  it('has exactly the spec keys at every level', () => {
    expect(report).to.have.all.keys('schemaVersion', 'calls', 'outcomes', 'usage', 'billing', 'failed', 'byAttribution', 'diagnostics');
    const totals = (t: UsageTotals, top = false) => {
      if (!top) expect(t).to.have.all.keys('calls', 'outcomes', 'usage', 'billing');
      expect(t.outcomes).to.have.all.keys('success', 'failure', 'aborted', 'unknown');
      expect(t.usage).to.have.all.keys('callsWithUsage', 'callsWithoutUsage', 'fields');
      expect(t.usage.fields).to.have.all.keys(...USAGE_FIELDS);
      for (const f of USAGE_FIELDS) expect(t.usage.fields[f]).to.have.all.keys('sum', 'knownCalls', 'unknownCalls');
    };
    totals(report, true);
    totals(report.failed);
    expect(report.byAttribution).to.have.all.keys('main', 'query', 'child', 'unknown');
    for (const t of Object.values(report.byAttribution)) totals(t);
    expect(report.schemaVersion).to.equal(1);
    expect(report.diagnostics).to.deep.equal({ conflictingCallIds: [] });
  });

  it('never synthesises totalTokens and never counts missing usage as zero', () => {
    expect(report.usage.fields.totalTokens).to.deep.equal({ sum: 120, knownCalls: 1, unknownCalls: 4 });
    expect(report.usage.fields.inputTokens).to.deep.equal({ sum: 150, knownCalls: 2, unknownCalls: 3 });
    expect(report.usage.fields.reasoningTokens).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 5 });
    expect(report.usage).to.deep.include({ callsWithUsage: 2, callsWithoutUsage: 3 });
    expect(report.failed.usage.fields.inputTokens).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 2 });
  });

  it('failed holds failure and aborted calls; per attribution the parts add up to the whole', () => {
    expect(report.failed.outcomes).to.deep.equal({ success: 0, failure: 1, aborted: 1, unknown: 0 });
    const parts = Object.values(report.byAttribution);
    expect(parts.reduce((s, p) => s + p.calls, 0)).to.equal(report.calls);
    for (const f of USAGE_FIELDS) {
      expect(
        parts.reduce((s, p) => s + p.usage.fields[f].knownCalls, 0),
        f,
      ).to.equal(report.usage.fields[f].knownCalls);
      expect(
        parts.reduce((s, p) => s + p.usage.fields[f].unknownCalls, 0),
        f,
      ).to.equal(report.usage.fields[f].unknownCalls);
      expect(
        parts.reduce((s, p) => s + (p.usage.fields[f].sum ?? 0), 0),
        f,
      ).to.equal(report.usage.fields[f].sum ?? 0);
    }
  });

  it('does not depend on record order', () => {
    expect(aggregateUsage([...records].reverse())).to.deep.equal(report);
  });

  it('an empty list has zero calls, null sums and unknown billing', () => {
    const empty = aggregateUsage([]);
    expect(empty.calls).to.equal(0);
    expect(empty.billing).to.deep.equal({ status: 'unknown' });
    for (const f of USAGE_FIELDS) expect(empty.usage.fields[f]).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 0 });
  });

  it('billing: reported when every call has it, partial otherwise, per subset too', () => {
    const all = aggregateUsage([
      { callId: 'x', outcome: 'success', attribution: 'main', billing: { usd: 1 } },
      { callId: 'y', outcome: 'failure', attribution: 'main', billing: { usd: 2 } },
    ]);
    expect(all.billing).to.deep.equal({
      status: 'reported',
      reported: [
        { callId: 'x', value: { usd: 1 } },
        { callId: 'y', value: { usd: 2 } },
      ],
      unknownCalls: 0,
    });
    const partial = aggregateUsage([
      { callId: 'x', outcome: 'success', attribution: 'main', billing: { usd: 1 } },
      { callId: 'y', outcome: 'failure', attribution: 'child' },
    ]);
    expect(partial.billing).to.deep.equal({ status: 'partial', reported: [{ callId: 'x', value: { usd: 1 } }], unknownCalls: 1 });
    expect(partial.failed.billing).to.deep.equal({ status: 'unknown' });
    expect(partial.byAttribution.main.billing).to.deep.include({ status: 'reported' });
  });

  it('a conflict keeps only what all copies agree on, drops usage and billing, and is listed sorted', () => {
    const r = aggregateUsage([
      { callId: 'z', attribution: 'main', outcome: 'success', provider: 'p', model: 'm1', usage: { inputTokens: 1 }, billing: 1 },
      { callId: 'z', attribution: 'main', outcome: 'success', provider: 'p', model: 'm2', usage: { inputTokens: 1 }, billing: 1 },
      { callId: 'a', attribution: 'main', outcome: 'success' },
      { callId: 'a', attribution: 'child', outcome: 'success' },
      { callId: 'a', attribution: 'main', outcome: 'success' },
      { callId: 'q', attribution: 'query', outcome: 'failure', billing: { usd: 1, eur: 2 } },
      { callId: 'q', attribution: 'query', outcome: 'failure', billing: { eur: 2, usd: 1 } },
    ]);
    expect(r.diagnostics.conflictingCallIds).to.deep.equal(['a', 'z']);
    expect(r.calls).to.equal(3);
    expect(r.byAttribution.main.calls).to.equal(1); // z: attribution agreed
    expect(r.byAttribution.unknown.calls).to.equal(1); // a: main vs child
    expect(r.outcomes).to.deep.equal({ success: 2, failure: 1, aborted: 0, unknown: 0 });
    expect(r.usage.callsWithUsage).to.equal(0);
    expect(r.billing).to.deep.equal({ status: 'partial', reported: [{ callId: 'q', value: { usd: 1, eur: 2 } }], unknownCalls: 2 });
  });
});

describe('usage report: evalog provider usage as a record (callUsage)', () => {
  it('maps reported fields; inputTokens excludes cached reads, as in DSH TokenUsage', () => {
    expect(callUsage({ prompt: 100, completion: 20, total: 120 })).to.deep.equal({ inputTokens: 100, outputTokens: 20, totalTokens: 120 });
    expect(callUsage({ prompt: 100, completion: 20, total: 120, cached: 75 })).to.deep.equal({
      inputTokens: 25,
      outputTokens: 20,
      totalTokens: 120,
      cacheReadTokens: 75,
    });
    expect(callUsage({ prompt: null, completion: 3, total: null, cached: 5 })).to.deep.equal({ outputTokens: 3, cacheReadTokens: 5 });
    expect(callUsage({ prompt: 4, completion: null, total: null, cached: 5 }), 'inconsistent: input unknown').to.deep.equal({ cacheReadTokens: 5 });
  });

  it('never synthesises totalTokens and is undefined when nothing is known', () => {
    expect(callUsage({ prompt: 7, completion: 2, total: null })).to.deep.equal({ inputTokens: 7, outputTokens: 2 });
    expect(callUsage(null)).to.equal(undefined);
    expect(callUsage({ prompt: null, completion: null, total: null })).to.equal(undefined);
  });
});
