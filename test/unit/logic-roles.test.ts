import { expect } from 'chai';
import type { DataOf, PlannedJob } from '../../src/events/index.js';
import { decideGrade } from '../../src/harness/grader/logic.js';
import { decideJob } from '../../src/harness/kernel/job-lifecycle.js';
import { decideDelegation, evolveParent, initialParentState } from '../../src/harness/parent/logic.js';
import { decideRun, planJobs } from '../../src/harness/run/logic.js';
import { CPythonRandom } from '../../src/stats/index.js';
import { decided, failedData, given, storedEvent, succeededData } from '../support/build-events.js';

describe('parent logic', () => {
  const JOB = 'c:a:1';
  const parentEvent = <T extends 'ProviderCallSucceeded' | 'ProviderCallFailed' | 'TaskDelegated'>(n: number, type: T, data: DataOf<T>) =>
    storedEvent(type, data, { jobId: JOB, n, actor: `job/${JOB}/parent` });

  it('when an accepted delegation is decided, then TaskDelegated carries mode, brief and its word count', () => {
    const drafts = decideDelegation({ ok: true, mode: 'brief', brief: '  Compute the total.\nORDER apple qty=3\n\n' });
    expect(decided(drafts)).to.deep.equal([
      { type: 'TaskDelegated', data: { mode: 'brief', brief: '  Compute the total.\nORDER apple qty=3\n\n', words: 6, acceptanceCriteria: null } },
    ]);
  });

  it('when a refused delegation is decided, then nothing is recorded (the job records the failure)', () => {
    expect(decideDelegation({ ok: false, reason: 'parent_bad_task', message: 'wrong mode' })).to.deep.equal([]);
  });

  it('given a failed attempt then a successful retry, the parent has a reply and no failure', () => {
    const s = given(evolveParent, initialParentState, [
      parentEvent(2, 'ProviderCallFailed', failedData('parent/turn-1/attempt-1')),
      parentEvent(4, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-2', { content: null })),
    ]);
    expect(s.failure).to.equal(null);
    expect(s.reply?.callId).to.equal('parent/turn-1/attempt-2');
  });

  it('given only failed attempts, the parent has the last failure and no reply', () => {
    const s = given(evolveParent, initialParentState, [
      parentEvent(2, 'ProviderCallFailed', failedData('parent/turn-1/attempt-1', { kind: 'timeout', status: null, retryable: false })),
    ]);
    expect(s.reply).to.equal(null);
    expect(s.failure?.kind).to.equal('timeout');
  });

  it('given TaskDelegated, the parent knows its handoff', () => {
    const s = given(evolveParent, initialParentState, [parentEvent(3, 'TaskDelegated', { mode: 'full', brief: 'b', words: 1, acceptanceCriteria: null })]);
    expect(s.delegated).to.deep.equal({ mode: 'full', brief: 'b', words: 1, acceptanceCriteria: null });
  });
});

describe('grader logic', () => {
  const check = (checkId: string, passed: boolean) => ({ checkId, visibility: 'hidden' as const, passed, detail: `${checkId} ${passed}` });

  it('records one CheckEvaluated per check, in order, then JobGraded passed when all passed', () => {
    expect(decided(decideGrade({ checks: [check('a', true), check('b', true)], firstRevisionPassed: null }))).to.deep.equal([
      { type: 'CheckEvaluated', data: check('a', true) },
      { type: 'CheckEvaluated', data: check('b', true) },
      { type: 'JobGraded', data: { passed: true, checksPassed: 2, checksTotal: 2, firstRevisionPassed: null } },
    ]);
  });

  it('grades the job failed when any check failed', () => {
    const drafts = decideGrade({ checks: [check('a', true), check('b', false), check('c', true)], firstRevisionPassed: true });
    expect(drafts.at(-1)).to.deep.equal({ type: 'JobGraded', data: { passed: false, checksPassed: 2, checksTotal: 3, firstRevisionPassed: true } });
  });

  it('never passes a job that has no checks at all', () => {
    expect(decided(decideGrade({ checks: [], firstRevisionPassed: null }))).to.deep.equal([
      { type: 'JobGraded', data: { passed: false, checksPassed: 0, checksTotal: 0, firstRevisionPassed: null } },
    ]);
  });
});

describe('job logic', () => {
  const job: PlannedJob = { jobId: 'fruit:full:2', caseId: 'fruit', arm: 'full', repetition: 2, seed: 9 };

  it('Start records JobStarted with case, arm, repetition and seed', () => {
    expect(decided(decideJob({ type: 'Start', job }))).to.deep.equal([{ type: 'JobStarted', data: { caseId: 'fruit', arm: 'full', repetition: 2, seed: 9 } }]);
  });

  it('Succeed records JobSucceeded with the grade', () => {
    expect(decided(decideJob({ type: 'Succeed', passed: false }))).to.deep.equal([{ type: 'JobSucceeded', data: { passed: false } }]);
  });

  it('Fail records JobFailed with reason and message', () => {
    expect(decided(decideJob({ type: 'Fail', reason: 'parent_no_task', message: 'no task call' }))).to.deep.equal([
      { type: 'JobFailed', data: { reason: 'parent_no_task', message: 'no task call' } },
    ]);
  });
});

describe('run logic: decideRun', () => {
  it('Start records RunStarted with the plan as given', () => {
    const data = {
      suite: 'smoke',
      config: { repetitions: 1 },
      configHash: 'f'.repeat(64),
      seed: 1,
      orderSeed: 2,
      jobs: planJobs(['a'], ['x'], 1, 1, 2),
      model: { name: 'm', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
      concurrency: 1,
      provenance: {},
    };
    expect(decided(decideRun({ type: 'Start', data }))).to.deep.equal([{ type: 'RunStarted', data }]);
  });

  it('Complete records RunCompleted with status completed and the job counts', () => {
    expect(decided(decideRun({ type: 'Complete', jobsSucceeded: 5, jobsFailed: 2 }))).to.deep.equal([
      { type: 'RunCompleted', data: { status: 'completed', jobsSucceeded: 5, jobsFailed: 2 } },
    ]);
  });
});

describe('run logic: planJobs', () => {
  const cases = ['c1', 'c2', 'c3'];
  const arms = ['brief', 'full'];

  it('plans repetitions × cases × arms jobs with ids <case>:<arm>:<rep>', () => {
    const jobs = planJobs(cases, arms, 2, 100, 5);
    expect(jobs).to.have.length(12);
    expect(new Set(jobs.map((j) => j.jobId)).size).to.equal(12);
    for (const j of jobs) expect(j.jobId).to.equal(`${j.caseId}:${j.arm}:${j.repetition}`);
    expect(jobs.find((j) => j.jobId === 'c3:full:2')).to.deep.equal({ jobId: 'c3:full:2', caseId: 'c3', arm: 'full', repetition: 2, seed: 101 });
  });

  it('pairs the arms: every job of a repetition has seed + repetition - 1, whatever its case or arm', () => {
    for (const j of planJobs(cases, arms, 3, 1000, 5)) expect(j.seed, j.jobId).to.equal(1000 + j.repetition - 1);
  });

  it("gives the first repetition the config seed itself, as the published runner's repetition 0 (1703 for the context-snapshot protocol)", () => {
    const jobs = planJobs(cases, arms, 2, 1703, 5);
    expect(new Set(jobs.filter((j) => j.repetition === 1).map((j) => j.seed))).to.deep.equal(new Set([1703]));
    expect(new Set(jobs.filter((j) => j.repetition === 2).map((j) => j.seed))).to.deep.equal(new Set([1704]));
  });

  it('orders jobs by CPython random.Random(orderSeed).shuffle of the rep × case × arm list', () => {
    const unshuffled: string[] = [];
    for (const rep of [1, 2, 3]) for (const c of cases) for (const a of arms) unshuffled.push(`${c}:${a}:${rep}`);
    const expected = new CPythonRandom(20260913).shuffle([...unshuffled]);
    expect(expected).to.not.deep.equal(unshuffled); // the check below would be vacuous otherwise
    expect(planJobs(cases, arms, 3, 7, 20260913).map((j) => j.jobId)).to.deep.equal(expected);
  });

  it('matches an order computed by CPython 3 itself', () => {
    // python3 -c "import random; j=[f'{c}:{a}:{r}' for r in (1,2) for c in ('c1','c2') for a in ('x','y')]; random.Random(42).shuffle(j); print(j)"
    expect(planJobs(['c1', 'c2'], ['x', 'y'], 2, 0, 42).map((j) => j.jobId)).to.deep.equal([
      'c2:y:1',
      'c1:x:2',
      'c2:x:2',
      'c2:y:2',
      'c2:x:1',
      'c1:y:2',
      'c1:x:1',
      'c1:y:1',
    ]);
  });

  it('is reproducible from the order seed, and another order seed gives another order', () => {
    const a = planJobs(cases, arms, 2, 7, 11).map((j) => j.jobId);
    expect(planJobs(cases, arms, 2, 7, 11).map((j) => j.jobId)).to.deep.equal(a);
    const b = planJobs(cases, arms, 2, 7, 12).map((j) => j.jobId);
    expect(b).to.not.deep.equal(a);
    expect([...b].sort()).to.deep.equal([...a].sort());
  });
});
