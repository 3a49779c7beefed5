import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitState } from '../../src/harness/orchestration/git-state.js';
import { collectProvenance } from '../../src/harness/orchestration/provenance.js';
import { tempDir } from '../support/cli.js';

// Real git repositories in a temporary folder: what run.json's provenance says of each state.
const ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** A repository with one commit: a.txt, a binary file and a .gitignore that ignores *.log. */
function repo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(dir, 'b.bin'), Buffer.from([0, 1, 2, 3, 255]));
  writeFileSync(join(dir, '.gitignore'), '*.log\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

describe('provenance: git state of a checkout (real git repositories)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let n = 0;
  const fresh = () => repo(join(tmp.dir, `r${++n}`));
  before(async () => {
    tmp = await tempDir('evalog-git-');
  });
  after(() => tmp.cleanup());

  it('a clean checkout: its revision, not dirty, no diff hash', () => {
    const dir = fresh();
    expect(gitState(dir)).to.deep.equal({ revision: git(dir, 'rev-parse', 'HEAD').trim(), dirty: false, diff_sha256: null });
  });

  it('an untracked file makes the checkout dirty and has a diff hash; an ignored file does not', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'debug.log'), 'ignored\n');
    expect(gitState(dir)!.dirty).to.equal(false);
    writeFileSync(join(dir, 'new.ts'), 'export {};\n');
    expect(gitState(dir)!.dirty, 'an untracked file is uncommitted work').to.equal(true);
    expect(gitState(dir)!.diff_sha256).to.match(/^[0-9a-f]{64}$/);
  });

  it("the hash is a function of the changes: the same edits give the same hash in another clone, whatever the user's diff config", () => {
    const edit = (dir: string) => {
      writeFileSync(join(dir, 'a.txt'), 'one\nTWO\nthree\n');
      writeFileSync(join(dir, 'b.bin'), Buffer.from([9, 0, 9]));
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'z.ts'), 'z\n');
      writeFileSync(join(dir, 'src', 'y.ts'), 'y\n');
      symlinkSync('a.txt', join(dir, 'link'));
    };
    const a = fresh();
    const b = fresh();
    git(b, 'config', 'diff.noprefix', 'true');
    git(b, 'config', 'diff.algorithm', 'patience');
    git(b, 'config', 'status.showUntrackedFiles', 'no');
    edit(a);
    edit(b);
    const ha = gitState(a)!.diff_sha256;
    expect(ha).to.match(/^[0-9a-f]{64}$/);
    expect(gitState(b)!.diff_sha256).to.equal(ha);
    expect(gitState(b)!.dirty).to.equal(true);
  });

  it('every kind of change moves the hash: tracked text, staged, binary, untracked name, untracked content, mode', () => {
    const dir = fresh();
    const seen = new Set<string>();
    const step = (what: string, change: () => void) => {
      change();
      const h = gitState(dir)!.diff_sha256!;
      expect(h, what).to.match(/^[0-9a-f]{64}$/);
      expect(seen.has(h), `${what} did not change the hash`).to.equal(false);
      seen.add(h);
    };
    step('tracked text', () => writeFileSync(join(dir, 'a.txt'), 'one\n'));
    step('staged deletion', () => git(dir, 'rm', '-q', '--cached', 'b.bin'));
    step('untracked file', () => writeFileSync(join(dir, 'u.txt'), 'u\n'));
    step('untracked content', () => writeFileSync(join(dir, 'u.txt'), 'v\n'));
    step('untracked name', () => {
      execFileSync('mv', ['u.txt', 'w.txt'], { cwd: dir });
    });
    step('untracked mode', () => chmodSync(join(dir, 'w.txt'), 0o755));
    // Back to the same state: the same hash as before (no timestamps in it).
    writeFileSync(join(dir, 'w.txt'), 'v\n');
    expect(seen.has(gitState(dir)!.diff_sha256!)).to.equal(true);
  });

  it('a folder that is not a git checkout, a repository without a commit, and a sub-folder of a checkout: null', () => {
    const plain = join(tmp.dir, 'plain');
    mkdirSync(plain);
    expect(gitState(plain)).to.equal(null);
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q');
    expect(gitState(empty)).to.equal(null);
    // evalog installed inside another project's repository: that project's state is not evalog's.
    const host = fresh();
    const inner = join(host, 'node_modules', 'evalog');
    mkdirSync(inner, { recursive: true });
    expect(gitState(inner)).to.equal(null);
  });

  it("collectProvenance records this checkout's git state in that shape", () => {
    // The tests run from a git checkout of evalog (CI clones it), so there is a state to record.
    const g = collectProvenance().git;
    expect(g).to.not.equal(null);
    expect(g).to.have.keys(['revision', 'dirty', 'diff_sha256']);
    expect(g!.diff_sha256 === null).to.equal(!g!.dirty);
  });
});
