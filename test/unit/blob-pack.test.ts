// The embedded log's blob pack on real files: puts of one turn are one frame each in one commit,
// a reader in another log instance finds blobs appended after it first looked, a torn tail is cut
// (its bytes kept) by the next writer only, damage names the blob, and runs written before the pack
// (a file per blob) still read.
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FileEventLog, ReadOnlyLogError, runLogPaths } from '../../src/log/file/index.js';
import { BlobNotFoundError, LogCorruptedError, LogLockedError } from '../../src/log/index.js';
import { alterBlob, packFrames, removeBlob } from '../support/blob-pack.js';
import { jobStarted, uniqueRunId } from '../support/events.js';

const readlinkOrNull = (path: string) => {
  try {
    return readlinkSync(path);
  } catch {
    return null; // the listing's own handle is gone by now
  }
};
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('FileEventLog blob pack', () => {
  let root: string;
  let warnings: string[];
  const open = (readOnly = false) => FileEventLog.open({ root, readOnly, onWarning: (m) => warnings.push(m) });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'evalog-pack-'));
    warnings = [];
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores each new blob once, whatever how many puts of it race, and reads them back after a reopen', async () => {
    const run = uniqueRunId();
    const log = await open();
    const blobs = Array.from({ length: 50 }, (_, i) => Buffer.from(`message ${i % 40}`));
    const hashes = await Promise.all(blobs.map((b) => log.blobs(run).put(b)));
    expect(hashes).to.deep.equal(blobs.map(sha));
    expect(await log.blobs(run).put(Buffer.alloc(0))).to.equal(sha(Buffer.alloc(0)));
    await log.close();
    const frames = await packFrames(runLogPaths(root, run).pack);
    expect(frames.map((f) => f.hash)).to.have.members([...new Set([...hashes, sha(Buffer.alloc(0))])]);
    expect(frames).to.have.length(41);
    const again = await open(true);
    for (const [i, h] of hashes.entries()) expect(text(await again.blobs(run).get(h))).to.equal(`message ${i % 40}`);
    expect((await again.blobs(run).get(sha(Buffer.alloc(0)))).length).to.equal(0);
    expect(await again.blobs(run).has(sha(Buffer.from('never stored')))).to.equal(false);
    expect(await rejection(again.blobs(run).get(sha(Buffer.from('never stored'))))).to.be.instanceOf(BlobNotFoundError);
    expect(await rejection(again.blobs(run).put(Buffer.from('x')))).to.be.instanceOf(ReadOnlyLogError);
    await again.close();
  });

  it('a reader opened earlier finds blobs another log instance appended since', async () => {
    const run = uniqueRunId();
    const writer = await open();
    await writer.append([jobStarted(run)]);
    const first = await writer.blobs(run).put(Buffer.from('first'));
    const reader = await open(true);
    expect(text(await reader.blobs(run).get(first))).to.equal('first');
    const second = await writer.blobs(run).put(Buffer.from('second'));
    expect(text(await reader.blobs(run).get(second))).to.equal('second');
    expect(await reader.blobs(run).has(second)).to.equal(true);
    await reader.close();
    await writer.close();
  });

  it('a reader answering many gets at once holds one handle on the pack, and none once closed', async () => {
    const run = uniqueRunId();
    const writer = await open();
    const hashes = await Promise.all(Array.from({ length: 64 }, (_, i) => writer.blobs(run).put(Buffer.from(`blob ${i}`))));
    await writer.close();
    const pack = runLogPaths(root, run).pack;
    const handlesOnPack = () => readdirSync('/proc/self/fd').filter((fd) => readlinkOrNull(`/proc/self/fd/${fd}`) === pack).length;
    const reader = await open(true);
    const got = await Promise.all(hashes.map((h) => reader.blobs(run).get(h)));
    expect(got.map(text)).to.deep.equal(hashes.map((_, i) => `blob ${i}`));
    expect(handlesOnPack()).to.equal(1);
    await reader.close();
    expect(handlesOnPack()).to.equal(0);
  });

  it('a put takes the run writer lock: another process holding the run refuses it', async () => {
    const run = uniqueRunId();
    const holder = await open();
    await holder.append([jobStarted(run)]);
    const other = await open();
    expect(await rejection(other.blobs(run).put(Buffer.from('late')))).to.be.instanceOf(LogLockedError);
    await other.close();
    await holder.close();
  });

  it('a torn tail is left alone by readers and cut by the next writer, its bytes kept beside the pack', async () => {
    const run = uniqueRunId();
    const log = await open();
    const kept = await log.blobs(run).put(Buffer.from('kept'));
    await log.close();
    const { pack, dir } = runLogPaths(root, run);
    const whole = await readFile(pack);
    // A crash in the middle of a commit: a frame header announcing more bytes than were written.
    const torn = Buffer.alloc(20);
    torn.writeUInt32LE(500, 0);
    await appendFile(pack, torn);
    const reader = await open(true);
    expect(text(await reader.blobs(run).get(kept))).to.equal('kept');
    await reader.close();
    expect((await readFile(pack)).length).to.equal(whole.length + 20);
    const writer = await open();
    const next = await writer.blobs(run).put(Buffer.from('next'));
    await writer.close();
    expect(warnings.join('\n')).to.include('cut a torn tail of 20 bytes');
    expect(await readdir(dir)).to.include(`blobs.pack.cut-${whole.length}`);
    expect((await packFrames(pack)).map((f) => f.hash)).to.deep.equal([kept, next]);
  });

  it("a reader that kept the torn tail's bytes in memory reads what a writer wrote over them after the cut", async () => {
    const run = uniqueRunId();
    const log = await open();
    const kept = await log.blobs(run).put(Buffer.from('kept'));
    await log.close();
    const { pack } = runLogPaths(root, run);
    const torn = Buffer.alloc(120, 0x5a);
    torn.writeUInt32LE(500, 0);
    await appendFile(pack, torn);
    // The reader's read of `kept` keeps the pack's first block in memory, torn bytes and all.
    const reader = await open(true);
    expect(text(await reader.blobs(run).get(kept))).to.equal('kept');
    const writer = await open();
    const next = await writer.blobs(run).put(Buffer.from('written where the torn frame was'));
    await writer.close();
    expect((await packFrames(pack)).map((f) => f.hash)).to.deep.equal([kept, next]);
    expect(text(await reader.blobs(run).get(next))).to.equal('written where the torn frame was');
    await reader.close();
  });

  it('reads back thousands of blobs of every size in any order, within a block, across blocks and larger than one', async () => {
    const run = uniqueRunId();
    const writer = await open();
    // Sizes from 1 byte to 9 KB, so blobs fall within a 4 KB block, across two, and over several.
    const blobs = Array.from({ length: 3000 }, (_, i) =>
      Buffer.from(`${i}:`.padEnd(1 + ((i * 7919) % (i % 50 === 0 ? 9000 : 300)), String.fromCharCode(97 + (i % 26)))),
    );
    const hashes = await Promise.all(blobs.map((b) => writer.blobs(run).put(b)));
    await writer.close();
    const reader = await open(true);
    // A fixed shuffle, read 32 at a time as the rows' derivation does.
    const order = hashes.map((_, i) => (i * 1237) % hashes.length);
    expect(new Set(order).size).to.equal(hashes.length);
    for (let i = 0; i < order.length; i += 32) {
      const part = order.slice(i, i + 32);
      const got = await Promise.all(part.map((k) => reader.blobs(run).get(hashes[k]!)));
      for (const [j, k] of part.entries()) expect(Buffer.compare(got[j]!, blobs[k]!), `blob ${k}`).to.equal(0);
    }
    await reader.close();
  });

  it('damage names the blob: an edited blob, bit rot in the middle, a lost blob; the other blobs still read', async () => {
    const run = uniqueRunId();
    const log = await open();
    const [a, b, c, d] = await Promise.all(['alpha', 'bravo', 'charlie', 'delta'].map((s) => log.blobs(run).put(Buffer.from(s))));
    await log.close();
    const { pack, dir } = runLogPaths(root, run);
    await alterBlob(dir, a!);
    // Bit rot: a payload byte flipped without mending the CRC, in a frame with whole frames after it.
    const frameB = (await packFrames(pack)).find((f) => f.hash === b)!;
    const bytes = await readFile(pack);
    bytes[frameB.start]! ^= 0x40;
    await writeFile(pack, bytes);
    await removeBlob(dir, c!);
    const reader = await open(true);
    for (const h of [a!, b!]) {
      const e = await rejection(reader.blobs(run).get(h));
      expect(e, h).to.be.instanceOf(LogCorruptedError);
      expect(e.message).to.include(`blob ${h}`).and.include('does not match its sha256');
    }
    expect(await rejection(reader.blobs(run).get(c!))).to.be.instanceOf(BlobNotFoundError);
    expect(text(await reader.blobs(run).get(d!))).to.equal('delta');
    await reader.close();
    // A writer keeps damage in the middle (it is no torn tail) and stores a whole copy on the next put.
    const writer = await open();
    await writer.blobs(run).put(Buffer.from('bravo'));
    await writer.close();
    const fresh = await open(true);
    expect(text(await fresh.blobs(run).get(b!))).to.equal('bravo');
    await fresh.close();
  });

  it('reads the blobs of a run written before the pack, a file each, and adds new ones to a pack', async () => {
    const run = uniqueRunId();
    const old = Buffer.from('from an older evalog');
    const { blobs, pack } = runLogPaths(root, run);
    await mkdir(join(blobs, sha(old).slice(0, 2)), { recursive: true });
    await writeFile(join(blobs, sha(old).slice(0, 2), sha(old)), old);
    const log = await open();
    expect(await log.blobs(run).has(sha(old))).to.equal(true);
    expect(text(await log.blobs(run).get(sha(old)))).to.equal('from an older evalog');
    const added = await log.blobs(run).put(Buffer.from('new'));
    await log.close();
    expect((await packFrames(pack)).map((f) => f.hash)).to.deep.equal([added]);
    await writeFile(join(blobs, sha(old).slice(0, 2), sha(old)), 'edited');
    const reader = await open(true);
    expect((await rejection(reader.blobs(run).get(sha(old)))).message).to.include('does not match its sha256');
    await reader.close();
  });
});
