// A real nats-server with JetStream for tests: spawned from PATH on a free loopback port with its
// own store dir, or the one NATS_URL names. restart() keeps port and store dir so that a test can
// kill the server mid-run and have clients reconnect to the same address and the same data.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running nats-server that a test owns (or an external one from NATS_URL). */
export interface NatsServerHandle {
  url: string;
  port: number;
  /** Empty for an external server. */
  storeDir: string;
  /** Stops the server and removes its store dir; a no-op for an external server. */
  stop(): Promise<void>;
  /** Sends a signal (e.g. SIGKILL) and waits for the process to exit; the store dir stays. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port and store dir (after kill, or while running). */
  restart(): Promise<void>;
}

/** The server binary is missing: tests must not skip silently. */
export class NatsServerMissingError extends Error {
  override name = 'NatsServerMissingError';
  constructor() {
    super('nats-server is not on PATH: install it with `apt-get update && apt-get install -y nats-server` (or set NATS_URL)');
  }
}

/** The server did not accept connections in time; its output is in the message. */
export class NatsServerStartError extends Error {
  override name = 'NatsServerStartError';
}

// Servers still running when the test process exits are killed and their store dirs removed, so
// a failed or interrupted run leaves nothing behind.
const live = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Server settings a test needs besides the defaults. */
export interface NatsServerOptions {
  /** The largest message the server takes (its default is 1 MB). */
  maxPayload?: number;
}

/** Starts a JetStream-enabled nats-server for a test. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const external = process.env.NATS_URL;
  if (external && options.maxPayload === undefined) {
    const port = Number(new URL(external.replace(/^nats:/, 'http:')).port || 4222);
    const noop = async () => {};
    return { url: external, port, storeDir: '', stop: noop, kill: noop, restart: noop };
  }
  if (spawnSync('nats-server', ['--version']).error) throw new NatsServerMissingError();
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'evalog-nats-'));
  dirs.add(storeDir);
  const extra: string[] = [];
  if (options.maxPayload !== undefined) {
    const config = join(storeDir, 'server.conf');
    await writeFile(config, `max_payload: ${options.maxPayload}\n`);
    extra.push('-c', config);
  }
  let child: ChildProcess | undefined = await launch(port, storeDir, extra);

  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const c = child;
    child = undefined;
    if (c) await exitOf(c, signal);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    kill,
    async restart() {
      await kill('SIGTERM');
      child = await launch(port, storeDir, extra);
    },
    async stop() {
      await kill('SIGTERM');
      await rm(storeDir, { recursive: true, force: true });
      dirs.delete(storeDir);
    },
  };
}

async function launch(port: number, storeDir: string, extra: readonly string[]): Promise<ChildProcess> {
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...extra];
  const child = spawn('nats-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  live.add(child);
  child.once('exit', () => live.delete(child));
  const deadline = Date.now() + 10_000;
  // The port may still be held by a just-killed server: keep trying until the deadline.
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await accepts(port)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new NatsServerStartError(`nats-server ${args.join(' ')} did not start (exit ${child.exitCode}):\n${output}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

function exitOf(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
