import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { rowsProjection, type Row } from '../../src/projections/rows.js';
import { usageProjection } from '../../src/projections/usage/index.js';
import { failedData, requestedData, succeededData, T0, Timeline } from '../support/build-events.js';

const A = 'a_case:x:1'; // fails at the handoff
const B = 'b_case:x:1'; // runs to a grade
const C = 'c_case:y:2'; // never finishes

/** Three interleaved jobs, started in the order B, A, C. */
function log(): StoredEvent[] {
  const t = new Timeline('run-rows');
  t.add(B, 0, 'JobStarted', { caseId: 'b_case', arm: 'x', repetition: 1, seed: 8 });
  t.add(A, 50, 'JobStarted', { caseId: 'a_case', arm: 'x', repetition: 1, seed: 8 });
  t.add(A, 60, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
  t.add(B, 100, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
  t.add(A, 70, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1', { usage: null }));
  t.add(A, 80, 'JobFailed', { reason: 'parent_no_task', message: 'expected exactly one task call, got none' });
  t.add(B, 300, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1', { usage: { prompt: 10, completion: 5, total: 15 } }));
  t.add(B, 400, 'TaskDelegated', { mode: 'brief', brief: 'ORDER apple qty=3', words: 3, acceptanceCriteria: null });
  t.add(C, 450, 'JobStarted', { caseId: 'c_case', arm: 'y', repetition: 2, seed: 9 });
  t.add(B, 500, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'child' }));
  t.add(B, 600, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1'));
  t.add(B, 700, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-2', { attribution: 'child', attempt: 2, retryOf: 'worker/turn-1/attempt-1' }));
  // The provider reported prompt tokens only: the rest is unknown, not zero.
  t.add(B, 900, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-2', { usage: { prompt: 20, completion: null, total: null } }));
  t.add(B, 950, 'ToolCalled', {
    callId: 'worker/turn-1/tool-0',
    toolCallId: 'call_1',
    name: 'write_answer',
    arguments: '{"value":"3.75"}',
    result: 'saved',
    isError: false,
  });
  t.add(B, 960, 'ArtifactRevised', { revision: 1, content: '3.75', sha256: 'c'.repeat(64) });
  t.add(B, 1000, 'ProviderCallRequested', requestedData('worker/turn-2/attempt-1', { attribution: 'child' }));
  t.add(B, 1100, 'ProviderCallSucceeded', succeededData('worker/turn-2/attempt-1', { usage: { prompt: 30, completion: 7, total: 37 } }));
  t.add(B, 1200, 'WorkerStopped', { reason: 'answered', turns: 2, answer: 'DONE 3.75' });
  t.add(B, 1300, 'CheckEvaluated', { checkId: 'answer_saved', visibility: 'hidden', passed: true, detail: 'answer saved' });
  t.add(B, 1310, 'CheckEvaluated', { checkId: 'total_correct', visibility: 'hidden', passed: false, detail: 'wrong' });
  t.add(B, 1320, 'JobGraded', { passed: false, checksPassed: 1, checksTotal: 2, firstRevisionPassed: null });
  t.add(B, 2500, 'JobSucceeded', { passed: false });
  t.add(undefined, 2600, 'RunCompleted', { status: 'completed', jobsSucceeded: 1, jobsFailed: 1 });
  return t.events;
}

const rows = (events: StoredEvent[]) => fold(rowsProjection, events);
const rowOf = (rs: Row[], jobId: string) => rs.find((r) => r.job_id === jobId)!;

describe('rows projection', () => {
  it('has one row per started job, sorted by job id whatever the start order', async () => {
    expect((await rows(log())).map((r) => r.job_id)).to.deep.equal([A, B, C]);
  });

  it('a graded job: status, grade, checks by id, stop reason, turns and counts', async () => {
    const b = rowOf(await rows(log()), B);
    expect(b).to.deep.include({
      case_id: 'b_case',
      arm: 'x',
      repetition: 1,
      seed: 8,
      status: 'succeeded',
      failure: null,
      passed: false,
      checks: { answer_saved: true, total_correct: false },
      checks_passed: 1,
      checks_total: 2,
      stop_reason: 'answered',
      turns: 2,
      tool_calls: 1,
      revisions: 1,
      calls: 4,
      failed_calls: 1,
      started_at: new Date(T0).toISOString(),
    });
  });

  it('splits usage into parent (main) and worker (child) and sums both into the total', async () => {
    const { usage } = rowOf(await rows(log()), B);
    expect(usage.parent).to.deep.equal({ input_tokens: 10, output_tokens: 5, total_tokens: 15, unknown_calls: 0, complete: true });
    // Unknown: the failed attempt (no response, so no usage) and the one that reported prompt tokens only.
    expect(usage.worker).to.deep.equal({ input_tokens: 50, output_tokens: 7, total_tokens: 37, unknown_calls: 2, complete: false });
    expect(usage.total).to.deep.equal({ input_tokens: 60, output_tokens: 12, total_tokens: 52, unknown_calls: 2, complete: false });
  });

  it('counts a call without usage as unknown and the row as incomplete, never as a complete zero', async () => {
    const { usage } = rowOf(await rows(log()), A);
    expect(usage.parent).to.deep.include({ unknown_calls: 1, complete: false });
    expect(usage.total).to.deep.include({ unknown_calls: 1, complete: false });
    // No attempt of the worker: it used no tokens, which is known.
    expect(usage.worker).to.deep.equal({ input_tokens: 0, output_tokens: 0, total_tokens: 0, unknown_calls: 0, complete: true });
  });

  it('a job whose only call had no usage has null tokens (unknown), not 0', async () => {
    const { usage } = rowOf(await rows(log()), A);
    expect(usage.parent).to.deep.equal({ input_tokens: null, output_tokens: null, total_tokens: null, unknown_calls: 1, complete: false });
    expect(usage.total).to.deep.equal({ input_tokens: null, output_tokens: null, total_tokens: null, unknown_calls: 1, complete: false });
  });

  it('counts failed and cut-off attempts as unknown, as usage.json does', async () => {
    const t = new Timeline('run-rows');
    t.add(A, 0, 'JobStarted', { caseId: 'a_case', arm: 'x', repetition: 1, seed: 8 });
    t.add(A, 10, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1', { attribution: 'main' }));
    t.add(A, 20, 'ProviderCallFailed', failedData('parent/turn-1/attempt-1'));
    t.add(A, 30, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-2', { attribution: 'main', attempt: 2, retryOf: 'parent/turn-1/attempt-1' }));
    // The log ends here: the second attempt may have reached the provider.
    const { usage } = rowOf(await rows(t.events), A);
    expect(usage.total).to.deep.equal({ input_tokens: null, output_tokens: null, total_tokens: null, unknown_calls: 2, complete: false });
    const report = (await fold(usageProjection, log())).report;
    const all = await rows(log());
    expect(all.reduce((n, r) => n + r.usage.total.unknown_calls, 0)).to.equal(report.usage.fields.totalTokens.unknownCalls);
  });

  it('takes seconds from the recorded event times, JobStarted to the terminal event', async () => {
    const rs = await rows(log());
    expect(rowOf(rs, B).seconds).to.equal(2.5);
    expect(rowOf(rs, A).seconds).to.equal(0.03);
  });

  it('a failed job keeps its reason and message and counts as not passed', async () => {
    expect(rowOf(await rows(log()), A)).to.deep.include({
      status: 'failed',
      passed: false,
      failure: { reason: 'parent_no_task', message: 'expected exactly one task call, got none' },
      calls: 1,
    });
  });

  it('a job without a terminal event is unfinished, with no grade and no duration', async () => {
    expect(rowOf(await rows(log()), C)).to.deep.include({ status: 'unfinished', passed: null, seconds: null, stop_reason: null, calls: 0 });
  });

  it('does not depend on how jobs interleave in the log', async () => {
    const events = log();
    const byJob = [C, B, A, undefined].flatMap((j) => events.filter((e) => e.jobId === j));
    expect(await rows(byJob)).to.deep.equal(await rows(events));
  });

  it('ignores run-level events and events of jobs it never saw start', async () => {
    const t = new Timeline('run-rows');
    t.add('ghost:x:1', 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1'));
    t.add(undefined, 20, 'RunCompleted', { status: 'completed', jobsSucceeded: 0, jobsFailed: 0 });
    expect(await rows(t.events)).to.deep.equal([]);
  });
});
