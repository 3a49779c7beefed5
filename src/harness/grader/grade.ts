import type { StoredEvent } from '../../events/index.js';
import type { JudgePort } from '../../graders/index.js';
import { SuiteShapeError, type GradeInput } from '../suite/types.js';
import type { JobEnv } from '../env.js';
import { callWithRetries } from '../provider/call.js';
import { caseOf } from '../shared.js';
import { decideGrade } from './logic.js';

/**
 * The judge port of one job's grading: each call is a provider call of the job (`judge-<n>`, under
 * the grader's actor, attribution `grading`) with the run's retry policy, so it is recorded like any
 * other call, served from the log on replay and resume, and never counted as the agent's usage.
 */
export function judgePort(env: JobEnv): JudgePort {
  let n = 0;
  return {
    async call(request) {
      n += 1;
      // A judge may name its own model; otherwise the run's endpoint model, never the arm's.
      const callEnv = request.model === undefined ? env : { ...env, model: request.model };
      const site = { actor: `job/${env.job.jobId}/grader`, name: `judge-${n}`, attribution: 'grading' as const };
      const { state } = await callWithRetries({ env: callEnv, site, messages: request.messages, tools: [] });
      const o = state.outcome;
      if (!o) return { ok: false, message: 'the call has no outcome' };
      return o.ok ? { ok: true, content: o.data.content } : { ok: false, message: `${o.data.kind}: ${o.data.message}` };
    },
  };
}

/** Grades a job's work with the suite's checks (a judge port at hand) and records each, blind to the arm. */
export async function gradeAndRecord(env: JobEnv, work: GradeInput): Promise<{ passed: boolean }> {
  if (!env.suite.grade) throw new SuiteShapeError(env.suite.name, 'grade');
  const graded = await env.suite.grade(caseOf(env), work, judgePort(env));
  let last: StoredEvent | undefined;
  for (const d of decideGrade(graded)) last = await env.scope.emit(`job/${env.job.jobId}/grader`, d);
  return { passed: last?.type === 'JobGraded' && last.data.passed };
}
