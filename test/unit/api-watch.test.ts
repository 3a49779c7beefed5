import { expect } from 'chai';
import { run } from '../../src/api/index.js';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { suiteNamed } from '../../src/app/index.js';
import { tempDir } from '../support/cli.js';

describe('api: onEvent is fed by the log subscription', function () {
  this.timeout(120_000);

  it('sees every event of the run once, in log order, before run() returns', async () => {
    const tmp = await tempDir('evalog-api-watch-');
    const log = await FileEventLog.open({ root: tmp.dir });
    try {
      const seen: [number, boolean][] = [];
      const result = await run({
        suite: suiteNamed('smoke')!,
        log,
        runId: 'watched',
        config: { cases: ['fruit_basket'] },
        onEvent: (e, replayed) => seen.push([e.seq, replayed]),
      });
      expect(result.status).to.equal('completed');
      const stored: StoredEvent[] = [];
      for await (const e of log.read('watched')) stored.push(e);
      expect(seen).to.deep.equal(stored.map((e) => [e.seq, false]));
      expect(stored.at(-1)!.type).to.equal('RunCompleted');
    } finally {
      await log.close();
      await tmp.cleanup();
    }
  });
});
