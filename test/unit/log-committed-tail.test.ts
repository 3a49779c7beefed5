import { expect } from 'chai';
import { CommittedTail } from '../../src/log/file/committed-tail.js';
import { toolCalled } from '../support/events.js';

const events = (first: number, n: number) => Array.from({ length: n }, (_, i) => toolCalled('r', 'case-1:a:1', first + i));
const seqsOf = (tail: CommittedTail, from: number) => {
  const s = tail.from(from);
  if (!s) return undefined;
  const out: { id: string; end: number }[] = [];
  for (let i = s.start; i < s.end; i += 1) out.push({ id: s.events[i]!.id, end: s.ends[i]! });
  return out;
};

describe('committed tail (the writer events an in-process follower takes from memory)', () => {
  it('hands out the durable events from a seq, with where each frame ends; nothing before the first or past the last', () => {
    const tail = new CommittedTail(11); // the log held 10 events already
    expect(tail.from(11), 'nothing durable yet').to.equal(undefined);
    const batch = events(11, 3);
    tail.committed(batch, [1100, 1150, 1175], 1000); // frames at 1000..1100..1150..1175
    expect(seqsOf(tail, 12)).to.deep.equal([
      { id: batch[1]!.id, end: 1150 },
      { id: batch[2]!.id, end: 1175 },
    ]);
    expect(tail.from(10), 'before the tail: the file').to.equal(undefined);
    expect(tail.from(14), 'not durable yet').to.equal(undefined);
    expect(tail.from(11)!.events[tail.from(11)!.start], 'the very object appended').to.equal(batch[0]);
  });

  it('keeps the last 2048 events, and a slice handed out stays valid when the tail moves on', () => {
    const tail = new CommittedTail(1);
    // Frames of 10 bytes each: seq s ends at byte 10 s.
    const tenBytes = (seq: number) => Array.from({ length: 100 }, (_, k) => 10 * (seq + k));
    for (let seq = 1; seq <= 5000; seq += 100) tail.committed(events(seq, 100), tenBytes(seq), 10 * (seq - 1));
    const held = tail.from(3000)!;
    const heldIds = Array.from({ length: held.end - held.start }, (_, k) => held.events[held.start + k]!.id);
    expect(tail.from(5000 - 2048), 'older than the last 2048').to.equal(undefined);
    expect(seqsOf(tail, 5000 - 2047)!.length).to.equal(2048);
    // The tail compacts its arrays as it goes on: what was handed out is not rewritten.
    for (let seq = 5001; seq <= 9000; seq += 100) tail.committed(events(seq, 100), tenBytes(seq), 10 * (seq - 1));
    expect(Array.from({ length: held.end - held.start }, (_, k) => held.events[held.start + k]!.id)).to.deep.equal(heldIds);
    expect(held.ends[held.start], "seq 3000's frame ends at byte 30 000").to.equal(30_000);
    expect(seqsOf(tail, 9000)).to.deep.equal([{ id: events(9000, 1)[0]!.id, end: 90_000 }]);
  });

  it('keeps at most 4 MB of frames, but always the last event however large', () => {
    const tail = new CommittedTail(1);
    tail.committed(events(1, 3), [3_000_000, 6_000_000, 11_000_000], 0);
    expect(tail.from(2), 'dropped: over 4 MB with the last').to.equal(undefined);
    expect(seqsOf(tail, 3)!.map((e) => e.end)).to.deep.equal([11_000_000]);
  });
});
