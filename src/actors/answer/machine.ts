import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import { SuiteShapeError, type GradeInput } from '../../suites/types.js';
import type { JobEnv } from '../env.js';
import { decideGrade } from '../grader/logic.js';
import type { JobOutput } from '../job/machine.js';
import { recordJob, type JobCommand } from '../job/logic.js';
import { runAttempt } from '../provider/effects.js';
import { evolveProvider, initialProviderState, nextProviderStep, type ProviderStep } from '../provider/logic.js';
import type { ProviderCallInput, ProviderCallOutput } from '../provider/machine.js';
import { caseOf, rethrow } from '../shared.js';

// Performance: a job of one call is the everyday eval, so its effects run as two promise actors
// rather than as child machines (providerCallMachine, graderMachine) that spawn an actor per wait,
// attempt and grade; XState's actor set-up dominated the CPU per case (bench/README.md, overhead).
// The steps, their order and the events are those of the two machines.

/** providerCallMachine as one promise: wait (backoff), attempt, decide, until the step is not an attempt. */
async function callWithRetries(input: ProviderCallInput): Promise<ProviderCallOutput> {
  const { env, site } = input;
  let state = initialProviderState;
  const events: StoredEvent[] = [];
  let step: ProviderStep = nextProviderStep(state, site, { ...env.config.provider });
  for (;;) {
    // A replayed wait is already over: the next attempt is in the record.
    if (!env.scope.replaying) await env.sleep(step.type === 'attempt' ? step.delayMs : 0, env.signal);
    const a = step as Extract<ProviderStep, { type: 'attempt' }>;
    const out = await runAttempt({ env, site, messages: input.messages, tools: input.tools, callId: a.callId, attempt: a.attempt, retryOf: a.retryOf });
    state = out.reduce(evolveProvider, state);
    events.push(...out);
    step = nextProviderStep(state, site, env.config.provider);
    if (step.type !== 'attempt') return { state, events };
  }
}

/** graderMachine's grade as one promise: the suite's checks, each recorded, blind to the arm. */
async function gradeAnswer({ env, work }: { env: JobEnv; work: GradeInput }): Promise<{ passed: boolean }> {
  if (!env.suite.grade) throw new SuiteShapeError(env.suite.name, 'grade');
  const graded = await env.suite.grade(caseOf(env), work);
  let last: StoredEvent | undefined;
  for (const d of decideGrade(graded)) last = await env.scope.emit(`job/${env.job.jobId}/grader`, d);
  return { passed: last?.type === 'JobGraded' && last.data.passed };
}

interface Ctx {
  env: JobEnv;
  command: JobCommand;
  /** The answer to grade, set when the call succeeded and the suite grades at once. */
  answer: string | null;
}

/**
 * A job of one model call (the answerer): start, call with retries, then record the outcome. A suite
 * with `grade` has the answer graded right away (its grade events precede JobSucceeded); one without
 * is graded in a later step, from the call's success event, which carries the answer.
 */
export const singleCallJobMachine = setup({
  types: {} as { input: { env: JobEnv }; context: Ctx; output: JobOutput },
  actors: {
    providerCall: fromPromise<ProviderCallOutput, ProviderCallInput>(({ input }) => callWithRetries(input)),
    grader: fromPromise<{ passed: boolean }, { env: JobEnv; work: GradeInput }>(({ input }) => gradeAnswer(input)),
    record: fromPromise<void, { env: JobEnv; cmd: JobCommand }>(({ input }) => recordJob(input.env, input.cmd)),
  },
  guards: {
    gradeNow: ({ context }) => context.answer !== null,
  },
}).createMachine({
  id: 'single-call-job',
  context: ({ input }) => ({ env: input.env, command: { type: 'Start', job: input.env.job }, answer: null }),
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command }), onDone: 'calling', onError: 'crashed' },
    },
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context: { env } }) => {
          const req = env.suite.singleCallRequest!(caseOf(env), env.job, env.config);
          // An arm may name its own model (the dataset suite's model arms); otherwise the endpoint's.
          const callEnv = req.model === undefined ? env : { ...env, model: req.model };
          return { env: callEnv, site: { actor: `job/${env.job.jobId}/answerer`, name: 'answer', attribution: 'main' as const }, messages: req.messages, tools: req.tools };
        },
        onDone: {
          target: 'answered',
          actions: assign(({ context, event }) => {
            const o = event.output.state.outcome;
            if (!o?.ok) return { command: { type: 'Fail', reason: 'provider_failed', message: o?.data.message ?? 'no outcome' } as JobCommand };
            return { command: { type: 'Succeed', passed: null } as JobCommand, answer: context.env.suite.grade ? (o.data.content ?? '') : null };
          }),
        },
        onError: 'crashed',
      },
    },
    answered: {
      always: [{ guard: 'gradeNow', target: 'grading' }, { target: 'ending' }],
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context }) => ({ env: context.env, work: { final: null, first: null, answer: context.answer } }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }): JobCommand => ({ type: 'Succeed', passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command }), onDone: 'done', onError: 'crashed' },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.env.job.jobId, status: context.command.type === 'Succeed' ? 'succeeded' : 'failed' }),
});
