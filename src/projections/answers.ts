// What a reader looks for in a job's row: the prompt it started from, its final answer or artifact,
// the expected value when the suite has one, and the verdict with the reason of the check that
// decided it. A fold of the log like the rows; it keeps per job only cut text and hashes (and, for
// the input, the blob references of the first request, read once when the rows are finished).
import { assertNever } from '../core/never.js';
import type { DataOf, StoredEvent } from '../events/index.js';
import { BlobNotFoundError, LogCorruptedError, type BlobStore } from '../log/index.js';
import { clip, clipHashed, maxTextCharsOf, renderPrompt, textOf, type ClippedText } from './answer-text.js';
import { own } from '../core/strings.js';
import { cmp } from './usage/index.js';

/** How a job's grade came out: pass, fail, error (it ended without a grade: a failed call, an agent that crashed), or null (not graded, or not ended). */
export type Verdict = 'pass' | 'fail' | 'error';

/** The fields every published row gets (see `withAnswers`). */
export interface AnswerFields {
  /** The prompt or task the job started from, cut to `report.maxTextChars`; null when it made no request. */
  input: string | null;
  /** sha256 of the whole input text (UTF-8). */
  input_sha256: string | null;
  /** The final artifact or submission, else the agent's final answer, else the last reply of the model; cut like the input. */
  output: string | null;
  output_sha256: string | null;
  /** The case's expected value, cut; only in rows of suites that have one (a plan fact `expected`). */
  expected?: string;
  verdict: Verdict | null;
  /** Why: the deciding check's id and detail, the scenario's first shortfall, or the job's failure. */
  reason: string | null;
}

/** The answer fields as a row gets them: without the texts for a suite that publishes hashes only. */
export type RowAnswerFields = Omit<AnswerFields, 'input' | 'output'> & Partial<Pick<AnswerFields, 'input' | 'output'>>;

/** A job's answer fields with who the job is, for `evalog show` (whatever shape the suite's rows have). */
export interface JobAnswer extends AnswerFields {
  job_id: string;
  case_id: string;
  arm: string;
  repetition: number;
  status: 'succeeded' | 'failed' | 'unfinished';
}

/** The event types the fold reads. */
const READS = new Set<string>([
  'RunStarted',
  'JobStarted',
  'AgentLaunched',
  'ProviderCallRequested',
  'ProviderCallSucceeded',
  'ProviderCallFailed',
  'WorkerStopped',
  'AgentExited',
  'ArtifactRevised',
  'EnvironmentChanged',
  'CheckEvaluated',
  'ScenarioScored',
  'JobGraded',
  'JobSucceeded',
  'JobFailed',
]);
type AnswerEvent = Extract<
  StoredEvent,
  {
    type:
      | 'RunStarted'
      | 'JobStarted'
      | 'AgentLaunched'
      | 'ProviderCallRequested'
      | 'ProviderCallSucceeded'
      | 'ProviderCallFailed'
      | 'WorkerStopped'
      | 'AgentExited'
      | 'ArtifactRevised'
      | 'EnvironmentChanged'
      | 'CheckEvaluated'
      | 'ScenarioScored'
      | 'JobGraded'
      | 'JobSucceeded'
      | 'JobFailed';
  }
>;

/** Which source of the output wins: the artifact (or final submission) over the agent's final answer over a model reply. */
const RANK = { reply: 1, answer: 2, artifact: 3 } as const;

interface Job {
  who: Omit<JobAnswer, keyof AnswerFields>;
  /** Message blobs of the job's first request of the agent (a judge's never count). */
  inputRefs: string[] | null;
  /** The task file an external agent was given: its messages are the input, before any request the agent makes. */
  taskRef: string | null;
  /** The agent's attempts waiting for an outcome; null once the job has ended (see rows.ts, Columns.pending). */
  pending: Set<string> | null;
  output: ClippedText | null;
  outputRank: number;
  checks: number;
  failing: number;
  firstFailing: string | null;
  firstCheck: string | null;
  scenario: { success: boolean; reason: string } | null;
  graded: boolean | null;
  error: string | null;
}

/** State of the answers: the text limit, each job's expected value (from the plan) and each started job. */
export interface AnswersState {
  max: number;
  expected: Map<string, string>;
  jobs: Map<string, Job>;
}

/** The answers fold (pure): `canHandle`, `initialState`, `evolve`; `finishAnswers` reads the input blobs. */
export const answersFold = {
  canHandle: (e: StoredEvent): e is AnswerEvent => READS.has(e.type),
  initialState: (): AnswersState => ({ max: 0, expected: new Map(), jobs: new Map() }),
  evolve(s: AnswersState, e: StoredEvent): AnswersState {
    if (answersFold.canHandle(e)) apply(s, e);
    return s;
  },
};

function apply(s: AnswersState, e: AnswerEvent): void {
  if (e.type === 'RunStarted') {
    s.max = maxTextCharsOf(e.data.config);
    for (const j of e.data.jobs) if (j.meta && j.meta.expected !== undefined) s.expected.set(own(j.jobId), clip(textOf(j.meta.expected), s.max));
    return;
  }
  if (e.jobId === undefined) return;
  if (e.type === 'JobStarted') {
    const j = started(e.jobId, e.data);
    s.jobs.set(j.who.job_id, j); // the job's own copy of its id: a decoded one keeps its whole event alive
    return;
  }
  const j = s.jobs.get(e.jobId);
  if (!j) return;
  switch (e.type) {
    case 'AgentLaunched':
      j.taskRef ??= e.data.task;
      break;
    case 'ProviderCallRequested':
      if (e.data.attribution === 'grading') break;
      j.inputRefs ??= e.data.messages.map(own);
      j.pending ??= new Set();
      j.pending.add(e.data.callId);
      break;
    case 'ProviderCallSucceeded':
      if (j.pending?.delete(e.data.callId) && e.data.content !== null) setOutput(j, s.max, e.data.content, RANK.reply);
      break;
    case 'ProviderCallFailed':
      j.pending?.delete(e.data.callId);
      break;
    case 'WorkerStopped':
    case 'AgentExited':
      if (e.data.answer !== null) setOutput(j, s.max, e.data.answer, RANK.answer);
      break;
    case 'ArtifactRevised':
      setOutput(j, s.max, e.data.content, RANK.artifact);
      break;
    case 'EnvironmentChanged':
      // A terminal change is the task's final submission (a session tool's `submit`, say).
      if (e.data.terminal) setOutput(j, s.max, e.data.value, RANK.artifact);
      break;
    case 'CheckEvaluated': {
      const line = clip(`${e.data.checkId}: ${e.data.detail}`, s.max);
      j.checks += 1;
      j.firstCheck ??= line;
      if (!e.data.passed) {
        j.failing += 1;
        j.firstFailing ??= line;
      }
      break;
    }
    case 'ScenarioScored':
      j.scenario = { success: e.data.success, reason: clip(scenarioReason(e.data), s.max) };
      break;
    case 'JobGraded':
      j.graded = e.data.passed;
      break;
    case 'JobSucceeded':
      j.who.status = 'succeeded';
      j.graded ??= e.data.passed;
      j.pending = null;
      break;
    case 'JobFailed':
      j.who.status = 'failed';
      j.error = clip(`${e.data.reason}: ${e.data.message}`, s.max);
      j.pending = null;
      break;
    default:
      assertNever(e);
  }
}

function started(jobId: string, d: DataOf<'JobStarted'>): Job {
  return {
    who: { job_id: own(jobId), case_id: own(d.caseId), arm: own(d.arm), repetition: d.repetition, status: 'unfinished' },
    inputRefs: null,
    taskRef: null,
    pending: null,
    output: null,
    outputRank: 0,
    checks: 0,
    failing: 0,
    firstFailing: null,
    firstCheck: null,
    scenario: null,
    graded: null,
    error: null,
  };
}

// Only cut text and the hash are kept: the whole text of a reply is not held past its event.
function setOutput(j: Job, max: number, text: string, rank: number): void {
  if (rank < j.outputRank) return;
  j.output = clipHashed(text, max);
  j.outputRank = rank;
}

/**
 * The deciding check (see README, "see why a case failed"): a job that ended in an error is decided
 * by its failure; a scenario-scored job by its scenario (its first shortfall); otherwise a failed
 * job by its first failing check, and a passed one by its only check (or "all N checks passed").
 */
function verdictOf(j: Job): Pick<AnswerFields, 'verdict' | 'reason'> {
  if (j.error !== null) return { verdict: 'error', reason: j.error };
  if (j.scenario) return { verdict: j.scenario.success ? 'pass' : 'fail', reason: j.scenario.reason };
  if (j.graded === null || j.who.status === 'unfinished') return { verdict: null, reason: null };
  if (!j.graded) {
    if (j.firstFailing === null) return { verdict: 'fail', reason: j.checks === 0 ? 'no check was applied' : null };
    const more = j.failing > 1 ? ` (and ${j.failing - 1} more failing checks)` : '';
    return { verdict: 'fail', reason: `${j.firstFailing}${more}` };
  }
  return { verdict: 'pass', reason: j.checks === 1 ? j.firstCheck : `all ${j.checks} checks passed` };
}

/** The first way a scenario fell short, in the order its scoring rule lists them; "scenario succeeded" when none. */
function scenarioReason(d: DataOf<'ScenarioScored'>): string {
  if (d.success) return 'scenario succeeded';
  if (!d.submitted) return 'nothing was submitted';
  const state = d.stateChecks.find((c) => !c.passed);
  if (state) return `state check ${state.checkId}: expected ${state.expected}, got ${state.actual ?? '(none)'}`;
  const missed = d.evidence.find((x) => !x.fetched || !x.cited);
  if (missed) return `evidence ${missed.evidenceId} (${missed.source}:${missed.line}) was ${missed.fetched ? 'fetched but not cited' : 'not fetched'}`;
  const stale = d.staleMisuses[0];
  if (stale) return `stale misuse: ${stale.effect} (${stale.reason})`;
  const dup = d.duplicateEffects[0];
  if (dup) return `duplicated side effect: ${dup.effect} ×${dup.times}`;
  return 'scenario failed';
}

/**
 * Every started job's answer fields, in job-id order, its input read from the log's blobs (the
 * first request's messages, or an external agent's task file). A blob that is missing or altered
 * leaves the input null (rebuild and show report the damage); without a blob store the input is null too.
 */
export async function finishAnswers(s: AnswersState, blobs: Pick<BlobStore, 'get'> | undefined): Promise<JobAnswer[]> {
  const out: JobAnswer[] = [];
  const jobs = [...s.jobs.values()].sort((a, b) => cmp(a.who.job_id, b.who.job_id));
  // Cut as each is read: every job's whole prompt held at once was the largest item of a rebuild's peak.
  const inputs = blobs ? await inOrder(jobs, async (j) => clippedInput(await inputOf(j, blobs), s.max)) : [];
  for (const [i, j] of jobs.entries()) out.push(answerOf(s, j, inputs[i] ?? null));
  return out;
}

/**
 * One job's answer, taken out of the fold (its entry is forgotten; the plan's expected value stays,
 * for a retried attempt), its input read from the blobs: what the streaming outputs merge into the
 * job's row as it ends. Undefined for a job that never started.
 */
export function takeAnswer(s: AnswersState, jobId: string, blobs: Pick<BlobStore, 'get'> | undefined): Promise<JobAnswer> | undefined {
  const j = s.jobs.get(jobId);
  if (!j) return undefined;
  s.jobs.delete(jobId);
  if (!blobs) return Promise.resolve(answerOf(s, j, null));
  return inputOf(j, blobs).then((input) => answerOf(s, j, clippedInput(input, s.max)));
}

/** The ids of the jobs the fold still holds. */
export function heldAnswers(s: AnswersState): string[] {
  return [...s.jobs.keys()];
}

function answerOf(s: AnswersState, j: Job, clipped: ClippedText | null): JobAnswer {
  const { verdict, reason } = verdictOf(j);
  // Property by property, not spread: see core/objects.ts (a hidden class per answer on Node 20).
  const a: JobAnswer = {
    job_id: j.who.job_id,
    case_id: j.who.case_id,
    arm: j.who.arm,
    repetition: j.who.repetition,
    status: j.who.status,
    input: clipped?.text ?? null,
    input_sha256: clipped?.sha256 ?? null,
    output: j.output?.text ?? null,
    output_sha256: j.output?.sha256 ?? null,
    verdict,
    reason,
  };
  const expected = s.expected.get(j.who.job_id);
  if (expected !== undefined) a.expected = expected;
  return a;
}

/** Blobs read at once: one after another, a 10 000-job run waits on 10 000 file opens in a row. */
const READ_AT_ONCE = 32;

/** `fn` of every item, a few at a time, the results in the items' order (so the rows do not depend on which read finished first). */
async function inOrder<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(READ_AT_ONCE, items.length) }, worker));
  return out;
}

function clippedInput(input: string | null, max: number): ClippedText | null {
  return input === null ? null : clipHashed(input, max);
}

async function inputOf(j: Job, blobs: Pick<BlobStore, 'get'>): Promise<string | null> {
  try {
    if (j.taskRef !== null) {
      // The task file (EVALOG_TASK) holds the messages the agent is to start from, as a request would.
      const task = JSON.parse(new TextDecoder().decode(await blobs.get(j.taskRef))) as { messages?: unknown };
      return Array.isArray(task.messages) ? renderPrompt(task.messages as { role?: unknown; content?: unknown }[]) : null;
    }
    if (j.inputRefs === null) return null;
    const messages = [];
    for (const ref of j.inputRefs) messages.push(JSON.parse(new TextDecoder().decode(await blobs.get(ref))) as { role?: unknown; content?: unknown });
    return renderPrompt(messages);
  } catch (err) {
    // Commands that read a run check its blobs apart (BlobChecker) and name the damage; a row only goes without.
    if (err instanceof BlobNotFoundError || err instanceof LogCorruptedError || err instanceof SyntaxError) return null;
    throw err;
  }
}

/**
 * The answer fields of a job (without who it is), to merge into its published row; with `'hashes'`
 * (a suite whose data may not be published) without the texts: only their hashes, verdict and reason.
 */
export function answerFieldsOf(a: JobAnswer, rowText?: 'hashes'): RowAnswerFields {
  const { job_id: _j, case_id: _c, arm: _a, repetition: _r, status: _s, ...fields } = a;
  if (rowText !== 'hashes') return fields;
  const { input: _i, output: _o, expected: _e, ...hashes } = fields;
  return hashes;
}
