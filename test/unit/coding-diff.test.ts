// The coding suite's unified diff: git's format, sorted by path, the same text for the same change,
// and (where a git binary is at hand) a patch `git apply` takes back to the changed files.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileDiff, workspaceDiff } from '../../src/suites/coding/index.js';

const HAS_GIT = spawnSync('git', ['--version']).status === 0;

describe('coding suite: the diff of one file', () => {
  it('shows a changed line with three lines of context and its counts', () => {
    const d = fileDiff('src/a.js', 'one\ntwo\nthree\nfour\nfive\n', 'one\ntwo\nTHREE\nfour\nfive\n');
    expect(d.text).to.equal(
      [
        'diff --git a/src/a.js b/src/a.js',
        '--- a/src/a.js',
        '+++ b/src/a.js',
        '@@ -1,5 +1,5 @@',
        ' one',
        ' two',
        '-three',
        '+THREE',
        ' four',
        ' five',
        '',
      ].join('\n'),
    );
    expect([d.added, d.removed]).to.deep.equal([1, 1]);
  });

  it('splits changes far apart into hunks, and keeps near ones in one', () => {
    const before = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`;
    const far = fileDiff('f.js', before, before.replace('l2\n', 'L2\n').replace('l17\n', 'L17\n'));
    expect(far.text.match(/^@@ .* @@$/gm)).to.deep.equal(['@@ -1,6 +1,6 @@', '@@ -15,6 +15,6 @@']);
    const near = fileDiff('f.js', before, before.replace('l2\n', 'L2\n').replace('l7\n', 'L7\n'));
    expect(near.text.match(/^@@ .* @@$/gm)).to.deep.equal(['@@ -1,11 +1,11 @@']);
  });

  it('marks a new file, a deleted file, and a file without a final newline as git does', () => {
    expect(fileDiff('n.js', null, 'x\n').text).to.equal(
      ['diff --git a/n.js b/n.js', 'new file mode 100644', '--- /dev/null', '+++ b/n.js', '@@ -0,0 +1 @@', '+x', ''].join('\n'),
    );
    expect(fileDiff('d.js', 'x\ny', null).text).to.equal(
      [
        'diff --git a/d.js b/d.js',
        'deleted file mode 100644',
        '--- a/d.js',
        '+++ /dev/null',
        '@@ -1,2 +0,0 @@',
        '-x',
        '-y',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    const eol = fileDiff('e.js', 'a\nb', 'a\nb\n');
    expect(eol.text).to.contain(['-b', '\\ No newline at end of file', '+b'].join('\n'));
    expect([eol.added, eol.removed]).to.deep.equal([1, 1]);
  });

  it('is empty for an unchanged file', () => {
    expect(fileDiff('same.js', 'a\n', 'a\n')).to.deep.equal({ text: '', added: 0, removed: 0 });
  });
});

describe('coding suite: the diff of a workspace', () => {
  const seed = { 'b.js': 'b\n', 'a.js': 'a\n', 'keep.js': 'k\n' };
  const changed = { 'z.js': 'new\n', 'b.js': null, 'a.js': 'A\n', 'keep.js': 'k\n' };

  it('lists the changed files sorted by path, each with its kind and counts, and leaves unchanged ones out', () => {
    const w = workspaceDiff(seed, changed, [{ path: 'img.png', reason: 'binary' }]);
    expect(w.files.map((f) => [f.path, f.change, f.added, f.removed])).to.deep.equal([
      ['a.js', 'modified', 1, 1],
      ['b.js', 'deleted', 0, 1],
      ['z.js', 'added', 1, 0],
    ]);
    expect(w.files.find((f) => f.path === 'b.js')!.content).to.equal(null);
    expect(w.diff.match(/^diff --git a\/(\S+)/gm)).to.deep.equal(['diff --git a/a.js', 'diff --git a/b.js', 'diff --git a/z.js']);
    expect(w.skipped).to.deep.equal([{ path: 'img.png', reason: 'binary' }]);
  });

  it('is the same text whatever order the changes come in', () => {
    const reversed = Object.fromEntries(Object.entries(changed).reverse());
    expect(workspaceDiff(seed, reversed).diff).to.equal(workspaceDiff(seed, changed).diff);
  });

  it(HAS_GIT ? 'applies with git apply, giving back the changed files' : 'applies with git apply (skipped: no git binary on PATH)', function () {
    if (!HAS_GIT) this.skip();
    const dir = mkdtempSync(join(tmpdir(), 'evalog-diff-test-'));
    try {
      const before: Record<string, string> = { 'src/x.js': 'one\ntwo\nthree\n', 'gone.js': 'bye\n', 'noeol.js': 'a\nb' };
      const after: Record<string, string | null> = { 'src/x.js': 'one\n2\nthree\nfour\n', 'gone.js': null, 'noeol.js': 'a\nb\nc', 'src/new.js': 'fresh\n' };
      for (const [p, t] of Object.entries(before)) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), t);
      }
      writeFileSync(join(dir, 'change.patch'), workspaceDiff(before, after).diff);
      const r = spawnSync('git', ['apply', '--unsafe-paths', 'change.patch'], { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      for (const [p, t] of Object.entries(after)) {
        if (t === null) expect(existsSync(join(dir, p)), p).to.equal(false);
        else expect(readFileSync(join(dir, p), 'utf8'), p).to.equal(t);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
