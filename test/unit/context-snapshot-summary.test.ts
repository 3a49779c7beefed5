import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.js';

const PUBLISHED = new URL('../../../shared/fixtures/published/context-snapshot-2026-09-12/', import.meta.url);

describe('evalog summarize on the published context-snapshot rows', () => {
  it('reproduces the published summary.json value for value', async () => {
    let out = '';
    const stdout = new Writable({
      write: (c, _e, cb) => {
        out += c.toString();
        cb();
      },
    });
    const stderr = new Writable({ write: (_c, _e, cb) => cb() });
    const code = await runCli(['summarize', fileURLToPath(new URL('rows.jsonl', PUBLISHED))], { stdout, stderr, env: {}, cwd: process.cwd() });
    expect(code).to.equal(0);
    const published = JSON.parse(await readFile(new URL('summary.json', PUBLISHED), 'utf8'));
    expect(JSON.parse(out)).to.deep.equal(published);
    // Floats compared exactly, not approximately: these are the figures the fixture README names.
    expect(JSON.parse(out).isolated_handoff.mean_seconds).to.equal(33.73334966699986);
    expect(JSON.parse(out).snapshot.median_seconds).to.equal(13.929723041510442);
  });
});
