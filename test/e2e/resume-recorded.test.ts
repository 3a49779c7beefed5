import { expect } from 'chai';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkAttemptsAccounted } from '../support/attempts.js';
import { readJsonl, runEvalogHere, runKilledAfterJobs, tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

// `evalog resume` knows what the run knows: the endpoint from the variables it recorded, its run id
// from its log (a copied or renamed folder), and --concurrency for the rest of the run.
describe('resume knows what the run knows (runs in child processes, resumes in process; scripted endpoint)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;

  before(async () => {
    tmp = await tempDir();
    server = await startMockServer(['--latency-ms', '150'], tmp.dir);
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  it('a copied run folder resumes with no endpoint flag (the recorded variables) at another concurrency, and replays, under its recorded run id', async () => {
    const env = { EVALOG_BASE_URL: server.url, EVALOG_MODEL: 'evalog-scripted', EVALOG_API_KEY: 'sk-test-key' };
    const killed = await runKilledAfterJobs(['run', 'smoke', '--out', 'runs/orig', '--concurrency', '4'], { cwd: tmp.dir, env }, 3);
    expect(killed.signal).to.equal('SIGKILL');
    await cp(join(tmp.dir, 'runs/orig'), join(tmp.dir, 'runs/copy-of-orig'), { recursive: true });
    // EVALOG_MODEL is gone: the model is the one the run recorded.
    const resumed = await runEvalogHere(['resume', 'runs/copy-of-orig', '--concurrency', '2', '--verbose'], {
      cwd: tmp.dir,
      env: { EVALOG_BASE_URL: server.url, EVALOG_API_KEY: 'sk-test-key', EVALOG_MODEL: undefined },
    });
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect(resumed.stderr).to.include('run orig: concurrency 2 for the rest of the run (it started with 4)');
    // Jobs that ended before the kill are not printed again.
    const printed = resumed.stderr.split('\n').filter((l) => l.startsWith('job ')).length;
    expect(printed).to.be.lessThan(16).and.greaterThan(0);
    const dir = join(tmp.dir, 'runs/copy-of-orig');
    expect(JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')).run_id).to.equal('orig');
    expect(await readJsonl(join(dir, 'rows.jsonl'))).to.have.length(16);
    // Every request went under the recorded id, and no completed call was sent twice.
    await checkAttemptsAccounted(server, dir, 'orig');
    const replay = await runEvalogHere(['replay', 'runs/copy-of-orig'], { cwd: tmp.dir });
    expect(replay.code, replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/of run orig: every event matches \(16 jobs\)/);
  });

  it('an endpoint given as a literal --base-url must be given again, and the message says so; a missing variable is named', async () => {
    const killed = await runKilledAfterJobs(
      ['run', 'smoke', '--out', 'runs/literal', '--base-url', server.url, '--model', 'evalog-scripted'],
      { cwd: tmp.dir, env: {} },
      2,
    );
    expect(killed.signal).to.equal('SIGKILL');
    const bare = await runEvalogHere(['resume', 'runs/literal'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } });
    expect(bare.code).to.equal(2);
    expect(bare.stderr.trim()).to.equal(
      'evalog resume: this run called model evalog-scripted at an endpoint given as a literal --base-url URL, which is not recorded; give --base-url URL again',
    );
    const again = await runEvalogHere(['resume', 'runs/literal', '--base-url', server.url], { cwd: tmp.dir, env: {} });
    expect(again.code, again.stderr).to.equal(0);

    const envRun = await runKilledAfterJobs(
      ['run', 'smoke', '--out', 'runs/env'],
      { cwd: tmp.dir, env: { EVALOG_BASE_URL: server.url, EVALOG_MODEL: 'evalog-scripted' } },
      2,
    );
    expect(envRun.signal).to.equal('SIGKILL');
    const unset = await runEvalogHere(['resume', 'runs/env'], { cwd: tmp.dir, env: { EVALOG_BASE_URL: undefined } });
    expect(unset.code).to.equal(2);
    expect(unset.stderr).to.include('the endpoint from EVALOG_BASE_URL, which is not set');
  });

  it('a folder whose log holds no run is refused', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(tmp.dir, 'runs/empty/log'), { recursive: true });
    await writeFile(join(tmp.dir, 'runs/empty/log/events.evlog'), Buffer.from('EVLOG\0\x01\x00', 'latin1'));
    const r = await runEvalogHere(['resume', 'runs/empty'], { cwd: tmp.dir });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('its event log holds no run');
  });
});
