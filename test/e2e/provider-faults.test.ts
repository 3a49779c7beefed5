import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { deriveOutputs } from '../../src/projections/outputs.js';
import type { Row } from '../../src/projections/rows.js';
import { startScriptedModel, type FaultRule, type ScriptedModel } from '../../src/providers/scripted/index.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { scriptedPlayers, type SuiteConfigBase, suiteNamed } from '../../src/app/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';
import { tempDir } from '../support/cli.js';

// One fault per request kind, each aimed at a distinct request by what its last message says,
// and injected once (or three times, to exhaust the retry budget). Tool results are matched
// whole (anchored), so the catalog lines of a parent's task never match.
const FAULTS: FaultRule[] = [
  { kind: 'rate_limit', match: 'Task fruit_basket', times: 1, retryAfterSeconds: 1 },
  { kind: 'server_error', match: 'Task office_supplies', times: 1, status: 503 },
  { kind: 'reset', match: 'Task hardware_run', times: 1 },
  { kind: 'timeout', match: 'Task bakery_order', times: 1 },
  { kind: 'malformed', match: /^PRICE apple=\d+\.\d\d$/, times: 1 },
  { kind: 'empty_choices', match: /^PRICE stapler=\d+\.\d\d$/, times: 1 },
  { kind: 'truncated', match: /^PRICE hammer=\d+\.\d\d$/, times: 1 },
  { kind: 'no_usage', match: /^PRICE bagel=\d+\.\d\d$/, times: 1 },
  { kind: 'server_error', match: /^PRICE nails=\d+\.\d\d$/, times: 3, status: 500 },
];

describe('provider faults through a run (real scripted server, real openai client)', function () {
  this.timeout(120_000);
  let server: ScriptedModel;
  let events: StoredEvent[];
  let outputs: Awaited<ReturnType<typeof deriveOutputs>>;

  before(async () => {
    server = await startScriptedModel({ players: [...scriptedPlayers()], faults: FAULTS, timeoutCapMs: 3000 });
    const tmp = await tempDir();
    const log = await FileEventLog.open({ root: tmp.dir });
    const config: SuiteConfigBase = {
      ...smokeSuite.defaults(),
      repetitions: 1,
      concurrency: 1,
      provider: { timeoutMs: 500, maxAttempts: 3, backoffMs: 10, maxBackoffMs: 50 },
    };
    const endpoint = { scripted: false as const, baseURL: server.url, apiKey: 'k', model: 'evalog-scripted', baseUrlEnv: 'TEST', apiKeyEnv: null };
    const suite = await smokeSuite.configure(config).prepare();
    const started = planRun(suite, endpoint);
    const out = await executeRun({ players: scriptedPlayers(), suite, log, runId: 'faults', started, endpoint });
    expect(out.status).to.equal('completed');
    events = [];
    for await (const e of log.read('faults')) events.push(e);
    outputs = await deriveOutputs('faults', events, suiteNamed, undefined);
    await log.close();
    await tmp.cleanup();
  });
  after(() => server?.close());

  const failures = () => events.filter((e): e is Extract<StoredEvent, { type: 'ProviderCallFailed' }> => e.type === 'ProviderCallFailed');

  it('records each fault as its own outcome kind, with the HTTP status where there is one', () => {
    const kinds = failures()
      .map((f) => f.data.kind)
      .sort();
    expect(kinds).to.deep.equal([
      'connection',
      'empty_choices',
      'malformed',
      'rate_limited',
      'server_error',
      'server_error',
      'server_error',
      'server_error',
      'timeout',
    ]);
    const rate = failures().find((f) => f.data.kind === 'rate_limited')!;
    expect(rate.data).to.deep.include({ status: 429, retryAfterMs: 1000, retryable: true });
    expect(
      failures()
        .filter((f) => f.data.kind === 'server_error')
        .map((f) => f.data.status)
        .sort(),
    ).to.deep.equal([500, 500, 500, 503]);
  });

  it('retries as new calls (attempt n, retryOf) and honours retry-after', () => {
    for (const f of failures()) {
      const retry = events.find((e) => e.type === 'ProviderCallRequested' && e.jobId === f.jobId && e.data.retryOf === f.data.callId);
      const exhausted = f.data.callId.endsWith('attempt-3');
      if (exhausted) {
        expect(retry, `${f.data.callId} is the last attempt`).to.equal(undefined);
        continue;
      }
      expect(retry, `retry of ${f.data.callId}`).to.not.equal(undefined);
      if (retry?.type !== 'ProviderCallRequested') continue;
      expect(retry.data.callId).to.equal(f.data.callId.replace(/attempt-(\d+)$/, (_, n) => `attempt-${Number(n) + 1}`));
      if (f.data.kind === 'rate_limited') expect(Date.parse(retry.at) - Date.parse(f.at)).to.be.at.least(1000);
    }
  });

  it('fails the job with a recorded reason when the attempts run out', () => {
    const rows = outputs.rows as unknown as Row[];
    const failed = rows.filter((r) => r.status === 'failed');
    expect(failed.map((r) => [r.case_id, r.failure?.reason])).to.deep.equal([['hardware_run', 'provider_failed']]);
    const other = rows.filter((r) => r.status !== 'failed');
    expect(other.every((r) => r.status === 'succeeded')).to.equal(true);
  });

  it('records a truncated reply as a success with finish reason "length"', () => {
    const truncated = events.filter((e) => e.type === 'ProviderCallSucceeded' && e.data.finishReason === 'length');
    expect(truncated).to.have.length(1);
    expect(outputs.usage.calls.filter((c) => c.detail === 'length')).to.have.length(1);
  });

  it('usage.json: unknown counts equal the calls without usage; failed calls are listed apart', () => {
    const calls = outputs.usage.calls;
    const withoutUsage = calls.filter((c) => c.usage === null).length;
    const noUsageSuccesses = calls.filter((c) => c.outcome === 'success' && c.usage === null).length;
    expect(noUsageSuccesses).to.equal(1);
    const r = outputs.usage.report;
    expect(r.usage.callsWithoutUsage).to.equal(withoutUsage);
    expect(r.usage.fields.totalTokens.unknownCalls).to.equal(withoutUsage);
    expect(r.failed.calls).to.equal(failures().length);
    expect(r.failed.outcomes.failure).to.equal(failures().length);
    expect(r.calls).to.equal(events.filter((e) => e.type === 'ProviderCallRequested').length);
    const byAttr = Object.values(r.byAttribution).reduce((s, t) => s + t.calls, 0);
    expect(byAttr).to.equal(r.calls);
    // Spec shape: billing unknown at every level (no provider billing facts), no conflicting call ids.
    expect(r.billing).to.deep.equal({ status: 'unknown' });
    expect(r.failed.billing).to.deep.equal({ status: 'unknown' });
    expect(r.failed.usage.callsWithoutUsage, 'failed attempts carry no usage: unknown, not zero').to.equal(failures().length);
    expect(r.failed.usage.fields.totalTokens).to.deep.equal({ sum: null, knownCalls: 0, unknownCalls: failures().length });
    expect(r.diagnostics).to.deep.equal({ conflictingCallIds: [] });
  });
});
