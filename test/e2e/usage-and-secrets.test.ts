import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listFiles, readJsonl, runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

/** What the test reads of an arm in summary.json. */
type SummaryArm = { tokens: { total: { unknown_calls: number } }; usage_complete: boolean; mean_total_tokens: number | null };
/** What the test reads of a row in rows.jsonl. */
type RowUsage = { usage: { total: { unknown_calls: number } } };

describe('usage that is not reported, and secrets (CLI against an external scripted server)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;
  before(async () => {
    tmp = await tempDir();
    server = await startMockServer(['--omit-usage', '0.4'], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it('counts calls without usage as unknown in usage.json and summary.json, never as zero; leaves no secret on disk', async () => {
    const secret = 'sk-test-SECRET';
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/u', '--model', 'evalog-scripted'], {
      cwd: tmp.dir,
      env: { OPENAI_API_KEY: secret, EVALOG_BASE_URL: server.url },
    });
    expect(r.code, r.stderr).to.equal(0);
    const dir = join(tmp.dir, 'runs/u');
    const usage = JSON.parse(await readFile(join(dir, 'usage.json'), 'utf8'));
    const without = usage.calls.filter((c: { outcome: string; usage: unknown }) => c.outcome === 'success' && c.usage === null).length;
    expect(without, 'the server omitted usage on some calls').to.be.greaterThan(0);
    expect(usage.report.usage.callsWithoutUsage).to.equal(without);
    expect(usage.report.usage.fields.totalTokens.unknownCalls).to.equal(without);
    expect(usage.report.usage.fields.totalTokens.knownCalls).to.equal(usage.calls.length - without);
    const knownSum = usage.calls.reduce((s: number, c: { usage: { totalTokens?: number } | null }) => s + (c.usage?.totalTokens ?? 0), 0);
    expect(usage.report.usage.fields.totalTokens.sum).to.equal(knownSum);
    expect(usage.report.billing).to.deep.equal({ status: 'unknown' });
    expect(usage.report.diagnostics).to.deep.equal({ conflictingCallIds: [] });

    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as { arms: Record<string, SummaryArm> };
    const unknownInSummary = Object.values(summary.arms).reduce((s, a) => s + a.tokens.total.unknown_calls, 0);
    expect(unknownInSummary).to.equal(without);
    for (const a of Object.values(summary.arms)) {
      if (a.tokens.total.unknown_calls > 0) {
        expect(a.usage_complete).to.equal(false);
        expect(a.mean_total_tokens).to.equal(null);
      }
    }
    const rows = await readJsonl<RowUsage>(join(dir, 'rows.jsonl'));
    expect(rows.reduce((s, row) => s + row.usage.total.unknown_calls, 0)).to.equal(without);

    // Secrets: neither the key nor the endpoint value reaches any byte of the run folder.
    const run = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    // The external server is evalog mock-server, which says so at GET /models: the run is labelled scripted.
    expect(run.model).to.deep.include({ baseUrlEnv: 'EVALOG_BASE_URL', apiKeyEnv: 'OPENAI_API_KEY', scripted: true });
    const hostPort = new URL(server.url).host;
    for (const f of await listFiles(dir)) {
      const bytes = await readFile(join(dir, f));
      expect(bytes.includes(secret), `${f} holds the API key`).to.equal(false);
      expect(bytes.includes(hostPort), `${f} holds the endpoint`).to.equal(false);
      expect(bytes.includes('Bearer'), `${f} holds an authorization header`).to.equal(false);
    }
    expect(r.stdout + r.stderr).to.not.include(secret);
  });
});

describe('secrets on runs with faults: errors, resets, rate limits and retries (CLI against an external scripted server)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;
  before(async () => {
    tmp = await tempDir();
    const faults = ['server_error:0.15', 'reset:0.1', 'rate_limit:0.08', 'malformed:0.05', 'empty_choices:0.05', 'truncated:0.05'];
    server = await startMockServer([...faults.flatMap((f) => ['--fault', f]), '--omit-usage', '0.2'], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it('failed attempts, their messages and their retries leave no key, endpoint or authorization header anywhere', async () => {
    const secret = 'sk-test-FAULTS-SECRET';
    const env = { OPENAI_API_KEY: secret, EVALOG_BASE_URL: server.url };
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/f', '--model', 'evalog-scripted', '--repetitions', '2', '--concurrency', '4'], {
      cwd: tmp.dir,
      env,
    });
    const dir = join(tmp.dir, 'runs/f');
    // A job whose attempts ran out is a row of the completed run, and the run exits 3 for it.
    const ranOut = (await readFile(join(dir, 'rows.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .some((l) => JSON.parse(l).status === 'failed');
    expect(r.code, r.stderr).to.equal(ranOut ? 3 : 0);
    // The faults did happen, and were retried: the scan below covers their recorded messages.
    const usage = JSON.parse(await readFile(join(dir, 'usage.json'), 'utf8'));
    const details = new Set(usage.calls.filter((c: { outcome: string }) => c.outcome !== 'success').map((c: { detail: string }) => c.detail));
    for (const kind of ['server_error', 'connection', 'rate_limited', 'malformed']) expect([...details], `a ${kind} failure`).to.include(kind);
    expect(
      usage.calls.some((c: { call_id: string }) => /attempt-[2-9]$/.test(c.call_id)),
      'a retried call',
    ).to.equal(true);
    expect(
      usage.calls.some((c: { outcome: string; usage: unknown }) => c.outcome === 'success' && c.usage === null),
      'a call without usage',
    ).to.equal(true);
    // Exported too, as a user would share it.
    const exported = await runEvalogHere(['export', 'runs/f', '--out', 'runs/f-export.jsonl'], { cwd: tmp.dir });
    expect(exported.code, exported.stderr).to.equal(0);

    const hostPort = new URL(server.url).host;
    const files = [...(await listFiles(dir)).map((f) => join(dir, f)), join(tmp.dir, 'runs/f-export.jsonl')];
    expect(
      files.some((f) => f.includes(`${join('log', 'blobs')}`)),
      'the request blobs are scanned',
    ).to.equal(true);
    for (const f of files) {
      const bytes = await readFile(f);
      expect(bytes.includes(secret), `${f} holds the API key`).to.equal(false);
      expect(bytes.includes(hostPort), `${f} holds the endpoint`).to.equal(false);
      expect(bytes.includes('Bearer'), `${f} holds an authorization header`).to.equal(false);
    }
    for (const out of [r.stdout + r.stderr, exported.stdout + exported.stderr]) {
      expect(out).to.not.include(secret);
      expect(out).to.not.include('Bearer');
    }
  });
});
