// `evalog run context-snapshot --protocol-dir DIR`: the protocol read from a folder at run time
// (here the stand-in folder authored for evalog's tests, so --allow-unpinned), run end to end on
// the built-in scripted model in real child processes with real python3 grading its Python tasks.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from 'evalog';
import { listFiles, readJsonl, runEvalog, runKilledAfterJobs, tempDir } from '../../../../test/support/cli.js';

const STAND_IN = fileURLToPath(new URL('../../../../test/fixtures/context-snapshot-protocol/', import.meta.url));
const FILES = ['cases.py', 'prompts.py', 'config.json'] as const;
// The stand-in's cases, by name and kind (its cases.py, read here as the test's own list).
const CASES: Record<string, 'json' | 'python'> = {
  cache_settings: 'json',
  parcel_fee: 'python',
  duration_seconds: 'python',
  tag_list: 'python',
  backup_window: 'json',
  probe_config: 'json',
  export_defaults: 'json',
  mirror_policy: 'json',
};
// No endpoint of any kind: the built-in scripted model plays.
const NO_ENDPOINT = Object.fromEntries(
  [
    'CONTEXT_SNAPSHOT_BASE_URL',
    'CONTEXT_SNAPSHOT_MODEL',
    'CONTEXT_SNAPSHOT_API_KEY',
    'EVALOG_BASE_URL',
    'EVALOG_MODEL',
    'EVALOG_API_KEY',
    'OPENAI_API_KEY',
  ].map((k) => [k, undefined]),
);
const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('evalog run context-snapshot --protocol-dir (child processes, real python3)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let protocol: string;
  let hashes: Record<string, string>;

  before(async () => {
    tmp = await tempDir('evalog-cs-protocol-');
    protocol = join(tmp.dir, 'context_snapshot');
    await cp(STAND_IN, protocol, { recursive: true, filter: (src) => !src.includes('__pycache__') });
    hashes = Object.fromEntries(await Promise.all(FILES.map(async (f) => [f, await sha(join(protocol, f))] as const)));
  });
  after(() => tmp.cleanup());

  it("runs the folder's 16 jobs end to end: rows named by its cases, its settings in the config, and every output says unpinned protocol", async () => {
    const r = await runEvalog(['run', 'context-snapshot', '--protocol-dir', 'context_snapshot', '--allow-unpinned', '--out', 'runs/standin'], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/evalog: context-snapshot: unpinned protocol context-snapshot-standin-v1 from .*context_snapshot/);
    expect(r.stderr).to.include('16 jobs');
    const out = join(tmp.dir, 'runs/standin');

    const rows = await readJsonl<Record<string, unknown>>(join(out, 'rows.jsonl'));
    expect(rows.map((x) => `${x.case}/${x.arm}`).sort()).to.deep.equal(
      Object.keys(CASES)
        .flatMap((c) => [`${c}/isolated_handoff`, `${c}/snapshot`])
        .sort(),
    );
    for (const row of rows) {
      // Every job delegated, and its worker wrote, checked and reported: the protocol ran, whatever the verdicts.
      expect(row.error_type, String(row.job_id)).to.equal(null);
      expect(row.executor_status, String(row.job_id)).to.equal('completed');
      // The public check ran on the last revision: a JSON artifact with the brief's keys passes it (the
      // key set), a Python stub returning None fails it (the first check's call).
      expect(row.fresh_public_check, String(row.job_id)).to.equal(CASES[row.case as string] === 'json');
      expect(row.acceptance_criteria_added, String(row.job_id)).to.equal(false);
      // The scripted lead hands the snapshot arm the brief as written.
      expect(row.brief_policy_adhered, String(row.job_id)).to.equal(row.arm === 'snapshot' ? true : null);
    }
    // The briefs that state every value are passed by the generic play; the others, which keep their values in the history, are not.
    const passed = rows.filter((x) => x.artifact_correct === true).map((x) => x.case);
    expect([...new Set(passed)].sort()).to.deep.equal(['export_defaults', 'probe_config']);

    const run = JSON.parse(await readFile(join(out, 'run.json'), 'utf8'));
    expect(run.config.protocol).to.equal('context-snapshot-standin-v1');
    expect(run.config.protocolDir).to.equal(protocol);
    expect(run.config.allowUnpinned).to.equal(true);
    expect(run.config.protocolCases).to.deep.equal(CASES);
    expect(Object.fromEntries(run.config.protocolFiles.map((f: { file: string; sha256: string }) => [f.file, f.sha256]))).to.deep.equal(hashes);
    // The stand-in's config.json sets the run (its values as the stand-in gives them).
    expect(run.config.model).to.deep.equal({ temperature: 0.2, maxTokens: 4096, reasoningEffort: 'none' });
    expect([run.config.seed, run.config.orderSeed, run.config.concurrency, run.config.contextWindow]).to.deep.equal([1703, 20260913, 2, 262144]);
    expect(run.config.provider.timeoutMs).to.equal(120_000);
    expect(run.config.worker).to.deep.equal({ turnCap: 50, graphSteps: 50, timeLimitMs: 180_000 });
    const recorded = run.provenance.context_snapshot_protocol;
    expect(recorded).to.include({ id: 'context-snapshot-standin-v1', source: protocol, status: 'unpinned protocol' });
    for (const f of FILES) expect(recorded.files[f].sha256).to.equal(hashes[f]);
    expect(recorded.files['cases.py'].pinned).to.equal('624608366555415aaf4332c89dd645e65038fee2df9ec64ca1ba6f6b4e4fbd95');

    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'));
    expect(summary.protocol).to.equal('context-snapshot-standin-v1: unpinned protocol');
    expect(summary.isolated_handoff.n + summary.snapshot.n).to.equal(16);

    // Artifacts keep the kind's extension; every lead call forced the task tool.
    const artifacts = await listFiles(join(out, 'artifacts'));
    expect(artifacts).to.include.members(['parcel_fee/snapshot.1/artifact.py', 'cache_settings/snapshot.1/artifact.json']);
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
    const leadChoices: unknown[] = [];
    for await (const e of log.read('standin'))
      if (e.type === 'ProviderCallRequested' && e.data.attribution === 'main') leadChoices.push(e.data.params.tool_choice);
    await log.close();
    expect(leadChoices).to.have.length(16);
    for (const c of leadChoices) expect(c).to.deep.equal({ type: 'function', function: { name: 'task' } });
  });

  it('without --allow-unpinned refuses the folder (exit 2), naming the file and both hashes, with nothing written', async () => {
    const r = await runEvalog(['run', 'context-snapshot', '--protocol-dir', protocol, '--out', 'runs/refused'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include(join(protocol, 'cases.py'));
    expect(r.stderr).to.include(hashes['cases.py']);
    expect(r.stderr).to.include('624608366555415aaf4332c89dd645e65038fee2df9ec64ca1ba6f6b4e4fbd95');
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).not.to.match(/\n\s+at /);
    expect(await exists(join(tmp.dir, 'runs/refused'))).to.equal(false);
  });

  it('resume refuses once one byte of the folder changed (naming the file and both hashes), and finishes the run once it is back', async () => {
    const args = ['run', 'context-snapshot', '--protocol-dir', protocol, '--allow-unpinned', '--out', 'runs/killed'];
    const killed = await runKilledAfterJobs(args, { cwd: tmp.dir, env: NO_ENDPOINT }, 3);
    expect(killed.signal, 'the run was killed').to.equal('SIGKILL');

    const file = join(protocol, 'prompts.py');
    const original = await readFile(file);
    await writeFile(file, Buffer.concat([original, Buffer.from(' ')]));
    const changed = await sha(file);
    try {
      const refused = await runEvalog(['resume', 'runs/killed'], { cwd: tmp.dir, env: NO_ENDPOINT });
      expect(refused.code, refused.stderr).to.equal(2);
      expect(refused.stderr).to.include(file);
      expect(refused.stderr).to.include(changed);
      expect(refused.stderr).to.include(hashes['prompts.py']);
    } finally {
      await writeFile(file, original);
    }
    const resumed = await runEvalog(['resume', 'runs/killed'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(await readJsonl(join(tmp.dir, 'runs/killed/rows.jsonl'))).to.have.length(16);
  });
});
