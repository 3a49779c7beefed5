// run-policy, run-qa and grade-qa as runs with events (issue 16, C9): their files are folds of their
// logs, byte-identical to what the steps wrote before they were runs, rebuilt from the log alone,
// replayed, and resumed after a kill without running a recorded job again.

import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { StoredEvent } from 'evalog';
import { exists, FileEventLog } from 'evalog';
import { runEvalogHere, tempDir } from '../../../../test/support/cli.js';
import { MANIFEST_DIR_PATH, makeTestSetup } from '../../../../test/support/longmemeval.js';
import { cutAfterJobs, fileEvents, gradeFilesBefore, loadInputs, perJob, policyFilesBefore, writeLog } from '../../../../test/support/memory-eviction-steps.js';

const POLICY_FILES = ['policy.raw.jsonl', 'summary.json', 'run.json'];
const GRADE_FILES = ['qa.rows.jsonl', 'qa.summary.json', 'qa.stats.json'];
const QA_FILES = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json', 'qa_run.json'];

async function read(dir: string, files: readonly string[]): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(join(dir, f), 'utf8')] as const)));
}

/** What a resume after the kill must leave: the recorded prefix untouched, nothing again for a job that had ended, every job once. */
function expectResumedWithoutRedoing(cut: readonly StoredEvent[], after: readonly StoredEvent[], jobs: number): void {
  expect(
    after.slice(0, cut.length).map((e) => [e.id, e.type, e.data]),
    'the recorded events stay as they were',
  ).to.deep.equal(cut.map((e) => [e.id, e.type, e.data]));
  const ended = new Set(cut.flatMap((e) => (e.type === 'JobSucceeded' ? [e.jobId!] : [])));
  expect(ended.size, 'jobs had ended before the kill').to.be.greaterThan(0);
  const appended = after.slice(cut.length);
  expect(
    appended.filter((e) => e.jobId !== undefined && ended.has(e.jobId)).map((e) => e.id),
    'events appended for jobs that had ended',
  ).to.deep.equal([]);
  const inFlight = cut.filter((e) => e.type === 'JobStarted' && !ended.has(e.jobId!)).map((e) => e.jobId!);
  expect(inFlight.length, 'a job was in flight at the kill').to.be.greaterThan(0);
  for (const type of ['JobStarted', 'JobComputed', 'JobSucceeded'] as const) {
    const counts = perJob(after, type);
    expect(counts.size, type).to.equal(jobs);
    expect(
      [...counts.values()].every((n) => n === 1),
      `one ${type} per job`,
    ).to.equal(true);
  }
  expect(after.filter((e) => e.type === 'RunCompleted')).to.have.length(1);
}

describe('memory-eviction steps are runs: files from the log, rebuild, replay, resume (CLI in process)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let setup: ReturnType<typeof makeTestSetup>;
  let protocolDir: string;
  let data: string[];
  let inputs: ReturnType<typeof loadInputs>;
  const cli = async (args: string[], ok = true) => {
    const r = await runEvalogHere(args, { cwd: tmp.dir });
    if (ok) expect(r.code, `evalog ${args.join(' ')}\n${r.stderr}`).to.equal(0);
    return r;
  };

  before(async () => {
    tmp = await tempDir();
    setup = makeTestSetup();
    protocolDir = join(tmp.dir, 'protocol');
    await cp(MANIFEST_DIR_PATH, protocolDir, { recursive: true });
    await cp(setup.config.path, join(protocolDir, 'config.v1.json'));
    data = ['--protocol', protocolDir, '--dataset', setup.dataset.path];
    inputs = loadInputs(protocolDir, setup.dataset.path);
  });
  after(async () => {
    setup?.cleanup();
    await tmp?.cleanup();
  });

  it('run-policy: 90 compute jobs in its log; its files are the bytes runPolicy gave, replay matches, and deleted they are rebuilt from the log', async () => {
    await cli(['memory-eviction', 'run-policy', ...data, '--out', 'runs/pol']);
    const dir = join(tmp.dir, 'runs/pol');
    const events = await fileEvents(join(tmp.dir, 'runs'), 'pol');
    expect(events.filter((e) => e.type === 'JobComputed')).to.have.length(90);
    expect(events.at(-1)!.type).to.equal('RunCompleted');
    const files = await read(dir, POLICY_FILES);
    expect(files).to.deep.equal(policyFilesBefore(inputs.protocol, inputs.cases, events[0]!));

    const replay = await cli(['replay', 'runs/pol', ...data]);
    expect(replay.stdout).to.match(/every event matches \(90 jobs\)/);
    for (const f of POLICY_FILES) await rm(join(dir, f));
    const rebuilt = await cli(['rebuild', 'runs/pol']);
    expect(rebuilt.stdout).to.include('rebuilt policy.raw.jsonl, summary.json, run.json');
    expect(await read(join(dir, 'rebuilt'), POLICY_FILES)).to.deep.equal(files);
  });

  it('grade-qa: a grade run in the run-qa folder; its files are the bytes the direct grading gave; deleted, rebuild and a rerun write them again from the log', async () => {
    await cli(['memory-eviction', 'run-qa', ...data, '--scripted', '--out', 'runs/qa']);
    const qaDir = join(tmp.dir, 'runs/qa');
    const qaFiles = await read(qaDir, QA_FILES);
    await cli(['memory-eviction', 'grade-qa', 'runs/qa', ...data]);
    const qaLog = await FileEventLog.open({ root: join(tmp.dir, 'runs'), readOnly: true });
    const expected = await gradeFilesBefore(inputs.protocol, inputs.cases, qaLog, 'qa').finally(() => qaLog.close());
    const files = await read(qaDir, GRADE_FILES);
    expect(files).to.deep.equal(expected);
    const grades = await fileEvents(qaDir, 'qa-grade');
    expect(grades.filter((e) => e.type === 'JobComputed')).to.have.length(90);
    expect(grades[0]!.type === 'RunStarted' && grades[0]!.data.config.qaRunId).to.equal('qa');

    const replay = await cli(['replay', 'runs/qa/qa-grade', ...data]);
    expect(replay.stdout).to.match(/every event matches \(90 jobs\)/);
    for (const f of [...GRADE_FILES, ...QA_FILES]) await rm(join(qaDir, f));
    await cli(['rebuild', 'runs/qa/qa-grade']);
    expect(await read(join(qaDir, 'qa-grade/rebuilt'), GRADE_FILES)).to.deep.equal(files);
    await cli(['rebuild', 'runs/qa']);
    expect(await read(join(qaDir, 'rebuilt'), QA_FILES)).to.deep.equal(qaFiles);

    // The grade run is complete: a rerun writes its files from the log and records nothing more.
    const again = await cli(['memory-eviction', 'grade-qa', 'runs/qa', ...data]);
    expect(again.stderr).to.match(/resuming run qa-grade/);
    expect(await read(qaDir, GRADE_FILES)).to.deep.equal(files);
    expect(await fileEvents(qaDir, 'qa-grade')).to.have.length(grades.length);
    const twice = await cli(['memory-eviction', 'grade-qa', 'runs/qa', ...data], false);
    expect(twice.code).to.equal(2);
    expect(twice.stderr).to.match(/qa\.rows\.jsonl exists already; grade-qa never overwrites/);
  });

  it('run-policy killed after 40 of 90 jobs: rerun, it resumes; recorded jobs get no event again, and its files equal the uninterrupted run’s', async () => {
    const whole = await fileEvents(join(tmp.dir, 'runs'), 'pol');
    const cut = cutAfterJobs(whole, 40);
    await writeLog(join(tmp.dir, 'cut'), cut);
    // Unfinished, its files cannot be folded: rebuild says so and makes no folder.
    const early = await cli(['rebuild', 'cut/pol'], false);
    expect(early.code).to.equal(2);
    expect(early.stderr).to.match(/of 90 jobs have no recorded rows yet; resume it/);
    expect(await exists(join(tmp.dir, 'cut/pol/rebuilt'))).to.equal(false);
    const r = await cli(['memory-eviction', 'run-policy', ...data, '--out', 'cut/pol']);
    expect(r.stderr).to.match(/resuming run pol/);
    expectResumedWithoutRedoing(cut, await fileEvents(join(tmp.dir, 'cut'), 'pol'), 90);
    expect(await read(join(tmp.dir, 'cut/pol'), POLICY_FILES)).to.deep.equal(await read(join(tmp.dir, 'runs/pol/rebuilt'), POLICY_FILES));
  });

  it('grade-qa killed after 30 of 90 grades: rerun, it resumes the grade run; recorded grades are not made again, and its files equal the uninterrupted ones', async () => {
    const whole = await fileEvents(join(tmp.dir, 'runs/qa'), 'qa-grade');
    const cut = cutAfterJobs(whole, 30);
    await cp(join(tmp.dir, 'runs/qa/log'), join(tmp.dir, 'cut2/qa/log'), { recursive: true });
    await writeLog(join(tmp.dir, 'cut2/qa'), cut);
    const r = await cli(['memory-eviction', 'grade-qa', 'cut2/qa', ...data]);
    expect(r.stderr).to.match(/resuming run qa-grade/);
    expectResumedWithoutRedoing(cut, await fileEvents(join(tmp.dir, 'cut2/qa'), 'qa-grade'), 90);
    expect(await read(join(tmp.dir, 'cut2/qa'), GRADE_FILES)).to.deep.equal(await read(join(tmp.dir, 'runs/qa'), GRADE_FILES));
  });
});
