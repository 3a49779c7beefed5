import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectProvenance, SOURCE_HASH_FILE, treeHash } from '../../src/harness/orchestration/provenance.js';
import { writeSourceHash } from '../../scripts/source-hash.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

describe("provenance: the sources' hash (source_sha256)", () => {
  it('run from the sources (no build beside them), it is the hash of src/ as it is', () => {
    // A build's file here would be read instead, and stand for sources it may not have been made from.
    expect(existsSync(join(SRC, SOURCE_HASH_FILE)), `src/${SOURCE_HASH_FILE} must not exist`).to.equal(false);
    expect(collectProvenance().source_sha256).to.equal(treeHash(SRC));
  });

  it("a build's record (scripts/source-hash.ts) holds that same hash, one line", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalog-source-hash-'));
    try {
      writeSourceHash(dir);
      expect(await readFile(join(dir, SOURCE_HASH_FILE), 'utf8')).to.equal(`${treeHash(SRC)}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
