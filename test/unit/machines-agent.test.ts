// The agent job's role machines (parent, worker, grader, job), each run through XState with its
// effects replaced: model calls by stubs that return what the provider caller would, everything
// the machine records through a journal that keeps the events.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { StoredEvent, ToolCallRequest } from '../../src/events/index.js';
import { graderMachine, type GraderInput } from '../../src/harness/grader/machine.js';
import { jobMachine } from '../../src/harness/agent-job/machine.js';
import { parentMachine, type ParentInput, type ParentOutput } from '../../src/harness/parent/machine.js';
import { evolveProvider, initialProviderState } from '../../src/harness/provider/logic.js';
import type { ProviderCallInput, ProviderCallOutput, providerCallMachine } from '../../src/harness/provider/machine.js';
import { initialWorkerState, type WorkerState } from '../../src/harness/worker/logic.js';
import { workerMachine, type WorkerInput } from '../../src/harness/worker/machine.js';
import type { AgentHooks, GradeHook, GradeInput, GradeOutput, JobHooks } from '../../src/app/index.js';
import { modelGraded } from '../../src/graders/index.js';
import { failedData, requestedData, storedEvent, succeededData, T0 } from '../support/build-events.js';
import { jobInput, jobPorts, RecordingJournal, runMachine, standIn, TEST_CONFIG } from '../support/machines.js';

const JOB = 'c1:a:1';
const task: ToolCallRequest = { id: 't1', name: 'task', arguments: '{"brief":"add 2 and 2"}' };
const write: ToolCallRequest = { id: 'w1', name: 'write_answer', arguments: '{"answer":"4"}' };

/** A stub provider call: each call gets the next reply (tool calls or text) or a failure. */
function replies(list: ({ content?: string; toolCalls?: ToolCallRequest[] } | 'fail')[], seen: ProviderCallInput[]) {
  return standIn<typeof providerCallMachine>(
    fromPromise<ProviderCallOutput, ProviderCallInput>(async ({ input }) => {
      seen.push(input);
      const r = list[seen.length - 1]!;
      const callId = `${input.site.name}/attempt-1`;
      const events: StoredEvent[] = [
        storedEvent('ProviderCallRequested', requestedData(callId, { attribution: input.site.attribution }), { jobId: JOB, at: T0 + 100 * seen.length }),
        r === 'fail'
          ? storedEvent('ProviderCallFailed', failedData(callId, { retryable: false, message: 'refused' }), { jobId: JOB, at: T0 + 100 * seen.length + 10 })
          : storedEvent('ProviderCallSucceeded', succeededData(callId, { content: r.content ?? null, toolCalls: r.toolCalls ?? [] }), {
              jobId: JOB,
              at: T0 + 100 * seen.length + 10,
            }),
      ];
      return { state: events.reduce(evolveProvider, initialProviderState), events };
    }),
  );
}

/** The agent hooks of a test suite, as defineSuite binds them to a job. */
const agent: AgentHooks = {
  parentRequest: () => ({ messages: [{ role: 'user' as const, content: 'delegate this' }], tools: [] }),
  acceptDelegation: (calls: readonly ToolCallRequest[]) =>
    calls[0]?.name === 'task'
      ? { ok: true as const, mode: 'brief', brief: (JSON.parse(calls[0].arguments) as { brief: string }).brief }
      : { ok: false as const, reason: 'parent_no_task' as const, message: 'no task call' },
  workerRequest: (brief: string) => ({ messages: [{ role: 'user' as const, content: brief }], tools: [] }),
  runTool: (name: string, args: string) => ({
    result: `saved ${args}`,
    isError: false,
    ...(name === 'write_answer' ? { artifact: (JSON.parse(args) as { answer: string }).answer } : {}),
  }),
};
const grade: GradeHook = (work: GradeInput): GradeOutput => ({
  checks: [{ checkId: 'is-4', visibility: 'hidden', passed: work.final === '4', detail: `final ${work.final}` }],
  firstRevisionPassed: work.first === '4',
});
const hooks: JobHooks = { shape: 'agent', agent, grade };

const parentInput = (journal?: RecordingJournal): ParentInput => ({ ...jobPorts(journal), agent });
const workerInput = (journal: RecordingJournal, state: WorkerState, limits = TEST_CONFIG.worker): WorkerInput => ({
  ...jobPorts(journal),
  runTool: agent.runTool,
  limits,
  state,
});
const graderInput = (journal: RecordingJournal, work: GradeInput, g: GradeHook = grade): GraderInput => ({ ...jobPorts(journal), grade: g, work });

describe('machines: parent (its model call replaced)', () => {
  it('delegates the task its reply asks for: TaskDelegated recorded, the brief handed on', async () => {
    const journal = new RecordingJournal();
    const seen: ProviderCallInput[] = [];
    const r = await runMachine(parentMachine.provide({ actors: { providerCall: replies([{ toolCalls: [task] }], seen) } }), parentInput(journal));
    expect(r.value).to.equal('done');
    expect(seen[0]!.site).to.deep.equal({ actor: `job/${JOB}/parent`, name: 'parent/turn-1', attribution: 'main' });
    expect(journal.emitted()).to.deep.equal([
      { actor: `job/${JOB}/parent`, type: 'TaskDelegated', data: { mode: 'brief', brief: 'add 2 and 2', words: 4, acceptanceCriteria: null } },
    ]);
    expect(r.output).to.deep.equal({ ok: true, brief: 'add 2 and 2', acceptanceCriteria: null, at: journal.events[0]!.at } satisfies ParentOutput);
  });

  it('a reply without a task call, or a failed call, hands on nothing and says why', async () => {
    const none = new RecordingJournal();
    const a = await runMachine(parentMachine.provide({ actors: { providerCall: replies([{ content: 'I will not.' }], []) } }), parentInput(none));
    expect(a.output).to.deep.equal({ ok: false, reason: 'parent_no_task', message: 'no task call' });
    expect(none.events).to.deep.equal([]);
    const b = await runMachine(parentMachine.provide({ actors: { providerCall: replies(['fail'], []) } }), parentInput());
    expect(b.output).to.deep.equal({ ok: false, reason: 'provider_failed', message: 'refused' });
  });
});

describe('machines: worker (its model calls replaced, tools run through the suite)', () => {
  const start = (): WorkerState => initialWorkerState([{ role: 'user', content: 'add 2 and 2' }], [], T0);

  it('calls, runs the tools asked for, calls again, and stops when it answers', async () => {
    const journal = new RecordingJournal();
    const seen: ProviderCallInput[] = [];
    const machine = workerMachine.provide({ actors: { providerCall: replies([{ toolCalls: [write] }, { content: 'done: 4' }], seen) } });
    const r = await runMachine(machine, workerInput(journal, start()));
    expect(r.value).to.equal('done');
    expect(seen.map((s) => [s.site.name, s.site.attribution, s.messages.length])).to.deep.equal([
      ['worker/turn-1', 'child', 1],
      ['worker/turn-2', 'child', 3],
    ]);
    expect(journal.emitted().map((e) => [e.actor, e.type])).to.deep.equal([
      [`job/${JOB}/worker`, 'ToolCalled'],
      [`job/${JOB}/worker`, 'ArtifactRevised'],
      [`job/${JOB}/worker`, 'WorkerStopped'],
    ]);
    expect(journal.events[0]!.data).to.deep.include({ callId: 'worker/turn-1/tool-0', toolCallId: 'w1', name: 'write_answer', result: 'saved {"answer":"4"}' });
    expect(journal.events[2]!.data).to.deep.equal({ reason: 'answered', turns: 2, answer: 'done: 4' });
    const out = r.output as WorkerState;
    expect([out.stopped, out.artifact, out.firstArtifact, out.revisions]).to.deep.equal(['answered', '4', '4', 1]);
  });

  it('stops at the turn cap with turn_cap, never calling past it', async () => {
    const journal = new RecordingJournal();
    const seen: ProviderCallInput[] = [];
    const r = await runMachine(
      workerMachine.provide({ actors: { providerCall: replies([{ toolCalls: [write] }, { content: 'never' }], seen) } }),
      workerInput(journal, start(), { turnCap: 1, timeLimitMs: 60_000 }),
    );
    expect(seen).to.have.length(1);
    expect(journal.events.at(-1)!.data).to.deep.equal({ reason: 'turn_cap', turns: 1, answer: null });
    expect((r.output as WorkerState).stopped).to.equal('turn_cap');
  });
});

describe('machines: grader (the suite grades, each check recorded)', () => {
  it('records one CheckEvaluated per check and JobGraded, under the grader actor, and outputs the grade', async () => {
    const journal = new RecordingJournal();
    const r = await runMachine(graderMachine, graderInput(journal, { final: '4', first: '5', answer: null }));
    expect(r.value).to.equal('done');
    expect(r.output).to.deep.equal({ passed: true });
    expect(journal.emitted()).to.deep.equal([
      { actor: `job/${JOB}/grader`, type: 'CheckEvaluated', data: { checkId: 'is-4', visibility: 'hidden', passed: true, detail: 'final 4' } },
      { actor: `job/${JOB}/grader`, type: 'JobGraded', data: { passed: true, checksPassed: 1, checksTotal: 1, firstRevisionPassed: false } },
    ]);
  });

  it('a model-graded check: the judge call is a recorded provider call (attribution grading, under the grader) before the check', async () => {
    const journal = new RecordingJournal();
    const judged: GradeHook = async (work, judge) => {
      const v = await modelGraded({ rubric: 'Pass when it says 4.' }).grade(judge, { input: 'add 2 and 2', expected: '4', output: work.final ?? '' });
      return { checks: [{ checkId: 'model', visibility: 'hidden', passed: v.passed, detail: v.detail }], firstRevisionPassed: null };
    };
    const sent: string[] = [];
    const caller = {
      call: async (request: { model: string }) => {
        sent.push(request.model);
        return {
          ok: true as const,
          data: {
            content: '{"verdict": "pass", "reason": "it says 4"}',
            toolCalls: [],
            finishReason: 'stop' as const,
            usage: { prompt: 50, completion: 9, total: 59 },
            latencyMs: 3,
          },
        };
      },
    };
    const r = await runMachine(graderMachine, {
      ...jobPorts(journal, { caller }),
      grade: judged,
      work: { final: '4', first: null, answer: null },
    } satisfies GraderInput);
    expect(r.output).to.deep.equal({ passed: true });
    expect(sent).to.deep.equal(['test-model']); // the run's model, not the arm's
    expect(journal.emitted().map((e) => [e.actor, e.type])).to.deep.equal([
      [`job/${JOB}/grader`, 'ProviderCallRequested'],
      [`job/${JOB}/grader`, 'ProviderCallSucceeded'],
      [`job/${JOB}/grader`, 'CheckEvaluated'],
      [`job/${JOB}/grader`, 'JobGraded'],
    ]);
    expect(journal.events[0]!.data).to.deep.include({ callId: 'judge-1/attempt-1', attribution: 'grading', tools: [] });
    expect(journal.events[2]!.data).to.deep.include({ checkId: 'model', passed: true, detail: 'judge: pass: it says 4' });
  });

  it('its effect replaced: the machine outputs what the effect found, and an effect that throws ends it with the error', async () => {
    const stubbed = graderMachine.provide({ actors: { grade: fromPromise<{ passed: boolean }, GraderInput>(async () => ({ passed: false })) } });
    expect((await runMachine(stubbed, graderInput(new RecordingJournal(), { final: '4', first: null, answer: null }))).output).to.deep.equal({ passed: false });
    const broken = graderMachine.provide({
      actors: { grade: fromPromise<{ passed: boolean }, GraderInput>(async () => Promise.reject(new Error('checker crashed'))) },
    });
    const r = await runMachine(broken, graderInput(new RecordingJournal(), { final: null, first: null, answer: null }));
    expect([r.status, (r.error as Error).message]).to.deep.equal(['error', 'checker crashed']);
  });
});

describe('machines: agent job (parent, worker and grader replaced)', () => {
  const parentOk = standIn<typeof parentMachine>(
    fromPromise<ParentOutput, ParentInput>(async () => ({ ok: true, brief: 'add 2 and 2', at: '2025-03-01T12:00:01.000Z' })),
  );

  it('starts, hands the brief to the worker, grades its final work and records JobSucceeded with the grade', async () => {
    const journal = new RecordingJournal();
    const workerInputs: WorkerState[] = [];
    const graded: GradeInput[] = [];
    const machine = jobMachine.provide({
      actors: {
        parent: parentOk,
        worker: standIn<typeof workerMachine>(
          fromPromise<WorkerState, WorkerInput>(async ({ input }) => {
            workerInputs.push(input.state);
            return { ...input.state, artifact: '4', firstArtifact: '5', answer: 'done', stopped: 'answered' };
          }),
        ),
        grader: standIn<typeof graderMachine>(
          fromPromise<{ passed: boolean }, GraderInput>(async ({ input }) => {
            graded.push(input.work);
            return { passed: true };
          }),
        ),
      },
    });
    const r = await runMachine(machine, jobInput(hooks, journal));
    expect(r.value).to.equal('done');
    expect(r.output).to.deep.equal({ jobId: JOB, status: 'succeeded' });
    // The worker starts from the suite's request for the brief, its clock from the handoff.
    expect(workerInputs[0]!.messages).to.deep.equal([{ role: 'user', content: 'add 2 and 2' }]);
    expect(workerInputs[0]!.startedAtMs).to.equal(Date.parse('2025-03-01T12:00:01.000Z'));
    expect(graded).to.deep.equal([{ final: '4', first: '5', answer: 'done' }]);
    expect(journal.emitted().map((e) => [e.type, e.data])).to.deep.equal([
      ['JobStarted', { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 }],
      ['JobSucceeded', { passed: true }],
    ]);
  });

  it("a parent that hands on nothing fails the job with the parent's reason; the worker never runs", async () => {
    const journal = new RecordingJournal();
    let workers = 0;
    const machine = jobMachine.provide({
      actors: {
        parent: standIn<typeof parentMachine>(
          fromPromise<ParentOutput, ParentInput>(async () => ({ ok: false, reason: 'parent_bad_task', message: 'brief too long' })),
        ),
        worker: standIn<typeof workerMachine>(
          fromPromise<WorkerState, WorkerInput>(async ({ input }) => {
            workers += 1;
            return input.state;
          }),
        ),
      },
    });
    const r = await runMachine(machine, jobInput(hooks, journal));
    expect(r.output).to.deep.equal({ jobId: JOB, status: 'failed' });
    expect(workers).to.equal(0);
    expect(journal.emitted().at(-1)).to.deep.equal({ actor: `job/${JOB}`, type: 'JobFailed', data: { reason: 'parent_bad_task', message: 'brief too long' } });
  });

  it('a worker stopped by a failed call fails the job (provider_failed) without grading', async () => {
    const journal = new RecordingJournal();
    const machine = jobMachine.provide({
      actors: {
        parent: parentOk,
        worker: standIn<typeof workerMachine>(
          fromPromise<WorkerState, WorkerInput>(async ({ input }) => ({
            ...input.state,
            stopped: 'provider_failed',
            lastFailure: failedData('worker/turn-1/attempt-3', { message: 'still 503' }),
          })),
        ),
        grader: standIn<typeof graderMachine>(fromPromise<{ passed: boolean }, GraderInput>(async () => Promise.reject(new Error('must not grade')))),
      },
    });
    const r = await runMachine(machine, jobInput(hooks, journal));
    expect(r.output).to.deep.equal({ jobId: JOB, status: 'failed' });
    expect(journal.emitted().at(-1)!.data).to.deep.equal({ reason: 'provider_failed', message: 'still 503' });
  });
});
