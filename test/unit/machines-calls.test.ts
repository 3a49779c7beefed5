// The provider caller and the single-call job, each run through XState with its effects replaced.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { StoredEvent } from '../../src/events/index.js';
import type { AttemptInput } from '../../src/harness/provider/effects.js';
import type { GradePorts } from '../../src/harness/grader/grade.js';
import { providerCallMachine, type BackoffInput, type ProviderCallInput, type ProviderCallOutput } from '../../src/harness/provider/machine.js';
import { evolveProvider, initialProviderState } from '../../src/harness/provider/logic.js';
import { singleCallJob } from '../../src/harness/single-call/machine.js';
import { recordJob, type RecordJobInput } from '../../src/harness/kernel/job-lifecycle.js';
import type { GradeInput, JobHooks } from '../../src/app/index.js';
import { failedData, requestedData, storedEvent, succeededData } from '../support/build-events.js';
import { jobInput, jobPorts, RecordingJournal, runMachine } from '../support/machines.js';

const site = { actor: 'job/c1:a:1/answerer', name: 'answer', attribution: 'main' as const };

/** A stub attempt: the events the real one would record, with the outcome `outcomes[attempt - 1]`. */
function attempts(outcomes: ((callId: string) => StoredEvent)[], seen: AttemptInput[]) {
  return fromPromise<StoredEvent[], AttemptInput>(async ({ input }) => {
    seen.push(input);
    const requested = storedEvent(
      'ProviderCallRequested',
      requestedData(input.callId, { attempt: input.attempt, retryOf: input.retryOf, attribution: input.site.attribution }),
      { jobId: 'c1:a:1' },
    );
    return [requested, outcomes[input.attempt - 1]!(input.callId)];
  });
}

describe('machines: provider caller (attempts and backoff replaced)', () => {
  it('retries a retryable failure after the backoff the policy gives, then ends with the success', async () => {
    const seen: AttemptInput[] = [];
    const waits: number[] = [];
    const machine = providerCallMachine.provide({
      actors: {
        attempt: attempts(
          [
            (id) => storedEvent('ProviderCallFailed', failedData(id, { kind: 'rate_limited', status: 429 })),
            (id) => storedEvent('ProviderCallSucceeded', succeededData(id, { content: 'hi' })),
          ],
          seen,
        ),
        backoff: fromPromise<void, BackoffInput>(async ({ input }) => void waits.push(input.ms)),
      },
    });
    const input: ProviderCallInput = { ...jobPorts(), site, messages: [{ role: 'user', content: 'q' }], tools: [] };
    const r = await runMachine(machine, input);
    expect(r.status).to.equal('done');
    expect(r.value).to.equal('done');
    expect(seen.map((a) => [a.callId, a.attempt, a.retryOf])).to.deep.equal([
      ['answer/attempt-1', 1, null],
      ['answer/attempt-2', 2, 'answer/attempt-1'],
    ]);
    expect(waits).to.deep.equal([0, 100]); // no wait before the first attempt; backoffMs before the retry
    const out = r.output as ProviderCallOutput;
    expect(out.events.map((e) => e.type)).to.deep.equal(['ProviderCallRequested', 'ProviderCallFailed', 'ProviderCallRequested', 'ProviderCallSucceeded']);
    expect(out.state).to.deep.equal(out.events.reduce(evolveProvider, initialProviderState));
    expect(out.state.outcome).to.deep.include({ ok: true });
  });

  it('stops at a non-retryable failure: one attempt, the failure is the outcome', async () => {
    const seen: AttemptInput[] = [];
    const machine = providerCallMachine.provide({
      actors: {
        attempt: attempts([(id) => storedEvent('ProviderCallFailed', failedData(id, { kind: 'client_error', status: 400, retryable: false }))], seen),
        backoff: fromPromise<void, BackoffInput>(async () => {}),
      },
    });
    const r = await runMachine(machine, { ...jobPorts(), site, messages: [], tools: [] });
    expect(seen).to.have.length(1);
    expect((r.output as ProviderCallOutput).state.outcome).to.deep.include({ ok: false });
    expect(r.value).to.equal('done');
  });

  it('an attempt that throws ends the machine with that error (the job reports it)', async () => {
    const machine = providerCallMachine.provide({
      actors: {
        attempt: fromPromise<StoredEvent[], AttemptInput>(async () => {
          throw new Error('determinism violated');
        }),
        backoff: fromPromise<void, BackoffInput>(async () => {}),
      },
    });
    const r = await runMachine(machine, { ...jobPorts(), site, messages: [], tools: [] });
    expect(r.status).to.equal('error');
    expect((r.error as Error).message).to.equal('determinism violated');
  });
});

describe('machines: single-call job (the call and the grade replaced, its own events recorded)', () => {
  const callOutput = (outcome: 'ok' | 'fail'): ProviderCallOutput => {
    const events = [
      storedEvent('ProviderCallRequested', requestedData('answer/attempt-1', { attribution: 'main' }), { jobId: 'c1:a:1' }),
      outcome === 'ok'
        ? storedEvent('ProviderCallSucceeded', succeededData('answer/attempt-1', { content: 'Paris' }), { jobId: 'c1:a:1' })
        : storedEvent('ProviderCallFailed', failedData('answer/attempt-1', { message: 'gave up' }), { jobId: 'c1:a:1' }),
    ];
    return { state: events.reduce(evolveProvider, initialProviderState), events };
  };
  // The job's two steps: the start and the call, the grade and the end (see the job actor).
  type StartAndCall = { start: RecordJobInput; call: ProviderCallInput };
  type GradeAndEnd = GradePorts & { work: GradeInput; signal: AbortSignal };
  const unused = async (): Promise<never> => {
    throw new Error('not called in this test');
  };
  const call = { request: () => ({ messages: [{ role: 'user' as const, content: 'capital of France?' }], tools: [] }) };
  const hooks: JobHooks = { shape: 'single-call', call, grade: () => ({ checks: [], firstRevisionPassed: null }) };

  it('starts, calls, grades the answer at once, and records JobSucceeded with the grade', async () => {
    const journal = new RecordingJournal();
    const graded: GradeInput[] = [];
    const machine = singleCallJob({
      startAndCall: async (input: StartAndCall) => {
        await recordJob(input.start);
        expect(input.call.site).to.deep.equal({ actor: 'job/c1:a:1/answerer', name: 'answer', attribution: 'main' });
        expect(input.call.messages).to.deep.equal([{ role: 'user', content: 'capital of France?' }]);
        return callOutput('ok');
      },
      gradeAndEnd: async (input: GradeAndEnd) => {
        graded.push(input.work);
        await recordJob({ journal: input.journal, signal: input.signal, cmd: { type: 'Succeed', passed: true } });
        return { passed: true };
      },
    });
    const r = await runMachine(machine, jobInput(hooks, journal));
    expect(r.status).to.equal('done');
    expect(r.output).to.deep.equal({ jobId: 'c1:a:1', status: 'succeeded' });
    expect(graded).to.deep.equal([{ final: null, first: null, answer: 'Paris' }]);
    expect(journal.emitted()).to.deep.equal([
      { actor: 'job/c1:a:1', type: 'JobStarted', data: { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 } },
      { actor: 'job/c1:a:1', type: 'JobSucceeded', data: { passed: true } },
    ]);
  });

  it('a call that failed for good is JobFailed (provider_failed) with its message, and nothing is graded', async () => {
    const journal = new RecordingJournal();
    let graded = 0;
    const machine = singleCallJob({
      startAndCall: async (input: StartAndCall) => {
        await recordJob(input.start);
        return callOutput('fail');
      },
      gradeAndEnd: async () => {
        graded += 1;
        return { passed: true };
      },
    });
    const r = await runMachine(machine, jobInput(hooks, journal));
    expect(r.output).to.deep.equal({ jobId: 'c1:a:1', status: 'failed' });
    expect(graded).to.equal(0);
    expect(journal.emitted().map((e) => [e.type, e.data])).to.deep.equal([
      ['JobStarted', { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 }],
      ['JobFailed', { reason: 'provider_failed', message: 'gave up' }],
    ]);
  });

  it('without a grade hook the answer is left for a later step: JobSucceeded with passed null', async () => {
    const journal = new RecordingJournal();
    const machine = singleCallJob({
      startAndCall: async (input: StartAndCall) => {
        await recordJob(input.start);
        return callOutput('ok');
      },
      gradeAndEnd: unused,
    });
    const r = await runMachine(machine, jobInput({ shape: 'single-call', call, grade: null }, journal));
    expect(r.output).to.deep.equal({ jobId: 'c1:a:1', status: 'succeeded' });
    expect(journal.emitted().at(-1)).to.deep.equal({ actor: 'job/c1:a:1', type: 'JobSucceeded', data: { passed: null } });
  });
});
