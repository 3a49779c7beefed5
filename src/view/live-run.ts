import { sep } from 'node:path';
import type { StoredEvent } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { suiteNamed } from '../app/index.js';
import { deriveOutputs, type RunOutputs } from '../projections/outputs.js';
import { digestOf, digestState, evolveDigest, type DigestState, type RunDigest } from './digest.js';

/** How long changes are gathered before listeners hear of them: a busy run sends a few notices a second, not one per event. */
const NOTIFY_DELAY_MS = 150;

/** Derived outputs, or why they could not be derived (e.g. no RunStarted yet). */
export type Derived = { ok: true; outputs: RunOutputs; events: number } | { ok: false; error: string; events: number };

/**
 * One run as the viewer holds it: its events (read to the end, then followed live while it can
 * still change), the digest fold kept up to date, and outputs derived on demand with the same
 * projection code as `evalog run` and `evalog rebuild`, so a finished run shows its summary.json.
 */
export class LiveRun {
  readonly events: StoredEvent[] = [];
  readonly #digest: DigestState;
  readonly #listeners = new Set<(d: RunDigest) => void>();
  readonly #stop = new AbortController();
  readonly #loaded: Promise<void>;
  #derived: { events: number; value: Promise<Derived> } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #error: string | null = null;

  constructor(
    private readonly log: EventLog,
    readonly runId: string,
  ) {
    this.#digest = digestState(runId);
    let loaded!: () => void;
    this.#loaded = new Promise((resolve) => (loaded = resolve));
    void this.#follow(loaded);
  }

  /** Resolves once the events stored when the run was opened are read. */
  ready(): Promise<void> {
    return this.#loaded;
  }

  /** The digest now, with the read error if following the log failed. */
  digest(): RunDigest & { error: string | null } {
    return { ...digestOf(this.#digest), error: this.#error };
  }

  /** Outputs for the events read so far; recomputed only when events arrived since. */
  derived(): Promise<Derived> {
    const n = this.events.length;
    if (this.#derived?.events !== n) {
      // A copy: events keep arriving while the fold awaits between items.
      const events = this.events.slice(0, n);
      const value = deriveOutputs(this.runId, events, suiteNamed, this.log.blobs(this.runId)).then(
        (outputs): Derived => ({ ok: true, outputs, events: n }),
        (err: unknown): Derived => ({ ok: false, error: shownError(this.log, err), events: n }),
      );
      this.#derived = { events: n, value };
    }
    return this.#derived.value;
  }

  /** Calls `fn` (batched) after new events; returns the unsubscribe function. */
  onChange(fn: (d: RunDigest) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Stops following the log. */
  close(): void {
    this.#stop.abort();
    if (this.#timer) clearTimeout(this.#timer);
    this.#listeners.clear();
  }

  async #follow(loaded: () => void): Promise<void> {
    try {
      for await (const e of this.log.read(this.runId)) this.#push(e);
      loaded();
      // Released by the catalog while being read: the read finishes (callers may await it) but nothing is followed.
      if (this.#stop.signal.aborted) return;
      // A completed run cannot change; an interrupted one may still be resumed, so it is followed.
      if (this.#completed()) return;
      const from = this.#digest.lastSeq + 1;
      for await (const e of this.log.subscribe(this.runId, { from, signal: this.#stop.signal })) {
        this.#push(e);
        if (this.#completed()) break;
      }
    } catch (err) {
      if (!this.#stop.signal.aborted) {
        this.#error = shownError(this.log, err);
        this.#notify();
      }
    } finally {
      loaded();
    }
  }

  #completed(): boolean {
    return this.#digest.info.status === 'completed';
  }

  #push(e: StoredEvent): void {
    // Redelivery across a reconnect must not show an event twice.
    if (e.seq <= this.#digest.lastSeq) return;
    this.events.push(e);
    evolveDigest(this.#digest, e);
    this.#notify();
  }

  #notify(): void {
    if (this.#timer || this.#listeners.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const d = digestOf(this.#digest);
      for (const fn of this.#listeners) fn(d);
    }, NOTIFY_DELAY_MS);
    this.#timer.unref();
  }
}

/**
 * An error as the browser may see it: paths inside an embedded log's root are shown from the run
 * folder on (`<run>/log/events.evlog: …`), never as the server's absolute path.
 */
export function shownError(log: EventLog, err: unknown): string {
  const message = String((err as Error)?.message ?? err);
  const root = (log as { root?: unknown }).root;
  if (typeof root !== 'string' || root === '') return message;
  return message.split(`${root.replace(/[\\/]+$/, '')}${sep}`).join('');
}
