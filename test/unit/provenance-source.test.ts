import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectProvenance, SOURCE_HASH_FILE, sourcesHash } from '../../src/harness/orchestration/provenance.js';
import { writeSourceHash } from '../../scripts/source-hash.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe("provenance: the sources' hash (source_sha256)", () => {
  it('run from the sources (no build beside them), it is the hash of src/ and packages/*/src/ as they are', () => {
    // A build's file here would be read instead, and stand for sources it may not have been made from.
    expect(existsSync(join(SRC, SOURCE_HASH_FILE)), `src/${SOURCE_HASH_FILE} must not exist`).to.equal(false);
    expect(collectProvenance().source_sha256).to.equal(sourcesHash(PROJECT_ROOT));
  });

  it("a build's record (scripts/source-hash.ts) holds that same hash, one line", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalog-source-hash-'));
    try {
      writeSourceHash(dir);
      expect(await readFile(join(dir, SOURCE_HASH_FILE), 'utf8')).to.equal(`${sourcesHash(PROJECT_ROOT)}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("covers the built-in plugins' sources: an edit to a study's code changes it, its manifests and tests do not", async () => {
    const root = await mkdtemp(join(tmpdir(), 'evalog-sources-'));
    try {
      await mkdir(join(root, 'src'), { recursive: true });
      await mkdir(join(root, 'packages/suite-x/src'), { recursive: true });
      await mkdir(join(root, 'packages/suite-x/test'), { recursive: true });
      await writeFile(join(root, 'src/a.ts'), 'export const a = 1;\n');
      await writeFile(join(root, 'packages/suite-x/src/b.ts'), 'export const b = 1;\n');
      const before = sourcesHash(root);
      await writeFile(join(root, 'packages/suite-x/test/b.test.ts'), '// a test\n');
      expect(sourcesHash(root)).to.equal(before);
      await writeFile(join(root, 'packages/suite-x/src/b.ts'), 'export const b = 2;\n');
      expect(sourcesHash(root)).to.not.equal(before);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
