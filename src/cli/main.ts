import { readFileSync } from 'node:fs';
import { EXIT, type CliIO, type Command } from './io.js';
import { UserError } from '../core/errors.js';

/**
 * A command as `evalog --help` lists it; its module is imported only when it runs, so a command
 * pays the start-up of what it uses alone (`run` loads no viewer, `--version` nothing at all).
 * test/unit/cli-commands.test.ts holds each entry to its module's own name and summary.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** Every generic command, by name, in the order `--help` lists them (the suites' own come before the last, mock-server). */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', summary: 'run a suite into a new run folder', load: async () => (await import('./run.js')).runCommand },
  { name: 'worker', summary: 'take jobs of NATS runs from the shared queue and run them', load: async () => (await import('./worker.js')).workerCommand },
  { name: 'watch', summary: 'follow the live event stream of a run', load: async () => (await import('./watch.js')).watchCommand },
  { name: 'view', summary: 'browse runs (live and finished) in a local web viewer', load: async () => (await import('./view.js')).viewCommand },
  {
    name: 'resume',
    summary: 'finish a crashed or interrupted run without repeating completed calls',
    load: async () => (await import('./resume.js')).resumeCommand,
  },
  {
    name: 'retry',
    summary: "run a finished run's failed jobs again as new attempts, in the same log",
    load: async () => (await import('./retry.js')).retryCommand,
  },
  {
    name: 'replay',
    summary: 'prove a run is deterministic by re-running it against its log',
    load: async () => (await import('./replay.js')).replayCommand,
  },
  { name: 'rebuild', summary: 'derive all outputs of a run from its log', load: async () => (await import('./rebuild.js')).rebuildCommand },
  {
    name: 'regrade',
    summary: "grade a finished run's answers again as a new run, calling no model",
    load: async () => (await import('./regrade.js')).regradeCommand,
  },
  { name: 'runs', summary: 'list runs and their status', load: async () => (await import('./runs.js')).runsCommand },
  {
    name: 'export',
    summary: "write a run's stored events as JSONL (.jsonl, or zstd .jsonl.zst), or its rows (--rows: .jsonl or .csv)",
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    name: 'show',
    summary: "print each job's input, output, expected value, verdict and reason",
    load: async () => (await import('./show.js')).showCommand,
  },
  {
    name: 'usage',
    summary: 'aggregate call usage from evalog exports and DeepSeek Harness session logs',
    load: async () => (await import('./usage.js')).usageCommand,
  },
  {
    name: 'compare',
    summary: 'compare runs (or arms of runs) paired by case: McNemar p, bootstrap CI, token and time deltas, flipped cases',
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    name: 'mock-server',
    summary: 'Run the scripted OpenAI-compatible model on loopback',
    load: async () => {
      const [{ createMockServerCommand }, { loadAllPlugins, scriptedPlayers }] = await Promise.all([import('./mock-server.js'), import('../app/index.js')]);
      // The scripted model plays every suite: every plugin's player is needed.
      await loadAllPlugins();
      return createMockServerCommand([...scriptedPlayers()]);
    },
  },
];

/**
 * The suites' own commands (the registry's suiteCommands), as entries of the same table: listing
 * them loads the registry but no plugin; running one loads every plugin (a suite's command may read
 * any recorded run), its module and the CLI's parts it is lent (kit.ts). A generic command never
 * calls this, so it loads no suite's command.
 */
export async function suiteCommands(): Promise<CommandEntry[]> {
  const { loadAllPlugins, suiteCommands: listed } = await import('../app/index.js');
  return listed().map((c) => ({
    name: c.name,
    summary: c.summary,
    load: async () => {
      await loadAllPlugins();
      return c.load((await import('./kit.js')).CLI_KIT);
    },
  }));
}

/** The table `--help` lists: the generic commands, the suites' own before mock-server (the scripted model's tool, listed last). */
function listed(suites: readonly CommandEntry[]): CommandEntry[] {
  const last = COMMANDS.findIndex((c) => c.name === 'mock-server');
  return [...COMMANDS.slice(0, last), ...suites, ...COMMANDS.slice(last)];
}

function usage(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: evalog <command> [options]   (evalog <command> --help for more)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
  ].join('\n');
}

/** Runs one command with the given IO; returns the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage(listed(await suiteCommands())));
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version') {
    io.stdout.write(`${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version}\n`);
    return EXIT.ok;
  }
  // A generic command first: it loads no suite's command; a suite's command second, from the registry.
  let command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const suites = await suiteCommands();
    command = suites.find((c) => c.name === name);
    if (!command) {
      io.stderr.write(`evalog: unknown command ${JSON.stringify(name)}\n\n${usage(listed(suites))}`);
      return EXIT.badInput;
    }
  }
  try {
    return await (await command.load()).run(rest, io);
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
