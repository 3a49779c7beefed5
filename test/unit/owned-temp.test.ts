// Temporary folders left by a killed evalog (agent workspaces, grader folders): which ones a later
// evalog removes, and which it must not.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { abandonedFolders, makeOwnedTemp, ownedPrefix, ownerGone, ownerOfName, placeOf, selfOwner, type FolderOwner } from '../../src/sandbox/owned-temp.js';
import { deadPid, tempDir } from '../support/cli.js';

const BASE = 'evalog-agent-';

describe('owned temporary folders (agent workspaces, grader folders): the owner in the name, and the sweep of those a killed evalog left', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (tmp = await tempDir('evalog-owner-test-')));
  afterEach(() => tmp.cleanup());

  /** A workspace folder as mkdtemp would name it for `owner`. */
  const folder = (owner: FolderOwner, suffix = 'aB3xYz') => {
    const name = `${ownedPrefix(BASE, owner)}${suffix}`;
    mkdirSync(join(tmp.dir, name));
    return name;
  };

  it('a name gives back the owner it was made for; other names give none', async () => {
    const me = await selfOwner();
    expect(me.pid).to.equal(process.pid);
    expect(ownerOfName(`${ownedPrefix(BASE, me)}Q1w2E3`, BASE)).to.deep.equal(me);
    const noStart: FolderOwner = { pid: 42, start: null, place: placeOf('h', null) };
    expect(ownerOfName(`${ownedPrefix(BASE, noStart)}Q1w2E3`, BASE)).to.deep.equal(noStart);
    for (const name of [
      'evalog-agent-Q1w2E3',
      'evalog-agent-0.1.abcdefabcdef-Q1w2E3',
      'evalog-agent-12.1.ABCDEF-Q1w2E3',
      `other-${ownedPrefix(BASE, me)}Q1w2E3`,
    ])
      expect(ownerOfName(name, BASE), name).to.equal(null);
    expect(placeOf('h', 'boot-1')).not.to.equal(placeOf('h', 'boot-2'));
    expect(placeOf('h1', 'boot')).not.to.equal(placeOf('h2', 'boot'));
  });

  it('lists a workspace whose owner exited; keeps a live owner, another host or boot, unnamed folders and other folders', async () => {
    const me = await selfOwner();
    const gone = deadPid();
    const dead = folder({ ...me, pid: gone, start: '1' });
    folder(me);
    folder({ ...me, pid: gone, place: placeOf('another-host', 'b') }, 'elsewh');
    mkdirSync(join(tmp.dir, 'evalog-agent-NoMark'));
    mkdirSync(join(tmp.dir, `not-a-${ownedPrefix(BASE, { ...me, pid: gone })}x1y2z3`));
    const listed = await abandonedFolders(tmp.dir, BASE);
    expect(listed).to.deep.equal([join(tmp.dir, dead)]);
  });

  it('a pid now another process is gone where the start time tells them apart (Linux); without it, kept', async () => {
    const me = await selfOwner();
    const parent: FolderOwner = { ...me, pid: process.ppid, start: '1' };
    if (me.start !== null) expect(await ownerGone(parent, me), 'the parent runs, but is not the owner').to.equal(true);
    expect(await ownerGone({ ...parent, start: null }, me), 'a running pid without a start time').to.equal(false);
    expect(await ownerGone(me, me), 'this process').to.equal(false);
  });

  it('makeOwnedTemp: a folder a SIGKILLed process made is removed by the next one of its kind; its own and other kinds stay', async () => {
    // A real process makes its folder, puts a file in it, and is killed before it can remove it.
    const module = fileURLToPath(new URL('../../src/sandbox/owned-temp.ts', import.meta.url));
    const script = join(tmp.dir, 'maker.mts');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';
import { makeOwnedTemp } from ${JSON.stringify(module)};
const dir = await makeOwnedTemp('evalog-kind-', process.argv[2]);
writeFileSync(dir + '/f', 'x');
process.stdout.write(dir);
process.kill(process.pid, 'SIGKILL');`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, tmp.dir], { encoding: 'utf8' });
    expect(child.signal, child.stderr).to.equal('SIGKILL');
    const left = child.stdout;
    expect(existsSync(join(left, 'f')), 'the killed process left its folder').to.equal(true);
    const other = await makeOwnedTemp('evalog-other-kind-', tmp.dir);
    const mine = await makeOwnedTemp('evalog-kind-', tmp.dir);
    expect(ownerOfName(basename(mine), 'evalog-kind-')).to.deep.equal(await selfOwner());
    expect(readdirSync(tmp.dir).sort()).to.deep.equal([basename(mine), basename(other), 'maker.mts'].sort());
  });
});
