import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import {
  aggregateUsage,
  callRecords,
  usageFields,
  usageProjection,
  USAGE_FIELDS,
  type CallRecord,
  type UsageTotals,
} from '../../src/projections/usage/index.js';
import { failedData, requestedData, succeededData, Timeline } from '../support/build-events.js';

const records: CallRecord[] = [
  { callId: 'j1/parent/turn-1/attempt-1', attribution: 'main', outcome: 'success', usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 } },
  { callId: 'j1/worker/turn-1/attempt-1', attribution: 'child', outcome: 'success', usage: { inputTokens: 50, cacheReadTokens: 30 } },
  { callId: 'j1/worker/turn-2/attempt-1', attribution: 'child', outcome: 'failure' },
  { callId: 'j1/query/q-1/attempt-1', attribution: 'query', outcome: 'aborted' },
  { callId: 'j2/worker/turn-1/attempt-1', attribution: 'child', outcome: 'success' },
  { callId: 'j3/x/attempt-1', attribution: 'unknown', outcome: 'unknown' },
];

describe('usage report: aggregateUsage', () => {
  const report = aggregateUsage(records);

  it('sums each field over the calls that reported it and counts known and unknown calls apart', () => {
    expect(report.usage.fields.inputTokens).to.deep.equal({ sum: 150, knownCalls: 2, unknownCalls: 4 });
    expect(report.usage.fields.totalTokens).to.deep.equal({ sum: 120, knownCalls: 1, unknownCalls: 5 });
    expect(report.usage.fields.cacheReadTokens).to.deep.equal({ sum: 30, knownCalls: 1, unknownCalls: 5 });
  });

  it('leaves a field no call reported as null, never 0', () => {
    expect(report.usage.fields.reasoningTokens).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 6 });
    expect(report.usage.fields.cacheWriteTokens.sum).to.equal(null);
  });

  it('counts calls by outcome and by whether they carried usage', () => {
    expect(report).to.deep.include({ schemaVersion: 1, calls: 6, billing: { status: 'unknown' }, diagnostics: { conflictingCallIds: [] } });
    expect(report.outcomes).to.deep.equal({ success: 3, failure: 1, aborted: 1, unknown: 1 });
    expect(report.usage).to.deep.include({ callsWithUsage: 2, callsWithoutUsage: 4 });
  });

  it('keeps failed and aborted calls apart', () => {
    expect(report.failed.calls).to.equal(2);
    expect(report.failed.outcomes).to.deep.equal({ success: 0, failure: 1, aborted: 1, unknown: 0 });
    expect(report.failed.usage.fields.inputTokens.sum).to.equal(null);
    expect(report.failed.billing).to.deep.equal({ status: 'unknown' });
  });

  it('splits by attribution so that the parts add up to the whole', () => {
    const parts: UsageTotals[] = Object.values(report.byAttribution);
    expect(report.byAttribution.main.calls).to.equal(1);
    expect(report.byAttribution.child.calls).to.equal(3);
    expect(parts.reduce((s, p) => s + p.calls, 0)).to.equal(report.calls);
    for (const f of USAGE_FIELDS) {
      const whole = report.usage.fields[f];
      expect(
        parts.reduce((s, p) => s + (p.usage.fields[f].sum ?? 0), 0),
        f,
      ).to.equal(whole.sum ?? 0);
      expect(
        parts.reduce((s, p) => s + p.usage.fields[f].knownCalls, 0),
        f,
      ).to.equal(whole.knownCalls);
      expect(
        parts.reduce((s, p) => s + p.usage.fields[f].unknownCalls, 0),
        f,
      ).to.equal(whole.unknownCalls);
    }
    expect(report.byAttribution.query.usage.fields.inputTokens.sum).to.equal(null);
  });

  it('does not depend on the order of the records', () => {
    expect(aggregateUsage([...records].reverse())).to.deep.equal(report);
  });

  it('an empty list has zero calls and null sums', () => {
    const empty = aggregateUsage([]);
    expect(empty.calls).to.equal(0);
    for (const f of USAGE_FIELDS) expect(empty.usage.fields[f]).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: 0 });
  });
});

describe('usage projection: usageFields', () => {
  it('maps reported fields and leaves unreported ones absent', () => {
    expect(usageFields({ prompt: 7, completion: null, total: 9 })).to.deep.equal({ inputTokens: 7, totalTokens: 9 });
    expect(usageFields({ prompt: 0, completion: 0, total: 0 })).to.deep.equal({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('is undefined when nothing was reported', () => {
    expect(usageFields(null)).to.equal(undefined);
    expect(usageFields({ prompt: null, completion: null, total: null })).to.equal(undefined);
  });
});

describe('usage projection: calls of a run', () => {
  function log(): StoredEvent[] {
    const t = new Timeline('run-usage');
    t.add(undefined, 0, 'RunCompleted', { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 }); // ignored
    t.add('b:x:1', 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { model: 'm1' }));
    t.add(
      'b:x:1',
      20,
      'ProviderCallSucceeded',
      succeededData('worker/turn-1/attempt-1', { finishReason: 'length', usage: { prompt: 40, completion: 64, total: 104 }, latencyMs: 80 }),
    );
    t.add('a:x:1', 30, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
    t.add('a:x:1', 40, 'ProviderCallFailed', failedData('parent/turn-1/attempt-1', { kind: 'rate_limited', status: 429, retryAfterMs: 1000, latencyMs: 3 }));
    t.add('a:x:1', 50, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-2', { attribution: 'main', attempt: 2 }));
    t.add('a:x:1', 60, 'ProviderCallFailed', failedData('parent/turn-1/attempt-2', { kind: 'aborted', status: null, latencyMs: 9 }));
    t.add('a:x:1', 70, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-3', { attribution: 'main', attempt: 3 }));
    // Same call id in another job: kept apart.
    t.add('b:x:1', 80, 'ProviderCallRequested', requestedData('worker/turn-2/attempt-1'));
    t.add('b:x:1', 90, 'ProviderCallSucceeded', succeededData('worker/turn-2/attempt-1', { usage: null }));
    return t.events;
  }

  it('lists every attempt sorted by job and call id', async () => {
    const { calls } = await fold(usageProjection, log());
    expect(calls.map((c) => `${c.job_id} ${c.call_id}`)).to.deep.equal([
      'a:x:1 parent/turn-1/attempt-1',
      'a:x:1 parent/turn-1/attempt-2',
      'a:x:1 parent/turn-1/attempt-3',
      'b:x:1 worker/turn-1/attempt-1',
      'b:x:1 worker/turn-2/attempt-1',
    ]);
  });

  it('a request with no recorded outcome stays unknown, with no usage and no latency', async () => {
    const { calls } = await fold(usageProjection, log());
    expect(calls[2]).to.deep.equal({
      job_id: 'a:x:1',
      call_id: 'parent/turn-1/attempt-3',
      attribution: 'main',
      outcome: 'unknown',
      detail: null,
      model: 'm',
      latency_ms: null,
      usage: null,
    });
  });

  it('records failure kinds as detail, an aborted attempt as its own outcome', async () => {
    const { calls } = await fold(usageProjection, log());
    expect(calls[0]).to.deep.include({ outcome: 'failure', detail: 'rate_limited', latency_ms: 3, usage: null });
    expect(calls[1]).to.deep.include({ outcome: 'aborted', detail: 'aborted', latency_ms: 9 });
  });

  it('records a truncated reply\'s finish reason "length" as detail, with its usage', async () => {
    const { calls } = await fold(usageProjection, log());
    expect(calls[3]).to.deep.include({
      outcome: 'success',
      detail: 'length',
      model: 'm1',
      latency_ms: 80,
      attribution: 'child',
      usage: { inputTokens: 40, outputTokens: 64, totalTokens: 104 },
    });
  });

  it('the report is the aggregation of the call records <runId>/<jobId>/<callId>', async () => {
    const { calls, report } = await fold(usageProjection, log());
    const records = callRecords('run-usage', calls);
    expect(records.map((r) => r.callId)).to.include('run-usage/b:x:1/worker/turn-1/attempt-1');
    expect(report).to.deep.equal(aggregateUsage(records));
  });

  it('cached prompt tokens: cacheReadTokens as reported, inputTokens without them (DSH TokenUsage meaning)', async () => {
    const t = new Timeline('run-cache');
    t.add('a:x:1', 10, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
    t.add('a:x:1', 20, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1', { usage: { prompt: 100, completion: 20, total: 120, cached: 75 } }));
    const { calls, report } = await fold(usageProjection, t.events);
    expect(calls[0]!.usage).to.deep.equal({ inputTokens: 25, outputTokens: 20, totalTokens: 120, cacheReadTokens: 75 });
    expect(report.usage.fields.cacheReadTokens).to.deep.equal({ sum: 75, knownCalls: 1, unknownCalls: 0 });
    expect(report.usage.fields.totalTokens.sum).to.equal(120);
  });

  it('a success without usage has usage null, and the report counts it as unknown', async () => {
    const { calls, report } = await fold(usageProjection, log());
    expect(calls[4]).to.deep.include({ outcome: 'success', usage: null });
    expect(report.outcomes).to.deep.equal({ success: 2, failure: 1, aborted: 1, unknown: 1 });
    expect(report.usage.fields.totalTokens).to.deep.equal({ sum: 104, knownCalls: 1, unknownCalls: 4 });
    expect(report.failed.calls).to.equal(2);
    expect(report.byAttribution.main.calls).to.equal(3);
  });
});
