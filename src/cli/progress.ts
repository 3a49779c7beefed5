import type { Writable } from 'node:stream';
import type { StoredEvent } from '../events/index.js';
import { progressProjection, type LiveProgress } from '../projections/index.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../harness/suite/base-config.js';
import { progressLine, seconds } from './progress-line.js';

/** How progress is shown (see output-flags.ts); the default is a plain run's. */
export interface ProgressOptions {
  /** One line per finished job besides the progress line. */
  verbose?: boolean;
  /** Only failed jobs are shown. */
  quiet?: boolean;
  color?: boolean;
  /** Without a terminal, the line's period (default PIPE_INTERVAL_MS); by the injected clock, checked by a timer as often. */
  intervalMs?: number;
}

/** Without a terminal, the progress line is printed this often (by the injected clock). */
export const PIPE_INTERVAL_MS = 10_000;

/**
 * Live progress, a fold of the run's events (`progressProjection`): a rewritten line on a
 * terminal; otherwise the same line every 10 s and once at the end, so a 3000-job run in CI
 * prints a few dozen lines, not 3000. A resume's recorded past is folded silently.
 */
type Fold = ReturnType<typeof progressProjection>;

export class ProgressReporter {
  private readonly projection: Fold;
  private state: ReturnType<Fold['initialState']>;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private readonly startedAt: number;
  private lastLine: number;
  private endedHere = 0;
  private readonly tty: boolean;
  /** Jobs whose result is computed (no model, nothing graded later), until their end is shown. */
  private readonly computed = new Set<string>();
  /** Without a terminal: prints the line when it is due though no event came (a stalled run still says where it stands). */
  private readonly timer: ReturnType<typeof setInterval> | null;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly now: () => number,
    /** The run's `provider.maxRetryAfterMs`: a longer Retry-After is not waited for. */
    private readonly maxRetryAfterMs: number = DEFAULT_MAX_RETRY_AFTER_MS,
    private readonly options: ProgressOptions = {},
  ) {
    this.projection = progressProjection(maxRetryAfterMs);
    this.state = this.projection.initialState();
    this.startedAt = now();
    this.lastLine = this.startedAt;
    this.tty = out.isTTY === true;
    // Unref'd: the timer never keeps a finished command alive, and `finish` stops it.
    this.timer = this.tty || options.quiet ? null : setInterval(() => this.printIfDue(), options.intervalMs ?? PIPE_INTERVAL_MS).unref();
  }

  /** Folds one event; `recorded` = it was in the log before this command began (a resume's past). */
  onEvent(e: StoredEvent, recorded = false): void {
    if (e.type === 'JobComputed' && e.jobId !== undefined) this.computed.add(e.jobId);
    if (!this.projection.canHandle(e)) return;
    this.state = this.projection.evolve(this.state, e);
    if (!recorded && (e.type === 'JobSucceeded' || e.type === 'JobFailed')) this.endedHere += 1;
    if (!recorded) this.writeEventLine(e);
    if (this.options.quiet) return;
    if (this.tty) this.draw(false);
    else this.printIfDue();
  }

  private printIfDue(): void {
    if (this.now() - this.lastLine >= (this.options.intervalMs ?? PIPE_INTERVAL_MS)) this.printLine();
  }

  /** The progress so far. */
  get progress(): LiveProgress {
    return this.projection.result(this.state);
  }

  /** The line as it stands now. */
  line(): string {
    return progressLine(this.progress, { elapsedMs: this.now() - this.startedAt, endedHere: this.endedHere }, this.options.color === true);
  }

  private writeEventLine(e: StoredEvent): void {
    const { verbose = false, quiet = false } = this.options;
    const perJob = verbose;
    if (e.type === 'JobSucceeded') {
      const computed = this.computed.delete(e.jobId ?? '');
      if (perJob)
        this.write(`job ${e.jobId} ${e.data.passed === null ? (computed ? 'computed' : 'done (graded later)') : e.data.passed ? 'passed' : 'did not pass'}\n`);
    } else if (e.type === 'JobFailed') {
      // An error is shown even with --quiet; otherwise it is counted in the line.
      if (perJob || quiet) this.write(`job ${e.jobId} failed (${e.data.reason})\n`);
    }
    // A wait the provider asked for is shown, so a run that seems stalled says why; one above the
    // cap says it is not waited for. A resume's recorded waits were waited out already.
    else if (e.type === 'ProviderCallFailed' && !quiet && !this.tty && e.data.retryAfterMs !== null && e.data.retryable) {
      const ms = e.data.retryAfterMs;
      const jobId = e.jobId ?? '-';
      this.out.write(
        ms > this.maxRetryAfterMs
          ? `job ${jobId}: rate limited; Retry-After ${seconds(ms)} is above provider.maxRetryAfterMs (${seconds(this.maxRetryAfterMs)}): not waited for; the normal backoff and retry limit go on\n`
          : `job ${jobId}: rate limited; waiting ${seconds(ms)} (Retry-After) before the next attempt\n`,
      );
    }
  }

  /** A whole line; on a terminal the live line is cleared first and redrawn after. */
  private write(text: string): void {
    if (!this.tty) {
      this.out.write(text);
      return;
    }
    this.out.write(`\r\x1b[2K${text}`);
    this.lastDraw = Number.NEGATIVE_INFINITY;
  }

  /** Ends the live line; without a terminal, prints the last line. */
  finish(): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.options.quiet) return;
    if (this.tty) {
      this.draw(true);
      this.out.write('\n');
    } else this.printLine();
  }

  private printLine(): void {
    this.lastLine = this.now();
    this.out.write(`${this.line()}\n`);
  }

  private draw(force: boolean): void {
    const t = this.now();
    if (!force && t - this.lastDraw < 100) return;
    this.lastDraw = t;
    this.out.write(`\r\x1b[2K${this.line()}`);
  }
}
