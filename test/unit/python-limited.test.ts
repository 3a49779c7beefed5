import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runPythonLimited, type LimitedPythonRun } from '../../src/sandbox/index.js';

const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
const NO_PYTHON = 'skipped: python3 is not on PATH, so no limited Python script can run';
const PREFIX = 'evalog-pylimited-test-';

const run = (script: string, more: Partial<LimitedPythonRun> = {}) =>
  runPythonLimited({ script, input: '', cpuSeconds: 1, wallMs: 60_000, tempPrefix: PREFIX, ...more });

describe(`runPythonLimited: a Python script under a CPU budget and a wall limit (real python3)${HAS_PYTHON ? '' : ` (${NO_PYTHON})`}`, function () {
  this.timeout(60_000);
  before(function () {
    if (!HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so no limited Python script can run
  });

  it('passes stdin and argv through and returns what the script printed', async () => {
    const out = await run('import sys\nsys.stdout.write(sys.stdin.read().upper() + " " + " ".join(sys.argv[1:]))\n', { input: 'abc', args: ['x', 'y'] });
    expect(out).to.deep.include({ stdout: 'ABC x y', code: 0, signal: null, timedOut: false, cpuExceeded: false });
  });

  it('sets the CPU limit before the script runs (the script reads it back), and no core dumps', async () => {
    const out = await run('import resource\nprint(resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_CORE))\n', { cpuSeconds: 2 });
    expect(out.stdout.trim()).to.equal('2 (0, 0)');
  });

  it('leaves the script no name of its own (the limit is set in a function that is deleted)', async () => {
    const out = await run('print(sorted(n for n in globals() if not n.startswith("__")))\n');
    expect(out.stdout.trim()).to.equal('[]');
  });

  it('a busy loop is ended by the kernel at the CPU budget: cpuExceeded, not timedOut', async () => {
    const started = Date.now();
    const out = await run('while True:\n    pass\n');
    expect(out).to.deep.include({ signal: 'SIGXCPU', cpuExceeded: true, timedOut: false });
    // One thread cannot use 1 s of CPU in less wall time.
    expect(Date.now() - started).to.be.at.least(900);
  });

  it('waiting costs no CPU: a script that sleeps past its CPU budget finishes', async () => {
    const out = await run('import time\ntime.sleep(1.5)\nprint("done")\n');
    expect(out).to.deep.include({ stdout: 'done\n', cpuExceeded: false, timedOut: false });
  });

  it('the wall limit kills a script that waits: timedOut, not cpuExceeded', async () => {
    const out = await run('import time\ntime.sleep(30)\n', { wallMs: 500 });
    expect(out).to.deep.include({ timedOut: true, cpuExceeded: false });
  });

  it('refuses a CPU budget that is not a whole number of seconds, before anything runs', async () => {
    for (const cpuSeconds of [0, 0.5, Number.NaN]) {
      const err = await run('print(1)\n', { cpuSeconds }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, String(cpuSeconds)).to.be.instanceOf(RangeError);
      expect((err as Error).message).to.match(/^cpuSeconds: a whole number of seconds, at least 1/);
    }
  });

  it('runs in an empty folder of its own, named with the prefix, and removes it afterwards', async () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX));
    const out = await run(`import os\nprint(os.path.basename(os.getcwd()).startswith("${PREFIX}"), os.listdir("."))\n`);
    expect(out.stdout.trim()).to.equal('True []');
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX) && !before.includes(n))).to.deep.equal([]);
  });
});
