import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { JobEnv } from '../env.js';
import { caseOf, rethrow } from '../shared.js';
import { decideGrade } from './logic.js';

/** What the grader sees: the case and the final artifact and answer. Never the arm. */
export interface GraderInput {
  env: JobEnv;
  artifact: string | null;
  answer: string | null;
}

/** The grader: applies the suite's hidden checks and records each, blind to the arm. */
export const graderMachine = setup({
  types: {} as { input: GraderInput; output: { passed: boolean } },
  actors: {
    grade: fromPromise<{ passed: boolean }, GraderInput>(async ({ input }) => {
      const { env } = input;
      const checks = env.suite.grade(caseOf(env), input.artifact, input.answer);
      const events: StoredEvent[] = [];
      for (const d of decideGrade(checks)) events.push(await env.scope.emit(`job/${env.job.jobId}/grader`, d));
      const graded = events.at(-1)!;
      return { passed: graded.type === 'JobGraded' && graded.data.passed };
    }),
  },
}).createMachine({
  id: 'grader',
  context: ({ input }) => ({ input, passed: false }),
  initial: 'grading',
  states: {
    grading: {
      invoke: {
        src: 'grade',
        input: ({ context }) => context.input,
        onDone: { target: 'done', actions: assign({ passed: ({ event }) => event.output.passed }) },
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ passed: context.passed }),
});
