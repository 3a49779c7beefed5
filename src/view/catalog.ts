import { RunId } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { cmp } from '../projections/usage/index.js';
import type { RunDigest } from './digest.js';
import { LiveRun } from './live-run.js';

/** How often the list of runs is looked at again for new runs. */
const DISCOVER_EVERY_MS = 1000;

/** Lists the run ids a log holds now. */
export type DiscoverRuns = () => Promise<string[]>;

/**
 * Every run the viewer knows, each a `LiveRun` opened on first sight. New runs are discovered by
 * polling, because neither log announces runs: the embedded one is folders, JetStream subjects.
 */
export class RunCatalog {
  readonly #runs = new Map<string, LiveRun>();
  readonly #listeners = new Set<(d: RunDigest) => void>();
  #timer: NodeJS.Timeout | null = null;
  #discovering: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly discover: DiscoverRuns,
  ) {}

  /** Starts polling for new runs. */
  start(): void {
    this.#timer = setInterval(() => void this.refresh().catch(() => {}), DISCOVER_EVERY_MS);
    this.#timer.unref();
  }

  /** Opens runs that appeared since the last look; concurrent callers share one look. */
  refresh(): Promise<void> {
    this.#discovering ??= (async () => {
      try {
        for (const runId of await this.discover()) if (!this.#closed && !this.#runs.has(runId)) this.#open(runId);
      } finally {
        this.#discovering = null;
      }
    })();
    return this.#discovering;
  }

  /** Every known run, sorted by id, each read to where it stood when opened. */
  async list(): Promise<LiveRun[]> {
    await this.refresh();
    const runs = [...this.#runs.values()].sort((a, b) => cmp(a.runId, b.runId));
    await Promise.all(runs.map((r) => r.ready()));
    return runs;
  }

  /** One run, or null when the log has no such run (ids that are not run ids never reach the log). */
  async get(runId: string): Promise<LiveRun | null> {
    if (!RunId.safeParse(runId).success) return null;
    if (!this.#runs.has(runId)) await this.refresh();
    const run = this.#runs.get(runId) ?? null;
    await run?.ready();
    return run;
  }

  /** Calls `fn` when any run changes or appears. */
  onChange(fn: (d: RunDigest) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Stops polling and following. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const r of this.#runs.values()) r.close();
    this.#listeners.clear();
  }

  #open(runId: string): void {
    const run = new LiveRun(this.log, runId);
    this.#runs.set(runId, run);
    run.onChange((d) => {
      for (const fn of this.#listeners) fn(d);
    });
    void run.ready().then(() => {
      for (const fn of this.#listeners) fn(run.digest());
    });
  }
}
