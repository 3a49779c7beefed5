// Durations from a monotonic clock at sub-millisecond resolution (issue 16, C5): the injected clock's
// reading rides on every event the journal writes, survives the file log, is kept by replay, and is
// what context-snapshot's `seconds` and `lead_seconds` are measured with; old logs without it still
// read, by `at`.
import { expect } from 'chai';
import { type Clock, systemClock } from '../../src/core/clock.js';
import type { StoredEvent } from '../../src/events/index.js';
import { draft, Journal } from '../../src/harness/kernel/journal.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { deriveOutputs } from '../../src/projections/outputs.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';
import { requestedData, succeededData, T0, Timeline } from '../support/build-events.js';
import { tempDir } from '../support/cli.js';

// The studies' suites come from their plugins, loaded on demand: every plugin is loaded for the registry's lookups.
await loadAllPlugins();

const RUN = 'mono-run';
const JOB = 'rate_limits:snapshot:1';

/** A clock whose wall time stands still while its monotonic reading moves 0.25 ms a reading. */
function quarterMsClock(): Clock {
  let m = T0 + 0.125;
  return { now: () => T0, mono: () => (m += 0.25) };
}

/** One context-snapshot job: lead call, worker stop; `mono` (or none) per event, all at the same millisecond. */
function csJob(mono: (i: number) => number | undefined): StoredEvent[] {
  const t = new Timeline(RUN);
  t.add(undefined, 0, 'RunStarted', {
    suite: 'context-snapshot',
    config: {},
    configHash: 'h',
    seed: 1703,
    orderSeed: 1,
    jobs: [{ jobId: JOB, caseId: 'rate_limits', arm: 'snapshot', repetition: 1, seed: 1703 }],
    model: { name: 'm', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
    concurrency: 1,
    provenance: {},
  });
  t.add(JOB, 0, 'JobStarted', { caseId: 'rate_limits', arm: 'snapshot', repetition: 1, seed: 1703 });
  t.add(JOB, 0, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
  t.add(JOB, 0, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1'));
  t.add(JOB, 0, 'WorkerStopped', { reason: 'answered', turns: 1, answer: 'done' });
  return t.events.map((e, i) => {
    const m = mono(i);
    return m === undefined ? e : ({ ...e, mono: m } as StoredEvent);
  });
}

async function row(events: StoredEvent[]): Promise<{ seconds: number; lead_seconds: number }> {
  const out = await deriveOutputs(RUN, events, suiteNamed, undefined);
  return out.rows.find((r) => r.job_id === JOB) as unknown as { seconds: number; lead_seconds: number };
}

describe('monotonic timing (sub-millisecond durations through the injected clock)', () => {
  it('the journal records the clock’s monotonic reading on each event; the file log keeps it; replay keeps the recorded one', async () => {
    const tmp = await tempDir();
    try {
      const log = await FileEventLog.open({ root: tmp.dir });
      const scope = Journal.live(log, RUN, { clock: quarterMsClock() }).scope(JOB);
      const a = await scope.emit('job', draft('JobStarted', { caseId: 'rate_limits', arm: 'snapshot', repetition: 1, seed: 1703 }));
      const b = await scope.emit('job', draft('WorkerStopped', { reason: 'answered', turns: 1, answer: 'x' }));
      expect(a.at).to.equal(b.at); // the same wall-clock millisecond
      expect(b.mono! - a.mono!).to.equal(0.25);
      const stored: StoredEvent[] = [];
      for await (const e of log.read(RUN)) stored.push(e);
      expect(stored.map((e) => e.mono)).to.deep.equal([a.mono, b.mono]);
      // Replayed with a clock that reads elsewhere: the recorded readings stand.
      const elsewhere: Clock = { now: () => T0 + 9e6, mono: () => 42 };
      const replay = Journal.replay(log, RUN, new Map([[JOB, stored]]), { clock: elsewhere }).scope(JOB);
      const ra = await replay.emit('job', draft('JobStarted', { caseId: 'rate_limits', arm: 'snapshot', repetition: 1, seed: 1703 }));
      expect(ra.mono).to.equal(a.mono);
      await log.close();
    } finally {
      await tmp.cleanup();
    }
  });

  it('context-snapshot seconds and lead_seconds: events 0.25 ms apart give sub-millisecond durations (0.0005 s, 0.00075 s), though `at` is the same millisecond', async () => {
    const r = await row(csJob((i) => T0 + i * 0.25));
    // JobStarted is event 1, the lead's reply event 3, the worker's stop event 4.
    expect(r.lead_seconds).to.be.closeTo(0.0005, 1e-12);
    expect(r.seconds).to.be.closeTo(0.00075, 1e-12);
    expect(r.seconds).to.be.above(0).and.below(0.001);
  });

  it('a log written before the reading existed still reads, timed by `at` (millisecond resolution)', async () => {
    const r = await row(csJob(() => undefined));
    expect([r.seconds, r.lead_seconds]).to.deep.equal([0, 0]);
  });

  it('the real clock’s monotonic reading is on the epoch scale and never goes back', () => {
    const readings = Array.from({ length: 1000 }, () => systemClock.mono!());
    for (let i = 1; i < readings.length; i++) expect(readings[i]).to.be.at.least(readings[i - 1]!);
    // Epoch scale (about 1.7e12 ms), not a process-relative count: the wall clock may be stepped
    // (NTP on a fresh VM moved it 4 s during one CI run) while the monotonic one is not, so the
    // two are compared within an hour, which still tells the scales apart by nine orders.
    expect(Math.abs(readings[0]! - Date.now())).to.be.below(3_600_000);
  });
});
