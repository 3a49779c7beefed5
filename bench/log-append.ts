// Append throughput of the embedded file log (group commit) against a raw fs baseline that writes
// the same frames, grouped exactly as the log grouped them, with one write + fdatasync per group.
// Run by hand: npx tsx bench/log-append.ts [--events N] [--appenders C] [--reps R] [--warmup W] [--dir D]
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { encodeEvent, eventId, type EvalogEvent } from '../src/events/index.js';
import { FileEventLog } from '../src/log/file/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    appenders: { type: 'string', default: '64' },
    reps: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const EVENTS = Number(values.events);
const APPENDERS = Number(values.appenders);
const REPS = Number(values.reps);
const WARMUP = Number(values.warmup);
const AT = '2025-01-01T00:00:00.000Z';

/** A job's worth of realistic events: tool calls with results, provider calls with blob refs. */
function makeEvent(runId: string, job: number, n: number): EvalogEvent {
  const jobId = `case-${job % 40}:arm-${job % 2 ? 'b' : 'a'}:${1 + (job % 3)}`;
  const base = { id: eventId(runId, jobId, n), runId, jobId, at: AT, actor: `job/${jobId}/worker` };
  const callId = `worker/turn-${n}/attempt-1`;
  switch (n % 3) {
    case 0:
      return {
        ...base,
        type: 'ProviderCallRequested',
        v: 2,
        data: {
          callId,
          attempt: 1,
          retryOf: null,
          attribution: 'main',
          model: 'scripted-model',
          messages: Array.from({ length: 1 + (n % 12) }, (_, i) => (i.toString(16) + n.toString(16)).padEnd(64, 'a')),
          tools: ['read_file', 'write_file', 'run_tests'],
          params: { temperature: 0, seed: job, max_tokens: 1024 },
        },
      };
    case 1:
      return {
        ...base,
        type: 'ProviderCallSucceeded',
        v: 2,
        data: {
          callId,
          content: `Looking at the failing test, the snapshot is taken before ${'the cache is cleared '.repeat(1 + (n % 20))}.`,
          toolCalls: [{ id: `call_${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/mod-${n % 17}.ts` }) }],
          finishReason: 'tool_calls',
          usage: { prompt: 1200 + n, completion: 80 + (n % 50), total: 1280 + n + (n % 50) },
          latencyMs: 412,
        },
      };
    default:
      return {
        ...base,
        type: 'ToolCalled',
        v: 1,
        data: {
          callId: `worker/turn-${n}/tool-0`,
          toolCallId: `call_${n}`,
          name: 'read_file',
          arguments: JSON.stringify({ path: `src/mod-${n % 17}.ts` }),
          result: 'export const x = 1;\n'.repeat(5 + (n % 60)),
          isError: false,
        },
      };
  }
}

/** Appender c's events, cut into small batches (1 to 4 events). */
function workload(runId: string): EvalogEvent[][][] {
  const perAppender = Math.ceil(EVENTS / APPENDERS);
  return Array.from({ length: APPENDERS }, (_, c) => {
    const events = Array.from({ length: Math.min(perAppender, EVENTS - c * perAppender) }, (_, i) => makeEvent(runId, c, i + 1));
    const batches: EvalogEvent[][] = [];
    for (let i = 0, size = 1 + (c % 4); i < events.length; i += size, size = (size % 4) + 1) batches.push(events.slice(i, i + size));
    return batches;
  });
}

/** Wall and CPU seconds of one timed section (CPU time is the steadier figure on a busy machine). */
interface Timing {
  seconds: number;
  cpu: number;
}

// Every timed section starts from a collected heap, so no side pays for another's garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function timer(): () => Timing {
  gc();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { seconds: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
  };
}

async function fileLog(dir: string, work: EvalogEvent[][][]): Promise<Timing & { groups: number[] }> {
  const groups: number[] = [];
  const log = await FileEventLog.open({ root: dir, onCommit: (c) => groups.push(c.events) });
  const stop = timer();
  await Promise.all(
    work.map(async (batches) => {
      for (const batch of batches) await log.append(batch);
    }),
  );
  const timing = stop();
  await log.close();
  return { ...timing, groups };
}

/**
 * The raw baseline: `u32 length | payload` per event, one writeSync + fdatasyncSync per group,
 * with the groups the file log formed. Given `events`, it encodes them inside the timing;
 * otherwise it writes the pre-encoded `payloads`.
 */
function raw(dir: string, payloads: Buffer[], events: EvalogEvent[], groups: number[]): Timing {
  const encode = events.length > 0;
  const pre = encode ? [] : payloads;
  const fd = openSync(join(dir, `raw-${encode}.bin`), 'w');
  const stop = timer();
  let next = 0;
  for (const size of groups) {
    const group = encode ? events.slice(next, next + size).map((e) => encodeEvent(e)) : pre.slice(next, next + size);
    next += size;
    const buf = Buffer.allocUnsafe(group.reduce((n, p) => n + 4 + p.length, 0));
    let at = 0;
    for (const p of group) {
      buf.writeUInt32LE(p.length, at);
      p.copy(buf, at + 4);
      at += 4 + p.length;
    }
    for (let done = 0; done < buf.length; ) done += writeSync(fd, buf, done, buf.length - done);
    fdatasyncSync(fd);
  }
  const timing = stop();
  closeSync(fd);
  return timing;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
console.log(`load average at start: ${load()}`);
const rates = { file: [] as number[], raw: [] as number[], rawEncode: [] as number[] };
const cpu = { file: [] as number[], raw: [] as number[], rawEncode: [] as number[] };
const record = (kind: keyof typeof rates, t: Timing) => {
  rates[kind].push(EVENTS / t.seconds);
  cpu[kind].push((t.cpu * 1e6) / EVENTS);
};
const fsyncs: number[] = [];
let bytes = 0;
let groups: number[] = [];
let stored: Buffer[] = []; // encoded events in the order the file log stored them
let storedKeys: string[] = []; // their ids without the run id, to find the same events in another rep
for (let rep = -WARMUP; rep < REPS; rep += 1) {
  const dir = await mkdtemp(join(values.dir, 'evalog-bench-'));
  try {
    const runId = `bench-${rep + WARMUP}`;
    const work = workload(runId);
    // Rotate the order so that drift on a shared machine does not favour one side. The baselines
    // reuse the groups (and the stored order of events) of the latest file-log repetition.
    const runFile = async () => {
      const f = await fileLog(dir, work);
      groups = f.groups;
      stored = [];
      storedKeys = [];
      const reader = await FileEventLog.open({ root: dir });
      for await (const e of reader.read(runId)) {
        const { seq: _seq, ...event } = e;
        stored.push(encodeEvent(event as EvalogEvent));
        storedKeys.push(e.id.slice(runId.length));
      }
      await reader.close();
      bytes = stored.reduce((n, p) => n + p.length, 0);
      record('file', f);
      fsyncs.push(f.groups.length);
    };
    const runRaw = async () => record('raw', raw(dir, stored, [], groups));
    // The very objects the file log encoded, in the order it stored them: same work, same memory.
    const byKey = new Map(work.flat(2).map((e) => [e.id.slice(runId.length), e]));
    const runRawEncode = async () =>
      record(
        'rawEncode',
        raw(
          dir,
          [],
          storedKeys.map((k) => byKey.get(k)!),
          groups,
        ),
      );
    const order = rep <= 0 ? [runFile, runRaw, runRawEncode] : rep % 2 ? [runRaw, runRawEncode, runFile] : [runFile, runRawEncode, runRaw];
    for (const step of order) await step();
    if (rep < 0) {
      // Warm-up (JIT, page cache, file system): measured like the others, then forgotten.
      for (const xs of [...Object.values(rates), ...Object.values(cpu), fsyncs]) xs.length = 0;
      console.log(`warm-up done`);
      continue;
    }
    const last = (xs: number[]) => Math.round(xs[xs.length - 1]!);
    console.log(
      `rep ${rep + 1}: file log ${last(rates.file)} ev/s, raw ${last(rates.raw)} ev/s, raw + encode ${last(rates.rawEncode)} ev/s, ${groups.length} group commits`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
const file = median(rates.file);
console.log(`\n${EVENTS} events (${(bytes / EVENTS).toFixed(0)} B average payload), ${APPENDERS} appenders, batches of 1-4, ${REPS} reps interleaved`);
const us = (kind: keyof typeof cpu) => `${median(cpu[kind]).toFixed(1)} CPU µs/event`;
console.log(`file log     : median ${Math.round(file)} events/s, ${us('file')} (median ${median(fsyncs)} fdatasyncs)`);
console.log(
  `raw          : median ${Math.round(median(rates.raw))} events/s, ${us('raw')} (same groups, pre-encoded) -> ratio ${(file / median(rates.raw)).toFixed(2)}`,
);
console.log(
  `raw + encode : median ${Math.round(median(rates.rawEncode))} events/s, ${us('rawEncode')} (same groups, encodeEvent timed) -> ratio ${(file / median(rates.rawEncode)).toFixed(2)}`,
);
console.log(`target: ratio >= 0.5; load average at end: ${load()}`);
