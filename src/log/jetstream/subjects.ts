// Subject layout of the log: `<prefix>.run.<runId>.<jobId|_run>`. Tokens are checked before they
// reach a subject, because a run id such as `*` or `a.b` would widen a filter to other runs.
import { RUN_SCOPE } from '../../events/index.js';
import { InvalidSubjectTokenError } from './errors.js';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const JOB_ID = /^[A-Za-z0-9_:-]{1,200}$/;
const PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Builds and parses the subjects of one log (one stream, one prefix). */
export class Subjects {
  /** Everything the stream captures, e.g. `evalog.run.>`. */
  readonly all: string;
  /** The run-level subject of every run, e.g. `evalog.run.*._run`. */
  readonly runLevel: string;

  constructor(readonly prefix: string) {
    if (!PREFIX.test(prefix)) throw new InvalidSubjectTokenError('subjectPrefix', prefix);
    this.all = `${prefix}.run.>`;
    this.runLevel = `${prefix}.run.*.${RUN_SCOPE}`;
  }

  /** Subject of one event: its job's, or the run-level one. */
  event(runId: string, jobId: string | undefined): string {
    checkRunId(runId);
    if (jobId !== undefined && !JOB_ID.test(jobId)) throw new InvalidSubjectTokenError('jobId', jobId);
    return `${this.prefix}.run.${runId}.${jobId ?? RUN_SCOPE}`;
  }

  /** Filter for every event of one run. */
  run(runId: string): string {
    checkRunId(runId);
    return `${this.prefix}.run.${runId}.>`;
  }

  /** The run id token of a subject of this log, or null for a foreign subject. */
  runIdOf(subject: string): string | null {
    const head = `${this.prefix}.run.`;
    if (!subject.startsWith(head)) return null;
    const rest = subject.slice(head.length);
    const dot = rest.indexOf('.');
    return dot > 0 ? rest.slice(0, dot) : null;
  }
}

/** Throws unless `runId` is a valid run id (and so a single, wildcard-free subject token). */
export function checkRunId(runId: string): void {
  if (typeof runId !== 'string' || !RUN_ID.test(runId)) throw new InvalidSubjectTokenError('runId', runId);
}
