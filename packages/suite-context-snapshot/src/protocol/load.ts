// Reading the user's copy of the published protocol folder: hash the three files, refuse bytes that
// are not the published ones (before any of their Python runs), then read config.json in TS and
// cases.py / prompts.py through evalog's Python loader. Synchronous: it runs before a run folder exists.
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseProtocolConfig } from './config.js';
import { ProtocolFileError, ProtocolPathError } from './errors.js';
import { checkPins, PROTOCOL_FILES, type ProtocolFileName, type ProtocolPins, sha256Hex } from './pins.js';
import { runProtocolLoader } from './python-loader.js';
import { parseProtocolCases, parseProtocolPrompts } from './schema.js';
import type { ContextSnapshotProtocol } from './types.js';

/** How to read a folder: `allowUnpinned` accepts changed files (recorded as unpinned); `pins` is for tests. */
export interface LoadProtocolOptions {
  allowUnpinned: boolean;
  pins?: ProtocolPins;
}

function readBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ProtocolPathError(
      path,
      code === 'ENOENT' ? 'missing (a protocol folder holds cases.py, prompts.py and config.json)' : `cannot be read (${code ?? (err as Error).message})`,
    );
  }
}

/**
 * Loads the protocol folder `dir`. Throws ProtocolPathError, UnpinnedProtocolError,
 * ProtocolConfigError or ProtocolFileError (all exit 2 in the CLI), or PythonUnavailableError.
 */
export function loadContextSnapshotProtocol(dir: string, opts: LoadProtocolOptions): ContextSnapshotProtocol {
  const source = resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(source).isDirectory();
  } catch {
    throw new ProtocolPathError(source, 'no such folder (give the context_snapshot/ folder of your copy of the protocol)');
  }
  if (!isDir) throw new ProtocolPathError(source, 'not a folder (give the context_snapshot/ folder of your copy of the protocol)');

  const paths = Object.fromEntries(PROTOCOL_FILES.map((f) => [f, join(source, f)])) as Record<ProtocolFileName, string>;
  const bytes = Object.fromEntries(PROTOCOL_FILES.map((f) => [f, readBytes(paths[f])])) as Record<ProtocolFileName, Buffer>;
  const hashes = Object.fromEntries(PROTOCOL_FILES.map((f) => [f, sha256Hex(bytes[f])])) as Record<ProtocolFileName, string>;
  const { pinned, files } = checkPins(hashes, paths, opts);

  const config = parseProtocolConfig(bytes['config.json'].toString('utf8'), paths['config.json']);

  const cases = runProtocolLoader(paths['cases.py'], bytes['cases.py'], 'cases');
  if (!cases.ok) throw new ProtocolFileError(paths['cases.py'], cases.error);
  const prompts = runProtocolLoader(paths['prompts.py'], bytes['prompts.py'], 'prompts');
  if (!prompts.ok) throw new ProtocolFileError(paths['prompts.py'], prompts.error);

  return {
    id: config.protocol,
    source,
    pinned,
    files,
    cases: parseProtocolCases(cases.value, paths['cases.py']),
    prompts: parseProtocolPrompts(prompts.value, prompts.invalid, paths['prompts.py']),
    config,
  };
}
