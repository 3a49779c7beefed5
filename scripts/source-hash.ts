// Records the sha256 of the sources (src/ and packages/*/src/) beside a build's modules, for run.json's `source_sha256`
// (src/harness/orchestration/provenance.ts reads it instead of hashing a tree at every run).
//
//   npx tsx scripts/source-hash.ts DIR    writes DIR/source.sha256 (run by `npm run build` for dist/)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_HASH_FILE, sourcesHash } from '../src/harness/orchestration/provenance.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Writes `dir`/source.sha256: the hash of the project's sources as they are now. */
export function writeSourceHash(dir: string): void {
  writeFileSync(join(dir, SOURCE_HASH_FILE), `${sourcesHash(ROOT)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [dir] = process.argv.slice(2);
  if (!dir) throw new Error('usage: npx tsx scripts/source-hash.ts DIR');
  writeSourceHash(dir);
}
