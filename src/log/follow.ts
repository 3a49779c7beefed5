// Watching a run as it goes is a subscription to its log, not a callback threaded through the
// harness: whoever appends (this process's actors, the workers of a scaled-out run), a watcher
// (the CLI's progress lines, a library caller's onEvent) sees the same stored events, in log
// order, from the run's first event.
import type { StoredEvent } from '../events/index.js';
import type { EventLog } from './types.js';

/** Gets each event once, in log order; `recorded` = it was in the log before the caller began. */
export type EventSink = (e: StoredEvent, recorded: boolean) => void;

/** A subscription to one run's events that ends with the run's last one. */
export class RunFollower {
  private readonly stopping = new AbortController();
  private last = 0;
  private readonly following: Promise<void>;

  /**
   * Starts following from the run's first event, so nothing appended before the subscription
   * began is missed. `recordedUpTo` is the seq of the last event stored before the caller began
   * (0 for a new run). Start it once the caller holds the run's writer lock: then the embedded
   * log's file exists (with its header) and only durable events are read.
   */
  constructor(
    private readonly log: EventLog,
    private readonly runId: string,
    private readonly sink: EventSink,
    private readonly recordedUpTo = 0,
  ) {
    this.following = (async () => {
      for await (const e of log.subscribe(runId, { signal: this.stopping.signal })) this.take(e);
    })();
    // A subscription that fails mid-run only delays the lines: stop() reads what it missed.
    this.following.catch(() => undefined);
  }

  /**
   * Called once the run has stopped appending (completed, interrupted or crashed): ends the
   * subscription, then reads to the log's end whatever it had not delivered yet, so the sink has
   * seen every event of the run when this returns.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.following.catch(() => undefined);
    for await (const e of this.log.read(this.runId, { from: this.last + 1 })) this.take(e);
  }

  private take(e: StoredEvent): void {
    if (e.seq <= this.last) return; // the final read overlaps a subscription that stopped late
    this.last = e.seq;
    this.sink(e, e.seq <= this.recordedUpTo);
  }
}

/** Runs `body` while following the run into `sink`; once `body` settles, the follow is drained and ended. */
export async function followDuring<T>(log: EventLog, runId: string, sink: EventSink, recordedUpTo: number, body: () => Promise<T>): Promise<T> {
  const follower = new RunFollower(log, runId, sink, recordedUpTo);
  let out: T;
  try {
    out = await body();
  } catch (err) {
    // The run's own error is the one to report, not a log that also failed to drain.
    await follower.stop().catch(() => undefined);
    throw err;
  }
  await follower.stop();
  return out;
}
