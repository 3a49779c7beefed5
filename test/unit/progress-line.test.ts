import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { StoredEvent } from '../../src/events/index.js';
import { useColor } from '../../src/cli/output-flags.js';
import { duration, progressLine } from '../../src/cli/progress-line.js';
import { PIPE_INTERVAL_MS, ProgressReporter } from '../../src/cli/progress.js';

const ev = (type: string, jobId: string | undefined, data: Record<string, unknown>) =>
  ({ seq: 0, type, ...(jobId ? { jobId } : {}), data }) as unknown as StoredEvent;

function sink(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  let text = '';
  const w = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY: boolean; text(): string };
  w.isTTY = isTTY;
  w.text = () => text;
  return w;
}

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

const PROGRESS = {
  planned: 100,
  queued: 0,
  running: 4,
  succeeded: 20,
  passed: 15,
  failed: 5,
  calls: 60,
  tokens: 1234,
  callsWithoutUsage: 2,
  retryWaits: { count: 0, longestMs: 0 },
};

describe('progress line: done/total, passed, errors, calls, tokens, elapsed, rate, ETA', () => {
  it('says everything in one line; the rate is of the jobs this command ended and gives the ETA', () => {
    expect(progressLine(PROGRESS, { elapsedMs: 10_000, endedHere: 25 }, false)).to.equal(
      '25/100 done · 15 passed · 5 errors · 60 calls · 1234 tokens (+2 calls with unknown usage) · 10s elapsed · 2.5 jobs/s · ETA 30s',
    );
    // A resume that found 25 done and has ended none yet knows no rate: no ETA is made up.
    expect(progressLine(PROGRESS, { elapsedMs: 10_000, endedHere: 0 }, false)).to.include('0.0 jobs/s · ETA --');
    expect(duration(3 * 60_000 + 5_000)).to.equal('3m05s');
    expect(duration(3_720_000)).to.equal('1h02m');
  });

  it('colours passed green and errors red only when asked', () => {
    const coloured = progressLine(PROGRESS, { elapsedMs: 1000, endedHere: 1 }, true);
    expect(coloured).to.include('\x1b[32m15 passed\x1b[0m').and.include('\x1b[31m5 errors\x1b[0m');
    expect(progressLine(PROGRESS, { elapsedMs: 1000, endedHere: 1 }, false)).to.not.include('\x1b[');
  });

  it('colour: on a terminal unless NO_COLOR; FORCE_COLOR turns it on anywhere, NO_COLOR wins', () => {
    expect(useColor(sink(true), {})).to.equal(true);
    expect(useColor(sink(false), {})).to.equal(false);
    expect(useColor(sink(true), { NO_COLOR: '1' })).to.equal(false);
    expect(useColor(sink(false), { FORCE_COLOR: '1' })).to.equal(true);
    expect(useColor(sink(false), { FORCE_COLOR: '0' })).to.equal(false);
    expect(useColor(sink(true), { NO_COLOR: '1', FORCE_COLOR: '1' })).to.equal(false);
  });
});

describe('ProgressReporter', () => {
  const run = (jobs: number) => ev('RunStarted', undefined, { jobs: Array.from({ length: jobs }, () => ({})) });
  const passed = (id: string) => ev('JobSucceeded', id, { passed: true });

  it('prints the line every 10 s of the injected clock and once at the end, never a line per job', () => {
    const c = clock();
    const out = sink(false);
    const p = new ProgressReporter(out, c.now, 60_000);
    p.onEvent(run(30));
    for (let i = 0; i < 30; i += 1) {
      p.onEvent(ev('JobStarted', `j${i}`, {}));
      c.advance(1_000);
      p.onEvent(passed(`j${i}`));
    }
    p.finish();
    const lines = out.text().trimEnd().split('\n');
    // 30 s of jobs: at 10, 20 and 30 s, then the last line.
    expect(lines).to.have.length(4);
    expect(lines[0]).to.match(/^10\/30 done · 10 passed · 0 errors · 0 calls · 0 tokens · 10s elapsed · 1\.0 jobs\/s · ETA 20s$/);
    expect(lines.at(-1)).to.match(/^30\/30 done · 30 passed .* ETA 0s$/);
    expect(out.text()).to.not.match(/^job /m);
    expect(PIPE_INTERVAL_MS).to.equal(10_000);
  });

  it('a run where no event comes still prints its line when due (a timer checks the injected clock)', async () => {
    const c = clock();
    const out = sink(false);
    const p = new ProgressReporter(out, c.now, 60_000, { intervalMs: 5 });
    p.onEvent(run(3));
    p.onEvent(ev('JobStarted', 'j0', {}));
    expect(out.text()).to.equal('');
    c.advance(5); // the run stalls: no event, only time passes
    for (let i = 0; i < 100 && out.text() === ''; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(out.text()).to.match(/^0\/3 done · 0 passed · 0 errors .* ETA/);
    p.finish();
    const printed = out.text();
    c.advance(50);
    await new Promise((r) => setTimeout(r, 30));
    expect(out.text(), 'finish stops the timer').to.equal(printed);
  });

  it('--verbose brings the per-job lines back; --quiet shows only errors; a resume folds its recorded past silently', () => {
    const c = clock();
    const verbose = sink(false);
    const v = new ProgressReporter(verbose, c.now, 60_000, { verbose: true });
    v.onEvent(run(3));
    v.onEvent(passed('old'), true);
    v.onEvent(passed('a'));
    v.onEvent(ev('JobFailed', 'b', { reason: 'provider_error' }));
    v.finish();
    expect(
      verbose
        .text()
        .split('\n')
        .filter((l) => l.startsWith('job ')),
    ).to.deep.equal(['job a passed', 'job b failed (provider_error)']);
    expect(verbose.text()).to.include('3/3 done · 2 passed · 1 errors');

    const quiet = sink(false);
    const q = new ProgressReporter(quiet, c.now, 60_000, { quiet: true });
    q.onEvent(run(2));
    c.advance(60_000);
    q.onEvent(passed('a'));
    q.onEvent(ev('JobFailed', 'b', { reason: 'provider_error' }));
    q.finish();
    expect(quiet.text()).to.equal('job b failed (provider_error)\n');
  });

  it('on a terminal: one rewritten line, with passed and errors', () => {
    const c = clock();
    const tty = sink(true);
    const p = new ProgressReporter(tty, c.now, 60_000, { color: false });
    p.onEvent(run(2));
    c.advance(1_000);
    p.onEvent(passed('a'));
    p.finish();
    expect(tty.text().indexOf('\n'), 'only the final newline').to.equal(tty.text().length - 1);
    const last = tty.text().split('\r').at(-1)!;
    expect(last.startsWith('\x1b[2K1/2 done · 1 passed · 0 errors'), last).to.equal(true);
    expect(last.endsWith(' · ETA 1s\n'), last).to.equal(true);
  });
});
