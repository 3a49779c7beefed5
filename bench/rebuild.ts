// Rebuild throughput and memory: a synthetic embedded log of a smoke-like run (jobs with a parent
// call, a delegated task, worker turns with tool calls, retries, grades), rebuilt into every
// projection by the code path of `evalog rebuild` (rebuildOutputs + writeOutputs), side by side
// with a bare msgpackr decode of the same file. Each side runs in its own child process, so its
// peak RSS (process.resourceUsage().maxRSS) is its own.
// Run by hand: npx tsx bench/rebuild.ts [--sizes 250000,500000,1000000] [--reps 3] [--dir /tmp] [--sides decode,read,rebuild] [--derive stream|memory] [--heap-growing-percent N] [--write-heap-growing-percent N|none]
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { Packr } from 'msgpackr';
import { CURRENT_VERSION, encodeEvent, EvalogEventSchema, eventId, type EvalogEvent } from '../src/events/index.js';
import { FileEventLog, runLogPaths } from '../src/log/file/index.js';
import { fileHeader, FRAME_HEADER_BYTES, HEADER_BYTES, writeFrame } from '../src/log/file/format.js';
import { rebuildOutputs, writeOutputs } from '../src/projections/outputs.js';
import { createOutputDir } from '../src/projections/writer.js';
import { streamOutputs } from '../src/projections/stream/index.js';
import { compileForBench } from './support/build.js';
import { mulberry32 } from '../src/core/prng.js';
import { suiteNamed } from '../src/app/index.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '250000,500000,1000000' },
    reps: { type: 'string', default: '3' },
    dir: { type: 'string', default: tmpdir() },
    sides: { type: 'string', default: 'decode,read,rebuild' },
    concurrency: { type: 'string', default: '16' },
    // Writes a V8 CPU profile of every child side into this folder (node --cpu-prof).
    'cpu-prof': { type: 'string' },
    // Leaves out ArtifactRevised (suites without artifacts): no artifact files to write.
    'no-artifacts': { type: 'boolean', default: false },
    // Reports the heap the derived outputs hold (children run with --expose-gc), and samples the
    // rebuild's memory every 100 ms: the largest of each part (V8 heap, external, RSS), per phase.
    heap: { type: 'boolean', default: false },
    // With --heap: also writes a V8 heap snapshot of the derived outputs into this folder.
    'heap-snapshot': { type: 'string' },
    // V8's heap growth for the sides (--heap-growing-percent): 100 is what the CLI sets for
    // `evalog rebuild` (src/cli/heap.ts), 20 what a run's end uses; without it, V8's own factor.
    'heap-growing-percent': { type: 'string' },
    // The factor from the write on (src/cli/heap.ts heapForWriting, which `evalog rebuild` calls
    // once its outputs are derived); 'none' keeps the derive's.
    'write-heap-growing-percent': { type: 'string', default: '20' },
    // Runs the sides through tsx from source (no compile; RSS then includes tsx's ~40 MB).
    tsx: { type: 'boolean', default: false },
    // How the rebuild side derives: 'stream' (evalog rebuild's path) or 'memory' (deriveOutputs, every row held).
    derive: { type: 'string', default: 'stream' },
    // Internal: run one side in this (child) process.
    child: { type: 'string' },
    root: { type: 'string' },
    run: { type: 'string' },
    events: { type: 'string' },
  },
});

const RUN_ID = 'bench-rebuild';
const SELF = fileURLToPath(import.meta.url);

/** What one side reports from its child process. */
interface SideResult {
  side: string;
  events: number;
  seconds: number;
  cpu: number;
  maxRssMB: number;
  /** rebuild only: seconds spent deriving (folding) and writing the files. */
  deriveSeconds?: number;
  writeSeconds?: number;
}

// ---------------------------------------------------------------------------------------------
// The synthetic run.

// mulberry32 from the runtime: every size is the same kind of log on every machine.
const prng = mulberry32;

const CASES = ['hardware_run', 'fruit_basket', 'bakery_order', 'office_supplies', 'garden_center', 'stationery', 'toy_store', 'pet_shop'];
const ARMS = ['brief_handoff', 'full_handoff'];
const ITEMS = ['bagel', 'croissant', 'muffin', 'scone', 'baguette', 'danish', 'brioche', 'pretzel'];

interface PlannedJob {
  jobId: string;
  caseId: string;
  arm: string;
  repetition: number;
  seed: number;
  /** Worker turns (each a call and a tool call), 3..8. */
  turns: number;
  /** The parent's first attempt fails with a 5xx and is retried. */
  retry: boolean;
  /** Every attempt of the parent fails: the job fails (no worker, no grade). */
  fails: boolean;
}

function plan(targetEvents: number, rand: () => number): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  let total = 2; // RunStarted, RunCompleted
  for (let i = 0; total < targetEvents; i += 1) {
    const caseId = CASES[i % CASES.length]!;
    const arm = ARMS[Math.floor(i / CASES.length) % ARMS.length]!;
    const repetition = 1 + Math.floor(i / (CASES.length * ARMS.length));
    const fails = rand() < 0.02;
    const job: PlannedJob = {
      jobId: `${caseId}:${arm}:${repetition}`,
      caseId,
      arm,
      repetition,
      seed: 7 + repetition,
      turns: 3 + Math.floor(rand() * 6),
      retry: !fails && rand() < 0.05,
      fails,
    };
    jobs.push(job);
    total += jobEventCount(job);
  }
  return jobs;
}

function jobEventCount(j: PlannedJob): number {
  if (j.fails) return 1 + 3 * 2 + 1; // started, 3 failed attempts, JobFailed
  return 1 + (j.retry ? 2 : 0) + 2 + 1 + j.turns * 3 + (values['no-artifacts'] ? 0 : 1) + 1 + 3 + 1 + 1;
}

const hex = (rand: () => number) => {
  let s = '';
  for (let i = 0; i < 8; i += 1)
    s += Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return s;
};

/** The events of one job, in order, without envelope times (the interleaver stamps them). */
function jobEvents(runId: string, j: PlannedJob, rand: () => number): ((at: string) => EvalogEvent)[] {
  const out: ((at: string) => EvalogEvent)[] = [];
  let n = 0;
  const push = (actor: string, type: EvalogEvent['type'], data: unknown, causationId?: string) => {
    n += 1;
    const id = eventId(runId, j.jobId, n);
    out.push(
      (at) =>
        ({
          id,
          runId,
          jobId: j.jobId,
          at,
          actor: `job/${j.jobId}${actor}`,
          type,
          v: CURRENT_VERSION[type],
          data,
          ...(causationId ? { causationId } : {}),
        }) as EvalogEvent,
    );
    return id;
  };
  const params = { max_tokens: 1024, seed: j.seed, temperature: 0.2 };
  push('', 'JobStarted', { caseId: j.caseId, arm: j.arm, repetition: j.repetition, seed: j.seed });
  const parentMsgs = [hex(rand), hex(rand)];
  const request = (who: string, turn: number, attempt: number, attribution: string, messages: string[], tools: string[]) =>
    push(`/${who}`, 'ProviderCallRequested', {
      attempt,
      attribution,
      callId: `${who}/turn-${turn}/attempt-${attempt}`,
      messages,
      model: 'evalog-scripted',
      params,
      retryOf: attempt === 1 ? null : `${who}/turn-${turn}/attempt-${attempt - 1}`,
      tools,
    });
  const failed = (who: string, turn: number, attempt: number, cause: string) =>
    push(
      `/${who}`,
      'ProviderCallFailed',
      {
        callId: `${who}/turn-${turn}/attempt-${attempt}`,
        kind: 'server_error',
        status: 500,
        retryAfterMs: null,
        message: 'scripted fault: 500 Internal Server Error',
        retryable: true,
        latencyMs: 3,
      },
      cause,
    );
  if (j.fails) {
    for (let a = 1; a <= 3; a += 1) failed('parent', 1, a, request('parent', 1, a, 'main', parentMsgs, ['task']));
    push('', 'JobFailed', { reason: 'provider_failed', message: 'parent/turn-1: 3 attempts failed (server_error)' });
    return out;
  }
  let attempt = 1;
  if (j.retry) failed('parent', 1, attempt, request('parent', 1, attempt++, 'main', parentMsgs, ['task']));
  const items = ITEMS.slice(0, j.turns - 1);
  const brief = `Compute the total price of this order.\n${items.map((it, i) => `ORDER ${it} qty=${1 + ((i * 5 + j.seed) % 6)}`).join('\n')}`;
  const cause = request('parent', 1, attempt, 'main', parentMsgs, ['task']);
  push(
    '/parent',
    'ProviderCallSucceeded',
    {
      callId: `parent/turn-1/attempt-${attempt}`,
      content: null,
      finishReason: 'tool_calls',
      latencyMs: 7,
      responseModel: 'evalog-scripted',
      toolCalls: [{ arguments: JSON.stringify({ mode: 'brief', brief }), id: `call_${hex(rand).slice(0, 16)}_0`, name: 'task' }],
      usage: { completion: 54, prompt: 235, total: 289 },
    },
    cause,
  );
  push('/parent', 'TaskDelegated', { brief, mode: 'brief', words: brief.split(/\s+/).length, acceptanceCriteria: null });
  const msgs = [hex(rand), hex(rand)];
  for (let t = 1; t <= j.turns; t += 1) {
    const last = t === j.turns;
    const req = request('worker', t, 1, 'child', [...msgs], ['lookup', 'write_answer']);
    const args = last ? JSON.stringify({ value: '50.70' }) : JSON.stringify({ item: items[t - 1] });
    const toolCallId = `call_${hex(rand).slice(0, 16)}_0`;
    const prompt = 251 + 64 * (t - 1);
    push(
      '/worker',
      'ProviderCallSucceeded',
      {
        callId: `worker/turn-${t}/attempt-1`,
        content: null,
        finishReason: 'tool_calls',
        latencyMs: 5 + (t % 4),
        responseModel: 'evalog-scripted',
        toolCalls: [{ arguments: args, id: toolCallId, name: last ? 'write_answer' : 'lookup' }],
        usage: { completion: 6 + (t % 3), prompt, total: prompt + 6 + (t % 3) },
      },
      req,
    );
    push('/worker', 'ToolCalled', {
      arguments: args,
      callId: `worker/turn-${t}/tool-0`,
      isError: false,
      name: last ? 'write_answer' : 'lookup',
      result: last ? 'saved' : `PRICE ${items[t - 1]}=${(1 + ((t * 37) % 400) / 100).toFixed(2)}`,
      toolCallId,
    });
    msgs.push(hex(rand), hex(rand));
  }
  if (!values['no-artifacts']) push('/worker', 'ArtifactRevised', { content: '50.70', revision: 1, sha256: hex(rand) });
  push('/worker', 'WorkerStopped', { answer: null, reason: j.turns === 8 ? 'turn_cap' : 'answered', turns: j.turns });
  const passed = rand() < 0.9;
  push('/grader', 'CheckEvaluated', { checkId: 'answer_saved', detail: 'answer saved', passed: true, visibility: 'hidden' });
  push('/grader', 'CheckEvaluated', { checkId: 'two_decimals', detail: 'format of "50.70"', passed: true, visibility: 'hidden' });
  push('/grader', 'CheckEvaluated', { checkId: 'total_correct', detail: passed ? 'total matches' : 'total differs', passed, visibility: 'hidden' });
  push('/grader', 'JobGraded', { checksPassed: passed ? 3 : 2, checksTotal: 3, firstRevisionPassed: null, passed });
  push('', 'JobSucceeded', { passed });
  return out;
}

/**
 * Writes the run's log with the embedded log's own frame format (header, u32 length + crc32
 * frames): jobs interleave as a window of `concurrency` running jobs would, one clock ms apart.
 * Returns the number of events. Every event of the first jobs is checked against the root schema.
 */
async function writeSyntheticLog(root: string, target: number, concurrency: number): Promise<{ events: number; bytes: number }> {
  const rand = prng(20261130);
  const jobs = plan(target, rand);
  const paths = runLogPaths(root, RUN_ID);
  await mkdir(paths.dir, { recursive: true });
  const fd = openSync(paths.events, 'w');
  let buf = Buffer.allocUnsafe(4 << 20);
  let used = 0;
  let events = 0;
  let bytes = 0;
  let clock = Date.parse('2026-11-30T12:00:00.000Z');
  const flush = () => {
    writeSync(fd, buf, 0, used);
    bytes += used;
    used = 0;
  };
  const put = (e: EvalogEvent) => {
    if (events < 2000) EvalogEventSchema.parse(e);
    const payload = encodeEvent(e);
    if (used + FRAME_HEADER_BYTES + payload.length > buf.length) {
      flush();
      if (FRAME_HEADER_BYTES + payload.length > buf.length) buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
    }
    used = writeFrame(buf, used, payload);
    events += 1;
  };
  const header = fileHeader();
  header.copy(buf, 0);
  used = HEADER_BYTES;
  const at = () => new Date(clock++).toISOString();
  put({
    id: eventId(RUN_ID, undefined, 1),
    runId: RUN_ID,
    at: at(),
    actor: 'run',
    type: 'RunStarted',
    v: 1,
    data: {
      suite: 'smoke',
      concurrency,
      config: { cases: null, concurrency, model: { maxTokens: 1024, temperature: 0.2 }, orderSeed: 20260913, repetitions: jobs.length, seed: 7 },
      configHash: hex(rand),
      seed: 7,
      orderSeed: 20260913,
      jobs: jobs.map((j) => ({ jobId: j.jobId, caseId: j.caseId, arm: j.arm, repetition: j.repetition, seed: j.seed })),
      model: { name: 'evalog-scripted', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
      provenance: { evalog: '0.1.0', bench: 'bench/rebuild.ts' },
    },
  } as EvalogEvent);
  const active: { next: number; events: ((at: string) => EvalogEvent)[] }[] = [];
  let nextJob = 0;
  let succeeded = 0;
  let failedJobs = 0;
  while (nextJob < jobs.length || active.length > 0) {
    while (active.length < concurrency && nextJob < jobs.length) {
      const j = jobs[nextJob++]!;
      if (j.fails) failedJobs += 1;
      else succeeded += 1;
      active.push({ next: 0, events: jobEvents(RUN_ID, j, rand) });
    }
    const k = Math.floor(rand() * active.length);
    const job = active[k]!;
    put(job.events[job.next++]!(at()));
    if (job.next === job.events.length) active.splice(k, 1);
  }
  put({
    id: eventId(RUN_ID, undefined, 2),
    runId: RUN_ID,
    at: at(),
    actor: 'run',
    type: 'RunCompleted',
    v: 1,
    data: { status: 'completed', jobsSucceeded: succeeded, jobsFailed: failedJobs },
  } as EvalogEvent);
  flush();
  closeSync(fd);
  return { events, bytes };
}

// ---------------------------------------------------------------------------------------------
// The sides, each run in a child process.

async function runSide(side: string, root: string, runId: string): Promise<SideResult> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let events = 0;
  let deriveSeconds: number | undefined;
  let writeSeconds: number | undefined;
  if (side === 'decode') {
    // The floor: walk the u32 length prefixes and msgpackr-unpack each payload (no CRC, no upcast).
    const packr = new Packr({ useRecords: false, mapsAsObjects: true });
    const fd = openSync(runLogPaths(root, runId).events, 'r');
    const chunk = Buffer.allocUnsafe(1 << 20);
    let buf = Buffer.alloc(0);
    let pos = HEADER_BYTES;
    for (;;) {
      const got = readSync(fd, chunk, 0, chunk.length, pos);
      if (got === 0) break;
      pos += got;
      buf = buf.length === 0 ? chunk.subarray(0, got) : Buffer.concat([buf, chunk.subarray(0, got)]);
      let at = 0;
      while (at + FRAME_HEADER_BYTES <= buf.length) {
        const length = buf.readUInt32LE(at);
        if (at + FRAME_HEADER_BYTES + length > buf.length) break;
        const e = packr.unpack(buf.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length)) as { type: string };
        if (e.type) events += 1;
        at += FRAME_HEADER_BYTES + length;
      }
      buf = Buffer.from(buf.subarray(at)); // copy: the chunk is reused by the next read
    }
    closeSync(fd);
  } else if (side === 'read') {
    // The log's read path alone: FileEventLog.read (chunked frames, CRC, decode, upcast, seq).
    const log = await FileEventLog.open({ root });
    for await (const e of log.read(runId)) if (e.type) events += 1;
    await log.close();
  } else if (side === 'rebuild') {
    // What `evalog rebuild` does: read + fold every projection, then write the files.
    const log = await FileEventLog.open({ root });
    const sampler = values.heap ? memorySampler() : null;
    // `stream` is what `evalog rebuild` does now (rows and calls spilled as jobs end); `memory` is the
    // earlier path (every row an object until the write), kept to measure the two side by side.
    const outputs =
      values.derive === 'memory'
        ? await rebuildOutputs(log, runId, suiteNamed)
        : await streamOutputs(runId, () => log.read(runId), suiteNamed, log.blobs(runId));
    sampler?.phase('write');
    const t1 = performance.now();
    const writeFactor = values['write-heap-growing-percent'];
    if (writeFactor !== 'none') setFlagsFromString(`--heap-growing-percent=${writeFactor}`);
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      // --expose-gc (bench flag --heap): what the derived outputs hold, after the fold's garbage is gone.
      gc();
      process.stderr.write(
        `  [rebuild] heap used after derive: ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB, rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB, peak so far ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
      );
      if (values['heap-snapshot'])
        process.stderr.write(`  [rebuild] heap snapshot: ${writeHeapSnapshot(join(values['heap-snapshot'], `rebuild-${process.pid}.heapsnapshot`))}\n`);
    }
    const out = join(root, `rebuilt-${process.pid}`);
    await createOutputDir(out);
    if ('write' in outputs) await outputs.write(out);
    else await writeOutputs(out, outputs);
    sampler?.stop();
    writeSeconds = (performance.now() - t1) / 1000;
    deriveSeconds = (t1 - t0) / 1000;
    events = Number(values.events); // the parent checks the other sides' counts against the file
    await log.close();
    await rm(out, { recursive: true, force: true });
  } else {
    throw new Error(`unknown side ${side}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return {
    side,
    events,
    seconds,
    cpu: (c.user + c.system) / 1e6,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    ...(deriveSeconds === undefined ? {} : { deriveSeconds, writeSeconds }),
  };
}

/** Samples process.memoryUsage() every 100 ms and prints, per phase, the largest value of each part. */
function memorySampler(): { phase(name: string): void; stop(): void } {
  type Part = 'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers';
  const parts: Part[] = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];
  let name = 'derive';
  let max = new Map<Part, number>();
  const sample = () => {
    const m = process.memoryUsage();
    for (const p of parts) max.set(p, Math.max(max.get(p) ?? 0, m[p]));
  };
  const print = () => {
    sample();
    process.stderr.write(`  [rebuild] ${name} phase, largest: ${parts.map((p) => `${p} ${((max.get(p) ?? 0) / 1048576).toFixed(0)} MB`).join(', ')}\n`);
    max = new Map();
  };
  const timer = setInterval(sample, 100);
  return {
    phase(next) {
      print();
      name = next;
    },
    stop() {
      clearInterval(timer);
      print();
    },
  };
}

function spawnSide(script: string, side: string, root: string, events: number): Promise<SideResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(values.tsx ? process.execArgv : []),
        ...(values.heap ? ['--expose-gc'] : []),
        ...(values['heap-growing-percent'] ? [`--heap-growing-percent=${values['heap-growing-percent']}`] : []),
        ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : []),
        script,
        '--child',
        side,
        '--root',
        root,
        '--run',
        RUN_ID,
        '--events',
        String(events),
        ...(values.heap ? ['--heap'] : []),
        ...(values['heap-snapshot'] ? ['--heap-snapshot', values['heap-snapshot']] : []),
        '--write-heap-growing-percent',
        values['write-heap-growing-percent'],
        '--derive',
        values.derive,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`side ${side} exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as SideResult);
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  if (values.child) {
    const r = await runSide(values.child, values.root!, values.run!);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  const sizes = values.sizes.split(',').map(Number);
  const sides = values.sides.split(',');
  const reps = Number(values.reps);
  const concurrency = Number(values.concurrency);
  // The sides run as compiled JavaScript (as installed), not through tsx.
  const script = values.tsx ? SELF : (await compileForBench())(SELF);
  process.stdout.write(
    `# bench/rebuild.ts  ${new Date().toISOString()}  nproc=${cpus().length}  node ${process.version}  load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  const table: string[] = [];
  for (const size of sizes) {
    const root = await mkdtemp(join(values.dir, 'evalog-bench-rebuild-'));
    try {
      const g0 = performance.now();
      const { events, bytes } = await writeSyntheticLog(root, size, concurrency);
      const fileBytes = (await stat(runLogPaths(root, RUN_ID).events)).size;
      process.stdout.write(
        `\n${events} events, ${(fileBytes / 1e6).toFixed(1)} MB (${Math.round(bytes / events)} B/event framed), written in ${((performance.now() - g0) / 1000).toFixed(1)} s\n`,
      );
      const results = new Map<string, SideResult[]>(sides.map((s) => [s, []]));
      for (let r = 0; r < reps; r += 1) {
        // Rotate the order every repetition, so drift on a shared machine favours no side.
        const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
        for (const side of order) {
          const res = await spawnSide(script, side, root, events);
          if (res.events !== events) throw new Error(`side ${side} saw ${res.events} events, the log has ${events}`);
          results.get(side)!.push(res);
          process.stdout.write(
            `  rep ${r + 1} ${side.padEnd(8)} ${(res.events / res.seconds).toFixed(0).padStart(8)} events/s  ${res.seconds.toFixed(2)} s wall  ${res.cpu.toFixed(2)} s cpu  ${res.maxRssMB.toFixed(0)} MB peak RSS${res.deriveSeconds !== undefined ? `  (derive ${res.deriveSeconds.toFixed(2)} s, write ${res.writeSeconds!.toFixed(2)} s)` : ''}  load ${loadavg()[0]!.toFixed(2)}\n`,
          );
        }
      }
      const rate = (s: string) => median(results.get(s)!.map((x) => x.events / x.seconds));
      const base = sides.includes('decode') ? rate('decode') : NaN;
      for (const s of sides) {
        const rs = results.get(s)!;
        table.push(
          `| ${events} | ${s} | ${rate(s).toFixed(0)} | ${median(rs.map((x) => (x.cpu * 1e6) / x.events)).toFixed(2)} | ${median(rs.map((x) => x.maxRssMB)).toFixed(0)} | ${s === 'decode' ? '—' : (rate(s) / base).toFixed(2)} |`,
        );
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    `\nmedians of ${reps}, load at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  process.stdout.write('| events | side | events/s | CPU µs/event | peak RSS MB | ratio to decode |\n| --- | --- | --- | --- | --- | --- |\n');
  process.stdout.write(`${table.join('\n')}\n`);
}

await main();
