// The job's workspace as the suite's tools see it: the case's files with the changes saved so far.
// The changes are the job's artifact (canonical JSON, one revision per write), so the built-in
// worker needs no folder, and replay, which re-runs its tools, rebuilds the same workspace from
// the log. An external agent's folder gets the same changes written into it (see WorkspaceSpec).
import { canonicalJson } from '../../core/canonical.js';

/** The changes over the case's files: new text by path, null for a deleted file. */
export type Changes = Readonly<Record<string, string | null>>;

/** The most files a job may change with the suite's tools, and the largest file they write. */
export const WORKSPACE_LIMITS = { files: 200, fileBytes: 256 * 1024 } as const;

/** The artifact of a set of changes: canonical JSON, so equal workspaces are equal revisions. */
export function changesArtifact(changes: Changes): string {
  return `${canonicalJson({ changes }, 2)}\n`;
}

/** The changes an artifact holds; none for no artifact or one that is not the suite's (it is only ever written by the suite). */
export function changesOf(artifact: string | null): Changes {
  if (artifact === null) return {};
  try {
    const v = JSON.parse(artifact) as { changes?: unknown };
    const c = v.changes;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return {};
    return Object.fromEntries(Object.entries(c).filter(([, x]) => x === null || typeof x === 'string')) as Changes;
  } catch {
    return {};
  }
}

/** The files of the workspace: the seed with the changes applied, sorted by path. */
export function applied(seed: Readonly<Record<string, string>>, changes: Changes): Record<string, string> {
  const out: Record<string, string> = { ...seed };
  for (const [path, text] of Object.entries(changes)) {
    if (text === null) delete out[path];
    else out[path] = text;
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((p) => [p, out[p]!]),
  );
}

/** The changes after writing `text` to `path`: a file written back to its seed's text is no change. */
export function withWrite(seed: Readonly<Record<string, string>>, changes: Changes, path: string, text: string): Changes {
  const next: Record<string, string | null> = { ...changes };
  if (seed[path] === text) delete next[path];
  else next[path] = text;
  return next;
}

/**
 * Why a path may not be written by the suite's tools, or null when it may: a plain relative path
 * with `/` separators, not under a dot-named folder or file nor `node_modules` unless the case has
 * it (those are the agent's tools' own files, which a workspace capture leaves out too).
 */
export function pathRefusal(seed: Readonly<Record<string, string>>, path: string): string | null {
  const parts = path.split('/');
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return 'give a relative path with / separators, such as src/index.js';
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return 'the path may not contain empty, . or .. segments';
  if (!Object.hasOwn(seed, path) && parts.some((p) => p.startsWith('.') || p === 'node_modules'))
    return 'files under dot-named folders and node_modules are not part of the work';
  return null;
}
