// What the watch loop watches and how it sees a save, on real files in a temporary folder: the
// suite's folder and named files, never the run folders or the cache; a save is a change of bytes
// (a touch is none); a change is seen by fs.watch alone and by the poll alone (for mounts where
// fs.watch hears nothing), and an abort ends the wait.
import { expect } from 'chai';
import { mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { changedFiles, recordedFiles, snapshot, withFiles, type WatchSet } from '../../src/cli/watch-files.js';
import { nextChange } from '../../src/cli/watch-trigger.js';
import { tempDir } from '../support/cli.js';

describe('watch files (evalog run --watch)', function () {
  this.timeout(20_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let set: WatchSet;

  beforeEach(async () => {
    tmp = await tempDir();
    const d = tmp.dir;
    await mkdir(join(d, 'suite', 'lib'), { recursive: true });
    await mkdir(join(d, 'suite', 'runs', 'old-run'), { recursive: true });
    await mkdir(join(d, 'suite', 'node_modules', 'x'), { recursive: true });
    await mkdir(join(d, 'suite', '.evalog-cache'), { recursive: true });
    await mkdir(join(d, 'data'), { recursive: true });
    await writeFile(join(d, 'suite', 'suite.ts'), 'export default 1;\n');
    await writeFile(join(d, 'suite', 'lib', 'prompt.md'), 'Answer briefly.\n');
    await writeFile(join(d, 'suite', 'runs', 'old-run', 'rows.jsonl'), '{}\n');
    await writeFile(join(d, 'suite', 'node_modules', 'x', 'index.js'), '');
    await writeFile(join(d, 'suite', '.evalog-cache', 'entry.json'), '{}');
    await writeFile(join(d, 'data', 'cases.jsonl'), '{"id":"a"}\n');
    await writeFile(join(d, 'data', 'other.jsonl'), '{"id":"z"}\n');
    set = { roots: [join(d, 'suite')], files: [join(d, 'data', 'cases.jsonl')], ignore: [join(d, 'suite', 'runs')] };
  });
  afterEach(() => tmp.cleanup());

  it('watches the suite folder and the named files, not runs, dependencies, dot folders or other data', async () => {
    const s = await snapshot(set);
    expect([...s.files.keys()].map((f) => f.slice(tmp.dir.length + 1)).sort()).to.deep.equal(['data/cases.jsonl', 'suite/lib/prompt.md', 'suite/suite.ts']);
    expect(s.dirs.map((f) => f.slice(tmp.dir.length + 1))).to.deep.equal(['data', 'suite', 'suite/lib']);
    expect(s.truncated).to.equal(false);
  });

  it('a save is a change of bytes: edited, added and removed files count, a touch or a write of the same bytes does not', async () => {
    const before = await snapshot(set);
    await utimes(join(tmp.dir, 'suite', 'suite.ts'), new Date(), new Date(Date.now() + 5000));
    await writeFile(join(tmp.dir, 'suite', 'lib', 'prompt.md'), 'Answer briefly.\n');
    await writeFile(join(tmp.dir, 'suite', 'runs', 'old-run', 'rows.jsonl'), '{"new":1}\n');
    expect(changedFiles(before, await snapshot(set, before))).to.deep.equal([]);

    await writeFile(join(tmp.dir, 'data', 'cases.jsonl'), '{"id":"b"}\n');
    await writeFile(join(tmp.dir, 'suite', 'lib', 'extra.ts'), 'export {};\n');
    await rm(join(tmp.dir, 'suite', 'suite.ts'));
    const after = await snapshot(set, before);
    expect(changedFiles(before, after).map((f) => f.slice(tmp.dir.length + 1))).to.deep.equal(['data/cases.jsonl', 'suite/lib/extra.ts', 'suite/suite.ts']);
  });

  it('run.json names its data files by path and hash; they join the set once', () => {
    const runJson = {
      config: { data: { path: '/abs/cases.jsonl', sha256: 'aa' }, prompts: '{{input}}', nested: [{ path: 'rel/p.md', sha256: 'bb' }] },
      provenance: { suite_file: { path: 'suite.ts', sha256: 'cc', report: false }, manifests: { 'x/y': 'dd' } },
    };
    const files = recordedFiles(runJson, '/work');
    expect(files).to.deep.equal(['/abs/cases.jsonl', '/work/rel/p.md', '/work/suite.ts']);
    const grown = withFiles(set, files);
    expect(grown.files).to.include('/abs/cases.jsonl');
    expect(withFiles(grown, files)).to.equal(grown);
    expect(withFiles(set, [join(tmp.dir, 'suite', 'runs', 'r', 'x.json')]), 'an ignored folder stays ignored').to.equal(set);
  });

  for (const [how, options] of [
    ['fs.watch alone', { pollMs: 0, debounceMs: 50, useFsWatch: true }],
    ['the poll alone', { pollMs: 100, debounceMs: 50, useFsWatch: false }],
  ] as const) {
    it(`sees an editor's save (a write to a temp file renamed over the original) through ${how}`, async () => {
      const since = await snapshot(set);
      const waiting = nextChange(set, since, options);
      await new Promise((r) => setTimeout(r, 200));
      const target = join(tmp.dir, 'data', 'cases.jsonl');
      await writeFile(`${target}.tmp`, '{"id":"edited"}\n');
      await rename(`${target}.tmp`, target);
      const change = await waiting;
      expect(change?.changed).to.deep.equal([target]);
    });
  }

  it('a change made before the wait (during the run) is seen at once; a write to an ignored folder is not a change', async () => {
    const since = await snapshot(set);
    await writeFile(join(tmp.dir, 'suite', 'lib', 'prompt.md'), 'Answer at length.\n');
    const change = await nextChange(set, since, { pollMs: 0, debounceMs: 20, useFsWatch: false });
    expect(change?.changed).to.deep.equal([join(tmp.dir, 'suite', 'lib', 'prompt.md')]);

    const controller = new AbortController();
    const waiting = nextChange(set, change!.snap, { pollMs: 50, debounceMs: 20, useFsWatch: true, signal: controller.signal });
    await writeFile(join(tmp.dir, 'suite', 'runs', 'old-run', 'rows.jsonl'), '{"again":1}\n');
    await writeFile(join(tmp.dir, 'data', 'other.jsonl'), '{"id":"y"}\n');
    await new Promise((r) => setTimeout(r, 400));
    controller.abort();
    expect(await waiting, 'nothing watched changed; the abort ended the wait').to.equal(null);
  });
});
