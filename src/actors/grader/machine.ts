import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { JobEnv } from '../env.js';
import { caseOf, rethrow } from '../shared.js';
import { decideGrade } from './logic.js';
import { SuiteShapeError, type GradeInput } from '../../suites/types.js';

/** What the grader sees: the case and the final artifact and answer. Never the arm. */
export interface GraderInput {
  env: JobEnv;
  work: GradeInput;
}

/** The grader: applies the suite's hidden checks and records each, blind to the arm. */
export const graderMachine = setup({
  types: {} as { input: GraderInput; output: { passed: boolean } },
  actors: {
    grade: fromPromise<{ passed: boolean }, GraderInput>(async ({ input }) => {
      const { env } = input;
      if (!env.suite.grade) throw new SuiteShapeError(env.suite.name, 'grade');
      const graded = await env.suite.grade(caseOf(env), input.work);
      const events: StoredEvent[] = [];
      for (const d of decideGrade(graded)) events.push(await env.scope.emit(`job/${env.job.jobId}/grader`, d));
      const last = events.at(-1)!;
      return { passed: last.type === 'JobGraded' && last.data.passed };
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
