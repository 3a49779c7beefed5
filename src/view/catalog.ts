import { RunId } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { cmp } from '../projections/usage/index.js';
import type { RunDigest } from './digest.js';
import { LiveRun } from './live-run.js';
import { Lru } from './lru.js';

/** How often the list of runs is looked at again for new runs. */
const DISCOVER_EVERY_MS = 1000;

/** Default cap on runs held in memory (`evalog view --max-runs`). */
export const DEFAULT_MAX_RUNS = 8;

/** Lists the run ids a log holds now. */
export type DiscoverRuns = () => Promise<string[]>;

/** What the catalog holds now, for tests and benches (never served). */
export interface CatalogMemory {
  maxRuns: number;
  /** Runs held (events, folds, follower), least recently viewed first. */
  held: string[];
  /** Runs a client watches live: kept even above the cap until it stops. */
  pinned: string[];
}

/**
 * Every run the viewer knows, at most `maxRuns` of them held in memory as a `LiveRun` (events,
 * folds, a follower of the log); the least recently viewed is released first, and a request for a
 * released run reads it again, which gives the same answers. New runs are discovered by polling,
 * because neither log announces runs: the embedded one is folders, JetStream subjects.
 */
export class RunCatalog {
  readonly #known = new Set<string>();
  readonly #runs: Lru<string, LiveRun>;
  /** List entries of runs that were completed when listed: such a run no longer changes, so its entry stays true after release. */
  readonly #entries = new WeakMap<object, Map<string, unknown>>();
  readonly #listeners = new Set<(d: RunDigest) => void>();
  #timer: NodeJS.Timeout | null = null;
  #discovering: Promise<void> | null = null;
  #looked = false;
  #closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly discover: DiscoverRuns,
    maxRuns: number = DEFAULT_MAX_RUNS,
  ) {
    this.#runs = new Lru(maxRuns, (_id, run) => run.close());
  }

  /** Starts polling for new runs. */
  start(): void {
    this.#timer = setInterval(() => void this.refresh().catch(() => {}), DISCOVER_EVERY_MS);
    this.#timer.unref();
  }

  /**
   * Learns of runs that appeared since the last look; concurrent callers share one look. Runs
   * present at the first look are read only when asked for; later ones are opened at once, as
   * they are most likely running and the runs list hears of them that way.
   */
  refresh(): Promise<void> {
    this.#discovering ??= (async () => {
      try {
        for (const runId of await this.discover()) {
          if (this.#closed || this.#known.has(runId)) continue;
          this.#known.add(runId);
          if (this.#looked) this.#hold(runId, true);
        }
        this.#looked = true;
      } finally {
        this.#discovering = null;
      }
    })();
    return this.#discovering;
  }

  /**
   * `entry(run)` of every known run, sorted by run id. Runs are read one after another, so the
   * list never holds more than the cap; a released run's entry is reused when it was completed
   * (pass one module-level `entry`: the reused entries are kept per function).
   */
  async listEach<T>(entry: (run: LiveRun) => Promise<T>): Promise<T[]> {
    await this.refresh();
    const kept = (this.#entries.get(entry) as Map<string, T> | undefined) ?? new Map<string, T>();
    this.#entries.set(entry, kept);
    const out: T[] = [];
    for (const runId of [...this.#known].sort(cmp)) {
      if (this.#closed) break;
      const done = kept.get(runId);
      if (done !== undefined) {
        out.push(done);
        continue;
      }
      const run = this.#hold(runId);
      await run.ready();
      const value = await entry(run);
      if (run.digest().status === 'completed') kept.set(runId, value);
      out.push(value);
    }
    return out;
  }

  /** One run, or null when the log has no such run (ids that are not run ids never reach the log). */
  async get(runId: string): Promise<LiveRun | null> {
    if (!RunId.safeParse(runId).success) return null;
    if (!this.#known.has(runId)) await this.refresh();
    if (this.#closed || !this.#known.has(runId)) return null;
    const run = this.#hold(runId);
    await run.ready();
    return run;
  }

  /** Calls `fn` on the run's changes and, unless it is completed, keeps it held (pinned) until `stop`; null when there is no such run. */
  async watch(runId: string, fn: (d: RunDigest) => void): Promise<{ run: LiveRun; stop: () => void } | null> {
    for (;;) {
      const run = await this.get(runId);
      if (!run) return null;
      // Released while it was being read (other runs were viewed meanwhile): hold it again.
      if (this.#runs.get(runId) !== run) continue;
      // Only a run that can still change needs holding: a completed one read again answers the same.
      const pin = run.digest().status !== 'completed';
      if (pin) this.#runs.pin(runId);
      const off = run.onChange(fn);
      let stopped = false;
      return {
        run,
        stop: () => {
          if (stopped) return;
          stopped = true;
          off();
          if (pin) this.#runs.unpin(runId);
        },
      };
    }
  }

  /** Calls `fn` when any held run changes or a run appears. */
  onChange(fn: (d: RunDigest) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** What is held now. */
  memory(): CatalogMemory {
    return { maxRuns: this.#runs.cap, held: this.#runs.keys(), pinned: this.#runs.pinned() };
  }

  /** Stops polling and following. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#runs.clear();
    this.#listeners.clear();
  }

  /**
   * The held run, made the most recent, or a new one opened (which may release the least recent).
   * Listeners hear of a run read again only when it changes after the read: a notice for the read
   * itself would make the runs list fetch again, read a released run again, and so on forever.
   */
  #hold(runId: string, announce = false): LiveRun {
    const held = this.#runs.get(runId);
    if (held) return held;
    const run = new LiveRun(this.log, runId);
    this.#runs.set(runId, run);
    void run.ready().then(() => {
      if (this.#runs.peek(runId) !== run) return;
      run.onChange((d) => {
        for (const fn of this.#listeners) fn(d);
      });
      if (announce) for (const fn of this.#listeners) fn(run.digest());
    });
    return run;
  }
}
