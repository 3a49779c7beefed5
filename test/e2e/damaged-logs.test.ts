// Unfinished, read-only and damaged logs through the real CLI (child processes): replay reports an
// unfinished run and writes nothing; a missing or altered blob and a corrupt last frame are
// refused with exit 2 by every command that reads the run, on the file log and on JetStream.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog, runLogPaths } from '../../src/log/file/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { alterBlob, removeBlob } from '../support/blob-pack.js';
import { listFiles, runEvalog, runEvalogHere, tempDir, type CliResult } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

/** Byte offset of every frame of a log file, in order (frame i holds the event with seq i + 1). */
async function frameOffsets(file: string): Promise<number[]> {
  const bytes = await readFile(file);
  const out: number[] = [];
  for (let at = 8; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at)) out.push(at);
  return out;
}

async function eventsOf(root: string, runId: string): Promise<StoredEvent[]> {
  const log = await FileEventLog.open({ root, readOnly: true });
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  await log.close();
  return out;
}

/** Every file below `dir` with its size, mtime and sha256: what "nothing changed" means. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) {
    const s = await stat(join(dir, f));
    out[f] = `${s.size} ${s.mtimeMs} ${createHash('sha256')
      .update(await readFile(join(dir, f)))
      .digest('hex')}`;
  }
  return out;
}

/**
 * Makes a folder unwritable: chattr +i where it works (even root cannot write an immutable file or
 * create one in an immutable folder), else chmod a-w (enough for a user other than root).
 */
function lockDown(dir: string): () => void {
  if (spawnSync('chattr', ['-R', '+i', dir]).status === 0) return () => void spawnSync('chattr', ['-R', '-i', dir]);
  spawnSync('chmod', ['-R', 'a-w', dir]);
  return () => void spawnSync('chmod', ['-R', 'u+w', dir]);
}

const noStack = (r: CliResult) => expect(r.stderr + r.stdout, 'no stack trace').to.not.match(/\n\s+at /);

describe('damaged and unfinished logs (CLI, child processes)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let reference: string;
  let n = 0;

  before(async () => {
    tmp = await tempDir();
    const r = await runEvalog(['run', 'smoke', '--out', 'ref/run'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    reference = join(tmp.dir, 'ref');
  });
  after(() => tmp?.cleanup());

  /** A fresh copy of the reference run (same run id `run`) in its own root; returns the root. */
  async function copy(): Promise<string> {
    n += 1;
    const root = join(tmp.dir, `case-${n}`);
    await mkdir(root);
    await cp(reference, root, { recursive: true });
    return root;
  }

  it('replay of a log that ends just before RunCompleted: every event replayed, the run reported unfinished, exit 0', async () => {
    const root = await copy();
    const file = runLogPaths(root, 'run').events;
    const offsets = await frameOffsets(file);
    await truncate(file, offsets.at(-1)!);
    const r = await runEvalogHere(['replay', join(root, 'run')], { cwd: tmp.dir });
    expect(r.code, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.include(`replayed ${offsets.length - 1} events of run run: every event matches`);
    expect(r.stdout).to.match(/unfinished: its log ends before RunCompleted .*evalog resume/);
    noStack(r);
  });

  it('replay of a run cut mid-job writes nothing: no file in the folder changes (the folder made immutable too)', async () => {
    const root = await copy();
    const file = runLogPaths(root, 'run').events;
    const events = await eventsOf(root, 'run');
    // Cut just before the last request, and drop the blobs only it named (as if the crash came
    // before they were written): re-running that job computes the request and its new messages.
    const last = events.filter((e) => e.type === 'ProviderCallRequested').at(-1)!;
    await truncate(file, (await frameOffsets(file))[last.seq - 1]!);
    const kept = new Set(events.filter((e) => e.seq < last.seq).flatMap((e) => (e.type === 'ProviderCallRequested' ? e.data.messages : [])));
    const orphans = (last.type === 'ProviderCallRequested' ? last.data.messages : []).filter((h) => !kept.has(h));
    expect(orphans.length, 'the cut request named a new message').to.be.greaterThan(0);
    for (const h of orphans) await removeBlob(runLogPaths(root, 'run').dir, h);
    const before = await snapshot(root);
    // Any write now fails (EPERM or EACCES), besides showing up in the snapshot.
    const unlock = lockDown(join(root, 'run'));
    let r: CliResult;
    try {
      r = await runEvalogHere(['replay', join(root, 'run')], { cwd: tmp.dir });
    } finally {
      unlock();
    }
    expect(r.code, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.match(/every event matches \(16 jobs; [1-9]\d* jobs are unfinished/);
    noStack(r);
    expect(await snapshot(root)).to.deep.equal(before);
  });

  it('a log opened read-only creates no folder and refuses appends and blob writes', async () => {
    const root = join(tmp.dir, 'never-created');
    const log = await FileEventLog.open({ root, readOnly: true });
    const appended = await log.append(events1()).then(
      () => null,
      (e: Error) => e,
    );
    const put = await log
      .blobs('run')
      .put(Buffer.from('x'))
      .then(
        () => null,
        (e: Error) => e,
      );
    await log.close();
    expect(appended?.name).to.equal('ReadOnlyLogError');
    expect(put?.name).to.equal('ReadOnlyLogError');
    expect(
      await stat(root).then(
        () => true,
        () => false,
      ),
    ).to.equal(false);
  });

  for (const damage of ['missing', 'altered'] as const) {
    it(`a ${damage} blob: replay, rebuild, resume and watch exit 2 naming the blob and the event that references it`, async () => {
      const root = await copy();
      const events = await eventsOf(root, 'run');
      const first = events.find((e) => e.type === 'ProviderCallRequested')!;
      const hash = first.type === 'ProviderCallRequested' ? first.data.messages.at(-1)! : '';
      const referrer = events.find((e) => e.type === 'ProviderCallRequested' && e.data.messages.includes(hash))!;
      const logDir = runLogPaths(root, 'run').dir;
      if (damage === 'missing') await removeBlob(logDir, hash);
      else await alterBlob(logDir, hash);
      // Resume needs an unfinished run to get past "already complete".
      const file = runLogPaths(root, 'run').events;
      await truncate(file, (await frameOffsets(file)).at(-1)!);
      const dir = join(root, 'run');
      for (const args of [
        ['replay', dir],
        ['rebuild', dir, '--out', join(root, 'rebuilt')],
        ['resume', dir],
        ['watch', dir],
      ]) {
        const r = await runEvalog(args, { cwd: tmp.dir });
        expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).to.equal(2);
        expect(r.stderr, args[0])
          .to.include(`blob ${hash}`)
          .and.include(`event ${referrer.id}`)
          .and.include(damage === 'missing' ? 'missing' : 'altered');
        noStack(r);
      }
      expect(
        await stat(join(root, 'rebuilt')).then(
          () => true,
          () => false,
        ),
        'rebuild wrote nothing',
      ).to.equal(false);
    });
  }

  it('a corrupted last frame: replay, rebuild and resume refuse it with its offset (exit 2) and leave the log as it was', async () => {
    const root = await copy();
    const file = runLogPaths(root, 'run').events;
    const at = (await frameOffsets(file)).at(-1)!;
    const bytes = await readFile(file);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x20;
    await writeFile(file, bytes);
    const dir = join(root, 'run');
    for (const args of [
      ['replay', dir],
      ['rebuild', dir, '--out', join(root, 'rebuilt')],
      ['resume', dir],
    ]) {
      const r = await runEvalog(args, { cwd: tmp.dir });
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).to.equal(2);
      expect(r.stderr, args[0]).to.include(`damaged frame at byte ${at}`);
      noStack(r);
    }
    expect((await readFile(file)).equals(bytes), 'nothing was cut').to.equal(true);
    expect((await listFiles(join(dir, 'log'))).filter((f) => f.includes('.cut-'))).to.deep.equal([]);
  });

  it('rebuild whose default output folder cannot be created: exit 2 and a message naming it', async () => {
    const root = await copy();
    const dir = join(root, 'run');
    const unlock = lockDown(dir);
    try {
      const r = await runEvalogHere(['rebuild', dir], { cwd: tmp.dir });
      expect(r.code, r.stdout + r.stderr).to.equal(2);
      expect(r.stderr).to.include(join(dir, 'rebuilt'));
      noStack(r);
    } finally {
      unlock();
    }
  });

  describe('on JetStream', () => {
    let nats: NatsServerHandle;
    before(async () => {
      nats = await startNatsServer();
    });
    after(() => nats?.stop());

    for (const damage of ['missing', 'altered'] as const) {
      it(`a ${damage} blob in the KV bucket: replay, rebuild and watch exit 2 naming the blob and the event`, async () => {
        const runId = `js-${damage}`;
        const r = await runEvalog(['run', 'smoke', '--out', `runs/${runId}`, '--nats', nats.url], { cwd: tmp.dir });
        expect(r.code, r.stderr).to.equal(0);
        const log = await JetStreamEventLog.connect({ servers: nats.url });
        let referrer: StoredEvent | undefined;
        for await (const e of log.read(runId)) if (!referrer && e.type === 'ProviderCallRequested') referrer = e;
        await log.close();
        const hash = referrer!.type === 'ProviderCallRequested' ? referrer!.data.messages[0]! : '';
        const nc = await connect({ servers: nats.url });
        try {
          const kv = await new Kvm(jetstream(nc)).open('evalog-blobs');
          if (damage === 'missing') await kv.delete(`${runId}.${hash}`);
          else await kv.put(`${runId}.${hash}`, Buffer.from('{"role":"user","content":"edited"}'));
        } finally {
          await nc.close();
        }
        for (const args of [
          ['replay', runId],
          ['rebuild', runId, '--out', `rebuilt-${runId}`],
          ['watch', runId],
        ]) {
          const got = await runEvalog([...args, '--nats', nats.url], { cwd: tmp.dir });
          expect(got.code, `${args[0]}: ${got.stdout}${got.stderr}`).to.equal(2);
          expect(got.stderr, args[0]).to.include(`blob ${hash}`).and.include(`event ${referrer!.id}`).and.include(damage);
          noStack(got);
        }
      });
    }
  });
});

/** One well-formed event, for the refused append. */
function events1() {
  return [
    {
      id: 'run/_run/1',
      runId: 'run',
      type: 'RunCompleted',
      v: 1,
      at: '2026-01-01T00:00:00.000Z',
      actor: 'run',
      data: { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 },
    },
  ] as never;
}
