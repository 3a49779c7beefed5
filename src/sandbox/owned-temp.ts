// Temporary folders that name the process that made them: an agent's workspace (its task, its
// files), a Python grader's cwd (the artifact's code). Each is removed when its job or grade ends,
// but a process that is killed (SIGKILL, a crash, a lost machine) cannot remove those it had in
// use. So every such folder names its owner, and a process that makes one of a kind first removes,
// once, those of the kind whose owner is certainly gone: the same host and boot, and its pid free
// or now another process (Linux tells them apart by start time). Anything whose owner may be
// alive, or whose name names no owner, it leaves alone.
//
// The owner is in the folder's name, not in a file inside it: mkdtemp makes the folder and its
// mark in one step, so a kill at any moment leaves no folder without an owner (a file written
// after mkdtemp left, when the kill fell between the two, an empty folder nobody could claim).
import { chmod, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../core/canonical.js';

/** A process, as told apart from any other now or later on this machine. */
export interface FolderOwner {
  pid: number;
  /** The process's start time (Linux, /proc/<pid>/stat): a reused pid has another. Null where there is none. */
  start: string | null;
  /** The host and its boot (Linux's boot id), hashed: a pid of another machine or boot is another process. */
  place: string;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** The start time of a process, in clock ticks after boot (field 22 of /proc/<pid>/stat), or null. */
async function startOf(pid: number): Promise<string | null> {
  const stat = await readOrNull(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const rest = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = rest?.[19];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

/** Where a process runs: its host and boot, as 12 hex digits (a name's worth, not a secret). */
export function placeOf(host: string, boot: string | null): string {
  return sha256(`${host}\n${boot ?? ''}`).slice(0, 12);
}

let self: Promise<FolderOwner> | undefined;

/** This process as an owner. */
export function selfOwner(): Promise<FolderOwner> {
  self ??= (async () => ({
    pid: process.pid,
    start: await startOf(process.pid),
    place: placeOf(hostname(), (await readOrNull('/proc/sys/kernel/random/boot_id'))?.trim() ?? null),
  }))();
  return self;
}

/** The name prefix of a folder of kind `base` owned by `owner`, for mkdtemp: `<base><pid>.<start or x>.<place>-`. */
export function ownedPrefix(base: string, owner: FolderOwner): string {
  return `${base}${owner.pid}.${owner.start ?? 'x'}.${owner.place}-`;
}

const OWNED = /^(\d{1,10})\.(\d{1,20}|x)\.([0-9a-f]{12})-[^.]+$/;

/** The owner named by a folder's name of kind `base`, or null when it names none (another kind, or an older evalog's). */
export function ownerOfName(name: string, base: string): FolderOwner | null {
  if (!name.startsWith(base)) return null;
  const m = OWNED.exec(name.slice(base.length));
  if (m === null) return null;
  const pid = Number(m[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { pid, start: m[2] === 'x' ? null : (m[2] as string), place: m[3] as string };
}

/** True only when `owner` is certainly not running: on this host and boot, and its pid free or another process's. */
export async function ownerGone(owner: FolderOwner, me: FolderOwner): Promise<boolean> {
  if (owner.place !== me.place) return false;
  if (owner.pid === me.pid) return owner.start !== null && me.start !== null && owner.start !== me.start;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: a process of another user has the pid; it may be the owner.
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (owner.start === null) return false;
  const now = await startOf(owner.pid);
  return now !== null && now !== owner.start;
}

/**
 * The folders in `dir` whose names start with `base` and name an owner that is gone, for the
 * caller to remove. A folder whose name names no owner is not listed.
 */
export async function abandonedFolders(dir: string, base: string): Promise<string[]> {
  const me = await selfOwner();
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const owner = ownerOfName(name, base);
    if (owner !== null && (await ownerGone(owner, me))) out.push(join(dir, name));
  }
  return out;
}

/** Removes a folder and everything in it, even folders in it without write permission (an agent may leave those). */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await makeWritable(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  // Dirent types do not follow symbolic links, so nothing outside the folder is touched.
  for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await makeWritable(join(dir, entry.name));
}

const swept = new Map<string, Promise<void>>();

/**
 * A fresh, empty folder of kind `base` in `dir` (the system's temporary folder by default), named
 * for this process; its real path, so a child process sees the same path this one does. The first
 * call for a kind and folder removes, once, the folders of that kind a gone process left there. A
 * sweep that fails is ignored: it never stops the caller.
 */
export async function makeOwnedTemp(base: string, dir: string = tmpdir()): Promise<string> {
  const key = `${dir}\0${base}`;
  let sweep = swept.get(key);
  if (!sweep) {
    sweep = (async () => {
      for (const gone of await abandonedFolders(dir, base)) await removeTree(gone).catch(() => undefined);
    })().catch(() => undefined);
    swept.set(key, sweep);
  }
  await sweep;
  return realpath(await mkdtemp(join(dir, ownedPrefix(base, await selfOwner()))));
}
