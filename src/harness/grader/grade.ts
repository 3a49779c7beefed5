import type { JudgePort } from '../../graders/index.js';
import type { GradeInput } from '../suite/types.js';
import type { GradeHook } from '../suite/define.js';
import { callName, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { emitAll } from '../kernel/journal.js';
import { callWithRetries } from '../provider/call.js';
import { decideGrade } from './logic.js';
import { workspaceDraft } from './workspace.js';

/** What grading needs: the job's journal scope, the provider port (for judge calls) and the case's bound grader. */
export interface GradePorts {
  journal: JobJournal;
  provider: ProviderPort;
  grade: GradeHook;
}

/**
 * The judge port of one job's grading: each call is a provider call of the job (`judge-<n>`, under
 * the grader's actor, attribution `grading`) with the run's retry policy, so it is recorded like any
 * other call, served from the log on replay and resume, and never counted as the agent's usage.
 */
export function judgePort(journal: JobJournal, provider: ProviderPort): JudgePort {
  let n = 0;
  return {
    async call(request) {
      n += 1;
      // A judge may name its own model; otherwise the run's endpoint model, never the arm's.
      const port = request.model === undefined ? provider : { ...provider, model: request.model };
      const site = { actor: `job/${journal.jobId}/grader`, name: callName(journal, `judge-${n}`), attribution: 'grading' as const };
      const { state } = await callWithRetries({ journal, provider: port, site, messages: request.messages, tools: [] });
      const o = state.outcome;
      if (!o) return { ok: false, message: 'the call has no outcome' };
      return o.ok ? { ok: true, content: o.data.content } : { ok: false, message: `${o.data.kind}: ${o.data.message}` };
    },
  };
}

/**
 * Grades a job's work with the suite's checks (a judge port at hand) and records each, blind to the
 * arm. `how.post`: the grade's events go out with the scope's next emit (the job's end, at once).
 */
export async function gradeAndRecord(ports: GradePorts, work: GradeInput, how: { post?: boolean } = {}): Promise<{ passed: boolean }> {
  const graded = await ports.grade(work, judgePort(ports.journal, ports.provider));
  // The workspace the checks ran on is recorded before them (its files and diff as blobs).
  const drafts = [...(graded.workspace ? [await workspaceDraft(ports.journal, graded.workspace)] : []), ...decideGrade(graded)];
  await emitAll(ports.journal.scope, `job/${ports.journal.jobId}/grader`, drafts, how);
  // A replayed event equals its draft (the journal checks it), so the draft says what was recorded.
  const last = drafts[drafts.length - 1];
  return { passed: last?.type === 'JobGraded' && last.data.passed };
}
