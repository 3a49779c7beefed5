import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';

// What a run prints without a terminal (CI, a log file): a progress line every 10 s, not a line per job.
describe('run output without a terminal (CLI in process, built-in scripted model)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(async () => {
    await tmp?.cleanup();
  });

  it('a 3000-case dataset run prints at most 40 lines on stdout and stderr together, ending with the whole count', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: `c${i}`, input: `Reply with exactly: A${i}`, expected: `A${i}` }));
    await writeFile(join(tmp.dir, 'cases.jsonl'), `${lines.join('\n')}\n`);
    const r = await runEvalogHere(['run', 'dataset', '--data', 'cases.jsonl', '--concurrency', '32', '--out', 'runs/big'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const printed = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l !== '');
    expect(printed.length, printed.join('\n')).to.be.at.most(40);
    expect(r.stderr).to.not.match(/^job /m);
    expect(r.stderr).to.match(/^3000\/3000 done · 3000 passed · 0 errors · \d+ calls · \d+ tokens · \S+ elapsed · [\d.]+ jobs\/s · ETA 0s$/m);
    expect(await readJsonl(join(tmp.dir, 'runs/big/rows.jsonl'))).to.have.length(3000);
  });

  it('run --json prints summary.json as JSON on stdout, nothing else; --quiet leaves only the table', async () => {
    const r = await runEvalogHere(['run', 'smoke', '--out', 'runs/json', '--json'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal(JSON.parse(await readFile(join(tmp.dir, 'runs/json/summary.json'), 'utf8')));
    const q = await runEvalogHere(['run', 'smoke', '--out', 'runs/quiet', '--quiet'], { cwd: tmp.dir });
    expect(q.code, q.stderr).to.equal(0);
    expect(q.stderr).to.equal('');
    expect(q.stdout)
      .to.match(/^suite smoke/)
      .and.not.include('wrote ');
  });
});
