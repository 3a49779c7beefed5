// Fenced journals and job claims on the real embedded log (temp folder): the rules that keep a
// worker that lost its job from writing into it, and the folds that report where jobs are.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/events/index.js';
import { FencedOffError } from '../../src/log/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { jobStatesProjection } from '../../src/projections/job-states.js';
import { fold } from '../../src/projections/fold/projection.js';
import { steppingClock } from '../../src/core/clock.js';
import { JobsCrashedError } from '../../src/harness/run/machine.js';
import { draft, Journal } from '../../src/harness/kernel/journal.js';
import { causedBy, readJob } from '../../src/harness/orchestration/scale-out/index.js';
import { succeededData } from '../support/build-events.js';

const RUN = 'fence-run';
const JOB = 'fruit:full:1';
const clock = () => steppingClock(Date.parse('2026-01-01T00:00:00.000Z'), 10);
const started = draft('JobStarted', { caseId: 'fruit', arm: 'full', repetition: 1, seed: 8 });
const reply = (callId: string) => draft('ProviderCallSucceeded', succeededData(callId));

function claim(worker: string, n: number) {
  return {
    id: `${RUN}/${JOB}/claim/${worker}/${n}/1`,
    runId: RUN,
    jobId: JOB,
    type: 'JobClaimed' as const,
    v: 1 as const,
    at: '2026-01-01T00:00:00.000Z',
    actor: `worker/${worker}`,
    data: { worker, delivery: n, resumedAfter: 0 },
  };
}

describe('scale-out: fenced journals and claims (embedded log)', () => {
  let dir: string;
  let log: FileEventLog;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalog-fence-'));
    log = await FileEventLog.open({ root: dir });
  });
  afterEach(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a fenced journal appends after its claim; once another worker claims, its next emit is refused and nothing lands', async () => {
    const first = await log.appendAfter(claim('w1', 1), { afterSeq: 0, writer: 'w1' });
    const j1 = Journal.live(log, RUN, { clock: clock(), fence: { writer: 'w1', afterSeq: new Map([[JOB, first.seq]]) } });
    await j1.scope(JOB).emit('job', started);
    await j1.scope(JOB).emit('job/worker', reply('worker/turn-1/attempt-1'));

    // w2 takes over after what it read: the claim lands after w1's second event.
    const { events } = await readJob(log, RUN, JOB);
    await log.appendAfter(claim('w2', 2), { afterSeq: events.at(-1)!.seq, writer: 'w2' });

    let refused: unknown;
    await j1
      .scope(JOB)
      .emit('job/worker', reply('worker/turn-2/attempt-1'))
      .catch((e) => (refused = e));
    expect(refused).to.be.instanceOf(FencedOffError);
    const after = (await readJob(log, RUN, JOB)).events.map((e) => e.type);
    expect(after).to.deep.equal(['JobClaimed', 'JobStarted', 'ProviderCallSucceeded', 'JobClaimed']);
  });

  it('a resumed journal skips claims when matching the record, so a takeover replays the same positions', async () => {
    const c1 = await log.appendAfter(claim('w1', 1), { afterSeq: 0, writer: 'w1' });
    const j1 = Journal.live(log, RUN, { clock: clock(), fence: { writer: 'w1', afterSeq: new Map([[JOB, c1.seq]]) } });
    const s = await j1.scope(JOB).emit('job', started);
    const c2 = await log.appendAfter(claim('w2', 2), { afterSeq: s.seq, writer: 'w2' });

    const { events } = await readJob(log, RUN, JOB);
    const j2 = Journal.resume(log, RUN, new Map([[JOB, events]]), {
      clock: clock(),
      fence: { writer: 'w2', afterSeq: new Map([[JOB, c2.seq]]) },
    });
    const again = await j2.scope(JOB).emit('job', started);
    expect(again.id, 'JobStarted keeps position 1 despite the claims around it').to.equal(s.id);
    const next = await j2.scope(JOB).emit('job/worker', reply('worker/turn-1/attempt-1'));
    expect(next.id).to.equal(`${RUN}/${JOB}/2`);
    // The recorded JobStarted was compared, not appended again; the next event was appended after w2's claim.
    expect((await readJob(log, RUN, JOB)).events.map((e) => [e.type, e.seq])).to.deep.equal([
      ['JobClaimed', c1.seq],
      ['JobStarted', s.seq],
      ['JobClaimed', c2.seq],
      ['ProviderCallSucceeded', next.seq],
    ]);
    expect(again).to.deep.equal(events.find((e) => e.type === 'JobStarted'));
  });

  it('job states: pending, running and done, and the workers that claimed jobs', async () => {
    const events = [
      { type: 'RunStarted', data: { jobs: [{}, {}, {}, {}] } },
      { type: 'JobClaimed', jobId: 'a', data: { worker: 'w2' } },
      { type: 'JobStarted', jobId: 'a', data: {} },
      { type: 'JobSucceeded', jobId: 'a', data: { passed: true } },
      { type: 'JobStarted', jobId: 'b', data: {} },
      { type: 'JobFailed', jobId: 'b', data: {} },
      { type: 'JobClaimed', jobId: 'c', data: { worker: 'w1' } },
      { type: 'JobClaimed', jobId: 'c', data: { worker: 'w2' } },
    ] as unknown as StoredEvent[];
    expect(await fold(jobStatesProjection, events)).to.deep.equal({ planned: 4, pending: 1, running: 1, succeeded: 1, failed: 1, workers: ['w1', 'w2'] });
  });

  it('causedBy finds a fence through causes and crashed-job lists', () => {
    const fenced = new FencedOffError('x', 3);
    expect(causedBy(new Error('wrapped', { cause: fenced }), FencedOffError)).to.equal(true);
    expect(causedBy(new JobsCrashedError([new Error('a'), fenced]), FencedOffError)).to.equal(true);
    expect(causedBy(new Error('other'), FencedOffError)).to.equal(false);
  });
});
