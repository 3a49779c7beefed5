// The per-run writer lock: `log/LOCK`, created with O_EXCL, holding "<pid>\n<hostname>\n".
// Two processes appending to one run would interleave frames and seqs; the lock prevents it.
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { LogLockedError } from '../errors.js';

// A lock file with no pid yet may belong to a process between create and write; give it time.
const UNWRITTEN_GRACE_MS = 2000;

/** A held writer lock; `release()` removes it if it is still ours. */
export class WriterLock {
  private constructor(
    readonly file: string,
    private readonly content: string,
  ) {}

  /** Takes the lock, taking over a stale one left by a dead process; else throws LogLockedError. */
  static async acquire(file: string): Promise<WriterLock> {
    const content = `${process.pid}\n${hostname()}\n`;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        const fh = await open(file, 'wx');
        try {
          await fh.writeFile(content);
        } finally {
          await fh.close();
        }
        return new WriterLock(file, content);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = await writtenHolder(file);
      if (holder === null) continue; // released meanwhile: try again
      const why = await liveHolder(file, holder);
      if (why !== null) {
        throw new LogLockedError(file, `${file}: ${why}; another evalog is appending to this run (if none is, that pid was reused: delete the lock file)`);
      }
      await takeOver(file, holder);
    }
    throw new LogLockedError(file, `${file}: could not take the writer lock (it kept changing hands)`);
  }

  /** Removes the lock file, unless another process has (wrongly) replaced it. */
  async release(): Promise<void> {
    const now = await readFile(this.file, 'utf8').catch(ifMissing(null));
    if (now === this.content) await unlink(this.file).catch(ifMissing(undefined));
  }
}

/**
 * The lock file's content once its holder has written its pid. A rival creates the file and then
 * writes it, so a read in between sees it empty: wait (briefly) for the pid, so the message can name
 * the process, and give the content as it is once the grace has passed (a holder that died there).
 */
async function writtenHolder(file: string): Promise<string | null> {
  for (;;) {
    const holder = await readFile(file, 'utf8').catch(ifMissing(null));
    if (holder === null || holder.includes('\n')) return holder;
    const st = await stat(file).catch(ifMissing(null));
    if (st === null || Date.now() - st.mtimeMs >= UNWRITTEN_GRACE_MS) return holder;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** True when a live process holds the lock file; false when there is none or its holder is gone. */
export async function heldByLiveWriter(file: string): Promise<boolean> {
  const holder = await readFile(file, 'utf8').catch(ifMissing(null));
  return holder !== null && (await liveHolder(file, holder)) !== null;
}

/** Why the holder counts as alive, or null when the lock is stale. */
async function liveHolder(file: string, holder: string): Promise<string | null> {
  const [pidText, host] = holder.split('\n');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) {
    const st = await stat(file).catch(ifMissing(null));
    if (st === null) return null; // gone: the retry will create it
    return Date.now() - st.mtimeMs < UNWRITTEN_GRACE_MS ? 'the writer lock is being taken by another process' : null;
  }
  // A pid on another host cannot be checked from here, so it is taken as alive.
  if (host && host !== hostname()) return `held by process ${pid} on host ${host}`;
  if (pid === process.pid) return `held by this process (${pid}), by another open log`;
  try {
    process.kill(pid, 0);
    return `held by running process ${pid}`;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? `held by running process ${pid}` : null;
  }
}

/**
 * Moves a stale lock aside. A rename moves whatever is there now, so if another process took
 * the lock between our read and the rename, we moved its live lock: put it back and give up.
 */
async function takeOver(file: string, stale: string): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  const moved = await readFile(aside, 'utf8');
  if (moved !== stale) {
    await link(aside, file).catch(() => undefined);
    await unlink(aside);
    throw new LogLockedError(file, `${file}: the writer lock was taken by another process while taking over a stale one`);
  }
  await unlink(aside);
}

function ifMissing<T>(value: T): (e: unknown) => T {
  return (e) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return value;
    throw e;
  };
}
