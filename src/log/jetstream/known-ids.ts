// Which event ids a run already holds, and at which seq. JetStream drops a duplicate only within
// its duplicate window; this index catches the older ones, so a re-append is reported as a
// duplicate with the original seq however late it comes.
import { EventIdIndex } from '../id-index.js';
import { scanStream, type ScanContext } from './scan.js';
import type { Subjects } from './subjects.js';

interface RunIndex {
  ids: EventIdIndex;
  /** Highest stream seq of this run seen by a scan. */
  scannedTo: number;
  /** Monotonic time at which the last scan started (everything stored before it is in `ids`). */
  scannedAt: number;
  refreshing?: Promise<void>;
}

/** Per-run id → seq, filled by scans of the message headers and by this process's own acks. */
export class KnownIds {
  private readonly runs = new Map<string, RunIndex>();

  /**
   * `staleMs` must stay below the duplicate window: an id stored by another process after our last
   * scan is then either still inside the server's window or seen by the next scan.
   */
  constructor(
    private readonly ctx: ScanContext,
    private readonly subjects: Subjects,
    private readonly staleMs: number,
  ) {}

  /** Brings a run's index up to date if it was never scanned or is stale; callers share a scan. */
  async refresh(runId: string): Promise<void> {
    let index = this.runs.get(runId);
    if (!index) {
      index = { ids: new EventIdIndex(), scannedTo: 0, scannedAt: -Infinity };
      this.runs.set(runId, index);
    }
    if (performance.now() - index.scannedAt < this.staleMs) return;
    const run = index;
    run.refreshing ??= this.scan(runId, run).finally(() => (run.refreshing = undefined));
    await run.refreshing;
  }

  /** The seq of a known id, if any. */
  lookup(runId: string, id: string): number | undefined {
    return this.runs.get(runId)?.ids.get(id);
  }

  /** Records an id this process saw acknowledged. */
  record(runId: string, id: string, seq: number): void {
    this.runs.get(runId)?.ids.set(id, seq);
  }

  private async scan(runId: string, index: RunIndex): Promise<void> {
    const startedAt = performance.now();
    const messages = scanStream(this.ctx, this.subjects.run(runId), { from: index.scannedTo + 1, live: false, headersOnly: true });
    for await (const m of messages) {
      const id = m.headers?.get('Nats-Msg-Id');
      // First writer wins: a later message with the same id can only be a post-window duplicate.
      if (id && !index.ids.has(id)) index.ids.set(id, m.seq);
      index.scannedTo = Math.max(index.scannedTo, m.seq);
    }
    index.scannedAt = startedAt;
  }
}
