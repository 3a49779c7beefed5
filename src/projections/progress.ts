import type { StoredEvent } from '../events/index.js';
import type { Projection } from './fold/projection.js';
import { own } from '../core/strings.js';

/** Where a run stands, as its live display shows it. */
export interface LiveProgress {
  /** Jobs in the run's plan (0 until `RunStarted` is folded). */
  planned: number;
  /** Planned jobs not started yet. */
  queued: number;
  running: number;
  succeeded: number;
  /** Succeeded jobs whose grade passed (a job graded later is not counted until it is). */
  passed: number;
  failed: number;
  /** Provider call attempts requested. */
  calls: number;
  /** Total tokens of the calls that reported usage. */
  tokens: number;
  /** Succeeded calls that reported no usage (counted apart, never as 0 tokens). */
  callsWithoutUsage: number;
  /** Calls waiting out a provider's Retry-After (at most the cap), and the longest wait asked, in ms. */
  retryWaits: { count: number; longestMs: number };
}

interface State {
  planned: number;
  started: number;
  running: number;
  succeeded: number;
  passed: number;
  failed: number;
  calls: number;
  tokens: number;
  callsWithoutUsage: number;
  /** Waits by the failed attempt's `<jobId>/<callId>`: the ms asked. */
  waits: Map<string, number>;
  /** How each ended job ended, so a retried job's next attempt replaces its count instead of adding one. */
  ended: Map<string, 'passed' | 'succeeded' | 'failed'>;
}

/**
 * Folds a run's events (in log order) into its live progress. A Retry-After wait lasts from the
 * failed attempt until the retry is requested or the job ends; one above `maxRetryAfterMs` (the
 * run's `provider.maxRetryAfterMs`) is not waited for, so it is not counted.
 */
export function progressProjection(maxRetryAfterMs: number): Projection<State, LiveProgress> {
  return {
    name: 'progress',
    initialState: () => ({
      planned: 0,
      started: 0,
      running: 0,
      succeeded: 0,
      passed: 0,
      failed: 0,
      calls: 0,
      tokens: 0,
      callsWithoutUsage: 0,
      waits: new Map(),
      ended: new Map(),
    }),
    canHandle: (e) => HANDLED.has(e.type),
    evolve(s, e) {
      switch (e.type) {
        case 'RunStarted':
          s.planned = e.data.jobs.length;
          break;
        case 'JobStarted': {
          // A job started again is a retry (`evalog retry`): it runs once more, and no longer counts as it ended.
          const before = e.jobId === undefined ? undefined : s.ended.get(e.jobId);
          if (before === undefined) s.started += 1;
          else {
            s.ended.delete(e.jobId!);
            if (before === 'failed') s.failed -= 1;
            else s.succeeded -= 1;
            if (before === 'passed') s.passed -= 1;
          }
          s.running += 1;
          break;
        }
        case 'ProviderCallRequested':
          s.calls += 1;
          if (e.data.retryOf !== null) s.waits.delete(`${e.jobId}/${e.data.retryOf}`);
          break;
        case 'ProviderCallFailed':
          if (e.data.retryAfterMs !== null && e.data.retryable && e.data.retryAfterMs <= maxRetryAfterMs)
            s.waits.set(`${e.jobId}/${e.data.callId}`, e.data.retryAfterMs);
          break;
        case 'ProviderCallSucceeded':
          if (e.data.usage?.total != null) s.tokens += e.data.usage.total;
          else s.callsWithoutUsage += 1;
          break;
        case 'JobSucceeded':
        case 'JobFailed':
          s.running -= 1;
          if (e.type === 'JobSucceeded') {
            s.succeeded += 1;
            if (e.data.passed === true) s.passed += 1;
          } else s.failed += 1;
          if (e.jobId !== undefined) s.ended.set(own(e.jobId), e.type === 'JobFailed' ? 'failed' : e.data.passed === true ? 'passed' : 'succeeded');
          for (const k of [...s.waits.keys()]) if (k.startsWith(`${e.jobId}/`)) s.waits.delete(k);
          break;
        default:
          break;
      }
      return s;
    },
    result(s) {
      return {
        planned: s.planned,
        queued: Math.max(0, s.planned - s.started),
        running: s.running,
        succeeded: s.succeeded,
        passed: s.passed,
        failed: s.failed,
        calls: s.calls,
        tokens: s.tokens,
        callsWithoutUsage: s.callsWithoutUsage,
        retryWaits: { count: s.waits.size, longestMs: Math.max(0, ...s.waits.values()) },
      };
    },
  };
}

const HANDLED: ReadonlySet<StoredEvent['type']> = new Set([
  'RunStarted',
  'JobStarted',
  'ProviderCallRequested',
  'ProviderCallFailed',
  'ProviderCallSucceeded',
  'JobSucceeded',
  'JobFailed',
]);
