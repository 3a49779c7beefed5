import { appendFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { encodeEvent } from '../../src/events/index.js';
import { fileHeader, writeFrame } from '../../src/log/file/format.js';
import { streamEvents, Wakeup, type StreamSource } from '../../src/log/file/stream.js';
import type { RunWriter } from '../../src/log/file/writer.js';
import { jobEvents } from '../support/events.js';

function frame(payload: Buffer): Buffer {
  const out = Buffer.alloc(8 + payload.length);
  writeFrame(out, 0, payload);
  return out;
}

describe('file log stream', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'evalog-stream-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('does not sleep through a commit that lands while it is reading (the catch-up/live boundary)', async () => {
    const file = join(dir, 'events.evlog');
    const [first, second] = jobEvents('r', 2).map((e) => frame(encodeEvent(e)));
    await writeFile(file, Buffer.concat([fileHeader(), first!]));
    let size = fileHeader().length + first!.length;
    const wakes = new Set<Wakeup>();
    let committed = false;
    // A writer whose second commit becomes durable right after the follower took its limit.
    const writer = {
      startFor: () => undefined,
      committedFrom: () => undefined,
      get durableSize() {
        const limit = size;
        if (!committed) {
          committed = true;
          appendFileSync(file, second!);
          size += second!.length;
          for (const w of wakes) w.bump();
        }
        return limit;
      },
    } as unknown as RunWriter;
    const source: StreamSource = {
      file,
      pollIntervalMs: 600_000, // a missed wake-up would hang, not merely be late
      writer: () => writer,
      closed: () => false,
      register: (wake) => {
        wakes.add(wake);
        return () => wakes.delete(wake);
      },
    };
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 3000);
    const seqs: number[] = [];
    for await (const e of streamEvents(source, 1, { signal: ac.signal })) if (seqs.push(e.seq) === 2) break;
    clearTimeout(timer);
    expect(seqs).to.deep.equal([1, 2]);
  });

  it('wakes a sleeping follower at once on a bump, and does not sleep past one it has not seen', async () => {
    const wake = new Wakeup();
    const t0 = performance.now();
    const sleeping = wake.wait(wake.version, 60_000);
    wake.bump();
    await sleeping;
    await wake.wait(wake.version - 1, 60_000); // a bump it has not seen yet: no sleep at all
    // Either wait alone would sleep 60 s; half of that tells a wake-up from a sleep on any machine.
    expect(performance.now() - t0).to.be.lessThan(30_000);
  });
});
