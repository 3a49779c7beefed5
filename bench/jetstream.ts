// Append throughput of the JetStream log against a raw pipelined @nats-io publish of the same
// payloads (same subjects, same Nats-Msg-Id headers, same window of 256), interleaved repetitions,
// medians; then append-to-subscriber latency, also beside raw js.publish + the library's ordered
// consumer. Starts its own nats-server (or uses NATS_URL).
// Run by hand: npx tsx bench/jetstream.ts [--events N] [--appenders C] [--reps R] [--latency N]
import { execSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { encodeEvent, type EvalogEvent } from '../src/events/index.js';
import { CONNECTION_DEFAULTS, JetStreamEventLog } from '../src/log/jetstream/index.js';
import { jobStarted, toolCalled } from '../test/support/events.js';
import { startNatsServer } from '../test/support/nats-server.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '50000' },
    appenders: { type: 'string', default: '64' },
    reps: { type: 'string', default: '5' },
    latency: { type: 'string', default: '2000' },
  },
});
const EVENTS = Number(values.events);
const APPENDERS = Number(values.appenders);
const REPS = Number(values.reps);
const LATENCY_EVENTS = Number(values.latency);
const WINDOW = 256;

/** `count` events of one run over 40 jobs, with tool results of 100 B to 2.5 KB. */
function makeEvents(runId: string, count: number): EvalogEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const jobId = `case-${i % 40}:arm-${i % 2 ? 'b' : 'a'}:1`;
    const n = Math.floor(i / 40) + 1;
    return n === 1 ? jobStarted(runId, jobId, n) : toolCalled(runId, jobId, n, 100 + ((i * 37) % 2400));
  });
}

/** One batch shape: all events in appends of 1000, or APPENDERS callers with batches of 1 to 4. */
type Shape = 'bulk' | 'concurrent';

async function viaLog(log: JetStreamEventLog, events: EvalogEvent[], shape: Shape): Promise<void> {
  if (shape === 'bulk') {
    for (let i = 0; i < events.length; i += 1000) await log.append(events.slice(i, i + 1000));
    return;
  }
  const per = Math.ceil(events.length / APPENDERS);
  await Promise.all(
    Array.from({ length: APPENDERS }, async (_, c) => {
      const mine = events.slice(c * per, (c + 1) * per);
      for (let i = 0, size = 1 + (c % 4); i < mine.length; i += size, size = (size % 4) + 1) await log.append(mine.slice(i, i + size));
    }),
  );
}

/** The baseline: the same messages through js.publish with a sliding window of 256. */
async function viaRaw(js: ReturnType<typeof jetstream>, messages: { subject: string; id: string; payload: Uint8Array }[]): Promise<void> {
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    let inflight = 0;
    const pump = () => {
      while (inflight < WINDOW && next < messages.length) {
        const m = messages[next++]!;
        inflight += 1;
        js.publish(m.subject, m.payload, { msgID: m.id }).then(() => {
          inflight -= 1;
          if (next >= messages.length && inflight === 0) resolve();
          else pump();
        }, reject);
      }
    };
    pump();
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function main(): Promise<void> {
  const loadBefore = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const server = await startNatsServer();
  const log = await JetStreamEventLog.connect({ servers: server.url });
  // The baseline gets the log's connection options too (noAsyncTraces matters: see options.ts).
  const rawConn = await connect({ ...CONNECTION_DEFAULTS, servers: server.url });
  const js = jetstream(rawConn);
  const rows: string[] = [];
  try {
    for (const shape of ['bulk', 'concurrent'] as Shape[]) {
      const rates: { log: number[]; raw: number[] } = { log: [], raw: [] };
      const cpu: { log: number[]; raw: number[] } = { log: [], raw: [] };
      const timed = async (side: 'log' | 'raw', fn: () => Promise<void>) => {
        const [t, c] = [performance.now(), process.cpuUsage()];
        await fn();
        const used = process.cpuUsage(c);
        rates[side].push(EVENTS / ((performance.now() - t) / 1000));
        cpu[side].push((used.user + used.system) / EVENTS);
      };
      for (let rep = 0; rep < REPS; rep += 1) {
        // Fresh runs per repetition, so neither side meets the other's ids; the order alternates.
        const logEvents = makeEvents(`bench-${shape}-log-${rep}-${process.pid}`, EVENTS);
        const rawMessages = makeEvents(`bench-${shape}-raw-${rep}-${process.pid}`, EVENTS).map((e) => ({
          subject: log.subjects.event(e.runId, e.jobId),
          id: e.id,
          payload: encodeEvent(e),
        }));
        const runs = [() => timed('log', () => viaLog(log, logEvents, shape)), () => timed('raw', () => viaRaw(js, rawMessages))];
        for (const run of rep % 2 === 0 ? runs : runs.reverse()) await run();
      }
      const [l, r] = [median(rates.log), median(rates.raw)];
      const name = shape === 'bulk' ? 'appends of 1000' : `${APPENDERS} callers, batches of 1–4`;
      const all = `${rates.log.map(Math.round).join(', ')} / ${rates.raw.map(Math.round).join(', ')}`;
      rows.push(
        `| ${name} | ${Math.round(l)} | ${Math.round(r)} | ${(l / r).toFixed(2)} | ${median(cpu.log).toFixed(1)} / ${median(cpu.raw).toFixed(1)} | ${all} |`,
      );
    }
    const latency = await measureLatency({
      log: { append: (events) => log.append(events), follow: (runId, signal) => log.subscribe(runId, { signal }) },
      raw: rawSide(js, log),
    });
    const machine = `${cpus().length} CPUs (nproc ${execSync('nproc').toString().trim()}), ${cpus()[0]?.model}, node ${process.version}, ${execSync('nats-server --version').toString().trim()}`;
    console.log(`date: ${new Date().toISOString()}\nmachine: ${machine}\nevents per repetition: ${EVENTS}, repetitions: ${REPS}, window: ${WINDOW}\n`);
    console.log(
      `load average before: ${loadBefore}, after: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}\n`,
    );
    console.log(
      '| workload | log events/s (median) | raw js.publish events/s (median) | ratio | client CPU µs/event (log / raw) | all reps, events/s (log / raw) |\n|---|---|---|---|---|---|',
    );
    for (const row of rows) console.log(row);
    console.log(`\nappend-to-subscriber latency, ms (${LATENCY_EVENTS} events, ${REPS} interleaved repetitions; medians of the per-repetition p50 and p99):`);
    console.log('| scenario | log p50 | log p99 | raw p50 | raw p99 | p99 per repetition (log / raw) |\n|---|---|---|---|---|---|');
    for (const [name, sides] of Object.entries(latency)) {
      const [lp50, lp99, rp50, rp99] = [
        [sides.log, 0.5],
        [sides.log, 0.99],
        [sides.raw, 0.5],
        [sides.raw, 0.99],
      ].map(([reps, q]) => median((reps as number[][]).map((xs) => quantile(xs, q as number))).toFixed(2));
      const per = (reps: number[][]) => reps.map((xs) => quantile(xs, 0.99).toFixed(1)).join(', ');
      console.log(`| ${name} | ${lp50} | ${lp99} | ${rp50} | ${rp99} | ${per(sides.log)} / ${per(sides.raw)} |`);
    }
  } finally {
    await rawConn.close();
    await log.close();
    await server.stop();
  }
}

/** Latency scenarios: batch size and the pause between batch starts (0: back to back). */
const SCENARIOS = [
  ['single events, each awaited', 1, 0],
  ['paced load, 5,000 events/s (batches of 10 every 2 ms)', 10, 2],
  ['saturated, batches of 100 back to back (measures queueing)', 100, 0],
] as const;

/** One side of a latency measurement: how to append a batch and how to follow a run. */
interface Side {
  append(events: EvalogEvent[]): Promise<unknown>;
  follow(runId: string, signal: AbortSignal): AsyncIterable<{ id: string }>;
}

/** Per side, scenario and repetition: each event's time from the start of its append to the subscriber. */
async function measureLatency(sides: Record<'log' | 'raw', Side>): Promise<Record<string, Record<'log' | 'raw', number[][]>>> {
  const out: Record<string, Record<'log' | 'raw', number[][]>> = {};
  for (let rep = 0; rep < REPS; rep += 1) {
    for (const [name, batch, everyMs] of SCENARIOS) {
      out[name] ??= { log: [], raw: [] };
      const row = out[name];
      for (const side of (rep % 2 === 0 ? ['log', 'raw'] : ['raw', 'log']) as ('log' | 'raw')[]) {
        row[side].push(await latencyOnce(sides[side], `${side}-${batch}-${everyMs}-${rep}`, batch, everyMs));
      }
    }
  }
  return out;
}

async function latencyOnce(side: Side, tag: string, batch: number, everyMs: number): Promise<number[]> {
  const runId = `bench-latency-${tag}-${process.pid}`;
  const events = makeEvents(runId, LATENCY_EVENTS);
  const sentAt = new Map<string, number>();
  const lat: number[] = [];
  const ac = new AbortController();
  let ready!: () => void;
  const first = new Promise<void>((r) => (ready = r));
  const sub = (async () => {
    for await (const e of side.follow(runId, ac.signal)) {
      if (e.id === events[0]!.id) ready();
      else lat.push(performance.now() - sentAt.get(e.id)!);
      if (lat.length === events.length - 1) ac.abort();
    }
  })();
  await side.append(events.slice(0, 1)); // warms the subscription before timing starts
  await first;
  const start = performance.now();
  const overlapping: Promise<unknown>[] = [];
  for (let i = 1, k = 0; i < events.length; i += batch, k += 1) {
    const due = start + k * everyMs;
    if (everyMs > 0 && performance.now() < due) await new Promise((r) => setTimeout(r, due - performance.now()));
    const slice = events.slice(i, i + batch);
    const t = performance.now();
    for (const e of slice) sentAt.set(e.id, t);
    const appended = side.append(slice);
    if (everyMs === 0) await appended;
    else overlapping.push(appended); // paced batches overlap, like independent job actors
  }
  await Promise.all(overlapping);
  await sub;
  return lat;
}

/** The raw side: js.publish of each event, and the library's ordered consumer. */
function rawSide(js: ReturnType<typeof jetstream>, log: JetStreamEventLog): Side {
  return {
    append: (events) => Promise.all(events.map((e) => js.publish(log.subjects.event(e.runId, e.jobId), encodeEvent(e), { msgID: e.id }))),
    async *follow(runId, signal) {
      const consumer = await js.consumers.get(log.options.streamName, { filter_subjects: log.subjects.run(runId) });
      const messages = await consumer.consume({ max_messages: WINDOW });
      signal.addEventListener('abort', () => messages.stop(), { once: true });
      for await (const m of messages) yield { id: m.headers!.get('Nats-Msg-Id') };
      await consumer.delete().catch(() => false);
    },
  };
}

await main();
