// What every command is made of, a suite's own commands included: the process parts it may touch,
// its shape, the exit codes and the error that means bad input. Here, below the CLI, so a suite's
// commands (which may not import the CLI) are built of the same parts as the CLI's own.
import type { Writable } from 'node:stream';
import { UserError } from '../../core/errors.js';

/** What a command may touch of its process: injected so tests can run commands in-process. */
export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** One CLI command. `run` returns the exit code. */
export interface Command {
  name: string;
  summary: string;
  /** Full `--help` text. */
  help: string;
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * Exit codes shared by every command (the README's table): 0 every job ended, passed or not;
 * 1 a check the user asked for failed (a replay's divergence, \`--fail-under\` not met); 2 bad
 * input, refused before anything is written; 3 some jobs ended in errors (provider, agent, crash);
 * 130 interrupted (resumable).
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2, jobsFailed: 3, interrupted: 130 } as const;

/** Bad command-line or file input: printed without a stack, exit code 2. */
export class InputError extends UserError {
  override name = 'InputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
