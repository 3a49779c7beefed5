import { readFileSync } from 'node:fs';
import { rebuildCommand } from './rebuild.js';
import { runCommand } from './run.js';
import { workerCommand } from './worker.js';
import { runsCommand } from './runs.js';
import { replayCommand } from './replay.js';
import { resumeCommand } from './resume.js';
import { retryCommand } from './retry.js';
import { watchCommand } from './watch.js';
import { viewCommand } from './view.js';
import { summarizeCommand } from './summarize.js';
import { exportCommand } from './export.js';
import { showCommand } from './show.js';
import { usageCommand } from './usage.js';
import { memoryEvictionCommand } from './memory-eviction.js';
import { contextSnapshotCommand } from './context-snapshot.js';
import { regradeCommand } from './regrade.js';
import { compareCommand } from './compare.js';
import { EXIT, type CliIO, type Command } from './io.js';
import { UserError } from '../core/errors.js';
import { createMockServerCommand } from './mock-server.js';
import { SCRIPTED_PLAYERS } from '../app/index.js';

/** Every command, by name. */
export const COMMANDS: readonly Command[] = [
  runCommand,
  workerCommand,
  watchCommand,
  viewCommand,
  resumeCommand,
  retryCommand,
  replayCommand,
  rebuildCommand,
  regradeCommand,
  runsCommand,
  exportCommand,
  showCommand,
  usageCommand,
  summarizeCommand,
  compareCommand,
  memoryEvictionCommand,
  contextSnapshotCommand,
  createMockServerCommand([...SCRIPTED_PLAYERS]),
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: evalog <command> [options]   (evalog <command> --help for more)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
  ].join('\n');
}

/** Runs one command with the given IO; returns the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version') {
    io.stdout.write(`${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`evalog: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.badInput;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    // Errors the user can fix: printed plainly with exit code 2, no stack.
    if (err instanceof UserError) {
      io.stderr.write(`${(err as Error).message.startsWith('evalog') ? '' : 'evalog: '}${(err as Error).message}\n`);
      return EXIT.badInput;
    }
    throw err;
  }
}

/** The process entry point: wires signals (a second SIGINT exits at once) and real IO. */
export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) process.exit(EXIT.interrupted);
    process.stderr.write(`\nevalog: ${sig}: stopping after in-flight work is recorded (again to exit at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `evalog watch … | head`: a reader that went away ends the command quietly, as in other CLIs.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  });
  try {
    return await runCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
