/**
 * The published protocol read from a user's copy of upstream's `deermem_eviction/` folder: the four
 * files are checked against their published hashes first (one changed byte is refused, naming the
 * file), then parsed and validated by the same rules as evalog's bundled variant.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { type PinMismatch, ProtocolPinError, ProtocolValidationError } from './errors.js';
import { assembleProtocol, type Protocol, type ProtocolArtifacts, readBytes, sha256Hex } from './protocol.js';
import { PINNED_FILES, PUBLISHED_ARTIFACTS, UPSTREAM_LAYOUT } from './published-pins.js';

export interface LoadProtocolDirOptions {
  /** Run files that are not the published ones; they are then recorded and labelled "unpinned protocol". */
  allowUnpinned?: boolean;
  /** The hashes to pin to (default: the published ones; the CLI never passes others). Tests of the pin check give a stand-in's. */
  pins?: Readonly<ProtocolArtifacts>;
}

/**
 * Loads the protocol from an upstream-layout folder. Without `allowUnpinned`, any of the four files
 * whose sha256 is not the published one is refused (`ProtocolPinError`, every such file with both
 * hashes) before anything is parsed; with it, the actual hashes are recorded and `source.pinned`
 * says whether they are the published ones.
 */
export function loadProtocolDir(dir: string, options: LoadProtocolDirOptions = {}): Protocol {
  const root = resolve(dir);
  if (!existsSync(join(root, UPSTREAM_LAYOUT.config)))
    throw new ProtocolValidationError(join(root, UPSTREAM_LAYOUT.config), [
      { path: '(file)', message: 'is missing: --protocol-dir names a deermem_eviction/ folder (configs/, manifests/, prompts/)' },
    ]);
  const pins = options.pins ?? PUBLISHED_ARTIFACTS;
  const mismatches: PinMismatch[] = [];
  for (const f of PINNED_FILES) {
    const file = join(root, f.path);
    const actual = sha256Hex(readBytes(file));
    if (actual !== pins[f.artifact]) mismatches.push({ file, expected: pins[f.artifact], actual });
  }
  if (mismatches.length > 0 && !options.allowUnpinned) throw new ProtocolPinError(mismatches);
  const paths = {
    config: join(root, UPSTREAM_LAYOUT.config),
    official: join(root, UPSTREAM_LAYOUT.official),
    synthetic: join(root, UPSTREAM_LAYOUT.synthetic),
  };
  // A pinned config names the pinned prompt path, so all four pinned means the prompt read is the pinned one.
  return assembleProtocol('upstream', root, paths, parseYamlFile, undefined, mismatches.length === 0);
}

/**
 * Parses the YAML config as upstream's loader (PyYAML's safe_load, YAML 1.1) reads it, except that
 * a timestamp stays a string, so `evaluation_time` is checked by the config's own rule (a timezone
 * is required) rather than turned into a Date. Duplicate keys are refused.
 */
export function parseYamlFile(file: string, bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ProtocolValidationError(file, [{ path: '(root)', message: 'is not valid UTF-8' }]);
  }
  try {
    return parse(text, { version: '1.1', customTags: (tags) => tags.filter((t) => typeof t !== 'object' || t.tag !== 'tag:yaml.org,2002:timestamp') });
  } catch (err) {
    const first = ((err as Error).message ?? String(err)).split('\n')[0];
    throw new ProtocolValidationError(file, [{ path: '(root)', message: `is not valid YAML: ${first}` }]);
  }
}
