// A run whose plan is larger than one NATS message (RunStarted holds every job; 10 000 one-call
// cases make it about 1.1 MB against the server's default max_payload of 1 MB). Here the server
// takes messages of at most 64 KB and the run has 700 cases, so RunStarted (about 80 KB) is stored
// as a blob with a pointer in the stream: the run completes, lists, replays and rebuilds.
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { join } from 'node:path';
import { readJsonl, runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const CASES = 700;

describe('a run whose plan is larger than a NATS message (real nats-server with max_payload 64 KB)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;

  before(async () => {
    tmp = await tempDir();
    nats = await startNatsServer({ maxPayload: 64 * 1024 });
    const lines = Array.from({ length: CASES }, (_, i) =>
      JSON.stringify({ id: `case-${i}`, input: `Reply with exactly: answer-${i}`, expected: `answer-${i}` }),
    );
    await writeFile(join(tmp.dir, 'cases.jsonl'), `${lines.join('\n')}\n`);
  });
  after(async () => {
    await nats?.stop();
    await tmp?.cleanup();
  });

  it('runs, lists as completed, replays every event and rebuilds the same files', async () => {
    const r = await runEvalog(['run', 'dataset', '--data', 'cases.jsonl', '--nats', nats.url, '--out', 'runs/big', '--quiet'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const rows = await readJsonl(join(tmp.dir, 'runs/big/rows.jsonl'));
    expect(rows).to.have.length(CASES);
    // The run's first message in the stream is the pointer to its RunStarted, not the event itself.
    const log = await JetStreamEventLog.connect({ servers: nats.url });
    try {
      const first = await (await jetstreamManager(log.nc)).streams.getMessage('EVALOG', { seq: 1 });
      expect(Buffer.from(first!.data).subarray(0, 8).toString('latin1')).to.equal('EVSPILL1');
      let started = 0;
      for await (const e of log.read('big')) if (e.type === 'RunStarted') started = (e.data as { jobs: unknown[] }).jobs.length;
      expect(started).to.equal(CASES);
    } finally {
      await log.close();
    }

    const runs = await runEvalogHere(['runs', '--nats', nats.url], { cwd: tmp.dir });
    expect(runs.code, runs.stderr).to.equal(0);
    expect(runs.stdout).to.match(/big\s.*completed/);

    const replay = await runEvalogHere(['replay', 'big', '--nats', nats.url], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.include('every event matches');

    const rebuilt = await runEvalogHere(['rebuild', 'big', '--nats', nats.url, '--out', 'rebuilt'], { cwd: tmp.dir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json', 'run.json']) {
      expect(await readFile(join(tmp.dir, 'rebuilt', f), 'utf8'), f).to.equal(await readFile(join(tmp.dir, 'runs/big', f), 'utf8'));
    }
  });
});
