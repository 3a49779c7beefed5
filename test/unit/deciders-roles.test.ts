// The deciders of the job, grader, parent, worker, session and run roles, given/when/then: past
// events folded by the role's evolve, the command decided, the new events compared.
import type { DataOf, StoredEvent } from '../../src/events/index.js';
import { decideGrade } from '../../src/harness/grader/logic.js';
import { decideJob, type JobCommand } from '../../src/harness/kernel/job-lifecycle.js';
import { decideDelegation, evolveParent, initialParentState, type ParentState } from '../../src/harness/parent/logic.js';
import { decideRun, type RunCommand } from '../../src/harness/run/logic.js';
import { decideSession, evolveSession, initialSessionState, nextSessionStep, type SessionCommand, type SessionState } from '../../src/harness/session/logic.js';
import { decideWorker, evolveWorker, initialWorkerState, nextWorkerStep, type WorkerCommand, type WorkerState } from '../../src/harness/worker/logic.js';
import type { Delegation, GradeOutput, SessionSettings } from '../../src/app/index.js';
import { failedData, requestedData, storedEvent, succeededData, T0 } from '../support/build-events.js';
import { deciderSpec, ev } from '../support/decider.js';

const JOB = 'c:a:1';
let n = 0;
const at = <T extends Parameters<typeof storedEvent>[0]>(ms: number, type: T, data: DataOf<T>): StoredEvent =>
  storedEvent(type, data, { jobId: JOB, n: ++n, seq: n, at: T0 + ms });
const none = { initialState: null, evolve: (s: null) => s };

describe('deciders: job', () => {
  const job = deciderSpec<null, JobCommand>({ ...none, decide: (cmd) => decideJob(cmd) });
  it('when Start, then JobStarted with the planned case, arm, repetition and seed', () => {
    job
      .given([])
      .when({ type: 'Start', job: { jobId: JOB, caseId: 'c', arm: 'a', repetition: 1, seed: 9 } })
      .then([ev('JobStarted', { caseId: 'c', arm: 'a', repetition: 1, seed: 9 })]);
  });
  it('when Succeed ungraded, then JobSucceeded with passed null; when Fail, then JobFailed with the reason', () => {
    job
      .given([])
      .when({ type: 'Succeed', passed: null })
      .then([ev('JobSucceeded', { passed: null })]);
    job
      .given([])
      .when({ type: 'Fail', reason: 'provider_failed', message: 'x' })
      .then([ev('JobFailed', { reason: 'provider_failed', message: 'x' })]);
  });
});

describe('deciders: grader', () => {
  const grader = deciderSpec<null, GradeOutput>({ ...none, decide: (cmd) => decideGrade(cmd) });
  const check = (checkId: string, passed: boolean) => ({
    checkId,
    visibility: 'hidden' as const,
    passed,
    detail: passed ? 'ok' : 'grading error: malformed verdict (not JSON): "yes"',
  });
  it('when the checks are in, then one CheckEvaluated each and JobGraded: passed only if every check passed', () => {
    grader
      .given([])
      .when({ checks: [check('exact', true), check('model', false)], firstRevisionPassed: null })
      .then([
        ev('CheckEvaluated', check('exact', true)),
        ev('CheckEvaluated', check('model', false)),
        ev('JobGraded', { passed: false, checksPassed: 1, checksTotal: 2, firstRevisionPassed: null }),
      ]);
  });
  it('when there are no checks, then JobGraded fails: nothing checked is not a pass', () => {
    grader
      .given([])
      .when({ checks: [], firstRevisionPassed: null })
      .then([ev('JobGraded', { passed: false, checksPassed: 0, checksTotal: 0, firstRevisionPassed: null })]);
  });
});

describe('deciders: parent', () => {
  const parent = deciderSpec<ParentState, Delegation>({ initialState: initialParentState, evolve: evolveParent, decide: (d) => decideDelegation(d) });
  const replied = at(10, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1', { toolCalls: [{ id: 't', name: 'task', arguments: '{}' }] }));
  it('given its reply, when the delegation is accepted, then TaskDelegated with the brief and its word count', () => {
    parent
      .given([replied])
      .when({ ok: true, mode: 'full', brief: 'Price the order: 3 apples.' })
      .then([ev('TaskDelegated', { mode: 'full', brief: 'Price the order: 3 apples.', words: 5, acceptanceCriteria: null })]);
  });
  it('given its reply, when the delegation is refused, then nothing is handed on', () => {
    parent.given([replied]).when({ ok: false, reason: 'parent_bad_task', message: 'too long' }).then([]);
  });
});

describe('deciders: worker', () => {
  type Command = WorkerCommand | { type: 'Next' };
  const limits = { turnCap: 2, timeLimitMs: 1_000 };
  const worker = deciderSpec<WorkerState, Command>({
    initialState: initialWorkerState([{ role: 'user', content: 'task' }], [], T0),
    evolve: evolveWorker,
    decide(cmd, s) {
      if (cmd.type !== 'Next') return decideWorker(cmd);
      const step = nextWorkerStep(s, limits);
      return step.type === 'stop' ? decideWorker({ type: 'Stop', reason: step.reason, turns: s.turns, answer: s.answer }) : [];
    },
  });
  const turn = (ms: number, i: number, o: Parameters<typeof succeededData>[1]) =>
    at(ms, 'ProviderCallSucceeded', succeededData(`worker/turn-${i}/attempt-1`, o));
  const call = { id: 'w', name: 'write_answer', arguments: '{"answer":"42"}' };

  it('given a reply with text only, when Next, then it stops as answered with that answer', () => {
    worker
      .given([turn(10, 1, { content: '42' })])
      .when({ type: 'Next' })
      .then([ev('WorkerStopped', { reason: 'answered', turns: 1, answer: '42' })]);
  });
  it('given a tool call, when its outcome is recorded, then ToolCalled and (with an artifact) ArtifactRevised', () => {
    worker
      .given([turn(10, 1, { content: null, toolCalls: [call] })])
      .when({ type: 'RecordTool', callId: 'worker/turn-1/tool-0', call, outcome: { result: 'saved', isError: false, artifact: '42' }, revision: 1 })
      .then([
        ev('ToolCalled', { callId: 'worker/turn-1/tool-0', toolCallId: 'w', name: 'write_answer', arguments: call.arguments, result: 'saved', isError: false }),
        ev('ArtifactRevised', { revision: 1, content: '42', sha256: '73475cb40a568e8da8a045ced110137e159f890ac4da883b6b17dc651b3a8049' }),
      ]);
  });
  it('given the turn cap used up by tool turns, when Next, then it stops at turn_cap', () => {
    const toolTurn = (ms: number, i: number) => [
      turn(ms, i, { content: null, toolCalls: [{ ...call, id: `w${i}` }] }),
      at(ms + 1, 'ToolCalled', {
        callId: `worker/turn-${i}/tool-0`,
        toolCallId: `w${i}`,
        name: call.name,
        arguments: call.arguments,
        result: 'ok',
        isError: false,
      }),
    ];
    worker
      .given([...toolTurn(10, 1), ...toolTurn(20, 2)])
      .when({ type: 'Next' })
      .then([ev('WorkerStopped', { reason: 'turn_cap', turns: 2, answer: null })]);
  });
  it('given a failed call, when Next, then it stops as provider_failed; given an attempt the deadline aborted, then deadline', () => {
    worker
      .given([at(10, 'ProviderCallFailed', failedData('worker/turn-1/attempt-3'))])
      .when({ type: 'Next' })
      .then([ev('WorkerStopped', { reason: 'provider_failed', turns: 0, answer: null })]);
    worker
      .given([
        at(5_000, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1', { kind: 'aborted', status: null, retryable: false, stoppedBy: 'deadline' })),
      ])
      .when({ type: 'Next' })
      .then([ev('WorkerStopped', { reason: 'deadline', turns: 0, answer: null })]);
  });
});

describe('deciders: session worker', () => {
  type Command = SessionCommand | { type: 'Next' };
  const settings: SessionSettings = {
    model: 'm',
    sampling: { temperature: 0, maxTokens: 8 },
    provider: { timeoutMs: 1_000, maxAttempts: 3, backoffMs: 0, maxBackoffMs: 0 },
    budget: { mainCalls: 2, modelCalls: 3, deadlineMs: 10_000 },
    queries: true,
  };
  const session = deciderSpec<SessionState, Command>({
    initialState: initialSessionState([{ role: 'user', content: 'task' }], [], null),
    evolve: evolveSession((env: unknown) => env),
    decide(cmd, s) {
      if (cmd.type !== 'Next') return decideSession(cmd);
      const step = nextSessionStep(s, settings, []);
      return step.type === 'stop' ? decideSession({ type: 'Stop', reason: step.reason, budget: step.budget, turns: s.turns, answer: s.answer }) : [];
    },
  });
  const started = () => at(0, 'JobStarted', { caseId: 'c', arm: 'a', repetition: 1, seed: 1 });
  const main = (ms: number, i: number) => [
    at(ms, 'ProviderCallRequested', requestedData(`worker/turn-${i}/attempt-1`, { attribution: 'main' })),
    at(
      ms + 1,
      'ProviderCallSucceeded',
      succeededData(`worker/turn-${i}/attempt-1`, { content: null, toolCalls: [{ id: `r${i}`, name: 'read', arguments: '{}' }] }),
    ),
    at(ms + 2, 'ToolCalled', { callId: `worker/turn-${i}/tool-0`, toolCallId: `r${i}`, name: 'read', arguments: '{}', result: 'text', isError: false }),
  ];

  it('given the main-call budget spent, when Next, then BudgetExhausted and WorkerStopped (turn_cap)', () => {
    session
      .given([started(), ...main(10, 1), ...main(20, 2)])
      .when({ type: 'Next' })
      .then([ev('BudgetExhausted', { budget: 'main_calls', limit: 2, used: 2 }), ev('WorkerStopped', { reason: 'turn_cap', turns: 2, answer: null })]);
  });
  it('given queries that spent the model-call budget, when Next, then BudgetExhausted (model_calls): queries count too', () => {
    const query = (ms: number) => at(ms, 'ProviderCallRequested', requestedData(`worker/turn-1/tool-0/query-${ms}/attempt-1`, { attribution: 'query' }));
    session
      .given([started(), ...main(10, 1), query(15), query(16)])
      .when({ type: 'Next' })
      .then([ev('BudgetExhausted', { budget: 'model_calls', limit: 3, used: 3 }), ev('WorkerStopped', { reason: 'turn_cap', turns: 1, answer: null })]);
  });
  it('given a terminal side effect, when Next, then it stops as answered, without a budget', () => {
    const submitted = at(30, 'EnvironmentChanged', { callId: 'worker/turn-1/tool-0', effect: 'submit', target: 'answer', value: '42', terminal: true });
    session
      .given([started(), ...main(10, 1), submitted])
      .when({ type: 'Next' })
      .then([ev('WorkerStopped', { reason: 'answered', turns: 1, answer: null })]);
  });
  it('given a turn in progress, when the host injects a fault, then FaultInjected as planned', () => {
    const injection = { id: 'i1', kind: 'query_failure' as const, target: 'q', detail: 'dropped', notice: null, mutation: null, keepChars: null };
    session
      .given([started()])
      .when({ type: 'Inject', injection })
      .then([ev('FaultInjected', { injectionId: 'i1', kind: 'query_failure', target: 'q', detail: 'dropped', notice: null, mutation: null })]);
  });
});

describe('deciders: run', () => {
  const run = deciderSpec<null, RunCommand>({ ...none, decide: (cmd) => decideRun(cmd) });
  it('when Complete, then RunCompleted with the counts', () => {
    run
      .given([])
      .when({ type: 'Complete', jobsSucceeded: 4, jobsFailed: 1 })
      .then([ev('RunCompleted', { status: 'completed', jobsSucceeded: 4, jobsFailed: 1 })]);
  });
});
