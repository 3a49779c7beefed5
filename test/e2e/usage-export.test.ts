import { expect } from 'chai';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { exportCommand } from '../../src/cli/export.js';
import { EXIT, InputError, type CliIO, type Command } from '../../src/cli/io.js';
import { usageCommand } from '../../src/cli/usage.js';
import { canonicalJson } from '../../src/core/canonical.js';
import type { UsageFile, UsageReport } from '../../src/projections/usage/index.js';
import { compressFrame, decompressFrames } from '../../src/usage-input/index.js';
import { runEvalog, tempDir } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

// `evalog run smoke` in a child process, then `evalog export` and `evalog usage` on the export:
// the report equals the run's own usage.json report. The two commands run in-process (as runCli
// would run them) and, once main.ts lists them, also as child processes.

/** What `evalog usage` prints. */
type UsageOutput = { files: string[]; report: UsageReport };

/** Runs a command in-process as runCli does: an InputError is printed and gives exit code 2. */
async function runIn(command: Command, args: string[], cwd: string, env: CliIO['env'] = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (d: Buffer) => out.push(d));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  let code: number;
  try {
    code = await command.run(args, { stdout, stderr, env, cwd });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    stderr.write(`${e.message}\n`);
    code = EXIT.badInput;
  }
  await new Promise((r) => setImmediate(r));
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: err };
}

async function usageReport(cwd: string, files: string[]): Promise<UsageOutput> {
  const r = await runIn(usageCommand, files, cwd);
  expect(r.code, r.stderr).to.equal(EXIT.ok);
  return JSON.parse(r.stdout);
}

describe('evalog export and evalog usage on a real run', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let usageJson: UsageFile;
  before(async () => {
    tmp = await tempDir('evalog-usage-e2e-');
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/s'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    usageJson = JSON.parse(await readFile(join(tmp.dir, 'runs/s/usage.json'), 'utf8'));
  });
  after(() => tmp.cleanup());

  it('usage.json has the spec report shape', () => {
    const rep = usageJson.report;
    expect(rep).to.have.all.keys('schemaVersion', 'calls', 'outcomes', 'usage', 'billing', 'failed', 'byAttribution', 'diagnostics');
    expect(rep.failed).to.have.all.keys('calls', 'outcomes', 'usage', 'billing');
    expect(rep.billing).to.deep.equal({ status: 'unknown' });
    expect(rep.diagnostics).to.deep.equal({ conflictingCallIds: [] });
    expect(rep.calls).to.equal(usageJson.calls.length).and.be.greaterThan(0);
  });

  it('export to stdout: one canonical JSON event per line with its seq, in log order', async () => {
    const r = await runIn(exportCommand, ['runs/s'], tmp.dir);
    expect(r.code, r.stderr).to.equal(EXIT.ok);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).to.equal('');
    const events = lines.map((l) => JSON.parse(l));
    for (const [i, l] of lines.entries()) expect(canonicalJson(JSON.parse(l)), `line ${i + 1}`).to.equal(l);
    expect(events[0].type).to.equal('RunStarted');
    expect(events.every((e) => Number.isInteger(e.seq))).to.equal(true);
    for (let i = 1; i < events.length; i += 1) expect(events[i].seq).to.be.greaterThan(events[i - 1].seq);
    expect(events.filter((e) => e.type === 'ProviderCallRequested')).to.have.length(usageJson.calls.length);
    await writeFile(join(tmp.dir, 'stdout.jsonl'), r.stdout);
  });

  for (const name of ['exports/s.jsonl', 'exports/s.jsonl.zst']) {
    it(`export --out ${name}, then usage on it, gives the run's usage.json report`, async () => {
      const r = await runIn(exportCommand, ['runs/s', '--out', name], tmp.dir);
      expect(r.code, r.stderr).to.equal(EXIT.ok);
      expect(r.stdout).to.match(/^exported \d+ events of run s to /);
      const bytes = await readFile(join(tmp.dir, name));
      const text = name.endsWith('.zst') ? Buffer.from(decompressFrames(bytes)).toString('utf8') : bytes.toString('utf8');
      expect(text).to.equal(await readFile(join(tmp.dir, 'stdout.jsonl'), 'utf8'));
      const out = await usageReport(tmp.dir, [name]);
      expect(out.files).to.deep.equal([join(tmp.dir, name)]);
      expect(out.report).to.deep.equal(usageJson.report);
    });
  }

  it('export refuses an existing --out file and leaves it untouched; no temp file is left behind', async () => {
    const before = await readFile(join(tmp.dir, 'exports/s.jsonl'));
    const r = await runIn(exportCommand, ['runs/s', '--out', 'exports/s.jsonl'], tmp.dir);
    expect(r.code).to.equal(EXIT.badInput);
    expect(r.stderr).to.match(/exists already/);
    expect((await readFile(join(tmp.dir, 'exports/s.jsonl'))).equals(before)).to.equal(true);
    expect((await readdir(join(tmp.dir, 'exports'))).sort()).to.deep.equal(['s.jsonl', 's.jsonl.zst']);
  });

  it('export refuses other --out names, a folder without a log, and a missing run name', async () => {
    for (const args of [['runs/s', '--out', 'x.json'], ['runs/s', '--out', 'x.jsonl.gz'], ['runs/nope'], [], ['runs/s', 'runs/s']]) {
      const r = await runIn(exportCommand, args, tmp.dir);
      expect(r.code, args.join(' ')).to.equal(EXIT.badInput);
      expect(r.stderr).to.match(/evalog export/);
    }
  });

  it('the export and a DSH session log together: calls of both, attributed apart', async () => {
    const header = { type: 'session', version: 3, id: 'dsh-1', createdAt: 1, isSeeded: false, delegationDepth: 0 };
    const rows = [
      { type: 'request/context', seq: 0, time: 1, data: { provider: 'deepseek', model: 'deepseek-chat' } },
      {
        type: 'assistant/message',
        seq: 1,
        time: 2,
        data: {
          turn: 1,
          step: 0,
          stream: [
            { type: 'chunk', time: 2, chunk: { type: 'usage', usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } } },
            { type: 'chunk', time: 3, chunk: { type: 'finish', reason: { kind: 'stop' } } },
          ],
        },
      },
    ];
    const text = [header, ...rows].map((v) => `${JSON.stringify(v)}\n`).join('');
    const half = Math.floor(text.length / 2);
    await mkdir(join(tmp.dir, 'dsh'), { recursive: true });
    await writeFile(
      join(tmp.dir, 'dsh/session.jsonl.zstd'),
      Buffer.concat([await compressFrame(Buffer.from(text.slice(0, half))), await compressFrame(Buffer.from(text.slice(half)))]),
    );
    const out = await usageReport(tmp.dir, ['--input', 'exports/s.jsonl.zst', '--input', 'dsh/session.jsonl.zstd', 'exports/s.jsonl']);
    const run = usageJson.report;
    expect(out.files).to.have.length(3);
    expect(out.report.calls).to.equal(run.calls + 1);
    expect(out.report.byAttribution.main.calls).to.equal(run.byAttribution.main.calls + 1);
    expect(out.report.byAttribution.child).to.deep.equal(run.byAttribution.child);
    expect(out.report.usage.fields.totalTokens).to.deep.equal({
      sum: (run.usage.fields.totalTokens.sum ?? 0) + 10,
      knownCalls: run.usage.fields.totalTokens.knownCalls + 1,
      unknownCalls: run.usage.fields.totalTokens.unknownCalls,
    });
    expect(out.report.diagnostics.conflictingCallIds).to.deep.equal([]);
  });

  it('as child processes: export then usage, exit 2 on a bad file', async () => {
    const e = await runEvalog(['export', 'runs/s', '--out', 'exports/child.jsonl.zst'], { cwd: tmp.dir });
    expect(e.code, e.stderr).to.equal(0);
    const u = await runEvalog(['usage', '--input', 'exports/child.jsonl.zst'], { cwd: tmp.dir });
    expect(u.code, u.stderr).to.equal(0);
    expect(JSON.parse(u.stdout).report).to.deep.equal(usageJson.report);
    await writeFile(join(tmp.dir, 'broken.jsonl'), '{"type":"session","version":3,"id":"x","createdAt":1,"isSeeded":false}\n{oops\n');
    const bad = await runEvalog(['usage', 'broken.jsonl'], { cwd: tmp.dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('broken.jsonl line 2:');
  });
});

describe('evalog export from the JetStream log', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;
  before(async () => {
    tmp = await tempDir('evalog-usage-nats-');
    nats = await startNatsServer();
  });
  after(async () => {
    await nats?.stop();
    await tmp.cleanup();
  });

  it('a run on NATS, exported by run id with --nats, gives its usage.json report', async () => {
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/n', '--nats', nats.url], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const usageJson = JSON.parse(await readFile(join(tmp.dir, 'runs/n/usage.json'), 'utf8'));
    const e = await runIn(exportCommand, ['n', '--nats', nats.url, '--out', 'n.jsonl.zst'], tmp.dir);
    expect(e.code, e.stderr).to.equal(EXIT.ok);
    const out = await usageReport(tmp.dir, ['n.jsonl.zst']);
    expect(out.report).to.deep.equal(usageJson.report);
    const missing = await runIn(exportCommand, ['no-such-run', '--nats', nats.url], tmp.dir);
    expect(missing.code).to.equal(EXIT.badInput);
    expect(missing.stderr).to.match(/has no events/);
  });
});
