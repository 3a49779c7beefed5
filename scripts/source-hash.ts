// Records the sha256 of src/ beside a build's modules, for run.json's `source_sha256`
// (src/harness/orchestration/provenance.ts reads it instead of hashing a tree at every run).
//
//   npx tsx scripts/source-hash.ts DIR    writes DIR/source.sha256 (run by `npm run build` for dist/)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_HASH_FILE, treeHash } from '../src/harness/orchestration/provenance.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Writes `dir`/source.sha256: the hash of the project's src/ as it is now. */
export function writeSourceHash(dir: string): void {
  writeFileSync(join(dir, SOURCE_HASH_FILE), `${treeHash(SRC)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [dir] = process.argv.slice(2);
  if (!dir) throw new Error('usage: npx tsx scripts/source-hash.ts DIR');
  writeSourceHash(dir);
}
