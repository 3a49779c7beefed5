// The workspace folder of an external agent whose suite's work is files (see WorkspaceSpec): seeded
// with the case's files before the agent starts, updated with what the suite's own tools wrote
// (they work on the job's artifact, so that replay, which answers recorded tool calls from the
// log, writes the same files), and read back when the agent has exited.
//
// What is read back: regular files that differ from the seed, as UTF-8 text. Paths under a folder
// or file whose name starts with `.` (unless the seed has that path) and under `node_modules` are
// not the agent's work but its tools' (HOME is the workspace: Claude Code keeps `.claude/` there,
// npm `.npm/`), and are left out without a word. A changed file that cannot be taken as text (binary,
// too large, a link, past the file cap) is listed as skipped, and is graded as unchanged.
import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgentJobHandlers } from '../kernel/agent-gateway.js';
import type { JobWorkspace } from '../suite/define.js';
import type { WorkspaceChanges } from '../suite/types.js';

/** The largest file taken as text. */
export const MAX_CAPTURED_FILE_BYTES = 256 * 1024;
/** The most files walked in a workspace; the rest are skipped. */
export const MAX_CAPTURED_FILES = 1000;

/** A workspace path that is not a plain relative path (absolute, `..`, empty segments): a suite's bug. */
export class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
  constructor(path: string) {
    super(`workspace path ${JSON.stringify(path)} is not a relative path inside the workspace`);
  }
}

/** Refuses anything but `a/b/c` with no empty, `.` or `..` segment. */
export function checkedPath(path: string): string {
  const parts = path.split('/');
  if (path.includes('\\') || path.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..')) throw new WorkspacePathError(path);
  return path;
}

/** Writes the seed into an empty workspace folder. */
export async function seedWorkspace(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const path of Object.keys(files).sort()) await writeInto(dir, path, files[path]!);
}

/** Brings the folder from the files of `before` to those of `after` (each: changes over `seed`), touching only paths that differ. */
export async function applyChanges(
  dir: string,
  seed: Readonly<Record<string, string>>,
  before: Readonly<Record<string, string | null>>,
  after: Readonly<Record<string, string | null>>,
): Promise<void> {
  const at = (m: Readonly<Record<string, string | null>>, p: string): string | null => (Object.hasOwn(m, p) ? m[p]! : (seed[p] ?? null));
  for (const path of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const now = at(after, path);
    if (now === at(before, path)) continue;
    if (now === null) await rm(join(dir, checkedPath(path)), { force: true, recursive: true });
    else await writeInto(dir, path, now);
  }
}

/**
 * The round's handlers, with each tool call's writes (the suite's tools save to the artifact)
 * carried into the folder before the agent gets the reply, so its own tools see them too.
 */
export function writingTools(handlers: AgentJobHandlers, dir: string, w: JobWorkspace, artifact: () => string | null): AgentJobHandlers {
  let written = w.changes(artifact());
  return {
    model: (r) => handlers.model(r),
    tools: () => handlers.tools(),
    async callTool(name, args) {
      const reply = await handlers.callTool(name, args);
      const now = w.changes(artifact());
      await applyChanges(dir, w.files, written, now);
      written = now;
      return reply;
    },
  };
}

/** The folder's changes against the seed (see the head of this file for what is left out). */
export async function captureWorkspace(dir: string, seed: Readonly<Record<string, string>>): Promise<WorkspaceChanges> {
  const changed: Record<string, string | null> = {};
  const skipped: WorkspaceChanges['skipped'] = [];
  const seen = new Set<string>();
  const seeded = (path: string) => Object.hasOwn(seed, path) || Object.keys(seed).some((p) => p.startsWith(`${path}/`));
  let walked = 0;
  const walk = async (rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(rel === '' ? dir : join(dir, rel), { withFileTypes: true });
    } catch {
      return; // a folder the agent made unreadable: nothing in it is taken
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if ((entry.name.startsWith('.') || entry.name === 'node_modules') && !seeded(path)) continue;
      if (entry.isDirectory()) {
        await walk(path);
        continue;
      }
      seen.add(path);
      walked += 1;
      const why = walked > MAX_CAPTURED_FILES ? 'too many files' : entry.isSymbolicLink() ? 'symbolic link' : entry.isFile() ? null : 'not a regular file';
      if (why !== null) {
        if (seed[path] !== undefined || why !== 'not a regular file') skipped.push({ path, reason: why });
        continue;
      }
      const text = await textOf(join(dir, path));
      if (typeof text !== 'string') skipped.push({ path, reason: text.skipped });
      else if (text !== seed[path]) changed[path] = text;
    }
  };
  await walk('');
  for (const path of Object.keys(seed).sort()) if (!seen.has(path)) changed[path] = null;
  return { changed: sortedRecord(changed), skipped };
}

async function textOf(path: string): Promise<string | { skipped: string }> {
  try {
    const info = await lstat(path);
    if (info.size > MAX_CAPTURED_FILE_BYTES) return { skipped: 'too large' };
    const bytes = await readFile(path);
    if (bytes.includes(0)) return { skipped: 'binary' };
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    return { skipped: err instanceof TypeError ? 'binary' : 'unreadable' };
  }
}

async function writeInto(dir: string, path: string, content: string): Promise<void> {
  const file = join(dir, checkedPath(path));
  await mkdir(dirname(file), { recursive: true });
  // A folder where the file goes (the agent made one) gives way to the file.
  await rm(file, { force: true, recursive: true });
  await writeFile(file, content);
}

function sortedRecord<T>(m: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]!]),
  );
}
