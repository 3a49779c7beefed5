// A job's workspace: the suite's tools on the artifact (built-in worker), an external agent's
// folder (seeded, the tools' writes carried into it, captured when it exits), and the event the
// grader records it as (files and diff as blobs, the totals the rows show).
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../../src/core/canonical.js';
import { applyChanges, captureWorkspace, seedWorkspace, writingTools } from '../../src/harness/external/workspace.js';
import type { AgentJobHandlers } from '../../src/harness/kernel/agent-gateway.js';
import { workspaceDraft } from '../../src/harness/grader/workspace.js';
import { diffSummary, workspaceDiffHead } from '../../src/projections/index.js';
import { changesArtifact, changesOf, loadCodingCases, runWorkspaceTool, workspaceDiff } from '../../src/suites/coding/index.js';

const sum = loadCodingCases().find((c) => c.id === 'sum_numbers')!;
const at = (artifact: string | null) => ({ case: sum, artifact, revision: 0 });

describe('coding suite: the tools on the workspace', function () {
  this.timeout(60_000);

  it('lists and reads the files as written so far, and saves each write as the changes over the case', async () => {
    const listed = await runWorkspaceTool('list_files', '{}', at(null));
    expect(listed.result.split('\n')).to.deep.equal(['TASK.md', 'package.json', 'src/sum.js', 'test/sum.test.js']);
    const wrote = await runWorkspaceTool('write_file', JSON.stringify({ path: 'src/extra.js', content: 'export const x = 1;\n' }), at(null));
    expect(wrote).to.include({ result: 'wrote src/extra.js (1 line)', isError: false });
    expect(changesOf(wrote.artifact!)).to.deep.equal({ 'src/extra.js': 'export const x = 1;\n' });
    expect((await runWorkspaceTool('read_file', '{"path":"src/extra.js"}', at(wrote.artifact!))).result).to.equal('export const x = 1;\n');
    // Written back to the case's text, a file is no change any more.
    const back = await runWorkspaceTool('write_file', JSON.stringify({ path: 'src/sum.js', content: sum.data.files['src/sum.js'] }), at(wrote.artifact!));
    expect(changesOf(back.artifact!)).to.deep.equal({ 'src/extra.js': 'export const x = 1;\n' });
  });

  it('refuses paths outside the repository, the tools’ own dot-folders, and bad arguments, as tool errors', async () => {
    for (const path of ['/etc/passwd', '../up.js', 'src/../x.js', '.claude/settings.json', 'node_modules/x/index.js', 'a\\b.js', '']) {
      const out = await runWorkspaceTool('write_file', JSON.stringify({ path, content: 'x' }), at(null));
      expect(out.isError, path).to.equal(true);
      expect(out.artifact, path).to.equal(undefined);
    }
    expect(await runWorkspaceTool('read_file', '{"path":"nope.js"}', at(null))).to.deep.include({ isError: true });
    expect(await runWorkspaceTool('write_file', 'not json', at(null))).to.deep.include({ result: 'error: arguments are not a JSON object', isError: true });
    expect(await runWorkspaceTool('rm', '{}', at(null))).to.deep.include({ isError: true });
  });

  it("runs the repository's own tests on the files as written: failing before, passing after", async () => {
    const before = await runWorkspaceTool('run_tests', '{}', at(null));
    expect(before.result).to.equal('FAIL test/sum.test.js: test "sums a short list" failed\n0 of 1 test files passed');
    const fixed = changesArtifact({ 'src/sum.js': 'export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n' });
    expect((await runWorkspaceTool('run_tests', '{}', at(fixed))).result).to.equal('PASS test/sum.test.js\n1 of 1 test files passed');
  });
});

describe("coding suite: an external agent's workspace folder", () => {
  let dir: string;
  const seed = { 'README.md': 'hi\n', 'src/a.js': 'a\n', '.gitignore': 'x\n' };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalog-ws-test-'));
    await seedWorkspace(dir, seed);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('captures nothing for an untouched folder', async () => {
    expect(await captureWorkspace(dir, seed)).to.deep.equal({ changed: {}, skipped: [] });
  });

  it("captures changed, new and deleted files, and leaves the agent tools' dot-folders and node_modules out", async () => {
    await writeFile(join(dir, 'src/a.js'), 'A\n');
    await writeFile(join(dir, 'src/b.js'), 'b\n');
    await rm(join(dir, 'README.md'));
    await writeFile(join(dir, '.gitignore'), 'y\n'); // the case's own dot-file is work
    await mkdir(join(dir, '.claude/projects'), { recursive: true });
    await writeFile(join(dir, '.claude/projects/session.jsonl'), '{}\n');
    await writeFile(join(dir, '.claude.json'), '{}');
    await mkdir(join(dir, 'node_modules/x'), { recursive: true });
    await writeFile(join(dir, 'node_modules/x/index.js'), '');
    expect(await captureWorkspace(dir, seed)).to.deep.equal({
      changed: { '.gitignore': 'y\n', 'README.md': null, 'src/a.js': 'A\n', 'src/b.js': 'b\n' },
      skipped: [],
    });
  });

  it('skips what cannot be taken as text: binary, too large, a link', async () => {
    await writeFile(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(300 * 1024));
    await writeFile(join(dir, 'latin1.txt'), Buffer.from([0xe9, 0x0a]));
    await symlink('/etc/passwd', join(dir, 'link'));
    expect((await captureWorkspace(dir, seed)).skipped).to.deep.equal([
      { path: 'big.txt', reason: 'too large' },
      { path: 'latin1.txt', reason: 'binary' },
      { path: 'link', reason: 'symbolic link' },
      { path: 'logo.png', reason: 'binary' },
    ]);
  });

  it('applies only the paths whose content changed, restoring the seed for a change undone', async () => {
    await writeFile(join(dir, 'src/a.js'), 'edited by the agent itself\n');
    await applyChanges(dir, seed, {}, { 'src/new.js': 'n\n' });
    expect(await readFile(join(dir, 'src/a.js'), 'utf8')).to.equal('edited by the agent itself\n');
    expect(await readFile(join(dir, 'src/new.js'), 'utf8')).to.equal('n\n');
    await applyChanges(dir, seed, { 'src/new.js': 'n\n', 'README.md': 'changed\n' }, {});
    expect(await captureWorkspace(dir, seed)).to.deep.equal({ changed: { 'src/a.js': 'edited by the agent itself\n' }, skipped: [] });
  });

  it('carries each MCP tool call’s writes into the folder before the agent gets the reply', async () => {
    let artifact: string | null = null;
    const handlers: AgentJobHandlers = {
      model: () => Promise.reject(new Error('no model here')),
      tools: () => [],
      callTool: async () => {
        artifact = changesArtifact({ 'src/a.js': 'from write_file\n' });
        return { result: 'wrote', isError: false };
      },
    };
    const wrapped = writingTools(handlers, dir, { files: seed, changes: changesOf }, () => artifact);
    await wrapped.callTool('write_file', {});
    expect(await readFile(join(dir, 'src/a.js'), 'utf8')).to.equal('from write_file\n');
  });
});

describe('coding suite: the recorded workspace', () => {
  it('stores each changed file and the diff as blobs, and totals the diff', async () => {
    const blobs = new Map<string, Buffer>();
    const journal = {
      blobs: {
        put: async (b: Uint8Array) => {
          blobs.set(sha256(b), Buffer.from(b));
          return sha256(b);
        },
        get: async () => new Uint8Array(),
        has: async () => false,
      },
      storedBlobs: new Set<string>(),
      scope: { replaying: false },
    };
    const graded = workspaceDiff({ 'a.js': 'a\n', 'b.js': 'b\n' }, { 'b.js': null, 'a.js': 'A\nA2\n', 'c.js': 'c\n' }, [{ path: 'x.bin', reason: 'binary' }]);
    const d = await workspaceDraft(journal as never, graded);
    expect(d.type).to.equal('WorkspaceCaptured');
    expect(d.data.summary).to.deep.equal({ files: 3, added: 3, removed: 2 });
    expect(d.data.files.map((f) => [f.path, f.change, f.blob === null ? null : blobs.get(f.blob)!.toString()])).to.deep.equal([
      ['a.js', 'modified', 'A\nA2\n'],
      ['b.js', 'deleted', null],
      ['c.js', 'added', 'c\n'],
    ]);
    expect(blobs.get(d.data.diff!)!.toString()).to.equal(graded.diff);
    expect(d.data.skipped).to.deep.equal([{ path: 'x.bin', reason: 'binary' }]);
    expect((await workspaceDraft(journal as never, workspaceDiff({}, {}))).data).to.deep.include({
      diff: null,
      files: [],
      summary: { files: 0, added: 0, removed: 0 },
    });
  });
});

describe('coding suite: the recorded diff as show and the viewer print it', () => {
  const recorded = (diff: string) => {
    const ref = sha256(Buffer.from(diff));
    const blobs = { get: async (h: string) => (h === ref ? Buffer.from(diff) : Promise.reject(new Error('missing'))) };
    const w = { event: { id: 'r/j/9', seq: 9 }, files: [], skipped: [], diff: ref, summary: { files: 1, added: 300, removed: 0 } };
    return { w, blobs };
  };

  it('shows the first lines within the bounds and says how many are left out', async () => {
    const { w, blobs } = recorded(`${Array.from({ length: 300 }, (_, i) => `+line ${i}`).join('\n')}\n`);
    const head = await workspaceDiffHead(w, blobs, { lines: 5, bytes: 1024 });
    expect(head).to.deep.equal({ text: '+line 0\n+line 1\n+line 2\n+line 3\n+line 4', lines: 5, totalLines: 300, cut: true });
    expect(diffSummary({ summary: w.summary, skipped: [{ path: 'a.png', reason: 'binary' }] })).to.equal(
      '1 file changed, +300 −0; not captured: a.png (binary)',
    );
  });

  it('escapes control characters a file may hold, so it cannot repaint a terminal', async () => {
    const { w, blobs } = recorded('+\x1b[31mred\x1b[0m\n');
    expect((await workspaceDiffHead(w, blobs)).text).to.equal('+\\x1b[31mred\\x1b[0m');
  });
});
