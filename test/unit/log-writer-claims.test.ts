// The run's writer lock as both logs take it (claimWriter, before any effect), and what runs()
// makes of it: a started run whose writer is gone is interrupted, a damaged one is listed with its
// error while the others are still listed.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Kvm } from '@nats-io/kv';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { FileEventLog, LogLockedError, LogNotWritableError, runLogPaths } from '../../src/log/index.js';
import { JetStreamEventLog, type JetStreamLogOptions } from '../../src/log/jetstream/index.js';
import { tempDir } from '../support/cli.js';
import { runCompleted, runStarted } from '../support/events.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** `evalog ARGS` in this process, with its output. */
async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await runCli(args, { stdout, stderr, env: {}, cwd });
  return { code, stdout: out, stderr: err };
}

describe('writer claims and run statuses: file log', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let root: string;
  beforeEach(async () => {
    tmp = await tempDir();
    root = join(tmp.dir, 'runs');
    await mkdir(root);
  });
  afterEach(() => tmp.cleanup());

  it('claimWriter holds the lock before any append; a second log is refused naming this pid; close frees it', async () => {
    const a = await FileEventLog.open({ root });
    const b = await FileEventLog.open({ root });
    try {
      await a.claimWriter('r1');
      await a.claimWriter('r1'); // idempotent
      expect(await readFile(runLogPaths(root, 'r1').lock, 'utf8')).to.equal(`${process.pid}\n${hostname()}\n`);
      const e = await rejection(b.claimWriter('r1'));
      expect(e).to.be.instanceOf(LogLockedError);
      expect((e as Error).message).to.include(String(process.pid));
      await a.close();
      await b.claimWriter('r1');
    } finally {
      await a.close();
      await b.close();
    }
  });

  /** Makes `file` unwritable (chattr +i as root, else chmod 444) and expects claimWriter to refuse naming it. */
  async function expectClaimRefused(ctx: Mocha.Context, runId: string, file: string): Promise<void> {
    const root0 = process.getuid?.() === 0;
    if (root0) {
      if (spawnSync('chattr', ['+i', file]).status !== 0) ctx.skip(); // root without CAP_LINUX_IMMUTABLE
    } else {
      await chmod(file, 0o444);
    }
    const log = await FileEventLog.open({ root });
    try {
      const e = await rejection(log.claimWriter(runId));
      expect(e).to.be.instanceOf(LogNotWritableError);
      expect((e as Error).message).to.include(file);
    } finally {
      await log.close();
      if (root0) spawnSync('chattr', ['-i', file]);
      else await chmod(file, 0o644);
    }
  }

  it('claimWriter refuses a log file it cannot open for writing, naming the file', async function () {
    const seed = await FileEventLog.open({ root });
    await seed.append([runStarted('ro')]);
    await seed.close();
    await expectClaimRefused(this, 'ro', runLogPaths(root, 'ro').events);
  });

  it('claimWriter refuses a blob pack it cannot open for writing, naming the file', async function () {
    const seed = await FileEventLog.open({ root });
    await seed.append([runStarted('rob')]);
    await seed.blobs('rob').put(Buffer.from('a request'));
    await seed.close();
    await expectClaimRefused(this, 'rob', runLogPaths(root, 'rob').pack);
  });

  it('runs(): running while a live writer holds it, interrupted once it is gone (released, or a dead pid), damaged with its error, the others still listed', async () => {
    const live = await FileEventLog.open({ root });
    try {
      await live.append([runStarted('a-live')]);
      const crashed = await FileEventLog.open({ root });
      await crashed.append([runStarted('b-crashed')]);
      await crashed.close(); // released without RunCompleted: its writer is gone
      const dead = await FileEventLog.open({ root });
      await dead.append([runStarted('c-dead-pid')]);
      await dead.close();
      await writeFile(runLogPaths(root, 'c-dead-pid').lock, `${deadPid()}\n${hostname()}\n`);
      const done = await FileEventLog.open({ root });
      await done.append([runStarted('d-done'), runCompleted('d-done')]);
      await done.append([runStarted('e-damaged'), runCompleted('e-damaged')]);
      await done.close();
      // One flipped byte inside the first frame's payload: damage in the middle of the file.
      const fh = await open(runLogPaths(root, 'e-damaged').events, 'r+');
      const b = Buffer.alloc(1);
      await fh.read(b, 0, 1, 40);
      await fh.write(Buffer.from([b[0]! ^ 0xff]), 0, 1, 40);
      await fh.close();

      const lister = await FileEventLog.open({ root });
      const runs = await lister.runs();
      await lister.close();
      expect(runs.map((r) => [r.runId, r.status])).to.deep.equal([
        ['a-live', 'running'],
        ['b-crashed', 'interrupted'],
        ['c-dead-pid', 'interrupted'],
        ['d-done', 'completed'],
        ['e-damaged', 'damaged'],
      ]);
      const damaged = runs.find((r) => r.runId === 'e-damaged')!;
      expect(damaged.error)
        .to.match(/^e-damaged[/\\]log[/\\]events\.evlog/)
        .and.not.include(root);

      const listed = await cli(['runs', '--dir', 'runs'], tmp.dir);
      expect(listed.code, listed.stderr).to.equal(0);
      const line = (id: string) => listed.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
      expect(line('b-crashed'))
        .to.include('interrupted')
        .and.include(`evalog resume ${join('runs', 'b-crashed')}`);
      expect(line('e-damaged')).to.include('damaged').and.include('e-damaged/log/events.evlog').and.not.include(root);
      expect(line('a-live')).to.include('running').and.not.include('evalog resume');
    } finally {
      await live.close();
    }
  });
});

describe('writer claims and run statuses: JetStream log', function () {
  this.timeout(60_000);
  let server: NatsServerHandle;
  let options: JetStreamLogOptions;
  before(async () => {
    server = await startNatsServer();
  });
  after(async () => server?.stop());
  beforeEach(() => {
    const tag = randomBytes(3).toString('hex');
    options = { servers: server.url, streamName: `W${tag}`, subjectPrefix: `w${tag}`, blobBucket: `b${tag}`, lockBucket: `l${tag}` };
  });

  it('claimWriter takes a lease: a second log is refused naming the holder; close frees it; a dead pid on this host is taken over; another host is not', async () => {
    const a = await JetStreamEventLog.connect(options);
    const b = await JetStreamEventLog.connect(options);
    try {
      await a.claimWriter('r1');
      await a.claimWriter('r1');
      const e = await rejection(b.claimWriter('r1'));
      expect(e).to.be.instanceOf(LogLockedError);
      expect((e as Error).message).to.include(`process ${process.pid}`);
      await a.close();
      await b.claimWriter('r1');

      const kv = await new Kvm(b.nc).open(options.lockBucket!);
      await kv.put('r2', `${deadPid()}\n${hostname()}\n`);
      await b.claimWriter('r2');
      expect((await kv.get('r2'))!.string()).to.equal(`${process.pid}\n${hostname()}\n`);
      await kv.put('r3', `${deadPid()}\nsome-other-host\n`);
      const other = await rejection(b.claimWriter('r3'));
      expect(other).to.be.instanceOf(LogLockedError);
      expect((other as Error).message).to.include('on host some-other-host');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a writer whose lease was taken over refuses its next append to that run', async () => {
    const a = await JetStreamEventLog.connect({ ...options, writerLeaseMs: 1_000 });
    const b = await JetStreamEventLog.connect(options);
    try {
      await a.claimWriter('r1');
      await a.append([runStarted('r1')]);
      // Another writer overwrites the entry (as a takeover after expiry would); a's next renewal sees it.
      const kv = await new Kvm(b.nc).open(options.lockBucket!);
      await kv.put('r1', `1\nelsewhere\n`);
      let refused: unknown;
      for (let i = 0; i < 100 && refused === undefined; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        refused = await a.append([runCompleted('r1')]).then(
          () => undefined,
          (err: unknown) => err,
        );
      }
      expect(refused).to.be.instanceOf(LogLockedError);
      expect((refused as Error).message).to.include('lost the writer lock');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('runs(): running while its lease is held, interrupted once its writer is gone, damaged with its error, the others still listed', async () => {
    const live = await JetStreamEventLog.connect(options);
    const gone = await JetStreamEventLog.connect(options);
    try {
      await live.claimWriter('a-live');
      await live.append([runStarted('a-live')]);
      await gone.claimWriter('b-gone');
      await gone.append([runStarted('b-gone'), runStarted('c-never-claimed'), runStarted('d-done'), runCompleted('d-done')]);
      await gone.close();
      // Bytes that are no event, on a run's run-level subject.
      await live.nc.request(`${options.subjectPrefix}.run.e-damaged._run`, new Uint8Array([1, 2, 3]));
      const runs = await live.runs();
      expect(runs.map((r) => [r.runId, r.status])).to.deep.equal([
        ['a-live', 'running'],
        ['b-gone', 'interrupted'],
        ['c-never-claimed', 'interrupted'],
        ['d-done', 'completed'],
        ['e-damaged', 'damaged'],
      ]);
      expect(runs.find((r) => r.runId === 'e-damaged')!.error).to.include('run e-damaged');
    } finally {
      await live.close();
      await gone.close();
    }
  });
});
