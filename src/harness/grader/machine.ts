import { assign, fromPromise, setup } from 'xstate';
import { rethrow } from '../kernel/shared.js';
import { gradeAndRecord, type GradePorts } from './grade.js';
import type { GradeInput } from '../suite/types.js';

/** What the grader sees: the case and the final artifact and answer. Never the arm. */
export interface GraderInput extends GradePorts {
  work: GradeInput;
}

/** The grader: applies the suite's hidden checks (model-graded ones through a judge port) and records each, blind to the arm. */
export const graderMachine = setup({
  types: {} as { input: GraderInput; output: { passed: boolean } },
  actors: {
    grade: fromPromise<{ passed: boolean }, GraderInput>(({ input }) => gradeAndRecord(input, input.work)),
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
