import { expect } from 'chai';
import { Writable } from 'node:stream';
import { CONTEXT_SNAPSHOT_2026_09_12, publishedFolder } from '../../../../test/support/published.js';
import { summarizeCommand } from '../../src/cli/summarize.js';

const published = publishedFolder(CONTEXT_SNAPSHOT_2026_09_12);

describe('evalog summarize on the published context-snapshot rows', () => {
  published.it('reproduces the published summary.json value for value', async () => {
    let out = '';
    const stdout = new Writable({
      write: (c, _e, cb) => {
        out += c.toString();
        cb();
      },
    });
    const stderr = new Writable({ write: (_c, _e, cb) => cb() });
    // The suite's own command, as `evalog summarize` hands over to it (the CLI's routing is test/e2e/messages.test.ts's).
    const code = await summarizeCommand.run([published.path('rows.jsonl')], { stdout, stderr, env: {}, cwd: process.cwd() });
    expect(code).to.equal(0);
    expect(JSON.parse(out)).to.deep.equal(JSON.parse(published.read('summary.json')));
    // Floats compared exactly, not approximately: these are the figures the fixture README names.
    expect(JSON.parse(out).isolated_handoff.mean_seconds).to.equal(33.73334966699986);
    expect(JSON.parse(out).snapshot.median_seconds).to.equal(13.929723041510442);
  });
});
