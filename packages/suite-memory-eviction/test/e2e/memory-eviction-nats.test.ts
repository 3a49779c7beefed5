// memory-eviction's steps on the JetStream log (issue 16, C9), with a real nats-server: run-policy's
// jobs taken by an `evalog worker` process, run-qa and grade-qa run by an in-process pool of
// workers; the files are the bytes the steps wrote before they were runs, and rebuild from NATS
// gives them again.

import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { JetStreamEventLog } from 'evalog';
import { collect, runEvalog, startEvalog, tempDir } from '../../../../test/support/cli.js';
import { MANIFEST_DIR_PATH, makeTestSetup } from '../../../../test/support/longmemeval.js';
import { eventsOf, gradeFilesBefore, loadInputs, policyFilesBefore } from '../../../../test/support/memory-eviction-steps.js';
import { type NatsServerHandle, startNatsServer } from '../../../../test/support/nats-server.js';

const POLICY_FILES = ['policy.raw.jsonl', 'summary.json', 'run.json'];
const GRADE_FILES = ['qa.rows.jsonl', 'qa.summary.json', 'qa.stats.json'];

async function read(dir: string, files: readonly string[]): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(join(dir, f), 'utf8')] as const)));
}

describe('memory-eviction steps on the JetStream log (real nats-server, workers, child processes)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle | undefined;
  let setup: ReturnType<typeof makeTestSetup>;
  let data: string[];
  let inputs: ReturnType<typeof loadInputs>;
  const cli = async (args: string[]) => {
    const r = await runEvalog(args, { cwd: tmp.dir });
    expect(r.code, `evalog ${args.join(' ')}\n${r.stderr}`).to.equal(0);
    return r;
  };
  const connect = () => JetStreamEventLog.connect({ servers: nats!.url });

  before(async () => {
    // No skip without nats-server: as the other JetStream tests, this one fails, so CI cannot pass it unrun.
    nats = await startNatsServer();
    tmp = await tempDir();
    setup = makeTestSetup();
    const protocolDir = join(tmp.dir, 'protocol');
    await cp(MANIFEST_DIR_PATH, protocolDir, { recursive: true });
    await cp(setup.config.path, join(protocolDir, 'config.v1.json'));
    data = ['--protocol', protocolDir, '--dataset', setup.dataset.path];
    inputs = loadInputs(protocolDir, setup.dataset.path);
  });
  after(async () => {
    await nats?.stop();
    setup?.cleanup();
    await tmp?.cleanup();
  });

  it('run-policy --workers external: an evalog worker runs every job; the files are runPolicy’s bytes, and rebuild from NATS gives them again', async () => {
    const worker = startEvalog(['worker', '--nats', nats!.url, '--suite', 'memory-eviction-policy', '--id', 'w1', '--concurrency', '8', ...data], {
      cwd: tmp.dir,
    });
    const stopped = collect(worker);
    try {
      await cli(['memory-eviction', 'run-policy', ...data, '--out', 'runs/npol', '--nats', nats!.url, '--workers', 'external']);
    } finally {
      worker.kill('SIGTERM');
    }
    const w = await stopped;
    expect(w.stderr).to.match(/evalog worker w1: took npol /);
    const log = await connect();
    const events = await eventsOf(log, 'npol').finally(() => log.close());
    // Every job was claimed by the worker: none ran in the coordinator.
    const claimed = new Set(events.flatMap((e) => (e.type === 'JobClaimed' && e.data.worker === 'w1' ? [e.jobId!] : [])));
    expect(claimed.size).to.equal(90);
    const files = await read(join(tmp.dir, 'runs/npol'), POLICY_FILES);
    expect(files).to.deep.equal(policyFilesBefore(inputs.protocol, inputs.cases, events[0]!));
    await cli(['rebuild', 'npol', '--nats', nats!.url, '--out', 'rebuilt-npol']);
    expect(await read(join(tmp.dir, 'rebuilt-npol'), POLICY_FILES)).to.deep.equal(files);
  });

  it('run-qa and grade-qa --workers 2: the grade run beside the QA run in NATS; its files are the direct grading’s bytes, rebuilt from NATS alike', async () => {
    const on = ['--nats', nats!.url, '--workers', '2'];
    await cli(['memory-eviction', 'run-qa', ...data, '--scripted', '--out', 'runs/nqa', ...on]);
    await cli(['memory-eviction', 'grade-qa', 'nqa', ...data, '--out', 'runs/nqa', ...on]);
    const log = await connect();
    try {
      expect((await log.runs()).map((r) => r.runId)).to.include.members(['nqa', 'nqa-grade']);
      const files = await read(join(tmp.dir, 'runs/nqa'), GRADE_FILES);
      expect(files).to.deep.equal(await gradeFilesBefore(inputs.protocol, inputs.cases, log, 'nqa'));
      const grades = await eventsOf(log, 'nqa-grade');
      expect(grades.filter((e) => e.type === 'JobClaimed')).to.have.length(90);
      await cli(['rebuild', 'nqa-grade', '--nats', nats!.url, '--out', 'rebuilt-nqa-grade']);
      expect(await read(join(tmp.dir, 'rebuilt-nqa-grade'), GRADE_FILES)).to.deep.equal(files);
    } finally {
      await log.close();
    }
  });
});
