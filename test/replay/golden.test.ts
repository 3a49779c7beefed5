import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { outputFileNames, rebuildOutputs, writeOutputs } from '../../src/projections/outputs.js';
import { listFiles, tempDir } from '../support/cli.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';

// The golden logs include the studies' runs: every plugin is loaded, so the registry finds their suites.
await loadAllPlugins();

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));

describe('golden logs', () => {
  for (const runId of [
    'smoke',
    'context-snapshot',
    'context-engineering',
    'memory-eviction',
    'memory-eviction-policy',
    'memory-eviction-grade',
    'dataset',
    'smoke-usage-missing',
  ]) {
    it(`${runId}: outputs and artifacts rebuilt from the committed log equal the committed ones byte for byte`, async () => {
      const log = await FileEventLog.open({ root: GOLDEN });
      const tmp = await tempDir();
      try {
        const outputs = await rebuildOutputs(log, runId, suiteNamed);
        await writeOutputs(tmp.dir, outputs);
        // Every committed file (the four outputs, or the suite's own files, and any artifact revisions) and nothing else.
        const expectedFiles = await listFiles(join(GOLDEN, runId, 'expected'));
        expect(await listFiles(tmp.dir)).to.deep.equal(expectedFiles);
        expect(expectedFiles).to.include.members(outputFileNames(outputs));
        for (const f of expectedFiles) {
          const expected = await readFile(join(GOLDEN, runId, 'expected', f), 'utf8');
          const actual = await readFile(join(tmp.dir, f), 'utf8');
          expect(actual, f).to.equal(expected);
        }
      } finally {
        await log.close();
        await tmp.cleanup();
      }
    });
  }
});
