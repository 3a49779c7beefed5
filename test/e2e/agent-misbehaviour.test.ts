import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventType, StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { type CliResult, readJsonl, runEvalog, tempDir } from '../support/cli.js';

// One smoke run whose arms are external agents: eight that each misbehave one way, and the example
// Node agent as a control. The point of the matrix is that one run survives all of them and
// records each distinctly; so every assertion reads the one run's log and rows.
const MISBEHAVE = fileURLToPath(new URL('../fixtures/agents/misbehave.mjs', import.meta.url));
const NODE_AGENT = fileURLToPath(new URL('../../examples/agents/node-agent.mjs', import.meta.url));
const MODES = ['exit3', 'sigterm-self', 'hang', 'no-model', 'over-budget', 'unknown-tool', 'bad-args', 'flood'] as const;
type Arm = (typeof MODES)[number] | 'control';
const HANG_LIMIT_MS = 1500;
const FLOOD_BYTES = 8 * 1024 * 1024;

type Ev<T extends EventType> = Extract<StoredEvent, { type: T }>;

/** Dead: no such process, or a zombie (this container's init may not reap orphans, so a killed grandchild can linger as Z). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    // /proc/PID/stat: "pid (comm) S ..."; the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
  } catch {
    return true; // gone between the two looks
  }
}

describe('misbehaving external agents: one run, each recorded distinctly (CLI, real child processes)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let run: CliResult;
  let events: StoredEvent[];
  let rows: Record<string, unknown>[];
  let floodStdout: Uint8Array;
  const pidsFile = () => join(tmp.dir, 'hang-pids.json');
  const jobOf = (arm: Arm): string => {
    const started = events.find((e) => e.type === 'JobStarted' && e.data.arm === arm);
    if (!started?.jobId) throw new Error(`no job of arm ${arm} started`);
    return started.jobId;
  };
  const of = <T extends EventType>(arm: Arm, type: T): Ev<T>[] => {
    const job = jobOf(arm);
    return events.filter((e): e is Ev<T> => e.type === type && e.jobId === job);
  };
  const exited = (arm: Arm) => {
    const [e, ...more] = of(arm, 'AgentExited');
    expect(more, `${arm}: one AgentExited`).to.have.length(0);
    expect(e, `${arm}: AgentExited`).to.not.equal(undefined);
    return e!.data;
  };
  const row = (arm: Arm) => rows.find((r) => r.arm === arm)!;

  before(async () => {
    tmp = await tempDir();
    const agents: Record<string, unknown> = Object.fromEntries(
      MODES.map((m) => [m, { command: ['node', MISBEHAVE, m, ...(m === 'hang' ? [pidsFile()] : [])] }]),
    );
    agents.hang = { ...(agents.hang as object), limits: { timeLimitMs: HANG_LIMIT_MS } };
    agents['over-budget'] = { ...(agents['over-budget'] as object), limits: { modelCalls: 2 } };
    agents.control = { command: ['node', NODE_AGENT] };
    await writeFile(join(tmp.dir, 'config.json'), JSON.stringify({ agents }));
    run = await runEvalog(['run', 'smoke', '--config', 'config.json', '--case', 'fruit_basket', '--repetitions', '1', '--out', 'runs/m', '--verbose'], {
      cwd: tmp.dir,
    });
    rows = await readJsonl(join(tmp.dir, 'runs/m/rows.jsonl'));
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
    try {
      events = [];
      for await (const e of log.read('m')) events.push(e);
      const flood = events.find((e): e is Ev<'AgentExited'> => e.type === 'AgentExited' && e.jobId === jobOf('flood'));
      floodStdout = flood?.data.stdout.blob ? await log.blobs('m').get(flood.data.stdout.blob) : new Uint8Array();
    } finally {
      await log.close();
    }
  });
  after(() => tmp.cleanup());

  it('completes with exit code 3 (some jobs ended in errors), every job ended and its outputs written', () => {
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.match(/evalog: \d+ of \d+ jobs ended in errors \(last: agent_failed: /);
    expect(events.filter((e) => e.type === 'RunCompleted')).to.have.length(1);
    const started = events.filter((e) => e.type === 'JobStarted').map((e) => e.jobId);
    expect(started).to.have.length(MODES.length + 1);
    for (const job of started) {
      const ends = events.filter((e) => (e.type === 'JobSucceeded' || e.type === 'JobFailed') && e.jobId === job);
      expect(ends, `end events of ${job}`).to.have.length(1);
    }
    expect(rows).to.have.length(MODES.length + 1);
    // Each failure was reported as its job ended, while the others ran on.
    expect(run.stderr).to.match(/job fruit_basket:exit3:\d+ failed \(agent_failed\)/);
  });

  it('gives each ending its own stop reason in the rows', () => {
    const reasons = Object.fromEntries(rows.map((r) => [r.arm, r.stop_reason]));
    expect(reasons).to.deep.equal({
      exit3: 'exited_nonzero',
      'sigterm-self': 'signalled',
      hang: 'time_limit',
      'no-model': 'no_model_calls',
      'over-budget': 'budget:model_calls',
      'unknown-tool': 'answered',
      'bad-args': 'answered',
      flood: 'answered',
      control: 'answered',
    });
    // Only the two process failures fail their jobs; every other ending is graded.
    const failed = rows.filter((r) => r.status === 'failed').map((r) => r.arm);
    expect(failed.sort()).to.deep.equal(['exit3', 'sigterm-self']);
  });

  it('exit3: exited_nonzero with code 3, and the job fails as agent_failed', () => {
    expect(exited('exit3')).to.include({ reason: 'exited_nonzero', code: 3, signal: null });
    const [failed] = of('exit3', 'JobFailed');
    expect(failed?.data).to.deep.equal({ reason: 'agent_failed', message: 'the agent exited with code 3' });
  });

  it('sigterm-self: signalled by SIGTERM, and the job fails as agent_failed', () => {
    expect(exited('sigterm-self')).to.include({ reason: 'signalled', code: null, signal: 'SIGTERM' });
    expect(of('sigterm-self', 'JobFailed')[0]?.data.reason).to.equal('agent_failed');
  });

  it('hang: killed at its time limit with its whole process group, and graded', async () => {
    expect(exited('hang')).to.include({ reason: 'time_limit', code: null, signal: 'SIGKILL', modelCalls: 0 });
    expect(of('hang', 'JobSucceeded')).to.have.length(1);
    // At its own 1.5 s limit, far from the suite's 120 s.
    expect(row('hang').seconds as number).to.be.within(HANG_LIMIT_MS / 1000, 30);
    const pids = JSON.parse(await readFile(pidsFile(), 'utf8')) as { agent: number; grandchild: number };
    expect(gone(pids.agent), `agent ${pids.agent} still runs`).to.equal(true);
    expect(gone(pids.grandchild), `grandchild ${pids.grandchild} still runs`).to.equal(true);
  });

  it('no-model: no_model_calls, modelCalls 0, graded', () => {
    expect(exited('no-model')).to.include({ reason: 'no_model_calls', code: 0, modelCalls: 0, answer: 'no model needed' });
    expect(of('no-model', 'ProviderCallRequested')).to.have.length(0);
    expect(of('no-model', 'JobSucceeded')).to.have.length(1);
  });

  it('over-budget: two calls go upstream, the third is refused with 403 budget_exhausted, stop reason budget', () => {
    expect(of('over-budget', 'ProviderCallRequested')).to.have.length(2);
    expect(of('over-budget', 'BudgetExhausted').map((e) => e.data)).to.deep.equal([{ budget: 'model_calls', limit: 2, used: 2 }]);
    // The agent's answer is what it saw: the refusal's status and error.code.
    expect(exited('over-budget')).to.include({ reason: 'budget', code: 0, modelCalls: 2, answer: 'refused at call 3: 403 budget_exhausted' });
    expect(of('over-budget', 'JobSucceeded')).to.have.length(1);
  });

  it('unknown-tool: a recorded ToolCalled error under the name as sent, returned to the agent', () => {
    const calls = of('unknown-tool', 'ToolCalled').map((e) => e.data);
    expect(calls).to.have.length(1);
    expect(calls[0]).to.include({ name: 'no_such_tool', arguments: '{}', isError: true });
    expect(calls[0]!.result).to.match(/unknown tool "no_such_tool"/);
    expect(exited('unknown-tool')).to.include({ reason: 'answered', toolCalls: 1, answer: 'unknown tool: isError true' });
  });

  it('bad-args: string arguments and a missing required field are recorded ToolCalled errors, returned to the agent', () => {
    const calls = of('bad-args', 'ToolCalled').map((e) => e.data);
    expect(calls.map((c) => ({ name: c.name, arguments: c.arguments, isError: c.isError }))).to.deep.equal([
      { name: 'lookup', arguments: '"apple"', isError: true },
      { name: 'write_answer', arguments: '{}', isError: true },
    ]);
    expect(calls[0]!.result).to.match(/not a JSON object/);
    expect(calls[1]!.result).to.match(/value must be/);
    expect(of('bad-args', 'ArtifactRevised')).to.have.length(0);
    expect(exited('bad-args')).to.include({ reason: 'answered', toolCalls: 2, answer: 'bad args: isError true true' });
  });

  it('flood: every byte counted, the kept part bounded and marked truncated, the job graded', () => {
    const { stdout, reason, answer } = exited('flood');
    expect({ reason, answer }).to.deep.equal({ reason: 'answered', answer: 'flooded' });
    expect(stdout.truncated).to.equal(true);
    expect(stdout.bytes).to.be.at.least(FLOOD_BYTES);
    // docs/agents.md promises the first 256 KiB of each stream.
    expect(Buffer.from(floodStdout).equals(Buffer.alloc(256 * 1024, 'x'))).to.equal(true);
    expect(of('flood', 'JobSucceeded')).to.have.length(1);
  });

  it('control: the example agent in the same run answers and passes', () => {
    expect(exited('control')).to.include({ reason: 'answered', code: 0 });
    expect(of('control', 'JobSucceeded')[0]?.data.passed).to.equal(true);
  });
});
