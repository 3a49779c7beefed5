import { expect } from 'chai';
import { access, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { startNatsServer } from '../support/nats-server.js';

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One line on stderr, exit 2, no stack. */
function oneLine(r: { code: number | null; stderr: string }, what: string): string {
  expect(r.code, r.stderr).to.equal(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, `${what}: ${r.stderr}`).to.have.length(1);
  expect(r.stderr).to.not.match(/\n\s+at /);
  return lines[0]!;
}

describe('messages, not stacks (child processes)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(async () => {
    await tmp?.cleanup();
  });

  it('NATS not listening: one line naming the URL, exit 2, nothing written', async () => {
    const url = `nats://127.0.0.1:${await closedPort()}`;
    const line = oneLine(await runEvalog(['run', 'smoke', '--out', 'runs/n', '--nats', url], { cwd: tmp.dir }), 'run');
    expect(line).to.equal(`evalog: NATS at ${url} cannot be reached (connection refused); check --nats or EVALOG_NATS_URL`);
    expect(
      await access(join(tmp.dir, 'runs')).then(
        () => 'written',
        () => 'absent',
      ),
    ).to.equal('absent');
    expect(oneLine(await runEvalogHere(['runs', '--nats', url], { cwd: tmp.dir }), 'runs')).to.include(url);
  });

  it('negative numbers are parsed and range-checked, naming the flag; an unknown flag gets a "did you mean"', async () => {
    expect(oneLine(await runEvalog(['run', 'smoke', '--repetitions', '-1'], { cwd: tmp.dir }), 'repetitions')).to.equal(
      'evalog run: --repetitions must be between 1 and 1000, got -1',
    );
    expect(oneLine(await runEvalogHere(['watch', 'runs/x', '--from=-5'], { cwd: tmp.dir }), 'from')).to.include('--from must be between 0');
    expect(oneLine(await runEvalog(['run', 'smoke', '--concurency', '2'], { cwd: tmp.dir }), 'unknown flag')).to.equal(
      'evalog run: unknown flag --concurency; did you mean --concurrency? (see evalog run --help)',
    );
  });

  it('watch: a run the log does not hold exits 2 (embedded and NATS); an unknown --type exits 2 listing the known ones', async () => {
    expect(oneLine(await runEvalogHere(['watch', 'runs/no-such-run'], { cwd: tmp.dir }), 'embedded')).to.equal(
      `evalog watch: no run no-such-run in ${join(tmp.dir, 'runs/no-such-run')}; to wait for a run that has not started yet, add --wait`,
    );
    const nats = await startNatsServer();
    try {
      expect(oneLine(await runEvalogHere(['watch', 'misspelt', '--nats', nats.url], { cwd: tmp.dir }), 'nats')).to.include('no run misspelt in the NATS log');
    } finally {
      await nats.stop();
    }
    const bogus = oneLine(await runEvalogHere(['watch', 'runs/whatever', '--type', 'Bogus'], { cwd: tmp.dir }), 'type');
    expect(bogus).to.match(/^evalog watch: --type "Bogus" is not an event type; known types: .*JobSucceeded.*RunStarted/);
  });

  it('summarize says when a file is not context-snapshot rows', async () => {
    await writeFile(join(tmp.dir, 'rows.jsonl'), `${JSON.stringify({ arm: 'default', case_id: 'c1', passed: true })}\n`);
    expect(oneLine(await runEvalogHere(['summarize', 'rows.jsonl'], { cwd: tmp.dir }), 'summarize')).to.include(
      `${join(tmp.dir, 'rows.jsonl')} is not context-snapshot rows`,
    );
  });
});
