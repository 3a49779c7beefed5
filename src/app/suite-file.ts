// Loading a user's suite from a file: `evalog run ./my-suite.ts`. TypeScript (.ts, .mts) is loaded
// through tsx's tsImport, with no build step, on Node 20 (no type stripping) and 24 alike; plain
// JavaScript (.js, .mjs) through node's own import. Every way it can fail is bad input: one line
// that names the file, never a stack.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../core/errors.js';
import type { DefinedSuite } from '../harness/suite/index.js';
import type { Player } from '../providers/scripted/index.js';

/** Extensions a suite file may have. */
export const SUITE_FILE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/** A suite file as run.json records it: its path relative to the run's cwd and its sha256. */
export interface SuiteFileRecord {
  path: string;
  sha256: string;
  /** Whether the suite shapes its outputs (its own report, or artifact file names): rebuild then needs the same file. */
  report: boolean;
}

/** A suite loaded from a file, with the scripted player it exports (if any). */
export interface LoadedSuiteFile {
  suite: DefinedSuite;
  player: Player | null;
  file: SuiteFileRecord;
}

/** A suite file that cannot be used: missing, failing on import, or not exporting a suite. */
export class SuiteFileError extends UserError {
  override name = 'SuiteFileError';
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`suite file ${file}: ${message}`, options);
  }
}

/** True when the argument names a file rather than a built-in suite. */
export function isSuiteFilePath(nameOrPath: string): boolean {
  return SUITE_FILE_EXTENSIONS.some((ext) => nameOrPath.endsWith(ext)) || /[/\\]/.test(nameOrPath);
}

/** The path as recorded: relative to `cwd`, with forward slashes (the same on every machine). */
export function recordedPath(file: string, cwd: string): string {
  const rel = relative(cwd, resolve(cwd, file));
  return (rel === '' || isAbsolute(rel) ? resolve(cwd, file) : rel).split('\\').join('/');
}

/** sha256 (hex) of the file's bytes; SuiteFileError when it cannot be read. */
export async function suiteFileHash(file: string, cwd: string): Promise<string> {
  const shown = recordedPath(file, cwd);
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(cwd, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SuiteFileError(
      shown,
      code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? (err as Error).message})`,
      { cause: err },
    );
  }
  return createHash('sha256').update(bytes).digest('hex');
}

// One import per file content and process: a worker asks for the suite of every run it takes.
const loaded = new Map<string, Promise<LoadedSuiteFile>>();

/** Loads the suite a file exports by default (and its `player`), hashing the bytes it loads. */
export async function loadSuiteFile(file: string, cwd: string): Promise<LoadedSuiteFile> {
  const shown = recordedPath(file, cwd);
  if (!SUITE_FILE_EXTENSIONS.some((ext) => file.endsWith(ext))) {
    throw new SuiteFileError(shown, `is not a suite module (give a ${SUITE_FILE_EXTENSIONS.join(', ')} file whose default export is a suite)`);
  }
  const sha256 = await suiteFileHash(file, cwd);
  const absolute = resolve(cwd, file);
  const key = `${absolute}\u0000${sha256}`;
  let p = loaded.get(key);
  if (!p) {
    p = importSuite(absolute, shown, sha256);
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}

async function importSuite(absolute: string, shown: string, sha256: string): Promise<LoadedSuiteFile> {
  let mod: Record<string, unknown>;
  try {
    mod =
      absolute.endsWith('.ts') || absolute.endsWith('.mts')
        ? ((await (await import('tsx/esm/api')).tsImport(pathToFileURL(absolute).href, import.meta.url)) as Record<string, unknown>)
        : ((await import(pathToFileURL(absolute).href)) as Record<string, unknown>);
  } catch (err) {
    throw new SuiteFileError(shown, `importing it threw ${(err as Error)?.name ?? 'an error'}: ${firstLine(err)}`, { cause: err });
  }
  const exports = interop(mod);
  if (exports.default === undefined) throw new SuiteFileError(shown, 'has no default export (export default the suite)');
  const problem = notASuite(exports.default);
  if (problem) throw new SuiteFileError(shown, `its default export is not a suite: ${problem}`);
  const player = exports.player;
  if (player !== undefined && typeof player !== 'function')
    throw new SuiteFileError(shown, 'field player: the exported player must be a function (request, ctx) => reply | null');
  const suite = exports.default as DefinedSuite;
  return {
    suite,
    player: (player as Player | undefined) ?? null,
    file: { path: shown, sha256, report: suite.report !== undefined || suite.artifactExtension !== undefined },
  };
}

// One line of an import's error. esbuild (through tsx) says "Transform failed" first and what and
// where on the next line, after the file's absolute path: that line is kept, without the path.
function firstLine(err: unknown): string {
  const lines = String((err as Error)?.message ?? err).split('\n');
  const where = /^Transform failed/.test(lines[0]!) ? /^.*:(\d+):(\d+): ERROR: (.*)$/.exec(lines[1] ?? '') : null;
  return where ? `${where[3]} (line ${where[1]}, column ${where[2]})` : lines[0]!;
}

// A .ts file outside a "type": "module" package is loaded as CommonJS: its exports sit one level down.
function interop(mod: Record<string, unknown>): Record<string, unknown> {
  const inner = mod.default as Record<string, unknown> | undefined;
  if (inner !== null && typeof inner === 'object' && '__esModule' in inner) return inner;
  return mod;
}

/**
 * Why a value is not a suite (null = it is one). Checked by shape, not by class or brand: tsImport
 * loads the user's imports of evalog as a separate copy of its modules.
 */
// The definition's own fields were checked by the compiler in the user's file (defineSuite); what
// is checked here is that the export is what defineSuite returns.
function notASuite(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return `it is ${value === null ? 'null' : typeof value}, not an object`;
  const s = value as Record<string, unknown>;
  if (typeof s.name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(s.name))
    return 'field name must be 1-64 letters, digits, "_" or "-" (it names run folders and job queues)';
  if (typeof s.description !== 'string') return 'field description must be a string';
  if (s.shape !== 'agent' && s.shape !== 'single-call' && s.shape !== 'session' && s.shape !== 'compute')
    return `field shape must be "agent", "single-call", "session" or "compute", not ${JSON.stringify(s.shape)}`;
  if (typeof s.configure !== 'function' || typeof s.defaults !== 'function') return 'export the result of defineSuite({...}), not the definition itself';
  return null;
}
