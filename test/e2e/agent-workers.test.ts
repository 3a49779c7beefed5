// External-agent jobs on `evalog worker` processes: a real nats-server, the coordinator
// (`evalog run --workers external`) and two workers, each running the Node example agent as a
// child process per job through its own gateway. One worker is SIGKILLed while its agent is
// mid-job, and another takes the job over from its events; a worker that cannot find the agent's
// program hands its jobs back to one that can. The agent is run through a symlink (and a wrapper
// script) in this test's folder, so `ps` can tell this test's agent processes from anyone else's.
import { expect } from 'chai';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredEvent } from '../../src/events/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { collect, readJsonl, runEvalog, startEvalog, tempDir, withoutWallClock } from '../support/cli.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { noLatency, noSeconds, readJson, withoutCutOff, type SummaryFile, type UsageFile } from '../support/outputs.js';

const EXAMPLE_AGENT = fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url));
const REPS = '2'; // 4 cases × 2 arms × 2 = 16 jobs
const JOBS = 16;
const WRAPPER = 'evalog-e2e-agent';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a failure naming what did not happen within `ms` (and what `context` shows then). */
async function within<T>(p: Promise<T>, ms: number, what: string, context: () => string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what} within ${ms} ms:\n${context()}`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(t);
  }
}

/** A worker process and the lines it wrote so far. */
interface WorkerProc {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching `re`. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
}

/** The `data` of a JobClaimed event. */
type Claim = { worker: string; delivery: number; resumedAfter: number };
const claimOf = (e: StoredEvent): Claim => e.data as Claim;

describe('external agents on evalog workers (real nats-server, worker processes, the Node example agent)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;
  let log: JetStreamEventLog;
  let agentPath: string;
  let binDir: string;
  const workers: WorkerProc[] = [];
  const coordinators: ChildProcess[] = [];

  const readRun = async (runId: string, jobId?: string): Promise<StoredEvent[]> => {
    const out: StoredEvent[] = [];
    for await (const e of log.read(runId, jobId === undefined ? {} : { jobId })) out.push(e);
    return out;
  };

  /** This test's agent processes now running: `pid ppid args` of each (never evalog's own, whose args name the agent too). */
  const agentProcesses = (): { pid: number; ppid: number; args: string }[] =>
    execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null && m[3]!.includes(agentPath) && !m[3]!.includes('evalog-entry'))
      .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));

  const startWorker = (id: string, path: string, extra: string[] = []): WorkerProc => {
    const child = startEvalog(['worker', '--nats', nats.url, '--suite', 'smoke', '--id', id, ...extra], {
      cwd: tmp.dir,
      env: { PATH: path },
    });
    const lines: string[] = [];
    const listeners = new Set<() => void>();
    let buf = '';
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      lines.push(...parts);
      for (const l of listeners) l();
    });
    const waitFor = (re: RegExp, timeoutMs = 60_000) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const hit = lines.find((l) => re.test(l));
          if (hit === undefined) return;
          listeners.delete(check);
          clearTimeout(t);
          resolve(hit);
        };
        const t = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no line ${re} from worker ${id} within ${timeoutMs} ms:\n${lines.join('\n')}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    const w = { child, lines, waitFor };
    workers.push(w);
    return w;
  };

  const stopWorkers = async () => {
    // A coordinator of a failed test would wait for its jobs forever.
    for (const c of coordinators.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      workers.splice(0).map(async (w) => {
        if (w.child.exitCode !== null || w.child.signalCode !== null) return;
        const done = collect(w.child);
        w.child.kill('SIGTERM');
        await done;
      }),
    );
  };

  before(async () => {
    tmp = await tempDir('evalog-agent-workers-');
    nats = await startNatsServer();
    log = await JetStreamEventLog.connect({ servers: nats.url });
    // A symlink, so the agent's imports still resolve from the repository's node_modules.
    await mkdir(join(tmp.dir, 'agents'));
    agentPath = join(tmp.dir, 'agents', 'node-agent.mjs');
    await symlink(EXAMPLE_AGENT, agentPath);
    binDir = join(tmp.dir, 'bin');
    await mkdir(binDir);
    await writeFile(join(binDir, WRAPPER), `#!/bin/sh\nexec node ${agentPath} "$@"\n`);
    await chmod(join(binDir, WRAPPER), 0o755);
    const ref = await runEvalog(['run', 'smoke', '--agent', `node ${agentPath}`, '--out', 'runs/reference', '--repetitions', REPS], { cwd: tmp.dir });
    expect(ref.code, ref.stderr).to.equal(0);
  });
  afterEach(stopWorkers);
  after(async () => {
    await stopWorkers();
    await log?.close();
    await nats?.stop();
    await tmp?.cleanup();
  });

  /** rows.jsonl and summary.json equal the embedded reference's, but for wall clock (and attempts cut off by a kill). */
  const expectReferenceOutputs = async (runId: string) => {
    const read = async (d: string) => ({
      rows: (await readJsonl(join(tmp.dir, 'runs', d, 'rows.jsonl'))).map(withoutWallClock),
      summary: noSeconds(await readJson<SummaryFile>(join(tmp.dir, 'runs', d, 'summary.json'))),
      usage: noLatency(await readJson<UsageFile>(join(tmp.dir, 'runs', d, 'usage.json'))),
    });
    const [got, ref] = [await read(runId), await read('reference')];
    expect(got.rows).to.have.length(JOBS);
    // A job taken over mid-call keeps that attempt as `unknown` (it may have reached the model) and
    // asks again; apart from those attempts and the counts they change, the outputs are the same.
    const a = withoutCutOff(got.rows, got.summary, got.usage);
    const b = withoutCutOff(ref.rows, ref.summary, { calls: got.usage.calls });
    expect(a.rows, 'rows.jsonl').to.deep.equal(b.rows);
    expect(a.summary, 'summary.json').to.deep.equal(b.summary);
    expect(a.usage, 'usage.json').to.deep.equal(withoutCutOff(ref.rows, ref.summary, ref.usage).usage);
    if (a.cut === 0) expect(got, 'whole outputs').to.deep.equal(ref);
  };

  /** Every job the run planned has exactly one end event, and no other job has any. */
  const expectOneEndPerPlannedJob = (events: readonly StoredEvent[]) => {
    const started = events.find((e) => e.type === 'RunStarted');
    if (started?.type !== 'RunStarted') throw new Error('the log holds no RunStarted');
    const planned = started.data.jobs.map((j) => j.jobId).sort();
    expect(planned).to.have.length(JOBS);
    const ends = events.filter((e) => e.type === 'JobSucceeded' || e.type === 'JobFailed').map((e) => e.jobId!);
    expect(ends.sort(), 'one end event per planned job').to.deep.equal(planned);
  };

  const expectNoAgentLeft = async () => {
    // An agent's group is killed as its job ends; give the kernel a moment to reap the last one.
    for (let i = 0; i < 20 && agentProcesses().length > 0; i += 1) await sleep(100);
    expect(agentProcesses(), 'agent processes still running').to.deep.equal([]);
  };

  it('two workers, one SIGKILLed while its agent is mid-job: the run completes with the embedded run’s outputs', async () => {
    const lease = ['--lease', '3', '--concurrency', '2'];
    const a = startWorker('e2e-a', process.env.PATH ?? '', lease);
    const b = startWorker('e2e-b', process.env.PATH ?? '', lease);
    await Promise.all([a, b].map((w) => w.waitFor(/taking jobs/)));
    const run = startEvalog(
      ['run', 'smoke', '--agent', `node ${agentPath}`, '--nats', nats.url, '--workers', 'external', ...lease, '--out', 'runs/killed', '--repetitions', REPS],
      { cwd: tmp.dir },
    );
    coordinators.push(run);
    const finished = collect(run);

    // The moment: a job of worker a whose agent has had answers recorded and is still running
    // (brief_handoff jobs make several calls, so the agent is not about to exit).
    let held: string | undefined;
    for (const deadline = Date.now() + 60_000; held === undefined; await sleep(50)) {
      expect(Date.now(), `worker a never had an agent mid-job:\n${a.lines.join('\n')}`).to.be.below(deadline);
      const taken = a.lines.map((l) => / took killed (\S+)$/.exec(l)?.[1]).filter((j): j is string => j?.includes(':brief_handoff:') === true);
      for (const job of taken) {
        const events = await readRun('killed', job);
        const answered = events.filter((e) => e.type === 'ProviderCallSucceeded').length;
        if (answered >= 1 && answered <= 4 && !events.some((e) => e.type === 'AgentExited')) held = job;
      }
    }
    const itsAgents = agentProcesses().filter((p) => p.ppid === a.child.pid);
    expect(itsAgents.length, 'worker a runs an agent for the held job').to.be.greaterThan(0);
    a.child.kill('SIGKILL');
    // Its agents (own process groups, so the kill does not reach them) are killed by its watchdog.
    for (let i = 0; i < 50 && itsAgents.some((p) => agentProcesses().some((q) => q.pid === p.pid)); i += 1) await sleep(100);
    expect(
      agentProcesses().filter((q) => itsAgents.some((p) => p.pid === q.pid)),
      'agents of the killed worker',
    ).to.deep.equal([]);

    const r = await finished;
    expect(r.code, r.stderr).to.equal(0);
    await expectReferenceOutputs('killed');

    const events = await readRun('killed');
    expectOneEndPerPlannedJob(events);
    // The held job was taken over by the living worker and resumed from its events: its agent was
    // started again there and served the recorded answers, and it ended under b's claim.
    const claims = events.filter((e) => e.type === 'JobClaimed' && e.jobId === held).map(claimOf);
    expect(claims.map((c) => c.worker)).to.deep.equal(['e2e-a', 'e2e-b']);
    expect(claims[1]!.delivery).to.be.greaterThan(1);
    expect(claims[1]!.resumedAfter).to.be.greaterThan(0);
    expect(b.lines.join('\n')).to.match(new RegExp(`killed ${held} succeeded \\(resumed after \\d+ events\\)`));
    // Its AgentLaunched is a's (b's start of the agent matched it); the exit, with every request
    // matching the record up to the kill, is b's.
    const ofHeld = events.filter((e) => e.jobId === held);
    expect(ofHeld.filter((e) => e.type === 'AgentLaunched')).to.have.length(1);
    expect(
      ofHeld.filter((e) => e.type === 'AgentDiverged'),
      'divergences on resume',
    ).to.deep.equal([]);
    const exits = ofHeld.filter((e) => e.type === 'AgentExited');
    expect(exits.map((e) => (e.data as { reason: string }).reason)).to.deep.equal(['answered']);
    const bClaim = ofHeld.findIndex((e) => e.type === 'JobClaimed' && claimOf(e).worker === 'e2e-b');
    expect(ofHeld.indexOf(exits[0]!), 'the exit is recorded under b’s claim').to.be.greaterThan(bClaim);
    await stopWorkers();
    await expectNoAgentLeft();
  });

  it('a worker whose PATH lacks the agent’s program hands its jobs back; a worker that has it runs them all', async () => {
    // The agent is a script named by its bare name, found on PATH: the coordinator (which records
    // it) and worker `with` have its folder on PATH, worker `without` does not.
    const withBin = `${binDir}:${process.env.PATH ?? ''}`;
    const without = startWorker('e2e-without', process.env.PATH ?? '', ['--concurrency', '2']);
    await without.waitFor(/taking jobs/);
    const run = startEvalog(['run', 'smoke', '--agent', WRAPPER, '--nats', nats.url, '--workers', 'external', '--out', 'runs/handed', '--repetitions', REPS], {
      cwd: tmp.dir,
      env: { PATH: withBin },
    });
    coordinators.push(run);
    const finished = collect(run);
    const refusal = await without.waitFor(/cannot run handed /);
    expect(refusal).to.match(new RegExp(`^evalog worker e2e-without: cannot run handed \\S+: agent agent: program ${WRAPPER} not found on PATH$`));
    const withIt = startWorker('e2e-with', withBin, ['--concurrency', '2']);

    // Each job the worker without the agent hands back must reach the other one, not come back to
    // it every time: a run that hangs here fails with both workers' lines.
    const r = await within(finished, 75_000, 'the run did not complete', () => [...without.lines.slice(-6), ...withIt.lines].join('\n'));
    expect(r.code, r.stderr).to.equal(0);
    await expectReferenceOutputs('handed');
    const events = await readRun('handed');
    expectOneEndPerPlannedJob(events);
    const claims = events.filter((e) => e.type === 'JobClaimed').map(claimOf);
    expect(new Set(claims.map((c) => c.worker)), 'who claimed jobs').to.deep.equal(new Set(['e2e-with']));
    expect(claims, 'one claim per job').to.have.length(JOBS);
    expect(
      without.lines.filter((l) => / took handed /.test(l)),
      'jobs the worker without the agent took',
    ).to.deep.equal([]);
    expect(withIt.lines.filter((l) => / handed \S+ succeeded$/.test(l))).to.have.length(JOBS);
    await stopWorkers();
    await expectNoAgentLeft();
  });
});
