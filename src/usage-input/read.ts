// Reads the usage input files a user names (and only those) into call records.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { StoredEvent } from '../events/index.js';
import { canonicalJson } from '../core/canonical.js';
import { aggregateUsage, type CallRecord, type UsageReport } from '../projections/usage/index.js';
import {
  inheritedCut,
  parseSessionEvent,
  parseSessionHeader,
  recordsFromSessionEvents,
  SessionEventError,
  type SessionEvent,
  type SessionHeader,
} from './dsh.js';
import { UsageInputError } from './errors.js';
import { parseExportedEvent, recordsFromEvalogEvents } from './evalog.js';
import { decompressFrames, ZstdInputError } from './zstd.js';

/** What a file turned out to be, from its first line. */
export type UsageInputFormat = 'evalog-export' | 'dsh-session';

/** One file read. */
export interface UsageInput {
  file: string;
  format: UsageInputFormat;
  /** Run ids (evalog) or the session id (DSH) whose events the file holds. */
  sources: string[];
  records: CallRecord[];
}

/** File names accepted: plain JSONL, or zstd-compressed (`.zst` as evalog writes, `.zstd` as DSH does). */
export const INPUT_SUFFIXES = ['.jsonl', '.jsonl.zst', '.jsonl.zstd'] as const;

interface Line {
  n: number;
  value: unknown;
}

/** Reads one file: detects compression from the name and the format from the first line. */
export async function readUsageInput(file: string): Promise<UsageInput> {
  const name = basename(file).toLowerCase();
  if (!INPUT_SUFFIXES.some((s) => name.endsWith(s))) {
    throw new UsageInputError(file, null, `not a usage input: expected a ${INPUT_SUFFIXES.join(', ')} file`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new UsageInputError(file, null, `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const compressed = name.endsWith('.zst') || name.endsWith('.zstd');
  if (compressed) {
    try {
      bytes = decompressFrames(bytes);
    } catch (err) {
      if (err instanceof ZstdInputError) throw new UsageInputError(file, null, err.message);
      throw err;
    }
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) {
      throw new UsageInputError(file, null, 'invalid or truncated Zstandard JSONL input: the decompressed text does not end in a newline');
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // drops a leading BOM
  } catch {
    throw new UsageInputError(file, null, 'is not UTF-8 text');
  }
  const lines = jsonLines(file, text);
  if (lines.length === 0) throw new UsageInputError(file, null, 'is empty');
  const first = lines[0]!;
  const v = first.value as Record<string, unknown> | null;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    if (v.type === 'session') return readSession(file, lines);
    if (typeof v.runId === 'string' && typeof v.type === 'string' && Object.hasOwn(v, 'seq')) return readExport(file, lines);
  }
  throw new UsageInputError(file, first.n, 'is neither an evalog export event nor a DeepSeek Harness session header (type "session")');
}

/**
 * Reads every file named (each distinct path once) and aggregates their records. Identical calls
 * found in several files (the same source and seq) count once; conflicting ones become unknown and
 * are listed in `report.diagnostics.conflictingCallIds`.
 */
export async function readUsageInputs(files: readonly string[]): Promise<{ files: string[]; inputs: UsageInput[]; report: UsageReport }> {
  const distinct = [...new Set(files)];
  const inputs: UsageInput[] = [];
  for (const f of distinct) inputs.push(await readUsageInput(f));
  return { files: distinct, inputs, report: aggregateUsage(inputs.flatMap((i) => i.records)) };
}

function jsonLines(file: string, text: string): Line[] {
  const out: Line[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new UsageInputError(file, i + 1, `is not JSON (${(err as Error).message})`);
    }
    out.push({ n: i + 1, value });
  });
  return out;
}

function readExport(file: string, lines: Line[]): UsageInput {
  // Each (runId, seq) is read once: an identical repeat is skipped, a different one is an error.
  const seen = new Map<string, string>();
  const events: StoredEvent[] = [];
  for (const { n, value } of lines) {
    let e: StoredEvent;
    try {
      e = parseExportedEvent(value, `${file} line ${n}`);
    } catch (err) {
      throw new UsageInputError(file, n, `not an evalog event: ${(err as Error).message.replace(`${file} line ${n}: `, '')}`, { cause: err });
    }
    const key = `${e.runId}\u0000${e.seq}`;
    const json = canonicalJson(value);
    const prior = seen.get(key);
    if (prior !== undefined) {
      if (prior === json) continue;
      throw new UsageInputError(file, n, `run ${e.runId} seq ${e.seq} appears twice with different content`);
    }
    seen.set(key, json);
    events.push(e);
  }
  const sources = [...new Set(events.map((e) => e.runId))].sort();
  return { file, format: 'evalog-export', sources, records: recordsFromEvalogEvents(events) };
}

function readSession(file: string, lines: Line[]): UsageInput {
  const [head, ...rows] = lines;
  let header: SessionHeader;
  try {
    header = parseSessionHeader(head!.value);
  } catch (err) {
    throw new UsageInputError(file, head!.n, (err as Error).message);
  }
  const stated = (head!.value as { inheritedEventCount?: number }).inheritedEventCount;
  // Format v3 bodies are contiguous from seq 0; an identical repeat of a seq is read once.
  const events: SessionEvent[] = [];
  const json: string[] = [];
  const lineOf = new Map<number, number>();
  for (const { n, value } of rows) {
    let e: SessionEvent;
    try {
      e = parseSessionEvent(value);
    } catch (err) {
      throw new UsageInputError(file, n, (err as Error).message);
    }
    if (e.seq < events.length) {
      if (json[e.seq] === canonicalJson(value)) continue;
      throw new UsageInputError(file, n, `seq ${e.seq} appears twice with different content`);
    }
    if (e.seq !== events.length) throw new UsageInputError(file, n, `seq gap: expected seq ${events.length}, got ${e.seq}`);
    events.push(e);
    json.push(canonicalJson(value));
    lineOf.set(e.seq, n);
  }
  try {
    header.inheritedEventCount = inheritedCut(header, stated, events);
  } catch (err) {
    throw new UsageInputError(file, head!.n, (err as Error).message);
  }
  let records: CallRecord[];
  try {
    records = recordsFromSessionEvents(header, events, header.id);
  } catch (err) {
    if (err instanceof SessionEventError) throw new UsageInputError(file, lineOf.get(err.seq) ?? null, err.message, { cause: err });
    throw err;
  }
  return { file, format: 'dsh-session', sources: [header.id], records };
}
