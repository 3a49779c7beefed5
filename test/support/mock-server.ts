import type { ChildProcess } from 'node:child_process';
import type { ScriptedStats } from '../../src/providers/scripted/types.js';
import { startEvalog } from './cli.js';

/** A scripted model running as its own process (`evalog mock-server`), as a user would run it. */
export interface MockServerProcess {
  url: string;
  child: ChildProcess;
  /** GET /_scripted/stats: the server's `ScriptedStats`, as JSON. */
  stats(): Promise<ScriptedStats>;
  stop(): Promise<void>;
}

/** Starts `evalog mock-server ARGS` and waits for its URL line. */
export async function startMockServer(args: string[] = [], cwd = process.cwd()): Promise<MockServerProcess> {
  const child = startEvalog(['mock-server', '--port', '0', ...args], { cwd });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`mock-server exited with ${code}: ${err}`)));
  });
  return {
    url,
    child,
    async stats() {
      const res = await fetch(`${url.replace(/\/v1$/, '')}/_scripted/stats`);
      return (await res.json()) as Awaited<ReturnType<MockServerProcess['stats']>>;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
