// The generic commands bind a recorded run through the suite contract alone (a SuiteCli's binding):
// a planted suite's binding, given to resume and replay in place of the registry's, adds its flag,
// its help line and its refusal, and the suite it binds is the one the run goes on with. The run is
// a real smoke run (scripted model, embedded log), cut after two jobs as a kill would leave it.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { cp, readFile } from 'node:fs/promises';
import { runCli } from '../../src/cli/main.js';
import { replayCommandFor } from '../../src/cli/replay.js';
import { resumeCommand, resumeCommandFor } from '../../src/cli/resume.js';
import { combinedBinding, InputError, type CliIO, type DefinedSuite, type RunBinding } from '../../src/harness/suite/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';
import { cutAfterJobs, fileEvents, writeLog } from '../support/memory-eviction-steps.js';
import { tempDir } from '../support/cli.js';

interface Captured {
  io: CliIO;
  out(): string;
  err(): string;
}

function capture(cwd: string): Captured {
  let out = '';
  let err = '';
  const sink = (add: (t: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _e, done) {
        add(chunk.toString());
        done();
      },
    });
  return { io: { stdout: sink((t) => (out += t)), stderr: sink((t) => (err += t)), env: { NO_COLOR: '1' }, cwd }, out: () => out, err: () => err };
}

/** A binding of the smoke suite's runs to `--planted-input`, recording each lookup and each configure of the suite it binds. */
function plantedBinding() {
  const lookups: { suite: string; input: unknown }[] = [];
  let configured = 0;
  // The smoke suite itself, but counting its configure calls: a run that goes on with it says so.
  const bound: DefinedSuite = Object.create(smokeSuite, {
    configure: {
      value: (data: unknown) => {
        configured += 1;
        return smokeSuite.configure(data);
      },
    },
  });
  const binding: RunBinding = {
    options: { 'planted-input': { type: 'string' } },
    help: 'A planted run also needs its input: --planted-input X.',
    workerHelp: 'Runs of the planted suite need --planted-input X here too.',
    bind: (values) => (suite) => {
      if (suite !== 'smoke') return undefined;
      lookups.push({ suite, input: values['planted-input'] });
      if (values['planted-input'] === undefined) throw new InputError('evalog: the planted run needs --planted-input X');
      return bound;
    },
  };
  return { binding, lookups, configured: () => configured };
}

describe('generic commands bind recorded runs through the suite contract (a planted binding)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    tmp = await tempDir();
    const c = capture(tmp.dir);
    expect(await runCli(['run', 'smoke', '--out', 'runs/whole', '--quiet'], c.io), c.err()).to.equal(0);
  });
  after(async () => {
    await tmp?.cleanup();
  });

  /** A copy of the whole run's log cut after two jobs, under `root` (run id whole). */
  async function cutRun(root: string): Promise<string> {
    const events = await fileEvents(join(tmp.dir, 'runs'), 'whole');
    await writeLog(join(tmp.dir, root), cutAfterJobs(events, 2));
    // The blobs the kept events name (requests, responses) are in the whole run's store.
    await cp(join(tmp.dir, 'runs/whole/log/blobs.pack'), join(tmp.dir, root, 'whole/log/blobs.pack'));
    return join(root, 'whole');
  }

  it('resume takes the binding’s flag, asks it for the recorded suite and goes on with the suite it binds', async () => {
    const planted = plantedBinding();
    const resume = resumeCommandFor(planted.binding);
    expect(resume.help).to.include('A planted run also needs its input: --planted-input X.\n');
    const folder = await cutRun('cut-a');
    const c = capture(tmp.dir);
    expect(await resume.run([folder, '--planted-input', 'x', '--quiet'], c.io), c.err()).to.equal(0);
    expect(planted.lookups).to.deep.equal([{ suite: 'smoke', input: 'x' }]);
    expect(planted.configured(), 'the bound suite configured the rest of the run').to.be.greaterThan(0);
    // The run finished with the bound suite: its rows are the whole run's.
    const rows = (await readFile(join(tmp.dir, folder, 'rows.jsonl'), 'utf8')).trim().split('\n');
    const whole = (await readFile(join(tmp.dir, 'runs/whole/rows.jsonl'), 'utf8')).trim().split('\n');
    expect(rows.length).to.equal(whole.length);
  });

  it('resume refuses, as bad input before anything is written, what the binding refuses', async () => {
    const planted = plantedBinding();
    const folder = await cutRun('cut-b');
    const before = await readFile(join(tmp.dir, folder, 'log', 'events.evlog'));
    const c = capture(tmp.dir);
    let thrown: unknown;
    await resumeCommandFor(planted.binding)
      .run([folder, '--quiet'], c.io)
      .catch((err: unknown) => {
        thrown = err;
      });
    expect(thrown).to.be.instanceOf(InputError);
    expect((thrown as Error).message).to.equal('evalog: the planted run needs --planted-input X');
    expect(planted.lookups).to.deep.equal([{ suite: 'smoke', input: undefined }]);
    expect(await readFile(join(tmp.dir, folder, 'log', 'events.evlog'))).to.deep.equal(before);
  });

  it('replay asks the binding for the suites of the run it replays', async () => {
    const planted = plantedBinding();
    const c = capture(tmp.dir);
    expect(await replayCommandFor(planted.binding).run(['runs/whole', '--planted-input', 'y'], c.io), c.out()).to.equal(0);
    expect(planted.lookups.length).to.be.greaterThan(0);
    expect(planted.lookups.every((l) => l.suite === 'smoke' && l.input === 'y')).to.equal(true);
  });

  it('the registry’s resume knows no planted flag (the flags are the bindings’, not the command’s)', async () => {
    const c = capture(tmp.dir);
    const err = await resumeCommand.run(['runs/whole', '--planted-input', 'x'], c.io).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InputError);
    expect((err as Error).message).to.match(/^evalog resume: unknown flag --planted-input/);
  });

  it('combinedBinding asks each suite’s binding in turn and joins their flags and help', () => {
    const a = plantedBinding();
    const other: RunBinding = {
      options: { other: { type: 'boolean' } },
      help: 'other help',
      workerHelp: 'other worker help',
      bind: () => (suite) => (suite === 'other' ? smokeSuite : undefined),
    };
    const combined = combinedBinding([{}, { binding: a.binding }, { binding: other }]);
    expect(Object.keys(combined.options)).to.deep.equal(['planted-input', 'other']);
    expect(combined.help).to.equal('A planted run also needs its input: --planted-input X.\nother help');
    const lookup = combined.bind({ 'planted-input': 'z' }, capture(tmp.dir).io);
    expect(lookup('other')).to.equal(smokeSuite);
    expect(lookup('nobody')).to.equal(undefined);
    expect(a.lookups).to.deep.equal([]);
    expect(lookup('smoke')).to.not.equal(undefined);
    expect(a.lookups).to.deep.equal([{ suite: 'smoke', input: 'z' }]);
    expect(combinedBinding([{}]).help).to.equal('');
  });
});
