import type { Writable } from 'node:stream';
import type { StoredEvent } from '../events/index.js';
import { progressProjection, type LiveProgress } from '../projections/index.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../harness/suite/base-config.js';

/**
 * Live progress, a fold of the run's events (`progressProjection`): a rewritten line on a
 * terminal, one plain line per finished job (and per Retry-After wait) otherwise.
 */
type Fold = ReturnType<typeof progressProjection>;

export class ProgressReporter {
  private readonly projection: Fold;
  private state: ReturnType<Fold['initialState']>;
  private lastDraw = 0;
  /** Jobs whose result is computed (no model, nothing graded later), until their end is shown. */
  private readonly computed = new Set<string>();

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly now: () => number,
    /** The run's `provider.maxRetryAfterMs`: a longer Retry-After is not waited for. */
    private readonly maxRetryAfterMs: number = DEFAULT_MAX_RETRY_AFTER_MS,
  ) {
    this.projection = progressProjection(maxRetryAfterMs);
    this.state = this.projection.initialState();
  }

  /** Folds one event; `recorded` = it was in the log before this command began (a resume's past). */
  onEvent(e: StoredEvent, recorded = false): void {
    if (e.type === 'JobComputed' && e.jobId !== undefined) this.computed.add(e.jobId);
    if (!this.projection.canHandle(e)) return;
    this.state = this.projection.evolve(this.state, e);
    if (!this.out.isTTY) this.writeLine(e, recorded);
    this.draw(false);
  }

  /** The progress so far. */
  get progress(): LiveProgress {
    return this.projection.result(this.state);
  }

  private writeLine(e: StoredEvent, recorded: boolean): void {
    if (e.type === 'JobSucceeded') {
      const computed = this.computed.delete(e.jobId ?? '');
      this.out.write(
        `job ${e.jobId} ${e.data.passed === null ? (computed ? 'computed' : 'done (graded later)') : e.data.passed ? 'passed' : 'did not pass'}\n`,
      );
    } else if (e.type === 'JobFailed') this.out.write(`job ${e.jobId} failed (${e.data.reason})\n`);
    // A wait the provider asked for is shown, so a run that seems stalled says why; one above the
    // cap says it is not waited for. A resume's recorded waits were waited out already.
    else if (e.type === 'ProviderCallFailed' && !recorded && e.data.retryAfterMs !== null && e.data.retryable) {
      const ms = e.data.retryAfterMs;
      const jobId = e.jobId ?? '-';
      this.out.write(
        ms > this.maxRetryAfterMs
          ? `job ${jobId}: rate limited; Retry-After ${seconds(ms)} is above provider.maxRetryAfterMs (${seconds(this.maxRetryAfterMs)}): not waited for; the normal backoff and retry limit go on\n`
          : `job ${jobId}: rate limited; waiting ${seconds(ms)} (Retry-After) before the next attempt\n`,
      );
    }
  }

  /** Ends the live line. */
  finish(): void {
    this.draw(true);
    if (this.out.isTTY) this.out.write('\n');
  }

  private draw(force: boolean): void {
    if (!this.out.isTTY) return;
    const t = this.now();
    if (!force && t - this.lastDraw < 100) return;
    this.lastDraw = t;
    const p = this.progress;
    const unknown = p.callsWithoutUsage > 0 ? ` (+${p.callsWithoutUsage} calls without usage)` : '';
    const waiting = p.retryWaits.count > 0 ? ` · ${p.retryWaits.count} waiting on Retry-After (up to ${seconds(p.retryWaits.longestMs)})` : '';
    this.out.write(
      `\r\x1b[2K${p.succeeded + p.failed}/${p.planned} jobs done, ${p.running} running, ${p.failed} failed · ${p.calls} calls · ${p.tokens} tokens${unknown}${waiting}`,
    );
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
