// Loading a user's suite from a file: `evalog run ./my-suite.ts`. TypeScript (.ts, .mts) is loaded
// through tsx's tsImport, with no build step, on Node 20 (no type stripping) and 24 alike; plain
// JavaScript (.js, .mjs) through node's own import. Every way it can fail is bad input: one line
// that names the file, never a stack.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../core/errors.js';
import type { DefinedSuite, SuiteCli } from '../harness/suite/index.js';
import { setSuiteFileCli } from './registry.js';
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
  /** The suite's own run flags (a defineEval suite's), or null. */
  cli: SuiteCli | null;
  file: SuiteFileRecord;
}

/** A suite file that cannot be used: missing, failing on import, or not exporting a suite. */
export class SuiteFileError extends UserError {
  override name = 'SuiteFileError';
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown; line?: number | null },
  ) {
    super(`suite file ${file}${options?.line ? `:${options.line}` : ''}: ${message}`, options);
  }
}

/** True when the argument names a file rather than a built-in suite. */
export function isSuiteFilePath(nameOrPath: string): boolean {
  return SUITE_FILE_EXTENSIONS.some((ext) => nameOrPath.endsWith(ext)) || isPromptfooPath(nameOrPath) || /[/\\]/.test(nameOrPath);
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
  // A promptfoo config's hash covers the files it references too (issue 35 item 4).
  if (isPromptfooPath(file)) return (await promptfoo()).promptfooFileHash(file, cwd);
  return createHash('sha256').update(bytes).digest('hex');
}

/** Whether `evalog run` reads this path as a promptfoo config (its reader is loaded only then). */
const isPromptfooPath = (path: string): boolean => /\.ya?ml$/i.test(path);
// The promptfoo reader and the short form it compiles to load only for a promptfoo config.
const promptfoo = () => import('./promptfoo-file.js');

// One import per file content and process: a worker asks for the suite of every run it takes.
const loaded = new Map<string, Promise<LoadedSuiteFile>>();

/**
 * Forgets the suite files loaded so far, so the next load imports the file again: `run --watch`
 * before each run, since a module the suite imports may have changed while the suite file did not.
 */
export function forgetLoadedSuiteFiles(): void {
  loaded.clear();
}

/** Loads the suite a file exports by default (and its `player`), hashing the bytes it loads. */
export async function loadSuiteFile(file: string, cwd: string): Promise<LoadedSuiteFile> {
  // A .yaml/.yml file is a promptfoo config, compiled into a defineEval suite (src/app/promptfoo-file.ts).
  if (isPromptfooPath(file)) {
    const config = (await promptfoo()).loadPromptfooFile(file, cwd);
    setSuiteFileCli(config.suite.name, config.cli);
    return config;
  }
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
  const result = await p;
  // Set on every load, cached or not: the last file loaded under a name decides its flags.
  setSuiteFileCli(result.suite.name, result.cli);
  return result;
}

async function importSuite(absolute: string, shown: string, sha256: string): Promise<LoadedSuiteFile> {
  let mod: Record<string, unknown>;
  try {
    mod =
      absolute.endsWith('.ts') || absolute.endsWith('.mts')
        ? ((await (await import('tsx/esm/api')).tsImport(pathToFileURL(absolute).href, import.meta.url)) as Record<string, unknown>)
        : // node caches a module by its URL: the hash in it makes an edited file (`run --watch`, a worker) load again, not run as it was.
          ((await import(`${pathToFileURL(absolute).href}?sha256=${sha256}`)) as Record<string, unknown>);
  } catch (err) {
    throw new SuiteFileError(shown, `importing it threw ${(err as Error)?.name ?? 'an error'}: ${firstLine(err)}`, {
      cause: err,
      line: lineInFile(err, absolute),
    });
  }
  const exports = interop(mod);
  if (exports.default === undefined) throw new SuiteFileError(shown, 'has no default export (export default the suite)');
  const problem = notASuite(exports.default);
  if (problem) throw new SuiteFileError(shown, `its default export is not a suite: ${problem}`);
  const player = exports.player;
  if (player !== undefined && typeof player !== 'function')
    throw new SuiteFileError(shown, 'field player: the exported player must be a function (request, ctx) => reply | null');
  const suite = located(exports.default as DefinedSuite, dirname(absolute));
  return {
    suite,
    player: (player as Player | undefined) ?? null,
    cli: cliOf(suite),
    file: { path: shown, sha256, report: suite.report !== undefined || suite.artifactExtension !== undefined },
  };
}

// A defineEval suite reads its data relative to its own file: it is given that folder here. Found by
// shape, as the suite is: the user's file may load its own copy of evalog's modules.
function located(suite: DefinedSuite, folder: string): DefinedSuite {
  const inFolder = (suite as { inFolder?: unknown }).inFolder;
  return typeof inFolder === 'function' ? (inFolder as (f: string) => DefinedSuite).call(suite, folder) : suite;
}

// A suite's own flags (a defineEval suite's --model), when it carries them.
function cliOf(suite: DefinedSuite): SuiteCli | null {
  const cli = (suite as { cli?: unknown }).cli;
  return cli !== null && typeof cli === 'object' ? (cli as SuiteCli) : null;
}

// One line of an import's error. esbuild (through tsx) says "Transform failed" first and what and
// where on the next line, after the file's absolute path: that line is kept, without the path.
function firstLine(err: unknown): string {
  const lines = String((err as Error)?.message ?? err).split('\n');
  const where = /^Transform failed/.test(lines[0]!) ? /^.*:(\d+):(\d+): ERROR: (.*)$/.exec(lines[1] ?? '') : null;
  return where ? `${where[3]} (line ${where[1]}, column ${where[2]})` : lines[0]!;
}

// The line of the suite file where a throwing import threw: the first frame of its stack in that
// file (tsx maps the lines back to the source). Null when no frame is in it.
function lineInFile(err: unknown, absolute: string): number | null {
  const stack = String((err as Error)?.stack ?? '');
  const url = pathToFileURL(absolute).href;
  for (const frame of stack.split('\n').slice(1)) {
    for (const name of [url, absolute]) {
      const at = frame.indexOf(`${name}:`);
      if (at < 0) continue;
      const line = /^:(\d+)/.exec(frame.slice(at + name.length));
      if (line) return Number(line[1]);
    }
  }
  return null;
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
