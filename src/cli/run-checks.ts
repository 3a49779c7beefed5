import type { DataOf } from '../events/index.js';
import type { RunOutcome } from '../projections/run-outcome.js';
import { passRate } from '../projections/run-outcome.js';
import { EXIT, InputError, intFlag } from './io.js';

/** Flags of `run` and `resume` that decide when a run stops or fails. */
export const RUN_CHECK_OPTIONS = {
  'fail-under': { type: 'string' },
  'max-consecutive-failures': { type: 'string' },
} as const;

/** Help lines for those flags. */
export const RUN_CHECK_HELP = `Checks (exit codes: 0 every job ended, 1 --fail-under not met, 3 some jobs ended in errors,
2 bad input, 130 interrupted):
  --fail-under RATE     exit 1 when the pass rate (passed / jobs with a verdict) is below RATE (0..1);
                        recorded in run.json (provenance.fail_under), so resume applies it again
  --max-consecutive-failures N
                        stop (resumable, exit 130) after N jobs in a row ended in errors
                        (default 10; 0 = never)`;

/** The provenance key that records --fail-under. */
export const FAIL_UNDER_KEY = 'fail_under';

/** The parsed check flags. */
export interface RunChecks {
  /** Null when not asked for (on resume: the recorded one, if any, applies). */
  failUnder: number | null;
  maxConsecutiveFailures: number;
}

/** Parses --fail-under and --max-consecutive-failures, naming the flag when a value is out of range. */
export function runChecks(command: string, values: { 'fail-under'?: string; 'max-consecutive-failures'?: string }): RunChecks {
  const raw = values['fail-under'];
  let failUnder: number | null = null;
  if (raw !== undefined) {
    failUnder = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(failUnder >= 0 && failUnder <= 1)) throw new InputError(`evalog ${command}: --fail-under must be a rate between 0 and 1, got ${JSON.stringify(raw)}`);
  }
  return { failUnder, maxConsecutiveFailures: intFlag(command, 'max-consecutive-failures', values['max-consecutive-failures'], 10, 0, 1_000_000) };
}

/** The run's plan with --fail-under recorded in its provenance (run.json), when given. */
export function withFailUnder(started: DataOf<'RunStarted'>, failUnder: number | null): DataOf<'RunStarted'> {
  return failUnder === null ? started : { ...started, provenance: { ...started.provenance, [FAIL_UNDER_KEY]: failUnder } };
}

/** The --fail-under a resume applies: its own flag, else the one the run recorded. */
export function recordedFailUnder(started: DataOf<'RunStarted'>, given: number | null): number | null {
  if (given !== null) return given;
  const recorded = started.provenance[FAIL_UNDER_KEY];
  return typeof recorded === 'number' ? recorded : null;
}

/** A one-line reason for a failed job. */
export function failureLine(o: RunOutcome): string {
  const f = o.lastFailure;
  if (!f) return '';
  const message = f.message.length > 160 ? `${f.message.slice(0, 157)}...` : f.message;
  return `${f.reason}: ${message.replace(/\s+/g, ' ')}`;
}

/**
 * The exit code of a completed run and the lines that explain it: 3 when jobs ended in errors
 * (which wins), else 1 when the pass rate is under --fail-under, else 0.
 */
export function completedExit(o: RunOutcome, failUnder: number | null): { code: number; lines: string[] } {
  const lines: string[] = [];
  const rate = passRate(o);
  const under = failUnder !== null && (rate === null || rate < failUnder);
  if (under) {
    lines.push(
      rate === null
        ? `evalog: --fail-under ${failUnder} not met: no job has a verdict`
        : `evalog: --fail-under ${failUnder} not met: pass rate ${rate.toFixed(3)} (${o.passed} of ${o.graded} jobs with a verdict)`,
    );
  }
  if (o.failed > 0) lines.push(`evalog: ${o.failed} of ${o.planned} jobs ended in errors (last: ${failureLine(o)})`);
  return { code: o.failed > 0 ? EXIT.jobsFailed : under ? EXIT.failed : EXIT.ok, lines };
}
