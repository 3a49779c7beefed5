import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fileHeader, HEADER_BYTES, writeFrame } from '../../src/log/file/format.js';
import { CHUNK_BYTES, findFrameAfter, FrameScanner, type Frame } from '../../src/log/file/scan.js';
import { LogCorruptedError } from '../../src/log/index.js';

function frames(payloads: Buffer[]): { bytes: Buffer; offsets: number[] } {
  const bytes = Buffer.alloc(HEADER_BYTES + payloads.reduce((n, p) => n + 8 + p.length, 0));
  fileHeader().copy(bytes);
  const offsets: number[] = [];
  let at = HEADER_BYTES;
  for (const p of payloads) {
    offsets.push(at);
    at = writeFrame(bytes, at, p);
  }
  return { bytes, offsets };
}

/** A FileHandle that remembers the largest single read, to prove reading is chunked. */
function spy(fh: FileHandle): { fh: FileHandle; largest: () => number } {
  let largest = 0;
  const read = fh.read.bind(fh) as (...a: unknown[]) => ReturnType<FileHandle['read']>;
  const wrapped = Object.create(fh) as FileHandle;
  (wrapped as unknown as { read: unknown }).read = (buf: Buffer, off: number, len: number, pos: number) => {
    largest = Math.max(largest, len);
    return read(buf, off, len, pos);
  };
  return { fh: wrapped, largest: () => largest };
}

describe('file log frame scanner', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'evalog-scan-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function scan(bytes: Buffer, limit = bytes.length, start = HEADER_BYTES): Promise<{ got: Frame[]; scanner: FrameScanner; largest: number }> {
    const file = join(dir, 'events.evlog');
    await writeFile(file, bytes);
    const handle = await open(file, 'r');
    try {
      const s = spy(handle);
      const scanner = new FrameScanner(s.fh, file, start);
      const got: Frame[] = [];
      for await (const f of scanner.frames(limit)) got.push({ offset: f.offset, payload: Buffer.from(f.payload) });
      return { got, scanner, largest: s.largest() };
    } finally {
      await handle.close();
    }
  }

  it('reads many frames across chunk boundaries and frames larger than a chunk, in bounded reads', async () => {
    const payloads = Array.from({ length: 3000 }, (_, i) => randomBytes(i % 500 === 7 ? CHUNK_BYTES + 200_000 : 1 + (i % 900)));
    const { bytes, offsets } = frames(payloads);
    const { got, largest } = await scan(bytes);
    expect(got.map((f) => f.offset)).to.deep.equal(offsets);
    expect(got.every((f, i) => f.payload.equals(payloads[i]!))).to.equal(true);
    // Bounded reads: one chunk, or one frame when a frame is larger than a chunk; never the file.
    expect(largest).to.be.at.most(CHUNK_BYTES + 200_008);
    expect(largest).to.be.lessThan(bytes.length / 4);
  });

  it('stops before a partial frame and before the limit, keeping its offset there', async () => {
    const { bytes, offsets } = frames([Buffer.from('a'), Buffer.from('bb'), Buffer.from('ccc')]);
    const partial = await scan(bytes.subarray(0, bytes.length - 1));
    expect(partial.got).to.have.length(2);
    expect(partial.scanner.offset).to.equal(offsets[2]);
    const limited = await scan(bytes, offsets[1]!);
    expect(limited.got).to.have.length(1);
    const fromMiddle = await scan(bytes, bytes.length, offsets[1]);
    expect(fromMiddle.got.map((f) => f.payload.toString())).to.deep.equal(['bb', 'ccc']);
  });

  it('throws LogCorruptedError at the damaged frame when valid frames follow', async () => {
    const { bytes, offsets } = frames([Buffer.from('first'), Buffer.from('second'), Buffer.from('third')]);
    bytes[offsets[1]! + 9] = bytes[offsets[1]! + 9]! ^ 1;
    let error: unknown;
    try {
      await scan(bytes);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(LogCorruptedError);
    expect((error as LogCorruptedError).offset).to.equal(offsets[1]);
    expect((error as LogCorruptedError).message)
      .to.include(`byte ${offsets[1]}`)
      .and.include(`byte ${offsets[2]}`);
  });

  it('finds the next valid frame after damage, or none in a torn tail', async () => {
    const { bytes, offsets } = frames([Buffer.from('one'), Buffer.from('two'), Buffer.from('three')]);
    bytes.writeUInt32LE(0xffffffff, offsets[0]!); // the length is gone: only a byte scan finds frame two
    const file = join(dir, 'f');
    await writeFile(file, Buffer.concat([bytes, Buffer.alloc(64)]));
    const fh = await open(file, 'r');
    try {
      expect(await findFrameAfter(fh, offsets[0]!, bytes.length + 64)).to.equal(offsets[1]);
      expect(await findFrameAfter(fh, offsets[2]!, bytes.length + 64)).to.equal(null);
      expect(await findFrameAfter(fh, bytes.length, bytes.length + 64)).to.equal(null);
    } finally {
      await fh.close();
    }
  });
});
