// The per-run writer lock: `log/LOCK`, created with O_EXCL, holding "<pid>\n<hostname>\n".
// Two processes appending to one run would interleave frames and seqs; the lock prevents it.
import { open, readFile, stat, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { LogLockedError } from '../errors.js';

// A lock file with no pid yet may belong to a process between create and write; give it time.
const UNWRITTEN_GRACE_MS = 2000;

/**
 * How long to keep trying to create the lock while it changes hands: past the grace after which a
 * dead taker's mutex is cleared, so that one such death costs a wait, not a refusal.
 */
const PATIENCE_MS = UNWRITTEN_GRACE_MS + 1000;

/** A held writer lock; `release()` removes it if it is still ours. */
export class WriterLock {
  private constructor(
    readonly file: string,
    private readonly content: string,
  ) {}

  /** Takes the lock, taking over a stale one left by a dead process; else throws LogLockedError. */
  static async acquire(file: string): Promise<WriterLock> {
    const content = `${process.pid}\n${hostname()}\n`;
    const deadline = Date.now() + PATIENCE_MS;
    while (Date.now() < deadline) {
      if (await createExclusive(file, content)) return new WriterLock(file, content);
      const holder = await writtenHolder(file);
      if (holder === null) continue; // released meanwhile: try again
      const why = await liveHolder(file, holder);
      if (why !== null) {
        throw new LogLockedError(file, `${file}: ${why}; another evalog is appending to this run (if none is, that pid was reused: delete the lock file)`);
      }
      await removeStale(file, holder, content);
    }
    throw new LogLockedError(file, `${file}: could not take the writer lock (${await whyNotTaken(file)})`);
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

/** The takeover mutex beside a lock file: only its holder may remove a stale lock (removeStale). */
const takeoverMutex = (file: string): string => `${file}.takeover`;

/**
 * Why the lock could not be taken in time: a live taker holding the takeover mutex all along (named
 * as liveHolder names a lock's holder, with the file to delete if it is no evalog), else the lock
 * changing hands.
 */
async function whyNotTaken(file: string): Promise<string> {
  const mutex = takeoverMutex(file);
  const holder = await readFile(mutex, 'utf8').catch(ifMissing(null));
  const taker = holder === null ? null : await liveHolder(mutex, holder);
  if (taker === null) return 'it kept changing hands';
  return `its takeover mutex is ${taker} for longer than ${PATIENCE_MS / 1000} s; if that is no evalog, delete ${mutex}`;
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

/** Creates `file` holding `content` only if it does not exist (O_EXCL); false when it does. */
async function createExclusive(file: string, content: string): Promise<boolean> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(content);
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Removes the lock file if it still holds `stale`, one process at a time: only the holder of
 * `<file>.takeover` (O_EXCL) removes a lock file, and only after reading it again. Without that,
 * racing takers moved each other's fresh locks aside and two of them could both end up holding
 * the lock (seen with six processes at once; test/unit/log-file-lock.test.ts). The caller then
 * creates its own lock as anyone does, so a process that finds no lock at all still wins fairly.
 */
async function removeStale(file: string, stale: string, content: string): Promise<void> {
  const mutex = takeoverMutex(file);
  if (!(await createExclusive(mutex, content))) {
    // Another process is taking over (for a millisecond or so). A mutex is cleared only when its
    // holder has died (it names its pid, as the lock does) and it is older than the grace, so a live
    // taker that is merely slow keeps it. Two processes clearing one dead mutex at the same instant
    // could still both go on: that needs a process killed inside this millisecond first.
    const st = await stat(mutex).catch(ifMissing(null));
    const holder = await readFile(mutex, 'utf8').catch(ifMissing(null));
    const dead = st !== null && holder !== null && Date.now() - st.mtimeMs >= UNWRITTEN_GRACE_MS && (await liveHolder(mutex, holder)) === null;
    if (dead) await unlink(mutex).catch(ifMissing(undefined));
    else await new Promise((r) => setTimeout(r, 5));
    return;
  }
  try {
    const now = await readFile(file, 'utf8').catch(ifMissing(null));
    if (now === stale) await unlink(file).catch(ifMissing(undefined));
  } finally {
    await unlink(mutex).catch(ifMissing(undefined));
  }
}

function ifMissing<T>(value: T): (e: unknown) => T {
  return (e) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return value;
    throw e;
  };
}
