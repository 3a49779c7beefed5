import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/events/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { usageProjection } from '../../src/projections/usage/index.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { compressFrame, readUsageInput, readUsageInputs, recordsFromEvalogEvents, UsageInputError } from '../../src/usage-input/index.js';
import { failedData, requestedData, succeededData, Timeline } from '../support/build-events.js';
import { tempDir } from '../support/cli.js';

// evalog exports as usage input: the same projection as the live usage.json, so the same report.

function runLog(runId = 'run-u'): StoredEvent[] {
  const t = new Timeline(runId);
  t.add(undefined, 0, 'RunCompleted', { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 });
  t.add('a:x:1', 10, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
  t.add('a:x:1', 20, 'ProviderCallFailed', failedData('parent/turn-1/attempt-1', { kind: 'rate_limited', status: 429 }));
  t.add('a:x:1', 30, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-2', { attribution: 'main', attempt: 2 }));
  t.add('a:x:1', 40, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-2', { usage: { prompt: 100, completion: 20, total: 120, cached: 64 } }));
  t.add('a:x:1', 50, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1'));
  t.add('a:x:1', 60, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1', { kind: 'aborted', status: null }));
  t.add('b:x:1', 70, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'query' }));
  t.add('b:x:1', 80, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-1', { usage: null, finishReason: 'length' }));
  t.add('b:x:1', 90, 'ProviderCallRequested', requestedData('worker/turn-2/attempt-1'));
  return t.events;
}

const exported = (events: readonly StoredEvent[]) => events.map((e) => `${canonicalJson(e)}\n`).join('');

describe('evalog exports as usage input', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir('evalog-usage-export-');
  });
  after(() => tmp.cleanup());

  async function file(name: string, content: string | Buffer): Promise<string> {
    const p = join(tmp.dir, name);
    await mkdir(tmp.dir, { recursive: true });
    await writeFile(p, content);
    return p;
  }

  it('records: one per attempt, callId <runId>/<jobId>/<callId>, an attempt without outcome unknown', () => {
    const records = recordsFromEvalogEvents(runLog());
    expect(records.map((r) => [r.callId, r.attribution, r.outcome])).to.deep.equal([
      ['run-u/a:x:1/parent/turn-1/attempt-1', 'main', 'failure'],
      ['run-u/a:x:1/parent/turn-1/attempt-2', 'main', 'success'],
      ['run-u/a:x:1/worker/turn-1/attempt-1', 'child', 'aborted'],
      ['run-u/b:x:1/worker/turn-1/attempt-1', 'query', 'success'],
      ['run-u/b:x:1/worker/turn-2/attempt-1', 'child', 'unknown'],
    ]);
    expect(records[1]!.usage).to.deep.equal({ inputTokens: 36, outputTokens: 20, totalTokens: 120, cacheReadTokens: 64 });
    expect(records[3]).to.not.have.property('usage');
  });

  for (const name of ['run.jsonl', 'run.jsonl.zst']) {
    it(`${name}: the report equals the live usage projection's report`, async () => {
      const events = runLog();
      const text = exported(events);
      const p = await file(name, name.endsWith('.zst') ? await compressFrame(Buffer.from(text)) : text);
      const input = await readUsageInput(p);
      expect(input.format).to.equal('evalog-export');
      expect(input.sources).to.deep.equal(['run-u']);
      const { report } = await readUsageInputs([p]);
      const live = await fold(usageProjection, events);
      expect(report).to.deep.equal(live.report);
      expect(report.calls).to.equal(5);
      expect(report.usage.fields.totalTokens).to.deep.equal({ sum: 120, knownCalls: 1, unknownCalls: 4 });
    });
  }

  it('reads events out of order and two runs in one file; each (run, seq) once across files', async () => {
    const a = runLog('run-a');
    const b = runLog('run-b');
    const mixed = await file('mixed.jsonl', exported([...a].reverse()) + exported(b));
    const onlyA = await file('a.jsonl', exported(a));
    const { report } = await readUsageInputs([mixed, onlyA, mixed]);
    expect(report.calls).to.equal(10);
    expect(report.diagnostics.conflictingCallIds).to.deep.equal([]);
    expect(report.byAttribution.main.calls).to.equal(4);
  });

  it('an export taken while a call was in flight conflicts with a later one: the call becomes unknown and is listed', async () => {
    const full = runLog();
    full.push({
      ...full[full.length - 1]!,
      seq: full.length + 1,
      id: 'run-u/b:x:1/99',
      type: 'ProviderCallSucceeded',
      v: 2,
      data: succeededData('worker/turn-2/attempt-1'),
    } as StoredEvent);
    const early = await file('early.jsonl', exported(runLog()));
    const late = await file('late.jsonl', exported(full));
    const { report } = await readUsageInputs([early, late]);
    expect(report.diagnostics.conflictingCallIds).to.deep.equal(['run-u/b:x:1/worker/turn-2/attempt-1']);
    expect(report.calls).to.equal(5);
    expect(report.outcomes.unknown).to.equal(1);
  });

  it('upcasts events of older schema versions', async () => {
    const t = new Timeline('run-old');
    const graded = t.add('a:x:1', 0, 'JobGraded', { passed: true, checksPassed: 1, checksTotal: 1, firstRevisionPassed: null });
    const { firstRevisionPassed: _f, ...v1data } = graded.data as Record<string, unknown>;
    const p = await file('old.jsonl', `${canonicalJson({ ...graded, v: 1, data: v1data })}\n`);
    expect((await readUsageInput(p)).records).to.deep.equal([]);
  });

  const bad: { name: string; content: () => string; line: number; message: RegExp }[] = [
    {
      name: 'an unknown event type',
      content: () => `${exported(runLog()).split('\n')[0]}\n{"runId":"run-u","seq":99,"type":"Nope","v":1}\n`,
      line: 2,
      message: /unknown event type "Nope"/,
    },
    {
      name: 'a field of the wrong type',
      content: () => exported(runLog()).replace('"latencyMs":5', '"latencyMs":"5"'),
      line: 3,
      message: /ProviderCallFailed: field data\.latencyMs/,
    },
    {
      name: 'a missing seq',
      content: () => `${exported(runLog())}${canonicalJson({ ...runLog()[1]!, seq: undefined })}\n`,
      line: 11,
      message: /"seq" must be a non-negative integer/,
    },
    { name: 'a newer schema version', content: () => `${canonicalJson({ ...runLog()[1]!, v: 9 })}\n`, line: 1, message: /schema version 9/ },
    {
      name: 'one seq twice with different content',
      content: () => `${exported(runLog())}${canonicalJson({ ...runLog()[2]!, seq: 2 })}\n`,
      line: 11,
      message: /run run-u seq 2 appears twice with different content/,
    },
  ];
  for (const c of bad) {
    it(`a bad export line names the file and line: ${c.name}`, async () => {
      const p = await file(`bad-${c.line}-${c.name.replace(/\W+/g, '-')}.jsonl`, c.content());
      try {
        await readUsageInput(p);
        expect.fail('read without error');
      } catch (err) {
        expect(err).to.be.instanceOf(UsageInputError);
        expect(err).to.include({ file: p, line: c.line });
        expect((err as Error).message)
          .to.match(c.message)
          .and.include(`${p} line ${c.line}: `);
      }
    });
  }

  it('an identical repeated line is read once', async () => {
    const events = runLog();
    const p = await file('repeat.jsonl', exported(events) + exported(events.slice(3, 6)));
    const { report } = await readUsageInputs([p]);
    expect(report).to.deep.equal((await fold(usageProjection, events)).report);
  });
});
