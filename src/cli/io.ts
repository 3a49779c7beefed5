import type { Writable } from 'node:stream';
import { UserError } from '../core/errors.js';

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

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, badInput: 2, interrupted: 130 } as const;

/** Bad command-line or file input: printed without a stack, exit code 2. */
export class InputError extends UserError {
  override name = 'InputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
