import { z } from 'zod';
import { eventSchema } from './envelope.js';

/** One check was applied to the final artifact, blind to the arm. */
export const CheckEvaluated = eventSchema(
  'CheckEvaluated',
  1,
  z.object({
    checkId: z.string(),
    visibility: z.enum(['public', 'hidden']),
    passed: z.boolean(),
    detail: z.string().describe('Why it passed or failed, without revealing the arm'),
  }),
);

/** All checks of a job were applied. v2 added `firstRevisionPassed` (v1 events upcast to null). */
export const JobGraded = eventSchema(
  'JobGraded',
  2,
  z.object({
    passed: z.boolean(),
    checksPassed: z.number().int().nonnegative(),
    checksTotal: z.number().int().nonnegative(),
    firstRevisionPassed: z.boolean().nullable().describe('Whether revision 1 passed every hidden check; null when not graded'),
  }),
);

/** Events of the grade family. */
export const GradeEvents = [CheckEvaluated, JobGraded] as const;
