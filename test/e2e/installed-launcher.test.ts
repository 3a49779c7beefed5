// bin/evalog.js as an installed evalog runs it: over dist/bundle/, which `npm run build` writes
// (npm ci runs it through `prepare`). The other e2e tests run a bundle of the sources made by the
// same bundler (test/support/compile.ts); this one checks the launcher and the build's own bundle:
// that it starts, and that manifests and package.json still resolve from inside it, in the checkout
// and in the package `npm pack` makes of it (package.json's "files": no sources, the plugins'
// manifests).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { sourcesHash } from '../../src/harness/orchestration/provenance.js';
import { PROJECT } from '../support/compile.js';
import { readJsonl, tempDir } from '../support/cli.js';

const BIN = join(PROJECT, 'bin', 'evalog.js');

describe('bin/evalog.js over the built bundle (dist/bundle/, child processes)', function () {
  this.timeout(60_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    // Not skipped: a checkout without a build cannot run the installed launcher, and says so.
    expect(existsSync(join(PROJECT, 'dist', 'bundle', 'evalog.js')), 'dist/bundle/evalog.js: run `npm run build` (npm ci does)').to.equal(true);
    tmp = await tempDir();
  });
  after(() => tmp?.cleanup());

  const evalog = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: tmp.dir, encoding: 'utf8' });

  it('--version prints package.json version (read relative to the bundled module)', () => {
    const r = evalog(['--version']);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout.trim()).to.equal(JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')).version);
  });

  it('runs the smoke suite (its manifest found from the bundle) and writes its rows', async () => {
    const r = evalog(['run', 'smoke', '--limit', '1', '--out', 'runs/a', '--quiet']);
    expect(r.status, r.stderr).to.equal(0);
    const rows = await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'));
    expect(rows.length).to.be.greaterThan(0);
    expect(rows.every((row) => row.verdict !== undefined)).to.equal(true);
    // The build recorded the hash of the sources it was built from (dist/source.sha256): the same
    // number a run from the sources records, read, not computed over dist/ at every run.
    const run = JSON.parse(readFileSync(join(tmp.dir, 'runs/a/run.json'), 'utf8'));
    expect(run.provenance.source_sha256, 'dist/ was built from other sources than src/: run `npm run build`').to.equal(sourcesHash(PROJECT));
  });

  it('runs a plugin suite (context-engineering, scripted) from the packed package, its manifests found from the bundle', async () => {
    // The package as npm would install it: what `npm pack` puts in the tarball (the dist/ just
    // checked, not built again), unpacked, with the repository's node_modules/ as its dependencies.
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.dir], { cwd: PROJECT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).to.equal(0);
    const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
    const untar = spawnSync('tar', ['-xzf', join(tmp.dir, filename), '-C', tmp.dir], { encoding: 'utf8' });
    expect(untar.status, untar.stderr).to.equal(0);
    const installed = join(tmp.dir, 'package');
    symlinkSync(join(PROJECT, 'node_modules'), join(installed, 'node_modules'));
    // The plugins ship as chunks of the bundle and their manifests, not as sources.
    expect(existsSync(join(installed, 'packages/suite-context-engineering/src')), 'packages/*/src is not shipped').to.equal(false);

    const r = spawnSync(process.execPath, [join(installed, 'bin', 'evalog.js'), 'run', 'context-engineering', '--out', 'runs/ce', '--quiet'], {
      cwd: tmp.dir,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).to.equal(0);
    const rows = await readJsonl(join(tmp.dir, 'runs/ce/rows.jsonl'));
    expect(rows.length).to.be.greaterThan(0);
    expect(rows.every((row) => row.success !== undefined)).to.equal(true);
    // run.json records the plugin's manifests as read from the installed package: the checkout's own files.
    const run = JSON.parse(readFileSync(join(tmp.dir, 'runs/ce/run.json'), 'utf8'));
    const cells = readFileSync(join(PROJECT, 'packages/suite-context-engineering/manifests/cells.v1.json'));
    expect(run.provenance.manifests['context-engineering/cells.v1.json']).to.equal(createHash('sha256').update(cells).digest('hex'));
  });
});
