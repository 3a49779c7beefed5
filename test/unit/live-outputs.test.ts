// Outputs derived while a run runs (LiveOutputs, fed by the run's follower) equal the golden
// files byte for byte, whatever the pace of the feed; a feed that skips or repeats an event is
// refused with LiveOutputsGapError, so the caller derives from the log instead.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suiteNamed } from '../../src/app/index.js';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { LiveOutputs, LiveOutputsGapError, writeOutputs } from '../../src/projections/index.js';
import { listFiles, tempDir } from '../support/cli.js';

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));

async function eventsOf(log: FileEventLog, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  return out;
}

describe('LiveOutputs', () => {
  for (const runId of ['smoke', 'dataset', 'context-snapshot', 'context-engineering']) {
    it(`${runId}: fed the golden log's events in bursts, writes the golden files byte for byte`, async () => {
      const log = await FileEventLog.open({ root: GOLDEN, readOnly: true });
      const tmp = await tempDir();
      try {
        const events = await eventsOf(log, runId);
        const live = new LiveOutputs(runId, suiteNamed, log.blobs(runId));
        // Bursts of 1 to 7 events between turns of the event loop, as a follower delivers them.
        for (let i = 0, size = 1; i < events.length; i += size, size = (size % 7) + 1) {
          for (const e of events.slice(i, i + size)) live.push(e);
          await new Promise((resolve) => setImmediate(resolve));
        }
        await writeOutputs(tmp.dir, await live.end());
        const expected = await listFiles(join(GOLDEN, runId, 'expected'));
        expect(await listFiles(tmp.dir)).to.deep.equal(expected);
        for (const f of expected) {
          expect(await readFile(join(tmp.dir, f), 'utf8'), f).to.equal(await readFile(join(GOLDEN, runId, 'expected', f), 'utf8'));
        }
      } finally {
        await log.close();
        await tmp.cleanup();
      }
    });
  }

  for (const [name, feed] of [
    ['skips an event', (events: StoredEvent[]) => [...events.slice(0, 3), ...events.slice(4)]],
    ['repeats an event', (events: StoredEvent[]) => [...events.slice(0, 4), events[3]!, ...events.slice(4)]],
    ['does not start at the first event', (events: StoredEvent[]) => events.slice(1)],
  ] as const) {
    it(`a feed that ${name} ends in LiveOutputsGapError`, async () => {
      const log = await FileEventLog.open({ root: GOLDEN, readOnly: true });
      try {
        const live = new LiveOutputs('smoke', suiteNamed, log.blobs('smoke'));
        for (const e of feed(await eventsOf(log, 'smoke'))) live.push(e);
        const err = await live.end().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(LiveOutputsGapError);
      } finally {
        await log.close();
      }
    });
  }
});
