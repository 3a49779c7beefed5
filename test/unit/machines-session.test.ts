// The session worker and the session job, run through XState with their effects replaced: main
// calls by stubs, the worker (for the job) by a stub that can be killed, the fixture environment by
// a small suite spec; everything recorded goes to a journal that keeps the events.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import { z } from 'zod';
import type { StoredEvent, ToolCallRequest } from '../../src/events/index.js';
import type { GraderInput, graderMachine } from '../../src/harness/grader/machine.js';
import { evolveProvider, initialProviderState } from '../../src/harness/provider/logic.js';
import type { ProviderCallInput, ProviderCallOutput, providerCallMachine } from '../../src/harness/provider/machine.js';
import { WorkerKilled, type RebuildInput } from '../../src/harness/session/effects.js';
import { sessionJobMachine } from '../../src/harness/session/job.js';
import { initialSessionState, type SessionState } from '../../src/harness/session/logic.js';
import { sessionMachine } from '../../src/harness/session/machine.js';
import type { SessionInput } from '../../src/harness/session/record.js';
import {
  baseConfigShape,
  defineSuite,
  type GradeInput,
  type Injection,
  type JobHooks,
  type SessionSettings,
  type SessionSpec,
  type SuiteConfigBase,
} from '../../src/app/index.js';
import { requestedData, storedEvent, succeededData, T0 } from '../support/build-events.js';
import { jobInput, jobPorts, RecordingJournal, runMachine, standIn, TEST_CONFIG, TEST_JOB } from '../support/machines.js';

const JOB = 'c1:a:1';
type Env = { submitted: string | null };
const submit: ToolCallRequest = { id: 's1', name: 'submit', arguments: '{"value":"42"}' };
const contextSwitch: Injection = {
  id: 'switch-1',
  kind: 'context_switch',
  target: 'conversation',
  detail: 'new window',
  notice: 'Your context was reset.',
  mutation: null,
  keepChars: null,
};

function settings(mainCalls = 3): SessionSettings {
  return {
    model: 'cell-model',
    sampling: TEST_CONFIG.model,
    provider: TEST_CONFIG.provider,
    budget: { mainCalls, modelCalls: 10, deadlineMs: 600_000 },
    queries: false,
  };
}

function spec(o: { mainCalls?: number; switchAtStart?: boolean } = {}): SessionSpec<SuiteConfigBase, unknown, Env> {
  return {
    settings: () => settings(o.mainCalls),
    request: () => ({
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'Submit the answer.' },
      ],
      tools: [],
    }),
    initialEnvironment: () => ({ submitted: null }),
    evolveEnvironment: (env, e) => (e.type === 'EnvironmentChanged' && e.data.terminal ? { submitted: e.data.value } : env),
    runTool: (name, args) =>
      name === 'submit'
        ? {
            result: 'submitted',
            isError: false,
            effects: [{ effect: 'submit', target: 'answer', value: (JSON.parse(args) as { value: string }).value, terminal: true }],
          }
        : { result: `no tool ${name}`, isError: true },
    injectionsDue: (_c, _env, fired, at) => (o.switchAtStart && at.type === 'turn' && !fired.includes('switch-1') ? [contextSwitch] : []),
  } as SessionSpec<SuiteConfigBase, unknown, Env>;
}

/** A stub main call replying with `toolCalls`. */
function mainReply(toolCalls: ToolCallRequest[], seen: ProviderCallInput[]) {
  return standIn<typeof providerCallMachine>(
    fromPromise<ProviderCallOutput, ProviderCallInput>(async ({ input }) => {
      seen.push(input);
      const callId = `${input.site.name}/attempt-1`;
      const events: StoredEvent[] = [
        storedEvent('ProviderCallRequested', requestedData(callId, { attribution: input.site.attribution }), { jobId: JOB, at: T0 + 1 }),
        storedEvent('ProviderCallSucceeded', succeededData(callId, { content: null, toolCalls }), { jobId: JOB, at: T0 + 2 }),
      ];
      return { state: events.reduce(evolveProvider, initialProviderState), events };
    }),
  );
}

/** The hooks of TEST_JOB in a session suite made of `s`, bound by defineSuite as a run binds them. */
async function hooksOf(s: SessionSpec<SuiteConfigBase, unknown, Env>): Promise<Extract<JobHooks, { shape: 'session' }>> {
  const suite = defineSuite({
    name: 'session-suite',
    description: 'a test suite',
    shape: 'session',
    configSchema: z.object({ ...baseConfigShape }).strict(),
    defaults: TEST_CONFIG,
    prepare: async () => ({ cases: [{ id: 'c1', data: null }] }),
    arms: () => ['a'],
    session: s,
    grade: () => ({ checks: [], firstRevisionPassed: null }),
  });
  const hooks = (await suite.configure(TEST_CONFIG).prepare()).hooks(TEST_JOB);
  if (hooks.shape !== 'session') throw new Error('not a session suite');
  return hooks;
}

async function sessionInput(s: SessionSpec<SuiteConfigBase, unknown, Env>, journal: RecordingJournal): Promise<SessionInput> {
  const { session } = await hooksOf(s);
  const req = session.request();
  const state = { ...initialSessionState(req.messages, req.tools, session.initialEnvironment()), startedAtMs: T0, lastAtMs: T0 };
  return { ...jobPorts(journal), session, state };
}

describe('machines: session worker (main calls replaced)', () => {
  it('injects what is due, calls (attribution main), runs the tool batch and stops once the task is submitted', async () => {
    const journal = new RecordingJournal();
    const seen: ProviderCallInput[] = [];
    const s = spec({ switchAtStart: true });
    const r = await runMachine(sessionMachine.provide({ actors: { providerCall: mainReply([submit], seen) } }), await sessionInput(s, journal));
    expect(r.value).to.equal('done');
    expect(journal.emitted().map((e) => [e.actor, e.type])).to.deep.equal([
      [`job/${JOB}/host`, 'FaultInjected'],
      [`job/${JOB}/worker`, 'ToolCalled'],
      [`job/${JOB}/worker`, 'EnvironmentChanged'],
      [`job/${JOB}/worker`, 'WorkerStopped'],
    ]);
    // The context switch put the host's notice after the start messages of the one call made.
    expect(seen.map((x) => [x.site.name, x.site.attribution])).to.deep.equal([['worker/turn-1', 'main']]);
    expect(seen[0]!.messages.at(-1)).to.deep.equal({ role: 'user', content: '[host] Your context was reset.' });
    expect(journal.events.at(-1)!.data).to.deep.equal({ reason: 'answered', turns: 1, answer: null });
    const out = r.output as SessionState<Env>;
    expect([out.submitted, out.environment, out.fired]).to.deep.equal([true, { submitted: '42' }, ['switch-1']]);
  });

  it('a spent main-call budget stops it before any call: BudgetExhausted, then WorkerStopped (turn_cap)', async () => {
    const journal = new RecordingJournal();
    const seen: ProviderCallInput[] = [];
    const r = await runMachine(
      sessionMachine.provide({ actors: { providerCall: mainReply([submit], seen) } }),
      await sessionInput(spec({ mainCalls: 0 }), journal),
    );
    expect(seen).to.deep.equal([]);
    expect(journal.emitted().map((e) => [e.type, e.data])).to.deep.equal([
      ['BudgetExhausted', { budget: 'main_calls', limit: 0, used: 0 }],
      ['WorkerStopped', { reason: 'turn_cap', turns: 0, answer: null }],
    ]);
    expect((r.output as SessionState).stopped).to.equal('turn_cap');
  });
});

describe('machines: session job (the worker, its rebuild and the grader replaced)', () => {
  it("a killed worker is rebuilt from the job's events and goes on; the job is graded and succeeds", async () => {
    const journal = new RecordingJournal();
    const workerPorts: SessionInput['provider'][] = [];
    const rebuilds: number[] = [];
    const graded: GradeInput[] = [];
    const s = spec();
    const machine = sessionJobMachine.provide({
      actors: {
        worker: standIn<typeof sessionMachine>(
          fromPromise<SessionState, SessionInput>(async ({ input }) => {
            workerPorts.push(input.provider);
            if (workerPorts.length === 1) throw new WorkerKilled('restart-1');
            return { ...input.state, submitted: true, answer: 'done', environment: { submitted: '42' }, stopped: 'answered' };
          }),
        ),
        rebuild: fromPromise<SessionState, RebuildInput>(async ({ input }) => {
          rebuilds.push(input.fromSeq);
          return { ...initialSessionState([], [], { submitted: null }), fromSeq: input.fromSeq };
        }),
        grader: standIn<typeof graderMachine>(
          fromPromise<{ passed: boolean }, GraderInput>(async ({ input }) => {
            graded.push(input.work);
            return { passed: true };
          }),
        ),
      },
    });
    const r = await runMachine(machine, jobInput(await hooksOf(s), journal));
    expect(r.value).to.equal('done');
    expect(r.output).to.deep.equal({ jobId: JOB, status: 'succeeded' });
    expect(workerPorts).to.have.length(2);
    // The job runs with its cell's frozen settings: the cell's model, not the endpoint's.
    expect(workerPorts.map((p) => p.model)).to.deep.equal(['cell-model', 'cell-model']);
    expect(rebuilds).to.deep.equal([journal.events[0]!.seq]);
    expect(graded).to.deep.equal([{ final: null, first: null, answer: 'done', environment: { submitted: '42' } }]);
    expect(journal.emitted().map((e) => [e.type, e.data])).to.deep.equal([
      ['JobStarted', { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 }],
      ['JobSucceeded', { passed: true }],
    ]);
  });

  it('a worker stopped by a failed main call fails the job (provider_failed) without grading', async () => {
    const journal = new RecordingJournal();
    const machine = sessionJobMachine.provide({
      actors: {
        worker: standIn<typeof sessionMachine>(fromPromise<SessionState, SessionInput>(async ({ input }) => ({ ...input.state, stopped: 'provider_failed' }))),
        grader: standIn<typeof graderMachine>(fromPromise<{ passed: boolean }, GraderInput>(async () => Promise.reject(new Error('must not grade')))),
      },
    });
    const r = await runMachine(machine, jobInput(await hooksOf(spec()), journal));
    expect(r.output).to.deep.equal({ jobId: JOB, status: 'failed' });
    expect(journal.emitted().at(-1)!.data).to.deep.equal({ reason: 'provider_failed', message: 'main call failed' });
  });
});
