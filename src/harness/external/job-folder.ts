// The folder of an external agent's job (its workspace, task file and result), at a path that is
// the same every time the job runs: `<tmp>/evalog-job-<hash of run id and job id>`. Coding agents
// put their working directory in what they send (Claude Code's system prompt, Codex's environment
// context, absolute paths in tool arguments), so a fresh folder per run made every resumed or
// replayed job diverge at its first request. The path is fixed rather than virtualised (the proxy
// rewriting it to a placeholder and back): the path reaches the model through tool output and
// arguments in any form (quoted, escaped, cut), so no rewrite could be complete, and what is
// recorded stays exactly what was sent.
//
// Two live processes must never use one folder (a replay of a run while it is resumed, two log
// folders holding runs of the same id). So a process claims the path first: it writes a file
// named for itself (see sandbox/owned-temp.ts) into `<path>.claims/`, removes the claims of gone
// processes, and holds the path only if no other claim is left. Two that claim at once both back
// off; either way no two use it. A process that cannot claim the path gets a fresh folder of its
// own, as before (its job may then diverge on replay, and says why nowhere else than in docs).
import { mkdir, readdir, realpath, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../../core/canonical.js';
import { ownedPrefix, ownerGone, ownerOfName, removeTree, selfOwner } from '../../sandbox/owned-temp.js';

/** The name every fixed job folder starts with. */
export const JOB_FOLDER_PREFIX = 'evalog-job-';
const CLAIM = 'claim-';
const CLAIMS = '.claims';

/** The fixed folder name of a run's job: 16 hex digits of the hash of its run id and job id. */
export function jobFolderName(runId: string, jobId: string): string {
  return `${JOB_FOLDER_PREFIX}${sha256(`${runId}\n${jobId}`).slice(0, 16)}`;
}

/** A claimed job folder: empty when claimed; `release` removes it and the claim. */
export interface JobFolder {
  path: string;
  release(): Promise<void>;
}

/** Paths this process holds: its own jobs never share one either. */
const held = new Set<string>();

/**
 * Claims the job's fixed folder in `dir` (the system's temporary folder by default) and makes it
 * empty; null when another live process holds it. What a gone process left there is removed.
 */
export async function claimJobFolder(runId: string, jobId: string, dir: string = tmpdir()): Promise<JobFolder | null> {
  // Before any claim: the sweep claims too, and must not hold a folder a job of this process wants.
  await sweepJobFolders(dir);
  return claimAt(join(dir, jobFolderName(runId, jobId)));
}

async function claimAt(path: string): Promise<JobFolder | null> {
  if (held.has(path)) return null;
  held.add(path);
  const claims = `${path}${CLAIMS}`;
  const me = await selfOwner();
  const mine = `${ownedPrefix(CLAIM, me)}held`;
  try {
    if (!(await claim(claims, mine, me))) {
      held.delete(path);
      return null;
    }
    await removeTree(path); // a gone process's leftovers
    await mkdir(path);
    const real = await realpath(path);
    return {
      path: real,
      async release() {
        try {
          await removeTree(path);
          await rm(join(claims, mine), { force: true });
          await rmdir(claims).catch(() => undefined); // another process's claim may be in it
        } finally {
          held.delete(path);
        }
      },
    };
  } catch (err) {
    held.delete(path);
    await rm(join(claims, mine), { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Writes this process's claim and keeps it when no live process has another one; else takes it back. */
async function claim(claims: string, mine: string, me: Awaited<ReturnType<typeof selfOwner>>): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    await mkdir(claims, { recursive: true });
    try {
      await writeFile(join(claims, mine), '');
      break;
    } catch (err) {
      // A releasing process removed the empty claims folder between the two steps: again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw err;
    }
  }
  let other = false;
  for (const name of (await readdir(claims)).sort()) {
    if (name === mine) continue;
    const owner = ownerOfName(name, CLAIM);
    // A name that names no owner is nobody's to remove: it counts as live.
    if (owner !== null && (await ownerGone(owner, me))) await rm(join(claims, name), { force: true });
    else other = true;
  }
  if (other) await rm(join(claims, mine), { force: true });
  return !other;
}

const swept = new Map<string, Promise<void>>();

/**
 * Removes, once per process, the fixed job folders in `dir` whose claims are all of gone processes
 * (a killed run that is never resumed), by claiming and releasing each: a live claim is left alone.
 */
export function sweepJobFolders(dir: string = tmpdir()): Promise<void> {
  const known = swept.get(dir);
  if (known) return known;
  const sweep = (async () => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (!name.startsWith(JOB_FOLDER_PREFIX) || !name.endsWith(CLAIMS)) continue;
      const folder = await claimAt(join(dir, name.slice(0, -CLAIMS.length))).catch(() => null);
      await folder?.release().catch(() => undefined);
    }
  })().catch(() => undefined);
  swept.set(dir, sweep);
  return sweep;
}
