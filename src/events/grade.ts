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

/** One key piece of evidence: where it is, whether the agent fetched it and whether it cited it. */
export const EvidenceFinding = z.object({
  evidenceId: z.string().describe('Id of the key evidence in the scenario fixture'),
  source: z.string(),
  line: z.number().int().positive().describe('1-based line in the source'),
  revision: z.number().int().positive().nullable().describe('The source revision the evidence must come from; null = any'),
  fetched: z.boolean().describe('A read or a complete query returned this line (at that revision)'),
  cited: z.boolean().describe('The submission cites this source and line'),
});

/** A state-and-evidence grader's findings on the final environment, blind to the arm. */
export const ScenarioScored = eventSchema(
  'ScenarioScored',
  1,
  z.object({
    success: z.boolean().describe("The scoring rule's verdict: submitted, every state check and evidence hit, no stale misuse, no duplicated side effect"),
    submitted: z.boolean(),
    stateChecks: z
      .array(
        z.object({
          checkId: z.string(),
          passed: z.boolean(),
          expected: z.string(),
          actual: z.string().nullable().describe('null when the state has no such value'),
        }),
      )
      .describe('Checks of the final environment state'),
    evidence: z.array(EvidenceFinding).describe('Key evidence, each by id and source location'),
    staleMisuses: z.array(z.object({ effect: z.string(), reason: z.string() })).describe('Side effects taken on state known to be outdated'),
    duplicateEffects: z.array(z.object({ effect: z.string(), times: z.number().int().min(2) })).describe('Side effects applied more than once'),
  }),
);

/** Events of the grade family. */
export const GradeEvents = [CheckEvaluated, JobGraded, ScenarioScored] as const;
