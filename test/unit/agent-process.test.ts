import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import {
  type AgentProcessOptions,
  agentEnvironment,
  DEFAULT_KEEP_BYTES,
  makeWorkspace,
  removeWorkspace,
  startAgentProcess,
  WORKSPACE_PREFIX,
} from '../../src/harness/external/process.js';
import { ownerOfName, selfOwner } from '../../src/sandbox/owned-temp.js';

const TSX = import.meta.resolve('tsx');
const PROCESS_TS = pathToFileURL(fileURLToPath(new URL('../../src/harness/external/process.ts', import.meta.url))).href;

/** Alive and not a zombie (this container's init may not reap orphans, so a dead child can linger as Z). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = performance.now() + withinMs;
  while (performance.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

describe('agent process', function () {
  this.timeout(60000);
  let dir: string;
  let workspace: string;
  const script = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const node = (name: string, text: string): string[] => [process.execPath, script(name, text)];
  const start = (argv: string[], o: Partial<AgentProcessOptions> = {}) =>
    startAgentProcess({ argv, cwd: workspace, env: { PATH: process.env.PATH ?? '' }, timeLimitMs: 30000, signal: new AbortController().signal, ...o });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-procs-test-'));
  });
  beforeEach(async () => {
    workspace = await makeWorkspace();
  });
  afterEach(async () => {
    await removeWorkspace(workspace);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the exit code and keeps both streams', async () => {
    const r = await start(node('exit3.mjs', "process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3;")).done;
    expect(r).to.deep.include({ code: 3, signal: null, ended: 'exited', stdoutBytes: 3, stderrBytes: 3, stdoutTruncated: false, stderrTruncated: false });
    expect(r.stdout.toString()).to.equal('out');
    expect(r.stderr.toString()).to.equal('err');
  });

  it('a signal from someone else is the signal, and ended is exited (evalog did not kill it)', async () => {
    const r = await start(['/bin/sh', '-c', 'kill -TERM $$; sleep 5']).done;
    expect(r).to.deep.include({ code: null, signal: 'SIGTERM', ended: 'exited' });
  });

  it('at the time limit the whole group dies, grandchild included', async () => {
    const t0 = performance.now();
    const agent = start(['/bin/sh', '-c', 'sleep 1000 & echo $!; wait'], { timeLimitMs: 500 });
    const r = await agent.done;
    expect(performance.now() - t0).to.be.below(10000);
    expect(r).to.deep.include({ code: null, signal: 'SIGKILL', ended: 'time_limit' });
    const grandchild = Number(r.stdout.toString().trim());
    expect(grandchild).to.be.above(0);
    expect(await gone(grandchild, 2000), `sleep ${grandchild} still runs`).to.equal(true);
    expect(await gone(agent.pid!, 2000)).to.equal(true);
  });

  it('an agent that exits leaves nothing running behind it', async () => {
    const r = await start(['/bin/sh', '-c', 'sleep 1000 & echo $!']).done;
    expect(r).to.deep.include({ code: 0, ended: 'exited' });
    const grandchild = Number(r.stdout.toString().trim());
    expect(await gone(grandchild, 2000), `sleep ${grandchild} still runs`).to.equal(true);
  });

  it('an abort kills it (ended aborted); kill() kills it (ended killed)', async () => {
    const hang = node('hang.mjs', 'setInterval(() => {}, 1000);');
    const controller = new AbortController();
    const aborted = start(hang, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect(await aborted.done).to.deep.include({ signal: 'SIGKILL', ended: 'aborted' });

    const killed = start(hang);
    setTimeout(() => killed.kill(), 200);
    expect(await killed.done).to.deep.include({ signal: 'SIGKILL', ended: 'killed' });

    const before = new AbortController();
    before.abort();
    const never = start(hang, { signal: before.signal });
    expect(never.pid).to.equal(null);
    expect(await never.done).to.deep.include({ code: null, ended: 'aborted' });
  });

  it('a flood of 20 MB on stdout is drained: the first keepBytes kept, all counted, exit 0', async () => {
    const total = 20 * 1024 * 1024;
    const flood = node(
      'flood.mjs',
      `const chunk = Buffer.alloc(65536); for (let i = 0; i < chunk.length; i++) chunk[i] = 97 + (i % 26);
       let left = ${total};
       const more = () => { while (left > 0) { left -= chunk.length; if (!process.stdout.write(chunk)) return process.stdout.once('drain', more); } };
       more();`,
    );
    const r = await start(flood).done;
    expect(r).to.deep.include({ code: 0, ended: 'exited', stdoutBytes: total, stdoutTruncated: true, stderrBytes: 0 });
    expect(r.stdout.length).to.equal(DEFAULT_KEEP_BYTES);
    expect(r.stdout.subarray(0, 3).toString()).to.equal('abc');
    const small = await start(flood, { keepBytes: 1000 }).done;
    expect(small.stdout.length).to.equal(1000);
    expect(small.stdoutBytes).to.equal(total);
  });

  it('the agent sees exactly the allowed variables, never the real key, and runs in its workspace', async () => {
    const from = {
      PATH: process.env.PATH,
      LC_ALL: 'en_US.UTF-8',
      OPENAI_API_KEY: 'sk-real-key',
      OPENAI_BASE_URL: 'https://real.example/v1',
      UNRELATED: 'x',
      PASSED: 'yes',
    };
    const vars = { EVALOG_TASK: join(workspace, 'task.json'), OPENAI_API_KEY: 'job-token', OPENAI_BASE_URL: 'http://127.0.0.1:1/jobs/k/v1' };
    const env = agentEnvironment({ from, pass: ['PASSED', 'NOT_SET'], workspace, vars });
    expect(Object.keys(env).sort()).to.deep.equal(['EVALOG_TASK', 'HOME', 'LC_ALL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'PASSED', 'PATH']);
    const r = await start(node('env.mjs', 'console.log(JSON.stringify({ env: process.env, cwd: process.cwd() }));'), { env }).done;
    const dumped = JSON.parse(r.stdout.toString()) as { env: Record<string, string>; cwd: string };
    expect(dumped.env).to.deep.equal(env); // node adds nothing of its own
    expect(dumped.cwd).to.equal(workspace);
    expect(r.stdout.toString()).not.to.include('sk-real-key');
    expect(r.stdout.toString()).not.to.include('real.example');
  });

  it('a program that cannot be started is a result: 127 not found, 126 not executable', async () => {
    const missing = start([join(dir, 'no-such-agent')]);
    expect(missing.pid).to.equal(null);
    const r = await missing.done;
    expect(r).to.deep.include({ code: 127, signal: null, ended: 'exited' });
    expect(r.stderr.toString()).to.include('no-such-agent').and.include('ENOENT');
    const plain = script('plain.sh', 'echo hi\n');
    chmodSync(plain, 0o644);
    const denied = await start([plain]).done;
    expect(denied).to.deep.include({ code: 126, ended: 'exited' });
    expect(denied.stderr.toString()).to.include('EACCES');
  });

  it('no agent outlives evalog: neither a normal exit nor a SIGKILL of evalog leaves it running', async () => {
    const parent = (exit: 'exit' | 'hang') =>
      `import { startAgentProcess } from ${JSON.stringify(PROCESS_TS)};
       const a = startAgentProcess({ argv: ['/bin/sh', '-c', 'sleep 1000 & wait'], cwd: ${JSON.stringify(dir)}, env: {}, timeLimitMs: 600000, signal: new AbortController().signal });
       console.log(a.pid);
       setTimeout(() => ${exit === 'exit' ? 'process.exit(0)' : '{}'}, 300);
       setInterval(() => {}, 1000);`;
    for (const mode of ['exit', 'hang'] as const) {
      const child = spawn(process.execPath, ['--import', TSX, script(`parent-${mode}.mts`, parent(mode))], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      for await (const chunk of child.stdout) {
        out += String(chunk);
        if (out.includes('\n')) break;
      }
      const agentPid = Number(out.trim());
      expect(agentPid).to.be.above(0);
      await new Promise((r) => setTimeout(r, 500));
      if (mode === 'hang') {
        expect(alive(agentPid)).to.equal(true);
        child.kill('SIGKILL');
      }
      expect(await gone(agentPid, 5000), `${mode}: agent ${agentPid} outlived its evalog`).to.equal(true);
    }
  });

  it('agentEnvironment: LANG=C.UTF-8 when no locale is set; passing a refused name is a programming error', () => {
    const env = agentEnvironment({ from: { PATH: '/bin', LANG: '' }, pass: [], workspace: '/w', vars: {} });
    expect(env).to.deep.equal({ PATH: '/bin', HOME: '/w', LANG: 'C.UTF-8' });
    expect(() => agentEnvironment({ from: { EVALOG_API_KEY: 'k' }, pass: ['EVALOG_API_KEY'], workspace: '/w', vars: {} })).to.throw(/EVALOG_API_KEY/);
  });

  it('workspaces are fresh and empty, their names naming this process; removal refuses any other folder', async () => {
    const a = await makeWorkspace();
    const b = await makeWorkspace();
    expect(a).not.to.equal(b);
    expect(basename(a).startsWith(WORKSPACE_PREFIX)).to.equal(true);
    expect(readdirSync(a)).to.deep.equal([]);
    expect(ownerOfName(basename(a), WORKSPACE_PREFIX)).to.deep.equal(await selfOwner());
    expect(statSync(a).mode & 0o777).to.equal(0o700);
    writeFileSync(join(a, 'left-by-agent'), 'x');
    await removeWorkspace(a);
    await removeWorkspace(b);
    expect(() => statSync(a)).to.throw();
    let refused: unknown;
    await removeWorkspace(dir).catch((e: unknown) => {
      refused = e;
    });
    expect(String(refused)).to.include('not an agent workspace');
    expect(statSync(dir).isDirectory()).to.equal(true);
  });
});
