// Who made an agent workspace. A workspace is removed when its job ends, but a process that is
// killed (SIGKILL, a crash, a lost machine) cannot remove the workspaces of the jobs it had in
// flight, and each one holds the job's task. So every workspace names its owner, and an evalog
// that makes a workspace first removes those whose owner is certainly gone: the same host and
// boot, and its pid free or now another process (Linux tells them apart by start time). Anything
// it cannot read, or whose owner may be alive, it leaves alone.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The file in a workspace folder that names the process that made it. */
export const OWNER_FILE = '.evalog-owner';

/** A process, as told apart from any other now or later on this machine. */
export interface WorkspaceOwner {
  pid: number;
  host: string;
  /** Linux's boot id: a pid of another boot is another process. Null where there is none. */
  boot: string | null;
  /** The process's start time (Linux, /proc/<pid>/stat): a reused pid has another. Null where there is none. */
  start: string | null;
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
  return rest?.[19] ?? null;
}

let self: Promise<WorkspaceOwner> | undefined;

/** This process as an owner. */
export function selfOwner(): Promise<WorkspaceOwner> {
  self ??= (async () => ({
    pid: process.pid,
    host: hostname(),
    boot: (await readOrNull('/proc/sys/kernel/random/boot_id'))?.trim() ?? null,
    start: await startOf(process.pid),
  }))();
  return self;
}

/** Marks a new workspace folder as this process's. */
export async function markOwner(dir: string): Promise<void> {
  await writeFile(join(dir, OWNER_FILE), `${JSON.stringify(await selfOwner())}\n`);
}

function isOwner(v: unknown): v is WorkspaceOwner {
  const o = v as WorkspaceOwner;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isSafeInteger(o.pid) &&
    o.pid > 0 &&
    typeof o.host === 'string' &&
    (o.boot === null || typeof o.boot === 'string') &&
    (o.start === null || typeof o.start === 'string')
  );
}

/** True only when `owner` is certainly not running: on this host and boot, and its pid free or another process's. */
export async function ownerGone(owner: WorkspaceOwner, me: WorkspaceOwner): Promise<boolean> {
  if (owner.host !== me.host || owner.boot !== me.boot) return false;
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
 * The folders in `dir` named with `prefix` whose owner is gone, for the caller to remove. A folder
 * without a readable owner (an older evalog's, or not a workspace at all) is not listed.
 */
export async function abandonedWorkspaces(dir: string, prefix: string): Promise<string[]> {
  const me = await selfOwner();
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith(prefix)).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const text = await readOrNull(join(dir, name, OWNER_FILE));
    if (text === null) continue;
    let owner: unknown;
    try {
      owner = JSON.parse(text);
    } catch {
      continue;
    }
    if (isOwner(owner) && (await ownerGone(owner, me))) out.push(join(dir, name));
  }
  return out;
}
