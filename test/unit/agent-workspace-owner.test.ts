// Workspaces left by a killed evalog: which ones a later evalog removes, and which it must not.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { abandonedWorkspaces, OWNER_FILE, ownerGone, selfOwner, type WorkspaceOwner } from '../../src/harness/external/workspace-owner.js';
import { tempDir } from '../support/cli.js';

/** The pid of a process that has exited (a pid is not handed out again at once). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('agent workspaces: the owner mark, and the sweep of those a killed evalog left', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => (tmp = await tempDir('evalog-owner-test-')));
  afterEach(() => tmp.cleanup());

  const folder = (name: string, owner?: unknown) => {
    mkdirSync(join(tmp.dir, name));
    if (owner !== undefined) writeFileSync(join(tmp.dir, name, OWNER_FILE), typeof owner === 'string' ? owner : JSON.stringify(owner));
  };

  it('lists a workspace whose owner exited; keeps a live owner, another host or boot, an unreadable or missing mark, and other folders', async () => {
    const me = await selfOwner();
    const gone = deadPid();
    folder('evalog-agent-dead', { ...me, pid: gone, start: '1' });
    folder('evalog-agent-live', me);
    folder('evalog-agent-elsewhere', { ...me, pid: gone, host: `${me.host}-other` });
    folder('evalog-agent-other-boot', { ...me, pid: gone, boot: 'another-boot' });
    folder('evalog-agent-no-mark');
    folder('evalog-agent-garbled', '{"pid":');
    folder('evalog-agent-bad-pid', { ...me, pid: -1 });
    folder('not-a-workspace', { ...me, pid: gone });
    const listed = await abandonedWorkspaces(tmp.dir, 'evalog-agent-');
    expect(listed).to.deep.equal([join(tmp.dir, 'evalog-agent-dead')]);
  });

  it('a pid now another process is gone where the start time tells them apart (Linux); without it, kept', async () => {
    const me = await selfOwner();
    const parent: WorkspaceOwner = { ...me, pid: process.ppid, start: 'not-its-start' };
    if (me.start !== null) expect(await ownerGone(parent, me), 'the parent runs, but is not the owner').to.equal(true);
    expect(await ownerGone({ ...parent, start: null }, me), 'a running pid without a start time').to.equal(false);
    expect(await ownerGone(me, me), 'this process').to.equal(false);
  });
});
