// The fixed job folder (job-folder.ts): the same path for the same run and job, empty when claimed,
// never held by two live processes, and what a gone process left taken over.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimJobFolder, jobFolderName, sweepJobFolders } from '../../src/harness/external/job-folder.js';
import { ownedPrefix, selfOwner } from '../../src/sandbox/owned-temp.js';
import { deadPid } from '../support/cli.js';

describe('fixed job folders of external agents', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-job-folder-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the folder from the run id and job id only', () => {
    expect(jobFolderName('r', 'j'))
      .to.equal(jobFolderName('r', 'j'))
      .and.match(/^evalog-job-[0-9a-f]{16}$/);
    expect(jobFolderName('r', 'j')).to.not.equal(jobFolderName('r', 'k'));
  });

  it('gives the same, empty path again after release, and removes it and its claim on release', async () => {
    const a = (await claimJobFolder('run', 'job', dir))!;
    writeFileSync(join(a.path, 'left'), 'x');
    await a.release();
    expect(readdirSync(dir)).to.deep.equal([]);
    const b = (await claimJobFolder('run', 'job', dir))!;
    expect(b.path).to.equal(a.path);
    expect(readdirSync(b.path)).to.deep.equal([]);
    await b.release();
  });

  it('is not given twice while held (in this process), and is given once released', async () => {
    const a = (await claimJobFolder('run', 'job', dir))!;
    expect(await claimJobFolder('run', 'job', dir)).to.equal(null);
    await a.release();
    const b = await claimJobFolder('run', 'job', dir);
    expect(b).to.not.equal(null);
    await b!.release();
  });

  it("is not given while a live process's claim is there, and takes over a gone process's folder and claim", async () => {
    const path = join(dir, jobFolderName('run', 'job'));
    const me = await selfOwner();
    // A live other process: this test's parent (alive while the test runs).
    const live = { ...me, pid: process.ppid, start: null };
    mkdirSync(`${path}.claims`, { recursive: true });
    writeFileSync(join(`${path}.claims`, `${ownedPrefix('claim-', live)}held`), '');
    expect(await claimJobFolder('run', 'job', dir)).to.equal(null);
    expect(readdirSync(`${path}.claims`), 'its own claim taken back').to.have.length(1);
    rmSync(`${path}.claims`, { recursive: true });

    const gone = { ...me, pid: deadPid() };
    mkdirSync(join(path, 'workspace'), { recursive: true });
    writeFileSync(join(path, 'workspace', 'old'), 'x');
    mkdirSync(`${path}.claims`);
    writeFileSync(join(`${path}.claims`, `${ownedPrefix('claim-', gone)}held`), '');
    const f = (await claimJobFolder('run', 'job', dir))!;
    expect(f).to.not.equal(null);
    expect(readdirSync(f.path), "the gone process's files removed").to.deep.equal([]);
    expect(readdirSync(`${path}.claims`)).to.deep.equal([`${ownedPrefix('claim-', me)}held`]);
    await f.release();
    expect(existsSync(path)).to.equal(false);
  });

  it("sweeping removes a gone process's folders and claims, and leaves a live one's", async () => {
    const me = await selfOwner();
    const plant = (name: string, pid: number) => {
      mkdirSync(join(dir, name, 'workspace'), { recursive: true });
      mkdirSync(join(dir, `${name}.claims`));
      writeFileSync(join(dir, `${name}.claims`, `${ownedPrefix('claim-', { ...me, pid, start: null })}held`), '');
    };
    plant(jobFolderName('run', 'gone'), deadPid());
    plant(jobFolderName('run', 'live'), process.ppid);
    await sweepJobFolders(dir);
    expect(readdirSync(dir).sort()).to.deep.equal([jobFolderName('run', 'live'), `${jobFolderName('run', 'live')}.claims`].sort());
  });

  it('processes claiming one path at once: never two of them', async () => {
    const done = join(dir, 'done');
    // Each holds what it got until every one has answered: the claims overlap.
    const script = `
      import { existsSync } from 'node:fs';
      import { claimJobFolder } from ${JSON.stringify(new URL('../../src/harness/external/job-folder.ts', import.meta.url).href)};
      const f = await claimJobFolder('run', 'job', ${JSON.stringify(dir)});
      process.stdout.write(f ? 'held\\n' : 'refused\\n');
      while (!existsSync(${JSON.stringify(done)})) await new Promise((r) => setTimeout(r, 20));
      await f?.release();`;
    const children = [1, 2, 3].map(() =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] }),
    );
    const answers = await Promise.all(
      children.map((c) => new Promise<string>((resolve) => c.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())))),
    );
    writeFileSync(done, '');
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('close', resolve))));
    expect(answers.filter((a) => a === 'held').length, answers.join(',')).to.be.at.most(1);
    expect(
      answers.every((a) => a === 'held' || a === 'refused'),
      answers.join(','),
    ).to.equal(true);
  });
});
