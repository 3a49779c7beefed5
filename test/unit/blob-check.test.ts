// The blob check names the event that first referenced a damaged blob, in log order, whatever
// order the events are fed in (replay and resume feed them job by job, not in log order).
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { BlobChecker, BlobDamagedError, BlobNotFoundError, type BlobStore } from '../../src/log/index.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A store holding `blobs`; `get` of anything else is a BlobNotFoundError, as in both logs. */
function storeOf(blobs: Uint8Array[]): BlobStore {
  const byHash = new Map(blobs.map((b) => [sha(b), b]));
  return {
    put: async (b) => sha(b),
    has: async (h) => byHash.has(h),
    get: async (h) => {
      const b = byHash.get(h);
      if (b === undefined) throw new BlobNotFoundError(h);
      return b;
    },
  };
}

/** Only what the checker reads of a request event: its id, seq, type and message hashes. */
const request = (id: string, seq: number, messages: string[]) => ({ id, seq, type: 'ProviderCallRequested', data: { messages } }) as unknown as StoredEvent;

describe('blob check: the earliest referrer is named', () => {
  const present = Buffer.from('present');
  const gone = sha(Buffer.from('gone'));

  it('names the lowest seq that references a missing blob even when a later event was noted first', async () => {
    const checker = new BlobChecker(storeOf([present]));
    // Job B's events first (seq 9), then job A's (seq 4): as a per-job walk of a recording feeds them.
    checker.note(request('run/b:1/req', 9, [sha(present), gone]));
    checker.note(request('run/a:1/req', 4, [gone]));
    const err = await checker.verify().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(BlobDamagedError);
    expect((err as BlobDamagedError).eventId).to.equal('run/a:1/req');
    expect((err as BlobDamagedError).seq).to.equal(4);
    expect((err as BlobDamagedError).problem).to.equal('missing');
  });

  it('of two damaged blobs, reports the one referenced first in the log', async () => {
    const other = sha(Buffer.from('other'));
    const checker = new BlobChecker(storeOf([]));
    checker.note(request('run/b:1/req', 7, [other]));
    checker.note(request('run/a:1/req', 3, [gone]));
    const err = (await checker.verify().then(
      () => null,
      (e: unknown) => e,
    )) as BlobDamagedError;
    expect([err.hash, err.seq]).to.deep.equal([gone, 3]);
  });

  it('checks each blob once: a blob seen again after a passing verify is not read again', async () => {
    let reads = 0;
    const base = storeOf([present]);
    const counting: BlobStore = {
      ...base,
      get: async (h) => {
        reads += 1;
        return base.get(h);
      },
    };
    const checker = new BlobChecker(counting);
    await checker.checkEvent(request('run/a:1/req', 1, [sha(present)]));
    await checker.checkEvent(request('run/a:1/req2', 2, [sha(present)]));
    expect(reads).to.equal(1);
  });
});
