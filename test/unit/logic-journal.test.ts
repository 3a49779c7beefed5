import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { EvalogEvent, StoredEvent } from '../../src/events/index.js';
import type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo } from '../../src/log/types.js';
import { FencedOffError } from '../../src/log/errors.js';
import { steppingClock } from '../../src/core/clock.js';
import { DeterminismViolation, EndOfRecording } from '../../src/harness/kernel/errors.js';
import { differingFields, draft, Journal, type AnyDraft } from '../../src/harness/kernel/journal.js';
import { succeededData } from '../support/build-events.js';

/** The smallest EventLog that keeps the contract the journal relies on: ordered, idempotent by id. */
class MemoryLog implements EventLog {
  readonly stored: StoredEvent[] = [];
  /** The event ids of each append call, in order (a posted event goes out with the next emit). */
  readonly appends: string[][] = [];
  private readonly blobMap = new Map<string, Uint8Array>();

  async append(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    this.appends.push(events.map((e) => e.id));
    return events.map((e) => {
      const known = this.stored.find((s) => s.id === e.id);
      if (known) return { id: e.id, seq: known.seq, duplicate: true };
      const seq = this.stored.length + 1;
      this.stored.push({ ...e, seq } as StoredEvent);
      return { id: e.id, seq, duplicate: false };
    });
  }
  async appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult> {
    const last = this.stored.filter((s) => s.jobId === event.jobId).at(-1)?.seq ?? 0;
    if (last !== fence.afterSeq) throw new FencedOffError(event.id, fence.afterSeq);
    return (await this.append([event]))[0]!;
  }
  async *read(runId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    for (const e of this.stored) if (e.runId === runId && e.seq >= (options.from ?? 1)) yield e;
  }
  subscribe(runId: string, options?: ReadOptions): AsyncIterable<StoredEvent> {
    return this.read(runId, options);
  }
  async claimWriter(): Promise<void> {}
  async runs(): Promise<RunInfo[]> {
    return [];
  }
  blobs(): BlobStore {
    const map = this.blobMap;
    return {
      async put(bytes) {
        const h = createHash('sha256').update(bytes).digest('hex');
        map.set(h, bytes);
        return h;
      },
      async get(hash) {
        const b = map.get(hash);
        if (!b) throw new Error(`no blob ${hash}`);
        return b;
      },
      async has(hash) {
        return map.has(hash);
      },
    };
  }
  async close(): Promise<void> {}
}

const RUN = 'run-j';
const JOB = 'fruit:full:1';
const START = Date.parse('2025-05-05T10:00:00.000Z');
const ACTOR = `job/${JOB}/worker`;

const started = draft('JobStarted', { caseId: 'fruit', arm: 'full', repetition: 1, seed: 8 });
const reply = (content: string, callId = 'worker/turn-1/attempt-1') => draft('ProviderCallSucceeded', succeededData(callId, { content }));

/** Records a job's events live, then returns the recorded map a replay or resume starts from. */
async function recordLive(drafts: AnyDraft[]): Promise<Map<string, StoredEvent[]>> {
  const log = new MemoryLog();
  const scope = Journal.live(log, RUN, { clock: steppingClock(START, 1_000) }).scope(JOB);
  for (const d of drafts) await scope.emit(ACTOR, d);
  const recorded = new Map<string, StoredEvent[]>();
  for (const e of log.stored) recorded.set(e.jobId ?? '', [...(recorded.get(e.jobId ?? '') ?? []), e]);
  return recorded;
}

function rerun(mode: 'replay' | 'resume', recorded: Map<string, StoredEvent[]>) {
  const log = new MemoryLog();
  // A clock far from the recorded one: any `at` taken from it is visibly new.
  const options = { clock: steppingClock(START + 86_400_000, 1_000) };
  const journal = mode === 'replay' ? Journal.replay(log, RUN, recorded, options) : Journal.resume(log, RUN, recorded, options);
  return { log, scope: journal.scope(JOB) };
}

describe('journal: live mode', () => {
  it('numbers events per scope as <runId>/<jobId|_run>/<n> and takes `at` from the injected clock', async () => {
    const log = new MemoryLog();
    const journal = Journal.live(log, RUN, { clock: steppingClock(START, 250) });
    const a = await journal.scope(JOB).emit(ACTOR, started);
    const r = await journal.scope(undefined).emit('run', draft('RunCompleted', { status: 'completed', jobsSucceeded: 1, jobsFailed: 0 }));
    const b = await journal.scope(JOB).emit(ACTOR, reply('hi'));
    expect([a.id, r.id, b.id]).to.deep.equal([`${RUN}/${JOB}/1`, `${RUN}/_run/1`, `${RUN}/${JOB}/2`]);
    expect([a.at, r.at, b.at]).to.deep.equal(['2025-05-05T10:00:00.000Z', '2025-05-05T10:00:00.250Z', '2025-05-05T10:00:00.500Z']);
    expect([a.seq, r.seq, b.seq]).to.deep.equal([1, 2, 3]);
    expect(r).to.not.have.property('jobId');
    expect(log.stored.map((e) => e.id)).to.deep.equal([a.id, r.id, b.id]);
  });

  it('fills the envelope: run id, job id, type, current version, actor and causation id', async () => {
    const log = new MemoryLog();
    const e = await Journal.live(log, RUN, { clock: steppingClock(START) })
      .scope(JOB)
      .emit(ACTOR, { ...reply('x'), causationId: `${RUN}/${JOB}/1` });
    expect(e).to.include({ runId: RUN, jobId: JOB, type: 'ProviderCallSucceeded', v: 2, actor: ACTOR, causationId: `${RUN}/${JOB}/1` });
    expect(e.data).to.deep.equal(reply('x').data);
  });
});

describe('journal: replay mode', () => {
  it('returns the recorded events for an identical re-run, keeping their recorded `at`, and appends nothing', async () => {
    const recorded = await recordLive([started, reply('hi')]);
    const { log, scope } = rerun('replay', recorded);
    expect(scope.replaying).to.equal(true);
    const a = await scope.emit(ACTOR, started);
    const b = await scope.emit(ACTOR, reply('hi'));
    expect([a, b]).to.deep.equal(recorded.get(JOB));
    expect(b.at).to.equal('2025-05-05T10:00:01.000Z');
    expect(log.stored).to.have.length(0);
    expect(scope.replaying).to.equal(false);
  });

  it('throws DeterminismViolation naming the differing field (data.content) and both events', async () => {
    const recorded = await recordLive([started, reply('the recorded answer')]);
    const { scope } = rerun('replay', recorded);
    await scope.emit(ACTOR, started);
    let error: unknown;
    try {
      await scope.emit(ACTOR, reply('another answer'));
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(DeterminismViolation);
    const v = error as DeterminismViolation;
    expect(v.name).to.equal('DeterminismViolation');
    expect(v.fields).to.deep.equal(['data.content']);
    expect(v.message).to.contain(`${RUN}/${JOB}/2`).and.contain('data.content');
    expect(v.logged.data).to.include({ content: 'the recorded answer' });
    expect(v.emitted.data).to.include({ content: 'another answer' });
  });

  it('names every differing field, envelope and nested data alike', async () => {
    const recorded = await recordLive([reply('same')]);
    const { scope } = rerun('replay', recorded);
    const other = draft(
      'ProviderCallSucceeded',
      succeededData('worker/turn-1/attempt-1', { content: 'same', usage: { prompt: 10, completion: 6, total: 16 } }),
    );
    const err = await scope.emit('job/other/parent', other).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as DeterminismViolation).fields).to.deep.equal(['actor', 'data.usage.completion', 'data.usage.total']);
  });

  it("throws EndOfRecording past the end of the scope's record and appends nothing", async () => {
    const recorded = await recordLive([started]);
    const { log, scope } = rerun('replay', recorded);
    await scope.emit(ACTOR, started);
    const err = await scope.emit(ACTOR, reply('live?')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(EndOfRecording);
    expect(err).to.include({ jobId: JOB, n: 2 });
    expect(log.stored).to.have.length(0);
  });
});

describe('journal: leftovers', () => {
  it('lists, by seq, the first recorded event no actor re-emitted in each scope, untouched scopes included', async () => {
    const log = new MemoryLog();
    const live = Journal.live(log, RUN, { clock: steppingClock(START) });
    await live.scope(undefined).emit('run', draft('RunCompleted', { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 }));
    for (const d of [started, reply('a'), reply('b', 'worker/turn-2/attempt-1')]) await live.scope(JOB).emit(ACTOR, d);
    const recorded = new Map<string, StoredEvent[]>([
      ['', log.stored.slice(0, 1)],
      [JOB, log.stored.slice(1)],
    ]);
    const journal = Journal.replay(new MemoryLog(), RUN, recorded, { clock: steppingClock(START) });
    await journal.scope(JOB).emit(ACTOR, started);
    expect(journal.leftovers().map((e) => e.id)).to.deep.equal([`${RUN}/_run/1`, `${RUN}/${JOB}/2`]);
    await journal.scope(JOB).emit(ACTOR, reply('a'));
    await journal.scope(JOB).emit(ACTOR, reply('b', 'worker/turn-2/attempt-1'));
    await journal.scope(undefined).emit('run', draft('RunCompleted', { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 }));
    expect(journal.leftovers()).to.deep.equal([]);
  });
});

describe('journal: resume mode', () => {
  it('compares while the record lasts, then appends after it with continued numbering and clock time', async () => {
    const recorded = await recordLive([started, reply('hi')]);
    const { log, scope } = rerun('resume', recorded);
    await scope.emit(ACTOR, started);
    await scope.emit(ACTOR, reply('hi'));
    expect(log.stored).to.have.length(0);
    const next = await scope.emit(ACTOR, draft('WorkerStopped', { reason: 'answered', turns: 1, answer: 'hi' }));
    expect(next.id).to.equal(`${RUN}/${JOB}/3`);
    expect(next.at).to.equal('2025-05-06T10:00:00.000Z');
    expect(log.stored.map((e) => e.id)).to.deep.equal([`${RUN}/${JOB}/3`]);
  });

  it('still refuses a diverging event inside the record', async () => {
    const recorded = await recordLive([started]);
    const { log, scope } = rerun('resume', recorded);
    const err = await scope.emit(ACTOR, draft('JobStarted', { caseId: 'fruit', arm: 'brief', repetition: 1, seed: 8 })).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as DeterminismViolation).fields).to.deep.equal(['data.arm']);
    expect(log.stored).to.have.length(0);
  });
});

describe('journal: recordedOutcome', () => {
  it("finds an effect's outcome by its causal call id, wherever it sits in the record", async () => {
    const failed = draft('ProviderCallFailed', {
      callId: 'worker/turn-1/call-0',
      kind: 'timeout',
      status: null,
      retryAfterMs: null,
      message: 't',
      retryable: true,
      latencyMs: 1,
    });
    // The batch finished out of order: call-1 is recorded before call-0.
    const recorded = await recordLive([started, reply('second', 'worker/turn-1/call-1'), failed]);
    const { scope } = rerun('replay', recorded);
    const types = ['ProviderCallSucceeded', 'ProviderCallFailed'] as const;
    expect(scope.recordedOutcome(types, 'worker/turn-1/call-0')?.id).to.equal(`${RUN}/${JOB}/3`);
    expect(scope.recordedOutcome(types, 'worker/turn-1/call-1')?.id).to.equal(`${RUN}/${JOB}/2`);
    expect(scope.recordedOutcome(['ProviderCallFailed'], 'worker/turn-1/call-1')).to.equal(undefined);
    expect(scope.recordedOutcome(types, 'worker/turn-9/call-0')).to.equal(undefined);
  });
});

describe('journal: posted events', () => {
  const graded = draft('JobGraded', { passed: true, checksPassed: 1, checksTotal: 1, firstRevisionPassed: null });

  it('appends a posted event with the next emit, in one append and in order, and nothing before it', async () => {
    const log = new MemoryLog();
    const scope = Journal.live(log, RUN, { clock: steppingClock(START, 1_000) }).scope(JOB);
    scope.post(ACTOR, started);
    expect(log.appends, 'a posted event waits for the next emit').to.deep.equal([]);
    const b = await scope.emit(ACTOR, reply('hi'));
    expect(log.appends).to.deep.equal([[`${RUN}/${JOB}/1`, `${RUN}/${JOB}/2`]]);
    expect(b.seq).to.equal(2);
    expect(log.stored.map((e) => [e.type, e.at])).to.deep.equal([
      ['JobStarted', '2025-05-05T10:00:00.000Z'],
      ['ProviderCallSucceeded', '2025-05-05T10:00:01.000Z'],
    ]);
  });

  it('flush appends what was posted, once; with nothing posted it appends nothing', async () => {
    const log = new MemoryLog();
    const scope = Journal.live(log, RUN, { clock: steppingClock(START, 1_000) }).scope(JOB);
    await scope.flush();
    scope.post(ACTOR, started);
    await scope.flush();
    await scope.flush();
    expect(log.appends).to.deep.equal([[`${RUN}/${JOB}/1`]]);
  });

  it('a fenced scope appends posted events one by one, each after the one before', async () => {
    const log = new MemoryLog();
    const journal = Journal.live(log, RUN, { clock: steppingClock(START, 1_000), fence: { writer: 'w1', afterSeq: new Map([[JOB, 0]]) } });
    const scope = journal.scope(JOB);
    scope.post(ACTOR, started);
    await scope.emit(ACTOR, reply('hi'));
    expect(log.appends).to.deep.equal([[`${RUN}/${JOB}/1`], [`${RUN}/${JOB}/2`]]);
    expect(log.stored.map((e) => e.seq)).to.deep.equal([1, 2]);
  });

  it('replay: a posted event is compared with the record like an emitted one; past the record it ends the scope', async () => {
    const recorded = await recordLive([started, reply('hi')]);
    const { log, scope } = rerun('replay', recorded);
    scope.post(ACTOR, started);
    await scope.emit(ACTOR, reply('hi'));
    expect(() => scope.post(ACTOR, graded)).to.throw(EndOfRecording);
    const diverging = rerun('replay', recorded);
    expect(() => diverging.scope.post(ACTOR, draft('JobStarted', { caseId: 'fruit', arm: 'brief', repetition: 1, seed: 8 }))).to.throw(DeterminismViolation);
    expect(log.appends).to.deep.equal([]);
  });
});

describe('journal: differingFields', () => {
  const base = {
    id: 'r/j/1',
    runId: 'r',
    jobId: 'j',
    type: 'ToolCalled',
    v: 1,
    at: '2025-01-01T00:00:00.000Z',
    actor: 'job/j/worker',
    data: { callId: 'c', toolCallId: 't', name: 'lookup', arguments: '{}', result: 'x', isError: false },
  } as EvalogEvent;

  it('finds no difference between equal events, whatever their key order', () => {
    const reordered = { ...base, data: { isError: false, result: 'x', arguments: '{}', name: 'lookup', toolCallId: 't', callId: 'c' } } as EvalogEvent;
    expect(differingFields(base, reordered)).to.deep.equal([]);
  });

  it('ignores `at`, which replay takes from the record', () => {
    expect(differingFields(base, { ...base, at: '2030-01-01T00:00:00.000Z' })).to.deep.equal([]);
  });

  it('names envelope fields and data paths, a key missing on one side included', () => {
    const emitted = { ...base, jobId: 'k', causationId: 'r/j/0', data: { ...base.data, result: 'y', extra: 1 } } as unknown as EvalogEvent;
    expect(differingFields(base, emitted)).to.deep.equal(['jobId', 'causationId', 'data.extra', 'data.result']);
  });
});
