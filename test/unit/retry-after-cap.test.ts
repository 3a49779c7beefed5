// Retry-After is honoured up to provider.maxRetryAfterMs (default 60 s, recorded in the config);
// a longer one is not waited for, and the progress display says which it was.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { ProgressReporter } from '../../src/cli/progress.js';
import type { DataOf, StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { deriveOutputs } from '../../src/projections/outputs.js';
import { nextProviderStep, type ProviderState } from '../../src/harness/provider/logic.js';
import { startScriptedModel, type ScriptedModel } from '../../src/providers/scripted/index.js';
import { ConfigError, resolveConfig } from '../../src/harness/orchestration/config.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { scriptedPlayers, suiteNamed } from '../../src/app/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';

const site = { actor: 'job/j/parent', name: 'parent/turn-1', attribution: 'main' as const };
const policy = { maxAttempts: 3, backoffMs: 200, maxBackoffMs: 2_000, timeoutMs: 1_000 };

function rateLimited(retryAfterMs: number | null): ProviderState {
  const data: Omit<DataOf<'ProviderCallFailed'>, 'callId'> = {
    kind: 'rate_limited',
    status: 429,
    retryAfterMs,
    message: 'rate limited (429)',
    retryable: true,
    latencyMs: 3,
  };
  return { attempts: 1, counted: 1, lastCallId: 'parent/turn-1/attempt-1', outcome: { ok: false, data: { callId: 'parent/turn-1/attempt-1', ...data } } };
}

const delayOf = (state: ProviderState, p: Parameters<typeof nextProviderStep>[2]) => {
  const step = nextProviderStep(state, site, p);
  if (step.type !== 'attempt') throw new Error('expected another attempt');
  return step.delayMs;
};

/** A stream that keeps what is written to it, as a terminal or as a pipe. */
/** The 429 of call `c` in job j1 that asks to wait `retryAfterMs`, as the progress line sees it. */
const rateLimitedEvent = (retryAfterMs: number) =>
  ev('ProviderCallFailed', 'j1', { callId: 'c/attempt-1', kind: 'rate_limited', status: 429, retryAfterMs, message: '', retryable: true, latencyMs: 1 });

function sink(tty: boolean): Writable & { isTTY?: boolean; text: () => string } {
  let text = '';
  const w = new Writable({
    write: (chunk, _enc, done) => {
      text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY?: boolean; text: () => string };
  w.isTTY = tty;
  w.text = () => text;
  return w;
}

function ev(type: string, jobId: string, data: Record<string, unknown>): StoredEvent {
  return { id: `r/${jobId}/${type}`, runId: 'r', jobId, type, v: 1, at: '2025-01-01T00:00:00.000Z', actor: 'a', seq: 1, data } as unknown as StoredEvent;
}

describe('Retry-After cap: provider.maxRetryAfterMs', () => {
  it('waits a Retry-After up to the cap, above the backoff cap too', () => {
    expect(delayOf(rateLimited(30_000), { ...policy, maxRetryAfterMs: 60_000 })).to.equal(30_000);
    expect(delayOf(rateLimited(60_000), { ...policy, maxRetryAfterMs: 60_000 })).to.equal(60_000);
    expect(delayOf(rateLimited(null), { ...policy, maxRetryAfterMs: 60_000 })).to.equal(200);
  });

  it('does not wait a Retry-After beyond the cap: the normal backoff goes on, and the retry limit ends the call', () => {
    expect(delayOf(rateLimited(3_600_000), { ...policy, maxRetryAfterMs: 60_000 })).to.equal(200);
    expect(delayOf(rateLimited(10_000), { ...policy, maxRetryAfterMs: 5_000 })).to.equal(200);
    const spent = { ...rateLimited(3_600_000), attempts: 3, counted: 3 };
    expect(nextProviderStep(spent, site, { ...policy, maxRetryAfterMs: 60_000 }).type).to.equal('done');
  });

  it('defaults to 60 s for a policy recorded before the setting existed', () => {
    expect(delayOf(rateLimited(59_000), policy)).to.equal(59_000);
    expect(delayOf(rateLimited(61_000), policy)).to.equal(200);
  });

  it('is in every resolved config (so run.json records it), set from a config file, and a bad value names the field', async () => {
    const suite = smokeSuite;
    expect((await resolveConfig(suite, undefined, {})).config.provider.maxRetryAfterMs).to.equal(60_000);
    const dir = await mkdtemp(join(tmpdir(), 'evalog-cap-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ provider: { maxRetryAfterMs: 5_000 } }));
      expect((await resolveConfig(suite, file, {})).config.provider.maxRetryAfterMs).to.equal(5_000);
      await writeFile(file, JSON.stringify({ provider: { maxRetryAfterMs: -1 } }));
      expect(
        await resolveConfig(suite, file, {}).then(
          () => null,
          (e: unknown) => e,
        ),
      )
        .to.be.instanceOf(ConfigError)
        .and.match(/provider\.maxRetryAfterMs/)
        .and.match(new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the progress line shows a wait while it lasts, and a pipe gets one line per wait, saying when one is above the cap', () => {
    const now = (() => {
      let t = 0;
      return () => (t += 1_000);
    })();
    const tty = sink(true);
    const p = new ProgressReporter(tty, now, 60_000);
    p.onEvent(rateLimitedEvent(30_000));
    expect(tty.text().split('\r').at(-1)).to.include('1 waiting on Retry-After (up to 30 s)');
    p.onEvent(
      ev('ProviderCallRequested', 'j1', {
        callId: 'c/attempt-2',
        attempt: 2,
        retryOf: 'c/attempt-1',
        attribution: 'main',
        model: 'm',
        messages: [],
        tools: [],
        params: {},
      }),
    );
    expect(tty.text().split('\r').at(-1)).to.not.include('Retry-After');

    const pipe = sink(false);
    const q = new ProgressReporter(pipe, now, 60_000);
    q.onEvent(rateLimitedEvent(30_000));
    q.onEvent(
      ev('ProviderCallFailed', 'j2', {
        callId: 'c/attempt-1',
        kind: 'rate_limited',
        status: 429,
        retryAfterMs: 3_600_000,
        message: '',
        retryable: true,
        latencyMs: 1,
      }),
    );
    // A replayed failure (resume) was waited for already and says nothing.
    q.onEvent(
      ev('ProviderCallFailed', 'j3', {
        callId: 'c/attempt-1',
        kind: 'rate_limited',
        status: 429,
        retryAfterMs: 30_000,
        message: '',
        retryable: true,
        latencyMs: 1,
      }),
      true,
    );
    expect(pipe.text().split('\n').filter(Boolean)).to.deep.equal([
      'job j1: rate limited; waiting 30 s (Retry-After) before the next attempt',
      'job j2: rate limited; Retry-After 3600 s is above provider.maxRetryAfterMs (60 s): not waited for; the normal backoff and retry limit go on',
    ]);
  });
});

describe('Retry-After cap through a run (real scripted server sending Retry-After: 3600)', function () {
  this.timeout(120_000);
  let server: ScriptedModel;
  before(async () => {
    server = await startScriptedModel({
      players: [...scriptedPlayers()],
      faults: [{ kind: 'rate_limit', match: 'Task fruit_basket', times: 1, retryAfterSeconds: 3600 }],
    });
  });
  after(() => server?.close());

  it('the run does not wait an hour: the rate-limited attempt is retried on the backoff and the job ends; run.json records the cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalog-cap-run-'));
    const log = await FileEventLog.open({ root: dir });
    try {
      const suite = smokeSuite;
      const prepared = await resolveConfig(suite, undefined, { repetitions: 1, concurrency: 2 });
      const endpoint = { scripted: false as const, baseURL: server.url, apiKey: 'k', model: 'evalog-scripted', baseUrlEnv: 'TEST', apiKeyEnv: null };
      // The real sleep: with Retry-After honoured unbounded this run would wait 3600 s and time out.
      const out = await executeRun({ players: scriptedPlayers(), suite: prepared, log, runId: 'cap', started: planRun(prepared, endpoint), endpoint });
      expect(out.status).to.equal('completed');
      const events: StoredEvent[] = [];
      for await (const e of log.read('cap')) events.push(e);
      const failed = events.filter((e): e is Extract<StoredEvent, { type: 'ProviderCallFailed' }> => e.type === 'ProviderCallFailed');
      expect(failed.map((f) => [f.data.kind, f.data.retryAfterMs])).to.deep.equal([['rate_limited', 3_600_000]]);
      const retry = events.find((e) => e.type === 'ProviderCallRequested' && e.data.retryOf === failed[0]!.data.callId);
      expect(retry, 'the attempt was retried').to.not.equal(undefined);
      const outputs = await deriveOutputs('cap', events, suiteNamed, undefined);
      expect((outputs.run as unknown as { config: { provider: Record<string, unknown> } }).config.provider.maxRetryAfterMs).to.equal(60_000);
    } finally {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
