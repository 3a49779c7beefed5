// The hot path alone: evalog's per-job machinery (the run coordinator and job actors, the journal,
// the embedded log and its blob pack) on a dataset run whose model is an in-process stub, against
// the floor the issue names (a loop of K lanes that validates each reply with zod, encodes three
// events per call with msgpackr and group-commits them with one write and one fdatasync per batch).
// No HTTP, no process start, no outputs at the end: the CPU per job that is evalog's own, measured
// where the machine's noise is smallest (one process, `process.cpuUsage()` around the run alone).
// Each side runs in a child process of its own (a fresh heap); sides alternate; medians.
// Run by hand: npx tsx bench/hot-path.ts [--n 10000] [--k 64] [--reps 5] [--sides evalog,floor]
//   (--child SIDE runs one side in this process and prints its figures as JSON)
import { spawnSync } from 'node:child_process';
import { fdatasync, openSync, closeSync, writeSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { systemClock } from '../src/core/clock.js';
import { encodeEvent, type EvalogEvent } from '../src/events/index.js';
import { executeRun, planRun } from '../src/harness/orchestration/launch.js';
import { FileEventLog } from '../src/log/file/index.js';
import type { ModelCaller } from '../src/providers/caller.js';
import { parseCompletion } from '../src/providers/outcomes.js';
import { datasetConfig, datasetSuite } from '../src/suites/dataset/index.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    k: { type: 'string', default: '64' },
    reps: { type: 'string', default: '5' },
    sides: { type: 'string', default: 'evalog,floor' },
    child: { type: 'string' },
    // With --child: a CPU profile of the timed run alone (node:inspector), written to this file.
    profile: { type: 'string' },
    // With --child: a sampling allocation profile of the timed run (collected objects included), written to this file.
    alloc: { type: 'string' },
  },
});
const N = Number(values.n);
const K = Number(values.k);

/** What the mock server answers: the case's expected text, with usage, as an OpenAI chat completion body. */
function completion(prompt: string): unknown {
  const content = prompt.slice(prompt.indexOf(': ') + 2);
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  };
}

/** The model as a stub: each call answers on the next turn of the event loop, as a socket would. */
const stub: ModelCaller = {
  async call(request) {
    await new Promise((resolve) => setImmediate(resolve));
    const last = request.messages[request.messages.length - 1]!;
    return parseCompletion(completion(String(last.content)), 0);
  },
};

interface Figures {
  cpuMs: number;
  wallMs: number;
  events: number;
  /** Group commits of the event log. */
  commits: number;
}

async function evalogSide(dir: string, data: string): Promise<Figures> {
  const suite = datasetSuite({ baseDir: dir });
  const prepared = await suite.configure(datasetConfig({ data, prompts: '{{input}}', concurrency: K }, dir)).prepare();
  const endpoint = {
    scripted: false as const,
    baseURL: 'http://127.0.0.1:9/v1',
    apiKey: 'x',
    model: 'bench-model',
    baseUrlEnv: 'EVALOG_BASE_URL',
    apiKeyEnv: null,
  };
  const started = planRun(prepared, endpoint);
  let events = 0;
  let commits = 0;
  const log = await FileEventLog.open({
    root: dir,
    onCommit: (c) => {
      events += c.events;
      commits += 1;
    },
  });
  const runId = 'hot-path';
  await log.claimWriter(runId);
  const stop = await profiling();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await executeRun({ suite: prepared, log, runId, started, endpoint, caller: stub, clock: systemClock });
  const c = process.cpuUsage(c0);
  const wallMs = performance.now() - t0;
  await stop();
  await log.close();
  return { cpuMs: (c.user + c.system) / 1000, wallMs, events, commits };
}

/** The floor: K lanes, each call's reply validated (zod), three events per call encoded and group-committed. */
/** Starts the inspector's CPU profiler when --profile names a file; the function returned stops it and writes the profile. */
async function profiling(): Promise<() => Promise<void>> {
  const file = values.profile;
  const alloc = values.alloc;
  if (!file && !alloc) return async () => undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  if (alloc) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return async () => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(alloc, JSON.stringify(profile));
      session.disconnect();
    };
  }
  if (!file) return async () => undefined;
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

async function floorSide(dir: string, data: string): Promise<Figures> {
  const cases = (await import('node:fs'))
    .readFileSync(data, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; input: string; expected: string });
  const fd = openSync(join(dir, 'floor.log'), 'w');
  let pending: Buffer[] = [];
  let waiters: (() => void)[] = [];
  let committing = false;
  let offset = 0;
  let events = 0;
  let commits = 0;
  const commit = async (): Promise<void> => {
    committing = true;
    await new Promise((resolve) => setImmediate(resolve));
    while (pending.length > 0) {
      const buf = Buffer.concat(pending);
      const done = waiters;
      pending = [];
      waiters = [];
      for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at, offset + at);
      offset += buf.length;
      commits += 1;
      await new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
      for (const w of done) w();
    }
    committing = false;
  };
  const append = (e: EvalogEvent): Promise<void> => {
    const payload = encodeEvent(e);
    const frame = Buffer.allocUnsafe(4 + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    payload.copy(frame, 4);
    pending.push(frame);
    events += 1;
    const p = new Promise<void>((resolve) => waiters.push(resolve));
    if (!committing) void commit();
    return p;
  };
  const envelope = (jobId: string, n: number, type: string) => ({
    id: `floor/${jobId}/${n}`,
    runId: 'floor',
    jobId,
    type,
    v: 1,
    at: new Date().toISOString(),
    actor: `job/${jobId}`,
  });
  let next = 0;
  const stop = await profiling();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const lane = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const jobId = `${c.id}:default:1`;
      await append({ ...envelope(jobId, 1, 'ProviderCallRequested'), data: { callId: 'answer/attempt-1', messages: [c.input] } } as unknown as EvalogEvent);
      const r = await stub.call(
        { model: 'bench-model', messages: [{ role: 'user', content: c.input }], tools: [], params: {} },
        { signal: new AbortController().signal, timeoutMs: 1000 },
      );
      await append({ ...envelope(jobId, 2, 'ProviderCallSucceeded'), data: { callId: 'answer/attempt-1', ...r.data } } as unknown as EvalogEvent);
      const passed = r.ok && r.data.content === c.expected;
      await append({ ...envelope(jobId, 3, 'JobSucceeded'), data: { passed } } as unknown as EvalogEvent);
    }
  };
  await Promise.all(Array.from({ length: K }, lane));
  const c = process.cpuUsage(c0);
  const wallMs = performance.now() - t0;
  await stop();
  closeSync(fd);
  return { cpuMs: (c.user + c.system) / 1000, wallMs, events, commits };
}

async function child(side: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'evalog-hot-path-'));
  try {
    const data = join(dir, 'cases.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < N; i += 1) lines.push(JSON.stringify({ id: `case-${i}`, input: `Reply with exactly: answer-${i}`, expected: `answer-${i}` }));
    writeFileSync(data, `${lines.join('\n')}\n`);
    const f = side === 'floor' ? await floorSide(dir, data) : await evalogSide(dir, data);
    process.stdout.write(`${JSON.stringify(f)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  if (values.child) return child(values.child);
  const sides = values.sides.split(',');
  const self = fileURLToPath(import.meta.url);
  const got = new Map<string, Figures[]>(sides.map((s) => [s, []]));
  process.stdout.write(
    `# bench/hot-path.ts ${new Date().toISOString()} nproc=${cpus().length} node ${process.version} N=${N} K=${K} load ${loadavg()[0]!.toFixed(2)}\n`,
  );
  for (let r = 0; r < Number(values.reps); r += 1) {
    for (const side of sides.map((_, i) => sides[(i + r) % sides.length]!)) {
      const out = spawnSync(process.execPath, [...process.execArgv, self, '--child', side, '--n', String(N), '--k', String(K)], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${side}: ${out.stderr}`);
      const f = JSON.parse(out.stdout.trim().split('\n').at(-1)!) as Figures;
      got.get(side)!.push(f);
      process.stdout.write(
        `  rep ${r + 1} ${side.padEnd(7)} ${f.cpuMs.toFixed(0)} ms cpu  ${((1000 * f.cpuMs) / N).toFixed(1)} µs/job  ${f.wallMs.toFixed(0)} ms wall  ${f.events} events  ${f.commits} commits\n`,
      );
    }
  }
  for (const s of sides) {
    const cpu = median(got.get(s)!.map((f) => f.cpuMs));
    process.stdout.write(`${s}: median ${((1000 * cpu) / N).toFixed(1)} µs of CPU per job, ${median(got.get(s)!.map((f) => f.wallMs)).toFixed(0)} ms wall\n`);
  }
}

await main();
