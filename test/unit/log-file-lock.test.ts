import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { WriterLock } from '../../src/log/file/lock.js';
import { LogLockedError } from '../../src/log/index.js';
import { deadPid, moduleUrl } from '../support/cli.js';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('file log writer lock', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalog-lock-'));
    file = join(dir, 'LOCK');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('holds "<pid>\\n<host>\\n", refuses a second holder, and is gone after release', async () => {
    const lock = await WriterLock.acquire(file);
    expect(await readFile(file, 'utf8')).to.equal(`${process.pid}\n${hostname()}\n`);
    const error = await rejection(WriterLock.acquire(file));
    expect(error).to.be.instanceOf(LogLockedError);
    expect((error as LogLockedError).message)
      .to.include(file)
      .and.include(String(process.pid));
    await lock.release();
    await stat(file).then(
      () => expect.fail('lock still there'),
      () => undefined,
    );
    await (await WriterLock.acquire(file)).release();
  });

  it('takes over the lock of a dead process', async () => {
    await writeFile(file, `${deadPid()}\n${hostname()}\n`);
    const lock = await WriterLock.acquire(file);
    expect(await readFile(file, 'utf8')).to.equal(`${process.pid}\n${hostname()}\n`);
    await lock.release();
  });

  it('treats a lock from another host as held (its pid cannot be checked here)', async () => {
    await writeFile(file, `${deadPid()}\nsome-other-host\n`);
    expect(await rejection(WriterLock.acquire(file))).to.be.instanceOf(LogLockedError);
  });

  it('waits for the pid of a fresh lock to be written and names that process', async () => {
    // A rival between creating the file and writing it: the refusal names it once its pid is there.
    await writeFile(file, '');
    const other = `${process.ppid}\n${hostname()}\n`;
    setTimeout(() => void writeFile(file, other), 50);
    const error = await rejection(WriterLock.acquire(file));
    expect(error).to.be.instanceOf(LogLockedError);
    expect((error as LogLockedError).message).to.include(`process ${process.ppid}`);
  });

  it('takes over a lock whose pid was never written (its holder died between create and write)', async () => {
    await writeFile(file, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(file, old, old);
    await (await WriterLock.acquire(file)).release();
  });

  it('processes racing to take over a stale lock: one wins, and every other refusal names the winner', async function () {
    this.timeout(60_000);
    // Six at once, twice. Moving a stale lock aside and back (the old takeover) let two of them win,
    // and named no process in one of the refusals (a resume's refusal in CI); both are asserted here.
    // The children import the compiled module, so they start in a tenth of tsx's time.
    const LOCK_TS = moduleUrl('log/file/lock');
    // Each child waits for the same moment (argv[2], epoch ms) before it tries, so their tries overlap.
    const child = `const { WriterLock } = await import(${JSON.stringify(LOCK_TS)});
      await new Promise((r) => setTimeout(r, Number(process.argv[2]) - Date.now()));
      try { await WriterLock.acquire(process.argv[1]); console.log('won ' + process.pid); await new Promise((r) => setTimeout(r, 1000)); }
      catch (e) { console.log('lost ' + e.message); }`;
    for (let round = 0; round < 2; round += 1) {
      await rm(file, { force: true });
      await writeFile(file, `${deadPid()}\n${hostname()}\n`);
      const at = String(Date.now() + 1500);
      const outs = await Promise.all(
        Array.from({ length: 6 }, () => {
          const p = spawn(process.execPath, ['--input-type=module', '-e', child, file, at], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          p.stdout.on('data', (d: Buffer) => (out += d.toString()));
          return new Promise<string>((resolve) => p.on('close', () => resolve(out.trim())));
        }),
      );
      const won = outs.filter((o) => o.startsWith('won '));
      expect(won, outs.join('\n')).to.have.length(1);
      const winner = won[0]!.slice('won '.length);
      for (const o of outs.filter((x) => x.startsWith('lost '))) expect(o, outs.join('\n')).to.include(`process ${winner}`);
    }
  });

  it('clears the takeover mutex of a taker that died inside its takeover, and only then takes the stale lock', async () => {
    await writeFile(file, `${deadPid()}\n${hostname()}\n`);
    const mutex = `${file}.takeover`;
    await writeFile(mutex, `${deadPid()}\n${hostname()}\n`);
    const old = new Date(Date.now() - 60_000);
    await utimes(mutex, old, old);
    const lock = await WriterLock.acquire(file);
    expect(await readFile(file, 'utf8')).to.equal(`${process.pid}\n${hostname()}\n`);
    await stat(mutex).then(
      () => expect.fail("the dead taker's mutex is still there"),
      () => undefined,
    );
    await lock.release();
  });

  it('leaves the takeover mutex of a live taker, however old, and does not take the stale lock meanwhile', async function () {
    this.timeout(20_000);
    const stale = `${deadPid()}\n${hostname()}\n`;
    await writeFile(file, stale);
    const mutex = `${file}.takeover`;
    // The parent (mocha) is alive: its mutex is a slow taker's, not a dead one's.
    const live = `${process.ppid}\n${hostname()}\n`;
    await writeFile(mutex, live);
    const old = new Date(Date.now() - 60_000);
    await utimes(mutex, old, old);
    const error = await rejection(WriterLock.acquire(file));
    expect(error).to.be.instanceOf(LogLockedError);
    // The refusal names the taker and the file to delete if that process is no evalog.
    expect((error as LogLockedError).message)
      .to.include(`process ${process.ppid}`)
      .and.include(`delete ${mutex}`);
    expect(await readFile(mutex, 'utf8')).to.equal(live);
    expect(await readFile(file, 'utf8')).to.equal(stale);
  });

  it('does not remove a lock that another process has since replaced', async () => {
    const lock = await WriterLock.acquire(file);
    await writeFile(file, `12345\n${hostname()}\n`);
    await lock.release();
    expect(await readFile(file, 'utf8')).to.equal(`12345\n${hostname()}\n`);
  });
});
