import type { Writable } from 'node:stream';
import type { StoredEvent } from '../events/index.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../harness/suite/base-config.js';

/** Live progress: a rewritten line on a terminal, one plain line per finished job otherwise. */
export class ProgressReporter {
  private done = 0;
  private failed = 0;
  private running = 0;
  private calls = 0;
  private tokens = 0;
  private unknownUsage = 0;
  private lastDraw = 0;
  /** Calls waiting out a provider's Retry-After, by the failed attempt's `<jobId>/<callId>`: ms asked. */
  private readonly waits = new Map<string, number>();

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly total: number,
    private readonly now: () => number,
    /** The run's `provider.maxRetryAfterMs`: a longer Retry-After is not waited for. */
    private readonly maxRetryAfterMs: number = DEFAULT_MAX_RETRY_AFTER_MS,
  ) {}

  /** Feeds one event (live or replayed). */
  onEvent(e: StoredEvent, replayed = false): void {
    switch (e.type) {
      case 'JobStarted':
        this.running += 1;
        break;
      case 'ProviderCallRequested':
        this.calls += 1;
        if (e.data.retryOf !== null) this.waits.delete(`${e.jobId}/${e.data.retryOf}`);
        break;
      case 'ProviderCallFailed':
        if (replayed || e.data.retryAfterMs === null || !e.data.retryable) return;
        this.onRetryAfter(`${e.jobId}/${e.data.callId}`, e.jobId ?? '-', e.data.retryAfterMs);
        break;
      case 'ProviderCallSucceeded':
        if (e.data.usage?.total != null) this.tokens += e.data.usage.total;
        else this.unknownUsage += 1;
        break;
      case 'JobSucceeded':
      case 'JobFailed':
        this.running -= 1;
        for (const k of [...this.waits.keys()]) if (k.startsWith(`${e.jobId}/`)) this.waits.delete(k);
        if (e.type === 'JobSucceeded') this.done += 1;
        else this.failed += 1;
        if (!this.out.isTTY) this.out.write(`job ${e.jobId} ${e.type === 'JobSucceeded' ? (e.data.passed === null ? 'done (graded later)' : e.data.passed ? 'passed' : 'did not pass') : `failed (${e.data.reason})`}\n`);
        break;
      default:
        return;
    }
    this.draw(false);
  }

  // A wait the provider asked for is shown, so a run that seems stalled says why; one above the cap says it is not waited for.
  private onRetryAfter(key: string, jobId: string, ms: number): void {
    const capped = ms > this.maxRetryAfterMs;
    if (!capped) this.waits.set(key, ms);
    if (this.out.isTTY) return;
    this.out.write(capped
      ? `job ${jobId}: rate limited; Retry-After ${seconds(ms)} is above provider.maxRetryAfterMs (${seconds(this.maxRetryAfterMs)}): not waited for; the normal backoff and retry limit go on\n`
      : `job ${jobId}: rate limited; waiting ${seconds(ms)} (Retry-After) before the next attempt\n`);
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
    const unknown = this.unknownUsage > 0 ? ` (+${this.unknownUsage} calls without usage)` : '';
    const longest = Math.max(0, ...this.waits.values());
    const waiting = this.waits.size > 0 ? ` · ${this.waits.size} waiting on Retry-After (up to ${seconds(longest)})` : '';
    this.out.write(`\r\x1b[2K${this.done + this.failed}/${this.total} jobs done, ${this.running} running, ${this.failed} failed · ${this.calls} calls · ${this.tokens} tokens${unknown}${waiting}`);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
