import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical.js';
import { type Clock, isoOf } from '../../core/clock.js';
import { buildEvent, eventId, type DataOf, type EventParts, type EvalogEvent, type EventType, type StoredEvent } from '../../events/index.js';
import type { AppendResult, BlobStore, EventLog } from '../../log/index.js';
import { DeterminismViolation, EndOfRecording } from './errors.js';

/** An event as an actor decides it; the journal adds the envelope. */
export interface Draft<T extends EventType = EventType> {
  type: T;
  data: DataOf<T>;
  causationId?: string;
}

/** A draft of any event type, as a union discriminated by `type`. */
export type AnyDraft = { [T in EventType]: Draft<T> }[EventType];

/** Builds a draft with its data type checked against the event type. */
export function draft<T extends EventType>(type: T, data: DataOf<T>, causationId?: string): Draft<T> {
  return causationId === undefined ? { type, data } : { type, data, causationId };
}

/**
 * live: every emitted event is appended.
 * replay: emitted events are compared with the recorded ones; past the end of a scope's record, the scope stops.
 * resume: compared while the record lasts, appended after it.
 */
export type JournalMode = 'live' | 'replay' | 'resume';

/** A worker's hold on jobs: its identity and, per job, the seq of its claim (see `Fence`). */
export interface JournalFence {
  writer: string;
  /** Job id → seq of the last stored event of the job when the worker claimed it. */
  afterSeq: ReadonlyMap<string, number>;
}

/** What every journal needs besides its log and run: the injected clock, and a worker's fence. */
export interface JournalOptions {
  clock: Clock;
  /** Set by workers: job events are appended fenced, so a job lost to another worker stops here. */
  fence?: JournalFence;
}

/** A live scope's record: one shared empty list, not one per job (the scopes are kept for the whole run). */
const NO_RECORD: readonly StoredEvent[] = Object.freeze([]);

/** Recorded events by scope ('' for the run itself, else the job id), as replay and resume start from. */
export type RecordedScopes = ReadonlyMap<string, readonly StoredEvent[]>;

/** Gives events deterministic ids and times, and appends them (or checks them against the record). */
export class Journal {
  private readonly scopes = new Map<string, ScopeJournal>();
  private readonly recorded: RecordedScopes;
  readonly clock: Clock;
  readonly fence: JournalFence | undefined;

  /** A journal that appends every emitted event: a new run, or a job past its record. */
  static live(log: EventLog, runId: string, options: JournalOptions): Journal {
    return new Journal(log, runId, 'live', new Map(), options);
  }

  /** A journal that only compares emitted events with `recorded` and never appends (nor writes blobs). */
  static replay(log: EventLog, runId: string, recorded: RecordedScopes, options: Omit<JournalOptions, 'fence'>): Journal {
    return new Journal(log, runId, 'replay', recorded, options);
  }

  /** A journal that compares emitted events with `recorded` while it lasts, then appends. */
  static resume(log: EventLog, runId: string, recorded: RecordedScopes, options: JournalOptions): Journal {
    return new Journal(log, runId, 'resume', recorded, options);
  }

  // Private: a mode and a record only make sense together, which the named constructors ensure.
  private constructor(
    readonly log: EventLog,
    readonly runId: string,
    readonly mode: JournalMode,
    recorded: RecordedScopes,
    options: JournalOptions,
  ) {
    this.recorded = actorEventsOf(recorded);
    this.clock = options.clock;
    this.fence = options.fence;
  }

  /** The journal of one job (or of the run itself when `jobId` is undefined). */
  scope(jobId: string | undefined): ScopeJournal {
    const key = jobId ?? '';
    let s = this.scopes.get(key);
    if (!s) {
      s = new ScopeJournal(this, jobId, this.recorded.get(key) ?? NO_RECORD);
      this.scopes.set(key, s);
    }
    return s;
  }

  /**
   * Recorded events no actor re-emitted: a scope whose record goes on after its actors finished,
   * or a scope no actor touched. Replay reports these as divergences too.
   */
  leftovers(): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (const [key, events] of this.recorded) {
      const used = this.scopes.get(key)?.emitted ?? 0;
      if (used < events.length) out.push(events[used]!);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** The run's blob store; while replaying, one that only hashes (a replay writes nothing). */
  get blobs(): BlobStore {
    const store = this.log.blobs(this.runId);
    // Past a scope's record, the event that would name a new blob ends the scope (EndOfRecording)
    // before it is logged, so the blob is never needed; writing it would change the log folder.
    return this.mode === 'replay' ? hashingOnly(store) : store;
  }
}

const hashingStores = new WeakMap<BlobStore, BlobStore>();

/** A view of `store` whose put computes the hash and stores nothing. */
function hashingOnly(store: BlobStore): BlobStore {
  let view = hashingStores.get(store);
  if (!view) {
    view = {
      put: (bytes) => Promise.resolve(createHash('sha256').update(bytes).digest('hex')),
      get: (hash) => store.get(hash),
      has: (hash) => store.has(hash),
    };
    hashingStores.set(store, view);
  }
  return view;
}

// Claims are the worker runtime's, not an actor's: they take no position in a scope's numbering.
function actorEventsOf(recorded: RecordedScopes): RecordedScopes {
  let claims = false;
  for (const events of recorded.values()) if (events.some((e) => e.type === 'JobClaimed')) claims = true;
  if (!claims) return recorded;
  return new Map([...recorded].map(([k, events]) => [k, events.filter((e) => e.type !== 'JobClaimed')]));
}

/** The ordered event stream of one scope: numbering, replay comparison, recorded effects. */
export class ScopeJournal {
  private n = 0;
  /** Fenced appends: the seq the job's stream ends at, and the chain that keeps appends in order. */
  private fencedAt: number | undefined;
  // Made at the first fenced append: a scope of an unfenced run (almost every one) needs none, and scopes live as long as the run.
  private fenceChain: Promise<unknown> | undefined;
  /** Posted events not appended yet (see `post`); null when there are none, as for almost every scope. */
  private held: EvalogEvent[] | null = null;

  constructor(
    private readonly journal: Journal,
    readonly jobId: string | undefined,
    private readonly recorded: readonly StoredEvent[],
  ) {
    if (jobId !== undefined) this.fencedAt = journal.fence?.afterSeq.get(jobId);
  }

  /** How many events this scope has emitted (or re-emitted) so far. */
  get emitted(): number {
    return this.n;
  }

  /** True while the next event to emit is already in the record. */
  get replaying(): boolean {
    return this.n < this.recorded.length;
  }

  /** The next recorded event of this scope, undefined past its record (an external agent's requests are matched against it). */
  peek(): StoredEvent | undefined {
    return this.recorded[this.n];
  }

  /** The recorded event `k` places after the next one (peekAfter(0) = peek()). */
  peekAfter(k: number): StoredEvent | undefined {
    return this.recorded[this.n + k];
  }

  /**
   * Resume only: leaves the rest of this scope's record unmatched, so the next emit appends after
   * it. An external agent that asked for something other than what its record holds goes on live
   * from here; the recorded tail stays in the log (those calls were made, and paid for), and new
   * events number on from the record's end, so no id is given twice.
   */
  abandonRecord(): void {
    this.passOver(this.recorded.length - this.n);
  }

  /**
   * Resume only: passes over the next `k` recorded events unmatched, so the next emit is compared
   * with the one after them. An external agent that diverges where an earlier resume diverged the
   * same way follows that resume's record from there (its calls are answered, not sent again).
   */
  passOver(k: number): void {
    if (this.journal.mode === 'replay') throw new Error('a replay never leaves its record');
    this.n = Math.min(this.recorded.length, this.n + Math.max(0, k));
  }

  /** The recorded outcome event of an effect, matched by its causal name rather than by position. */
  recordedOutcome(types: readonly EventType[], callId: string): StoredEvent | undefined {
    return this.recorded.find((e) => types.includes(e.type) && (e.data as { callId?: string }).callId === callId);
  }

  /** Emits one event: compared with the record while replaying, appended when live. */
  async emit(actor: string, d: AnyDraft): Promise<StoredEvent> {
    const event = this.next(actor, d);
    if ('seq' in event) return event;
    return { ...event, seq: await this.append(event) } as StoredEvent;
  }

  /**
   * Emits an event that nothing waits to be durable: it goes to the log with this scope's next
   * emit, in the same append (one group commit for both, in order), or with `flush`. A one-call
   * job posts its start (its request, which must be durable before the call is sent, follows at
   * once) and its grade (its end follows at once): a durable round trip fewer for each. Run what
   * follows a post through `afterPosting`, so that a step failing before its emit still logs it.
   */
  post(actor: string, d: AnyDraft): void {
    const event = this.next(actor, d);
    if ('seq' in event) return;
    if (this.held) this.held.push(event);
    else this.held = [event];
  }

  /** Appends what was posted and not yet appended, if anything (a job that stopped right after it posted). */
  async flush(): Promise<void> {
    if (this.held) await this.append(null);
  }

  /** The next event of the scope: the recorded one (it must match) while replaying, else a new one to append. */
  private next(actor: string, d: AnyDraft): StoredEvent | EvalogEvent {
    const { runId, clock, mode } = this.journal;
    const n = ++this.n;
    const logged = this.recorded[n - 1];
    const event: EvalogEvent = buildEvent({
      id: eventId(runId, this.jobId, n),
      runId,
      jobId: this.jobId,
      type: d.type,
      // A replayed event keeps its recorded times, so durations rebuild identically.
      at: logged ? logged.at : isoOf(clock.now()),
      mono: logged ? logged.mono : clock.mono?.(),
      actor,
      causationId: d.causationId,
      data: d.data,
    } as EventParts<EventType>);
    if (logged) {
      const diff = differingFields(logged, event);
      if (diff.length > 0) throw new DeterminismViolation(logged, event, diff);
      return logged;
    }
    if (mode === 'replay') throw new EndOfRecording(this.jobId, n);
    return event;
  }

  /** Appends the posted events, then `event`; resolves with the seq of the last one once all are durable. */
  private async append(event: EvalogEvent | null): Promise<number> {
    const events = this.held ?? [];
    this.held = null;
    if (event) events.push(event);
    if (this.fencedAt !== undefined) {
      let seq = 0;
      for (const e of events) seq = (await this.appendFenced(e)).seq;
      return seq;
    }
    const results = await this.journal.log.append(events);
    return results[results.length - 1]!.seq;
  }

  // One job's events go out one at a time, each expecting the seq of the one before; a refusal
  // (FencedOffError) fails this and every later emit of the scope.
  private appendFenced(event: EvalogEvent): Promise<AppendResult> {
    const writer = this.journal.fence!.writer;
    const next = (this.fenceChain ?? Promise.resolve()).then(async () => {
      const r = await this.journal.log.appendAfter(event, { afterSeq: this.fencedAt!, writer });
      this.fencedAt = r.seq;
      return r;
    });
    this.fenceChain = next;
    return next;
  }
}

/** Emits the drafts in order to `scope`, or posts them all (see `ScopeJournal.post`) with `how.post`. */
export async function emitAll(
  scope: Pick<ScopeJournal, 'emit' | 'post'>,
  actor: string,
  drafts: readonly AnyDraft[],
  how: { post?: boolean } = {},
): Promise<void> {
  for (const d of drafts) {
    if (how.post) scope.post(actor, d);
    else await scope.emit(actor, d);
  }
}

/**
 * Runs `step` after events were posted to `scope`; a step that stops before its first emit (an
 * interrupt, a failed blob write) still leaves them in the log, as they would have been had they
 * been emitted. Every caller that posts runs what follows through this.
 */
export async function afterPosting<T>(scope: Pick<ScopeJournal, 'flush'>, step: () => Promise<T>): Promise<T> {
  let out: T;
  try {
    out = await step();
  } catch (err) {
    // The step's own error is the one to report, not a log that also failed to take what was posted.
    await scope.flush().catch(() => undefined);
    throw err;
  }
  await scope.flush(); // nothing is held once the step emitted
  return out;
}

const compared = ['id', 'runId', 'jobId', 'type', 'v', 'actor', 'causationId'] as const;

/** Names the fields in which a re-emitted event differs from the logged one (`data.x.y` for nested data). */
export function differingFields(logged: EvalogEvent, emitted: EvalogEvent): string[] {
  const out: string[] = [];
  for (const k of compared) if (logged[k] !== emitted[k]) out.push(k);
  diffValue('data', logged.data, emitted.data, out);
  return out;
}

function diffValue(path: string, a: unknown, b: unknown, out: string[]): void {
  if (canonicalJson(a) === canonicalJson(b)) return;
  const isObj = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])].sort();
    for (const k of keys) diffValue(`${path}.${k}`, (a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], out);
    return;
  }
  out.push(path);
}
