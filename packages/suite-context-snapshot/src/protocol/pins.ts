// The published protocol's bytes, by sha256. evalog holds none of the upstream text, only these
// hashes: a user's copy whose bytes hash the same is the published protocol, and anything else is
// refused unless the user asks for an unpinned run (the run then records the hashes it read).
import { createHash } from 'node:crypto';
import { UnpinnedProtocolError } from './errors.js';
import type { ProtocolFileHash } from './types.js';

/** The three files of a protocol folder, in the order they are checked. */
export const PROTOCOL_FILES = ['cases.py', 'prompts.py', 'config.json'] as const;

export type ProtocolFileName = (typeof PROTOCOL_FILES)[number];

/** A pin table: the sha256 (lowercase hex) each file must have. */
export type ProtocolPins = Readonly<Record<ProtocolFileName, string>>;

/** zhudao/deer-flow backend/scripts/benchmark/context_snapshot/ at commit f649aa8fe2e86bb2a791a10c63a495de3d7212ea. */
export const PUBLISHED_PINS: ProtocolPins = {
  'cases.py': '624608366555415aaf4332c89dd645e65038fee2df9ec64ca1ba6f6b4e4fbd95',
  'prompts.py': '26ed9a1a2767be644e7768ba8d7158b763ea038c2b1d19c1828e3bdd17af7b13',
  'config.json': '93ae341b521a7c53602e8dafb7909fb88dcb0066f53bb45cc58639648e7ef4cd',
};

/** sha256 of a file's bytes, lowercase hex. */
export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Compares the folder's hashes with a pin table. `paths` names each file in the error. Without
 * `allowUnpinned` the first file that differs is refused; with it, the hashes are returned and
 * `pinned` says whether all three matched.
 */
export function checkPins(
  hashes: Readonly<Record<ProtocolFileName, string>>,
  paths: Readonly<Record<ProtocolFileName, string>>,
  opts: { allowUnpinned: boolean; pins?: ProtocolPins },
): { pinned: boolean; files: ProtocolFileHash[] } {
  const pins = opts.pins ?? PUBLISHED_PINS;
  const files = PROTOCOL_FILES.map((file) => ({ file, sha256: hashes[file], pinned: pins[file] }));
  const differing = files.find((f) => f.sha256 !== f.pinned);
  if (differing && !opts.allowUnpinned) throw new UnpinnedProtocolError(paths[differing.file], differing.pinned, differing.sha256);
  return { pinned: differing === undefined, files };
}
