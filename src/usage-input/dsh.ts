// DeepSeek Harness (DSH) session logs, format version 3, as usage records.
//
// A session log is JSONL: a header line (`type: "session"`), then one event per line
// `{type, seq, time, data, ignorable?}` with seq contiguous from 0. A forked child holds the
// inherited prefix of its parent (seq < inheritedEventCount, ended by a `session/end-seed`
// marker with `data.inherited: true` at the cut); those events are skipped. Every settled model
// attempt is one `assistant/message` or `assistant/attempt` event whose compact `stream` holds the
// raw usage and finish chunks. Query calls never appear in session logs, and a turn that failed
// before any attempt was written has no call: nothing is invented for either.
import { normalizeRecord, type CallAttribution, type CallOutcome, type CallRecord } from '../projections/usage/index.js';

/** The session format version this reader reads. */
export const SESSION_FORMAT_VERSION = 3;

/** A session header after decoding, with the inherited prefix length the body gave. */
export interface SessionHeader {
  id: string;
  version: number;
  isSeeded: boolean;
  origin?: string;
  parentSession?: string;
  inheritedEventCount: number;
  [key: string]: unknown;
}

/** One decoded session event. */
export interface SessionEvent {
  type: string;
  seq: number;
  time: number;
  data: unknown;
  ignorable?: boolean;
}

/** One chunk of a model stream with its session timestamp. */
export interface TimedChunk {
  time: number;
  chunk: Record<string, unknown>;
}

/** An event whose content cannot be interpreted (e.g. an invalid assistant stream). */
export class SessionEventError extends Error {
  override name = 'SessionEventError';
  constructor(
    readonly seq: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Expands a compact assistant stream into its timed chunks, validating every record as DSH does:
 * text-chunks / reasoning-chunks `{type,time0,index,dt,texts}`, tool-call-chunks
 * `{type,time0,index,dt,id,name?,args}` (member time = time0 + Σdt, dt.length = members − 1) and
 * raw `{type:'chunk',time,chunk}`. Throws `TypeError` on an invalid record.
 */
export function expandAssistantStream(stream: unknown): TimedChunk[] {
  if (!Array.isArray(stream)) throw new TypeError('Assistant stream must be an array of records');
  const out: TimedChunk[] = [];
  for (const candidate of stream) {
    if (!isRecord(candidate)) throw new TypeError('Assistant stream record must be an object');
    const r = candidate;
    switch (r.type) {
      case 'text-chunks':
      case 'reasoning-chunks': {
        exactKeys(r, ['type', 'time0', 'index', 'dt', 'texts'], r.type);
        const texts = stringArray(r.texts, `${r.type} texts`);
        if (texts.length === 0) throw new TypeError(`${r.type} texts must be non-empty`);
        const times = runTimes(r, texts.length, r.type);
        const type = r.type === 'text-chunks' ? 'text-delta' : 'reasoning-delta';
        texts.forEach((text, i) => {
          out.push({ time: times[i]!, chunk: { type, index: r.index, text } });
        });
        break;
      }
      case 'tool-call-chunks': {
        const hasName = Object.hasOwn(r, 'name');
        exactKeys(r, hasName ? ['type', 'time0', 'index', 'dt', 'id', 'name', 'args'] : ['type', 'time0', 'index', 'dt', 'id', 'args'], r.type);
        const args = stringArray(r.args, 'tool-call-chunks args');
        if (args.length === 0) throw new TypeError('tool-call-chunks args must be non-empty');
        if (typeof r.id !== 'string' || r.id.length === 0) throw new TypeError('tool-call-chunks id must be a non-empty string');
        if (hasName && (typeof r.name !== 'string' || r.name.length === 0)) throw new TypeError('tool-call-chunks name must be a non-empty string');
        const times = runTimes(r, args.length, r.type);
        args.forEach((argumentsDelta, i) => {
          out.push({ time: times[i]!, chunk: { type: 'tool-call-delta', index: r.index, id: r.id, ...(hasName ? { name: r.name } : {}), argumentsDelta } });
        });
        break;
      }
      case 'chunk': {
        exactKeys(r, ['type', 'time', 'chunk'], 'chunk');
        if (!Number.isSafeInteger(r.time)) throw new TypeError(`Assistant stream time must be a safe integer, got ${String(r.time)}`);
        if (!isRecord(r.chunk)) throw new TypeError('Assistant stream raw chunk must be a JSON object');
        out.push({ time: r.time as number, chunk: r.chunk });
        break;
      }
      default:
        throw new TypeError(`Unsupported Assistant stream record ${JSON.stringify(r.type)}`);
    }
  }
  return out;
}

/** Maps a stream finish reason to an outcome: error → failure, aborted → aborted, stop/tool-calls/max-tokens → success. */
export function finishOutcome(reason: unknown): CallOutcome {
  if (reason === 'error') return 'failure';
  if (reason === 'aborted') return 'aborted';
  if (reason === 'stop' || reason === 'tool-calls' || reason === 'max-tokens') return 'success';
  return 'unknown';
}

/**
 * The call records of one decoded session (`header.inheritedEventCount` events skipped; each seq
 * read once). Attribution is child iff the header says `origin: "subagent"` and names its
 * `parentSession` as a string, main otherwise. Each `assistant/message` or `assistant/attempt` at
 * seq s is call `<source>:<s>`: usage starts as `data.usage`, outcome as aborted (interrupted),
 * success (message) or unknown (attempt); then the stream's last `usage` chunk wins and a `finish`
 * chunk maps the outcome. `request/context` and `request/header` (`data.header.config`) give
 * provider and model. `compaction/summary` with `llmStreamCall: true` is call
 * `<source>:compaction:<id>`, attributed unknown. Throws `SessionEventError` on an invalid stream.
 */
export function recordsFromSessionEvents(header: unknown, events: Iterable<unknown>, source?: string): CallRecord[] {
  const h = isRecord(header) ? header : {};
  const src = source ?? String(h.id ?? 'session');
  const attribution: CallAttribution = h.origin === 'subagent' && typeof h.parentSession === 'string' ? 'child' : 'main';
  const inherited = Number.isSafeInteger(h.inheritedEventCount) ? (h.inheritedEventCount as number) : 0;
  const records = new Map<string, unknown>();
  const seen = new Set<number>();
  let context: Record<string, unknown> = {};
  for (const event of events) {
    if (!isRecord(event) || !Number.isSafeInteger(event.seq)) continue;
    const seq = event.seq as number;
    if (seq < inherited || seen.has(seq)) continue;
    seen.add(seq);
    const data = isRecord(event.data) ? event.data : {};
    if (event.type === 'request/context') context = data;
    if (event.type === 'request/header' && isRecord(data.header) && isRecord(data.header.config)) context = { ...context, ...data.header.config };
    if (event.type === 'assistant/message' || event.type === 'assistant/attempt') {
      let usage: unknown = data.usage;
      let outcome: CallOutcome = data.interrupted === true ? 'aborted' : event.type === 'assistant/message' ? 'success' : 'unknown';
      let chunks: TimedChunk[];
      try {
        chunks = expandAssistantStream(data.stream ?? []);
      } catch (err) {
        throw new SessionEventError(seq, `${event.type} at seq ${seq}: ${(err as Error).message}`, { cause: err });
      }
      for (const { chunk } of chunks) {
        if (chunk.type === 'usage') usage = chunk.usage;
        if (chunk.type === 'finish')
          outcome = finishOutcome(typeof chunk.reason === 'string' ? chunk.reason : isRecord(chunk.reason) ? chunk.reason.kind : undefined);
      }
      const callId = `${src}:${seq}`;
      records.set(callId, { callId, attribution, outcome, usage, provider: context.provider, model: context.model });
    }
    if (event.type === 'compaction/summary' && data.llmStreamCall === true) {
      const callId = `${src}:compaction:${String(data.compactionId)}`;
      records.set(callId, { callId, attribution: 'unknown', outcome: 'success', usage: data.usage, provider: data.provider, model: data.model });
    }
  }
  return [...records.values()].map(normalizeRecord);
}

/** A session header line, checked; the inherited prefix length is filled in from the body. */
export function parseSessionHeader(value: unknown): SessionHeader {
  if (!isRecord(value) || value.type !== 'session') throw new TypeError('the first line is not a session header (type "session")');
  if (value.version !== SESSION_FORMAT_VERSION) {
    throw new TypeError(`session format version ${JSON.stringify(value.version)} is not supported: this reader reads version ${SESSION_FORMAT_VERSION}`);
  }
  if (typeof value.id !== 'string' || value.id.length === 0) throw new TypeError('session header id must be a non-empty string');
  if (typeof value.isSeeded !== 'boolean') throw new TypeError('session header isSeeded must be a boolean');
  for (const k of ['createdAt', 'delegationDepth'] as const) {
    if (value[k] !== undefined && !isCount(value[k])) throw new TypeError(`session header ${k} must be a non-negative integer`);
  }
  for (const k of ['cwd', 'parentSession', 'agentPreset'] as const) {
    if (value[k] !== undefined && typeof value[k] !== 'string') throw new TypeError(`session header ${k} must be a string`);
  }
  if (value.origin !== undefined && value.origin !== 'subagent') throw new TypeError('session header origin must be "subagent"');
  if (value.inheritedEventCount !== undefined && !isCount(value.inheritedEventCount)) {
    throw new TypeError('session header inheritedEventCount must be a non-negative integer');
  }
  const { type: _type, ...rest } = value;
  return { ...rest, inheritedEventCount: (value.inheritedEventCount as number | undefined) ?? 0 } as SessionHeader;
}

/** One session event row, checked: `{type, seq, time, data, ignorable?}`. */
export function parseSessionEvent(value: unknown): SessionEvent {
  if (!isRecord(value)) throw new TypeError('event row must be a JSON object');
  if (typeof value.type !== 'string' || value.type.length === 0) throw new TypeError('event type must be a non-empty string');
  if (!isCount(value.seq)) throw new TypeError('event seq must be a non-negative integer');
  if (typeof value.time !== 'number' || !Number.isFinite(value.time)) throw new TypeError('event time must be a number');
  if (!Object.hasOwn(value, 'data')) throw new TypeError('event has no data');
  if (value.ignorable !== undefined && typeof value.ignorable !== 'boolean') throw new TypeError('event ignorable must be a boolean');
  return value as unknown as SessionEvent;
}

/**
 * The inherited prefix length of a decoded body: the seq of the last `session/end-seed` event with
 * `data.inherited: true`. A seeded session must have that marker and an unseeded one must not; a
 * header that states `inheritedEventCount` must agree with it.
 */
export function inheritedCut(header: SessionHeader, stated: number | undefined, events: readonly SessionEvent[]): number {
  let cut: number | undefined;
  for (const e of events) if (e.type === 'session/end-seed' && isRecord(e.data) && e.data.inherited === true) cut = e.seq;
  if (cut === undefined && stated !== undefined && stated > 0) cut = stated;
  if (cut !== undefined && stated !== undefined && stated !== cut) {
    throw new TypeError(`session header inheritedEventCount ${stated} disagrees with the inherited end-seed marker at seq ${cut}`);
  }
  if (header.isSeeded && cut === undefined) throw new TypeError('seeded session (isSeeded true) lacks an inherited session/end-seed marker');
  if (!header.isSeeded && cut !== undefined && cut > 0) throw new TypeError('unseeded session (isSeeded false) has an inherited prefix');
  return cut ?? 0;
}

function runTimes(r: Record<string, unknown>, members: number, label: string): number[] {
  if (!Number.isSafeInteger(r.time0)) throw new TypeError(`Assistant stream time must be a safe integer, got ${String(r.time0)}`);
  if (!Number.isSafeInteger(r.index) || (r.index as number) < 0 || Object.is(r.index, -0))
    throw new TypeError(`${label} index must be a non-negative safe integer`);
  if (!Array.isArray(r.dt) || r.dt.some((v) => !Number.isSafeInteger(v))) throw new TypeError(`${label} dt must contain safe integers`);
  if (r.dt.length !== members - 1) throw new TypeError(`${label} dt length must be one less than its members`);
  const times = [r.time0 as number];
  let time = r.time0 as number;
  for (const gap of r.dt as number[]) {
    time += gap;
    if (!Number.isSafeInteger(time)) throw new TypeError(`${label} member times must stay safe integers`);
    times.push(time);
  }
  return times;
}

function stringArray(value: unknown, label: string): string[] {
  if (!Array.isArray(value) || value.some((m) => typeof m !== 'string')) throw new TypeError(`${label} must be a string array`);
  return value as string[];
}

function exactKeys(r: Record<string, unknown>, keys: readonly string[], label: string): void {
  if (Object.keys(r).length !== keys.length || !keys.every((k) => Object.hasOwn(r, k))) {
    throw new TypeError(`${label} Assistant stream record must contain exactly ${keys.join(', ')}`);
  }
}

function isCount(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
