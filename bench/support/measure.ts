// What the benches share: timing a child process (wall from spawn to exit; user + sys CPU and peak
// RSS from /usr/bin/time when the machine has it), the scripted model's server, the one-call cases
// and medians.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** GNU time, when installed: the child's CPU and peak RSS. */
export const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/** One measured child process. */
export interface Measured {
  wall: number;
  cpu: number;
  maxRssMB: number;
  ok: number;
}

/** Runs a command to completion; wall time from spawn to exit, CPU and peak RSS from /usr/bin/time. */
export function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Measured & { stdout: string; stderr: string }> {
  const timeFile = join(cwd, `time-${process.hrtime.bigint()}.txt`);
  const [file, argv] = TIME ? [TIME, ['-f', '%U %S %M', '-o', timeFile, cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(file, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${stderr}`));
      let cpu = NaN;
      let maxRssMB = NaN;
      if (TIME) {
        const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
        cpu = u! + s!;
        maxRssMB = m! / 1024;
      }
      resolve({ wall, cpu, maxRssMB, ok: 0, stdout, stderr });
    });
  });
}

/** Starts `evalog mock-server` and returns its base URL and a stop function. */
export async function startMockServer(evalog: string, latency: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [evalog, 'mock-server', '--latency-ms', String(latency)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\S*)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`mock-server exited with ${code}: ${out}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function writeCases(file: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i += 1) lines.push(JSON.stringify({ id: `case-${i}`, input: `Reply with exactly: answer-${i}`, expected: `answer-${i}` }));
  writeFileSync(file, `${lines.join('\n')}\n`);
}

export const median = (xs: number[]): number => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
