import type { Writable } from 'node:stream';
import type { StoredEvent } from '../events/index.js';

/** Live progress: a rewritten line on a terminal, one plain line per finished job otherwise. */
export class ProgressReporter {
  private done = 0;
  private failed = 0;
  private running = 0;
  private calls = 0;
  private tokens = 0;
  private unknownUsage = 0;
  private lastDraw = 0;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly total: number,
    private readonly now: () => number,
  ) {}

  /** Feeds one event (live or replayed). */
  onEvent(e: StoredEvent): void {
    switch (e.type) {
      case 'JobStarted':
        this.running += 1;
        break;
      case 'ProviderCallRequested':
        this.calls += 1;
        break;
      case 'ProviderCallSucceeded':
        if (e.data.usage?.total != null) this.tokens += e.data.usage.total;
        else this.unknownUsage += 1;
        break;
      case 'JobSucceeded':
      case 'JobFailed':
        this.running -= 1;
        if (e.type === 'JobSucceeded') this.done += 1;
        else this.failed += 1;
        if (!this.out.isTTY) this.out.write(`job ${e.jobId} ${e.type === 'JobSucceeded' ? (e.data.passed === null ? 'done (graded later)' : e.data.passed ? 'passed' : 'did not pass') : `failed (${e.data.reason})`}\n`);
        break;
      default:
        return;
    }
    this.draw(false);
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
    this.out.write(`\r\x1b[2K${this.done + this.failed}/${this.total} jobs done, ${this.running} running, ${this.failed} failed · ${this.calls} calls · ${this.tokens} tokens${unknown}`);
  }
}
