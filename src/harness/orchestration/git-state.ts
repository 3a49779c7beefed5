// The git state of evalog's own checkout, for provenance: the revision, whether anything is
// uncommitted (untracked files included), and a hash of exactly what is uncommitted, so two runs
// on the same revision with different local edits can be told apart without publishing the edits.
import { spawnSync } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** The git facts run.json records; null when the folder is not the top of a git work tree with a commit. */
export type GitState = {
  revision: string;
  /** Anything uncommitted: staged or unstaged changes, or untracked files that are not ignored. */
  dirty: boolean;
  /** sha256 of the uncommitted changes (see `uncommittedHash`); null when not dirty. */
  diff_sha256: string | null;
};

/** Version tag of the hashed text; changes whenever what is hashed or how does. */
const SCHEME = 'evalog-uncommitted.v1\n';

// Settings that would change the text of `git diff` for the same changes are pinned here, so that a
// user's git config (no prefixes, another algorithm, an order file, external diff drivers) does not
// change the hash. The git version can still change it (diff output is not a stable format).
const DIFF_CONFIG = ['-c', 'core.quotePath=true', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'diff.relative=false'];
const DIFF_OPTIONS = [
  '--binary',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--unified=3',
  '--inter-hunk-context=0',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--submodule=short',
  '--ignore-submodules=none',
  '-O/dev/null',
];

/**
 * The git state of `dir`, or null when `dir` is not the top of a git work tree with a commit (not a
 * checkout, or evalog installed inside another project's repository, whose state is not evalog's).
 * Read-only: `--no-optional-locks` keeps `git status` from refreshing the index.
 */
export function gitState(dir: string): GitState | null {
  const git = (args: string[]) => {
    const r = spawnSync('git', ['--no-optional-locks', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 });
    if (r.error || r.status !== 0) throw new GitUnavailable();
    return r.stdout;
  };
  try {
    const top = git(['rev-parse', '--show-toplevel']).toString('utf8').trim();
    if (realpathSync(top) !== realpathSync(dir)) return null;
    const revision = git(['rev-parse', '--verify', 'HEAD']).toString('utf8').trim();
    // Untracked files count whatever status.showUntrackedFiles says; ignored ones do not.
    const dirty = git(['status', '--porcelain', '--untracked-files=normal']).length > 0;
    if (!dirty) return { revision, dirty, diff_sha256: null };
    const diff = git([...DIFF_CONFIG, 'diff', 'HEAD', ...DIFF_OPTIONS]);
    const untracked = splitNul(git(['ls-files', '--others', '--exclude-standard', '-z']));
    return { revision, dirty, diff_sha256: uncommittedHash(dir, diff, untracked) };
  } catch (err) {
    if (err instanceof GitUnavailable) return null; // no git, not a work tree, or no commit yet
    throw err;
  }
}

/**
 * sha256 of what is uncommitted: a scheme tag, the bytes of `git diff HEAD --binary` (with the
 * options above), then each untracked file in byte order of its path, as
 * `NUL "untracked" NUL <path> NUL <mode> NUL <sha256 of its content>` (mode 100644 or 100755 for a
 * file, 120000 for a symbolic link, whose content is its target; `dir/` entries, nested
 * repositories, have mode 160000 and no content). The names and contents of untracked files count,
 * their timestamps do not.
 */
export function uncommittedHash(dir: string, diff: Uint8Array, untracked: readonly Buffer[]): string {
  const h = createHash('sha256').update(SCHEME).update(diff);
  for (const path of [...untracked].sort(Buffer.compare)) {
    h.update('\0untracked\0').update(path).update('\0');
    const name = path.toString('utf8');
    if (name.endsWith('/')) {
      h.update('160000\0');
      continue;
    }
    const full = join(dir, name);
    const st = lstatSync(full);
    if (st.isSymbolicLink()) h.update('120000\0').update(sha256Of(readlinkSync(full)));
    else h.update(st.mode & 0o111 ? '100755\0' : '100644\0').update(fileSha256(full));
  }
  return h.digest('hex');
}

class GitUnavailable extends Error {
  override name = 'GitUnavailable';
}

function splitNul(out: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i !== -1; i = out.indexOf(0, start)) {
    if (i > start) parts.push(out.subarray(start, i));
    start = i + 1;
  }
  return parts;
}

const sha256Of = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** sha256 of a file read in chunks, so a large untracked file is never held whole. */
function fileSha256(path: string): string {
  const h: Hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}
