import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { checkHeader, crc32, fileHeader, FORMAT_VERSION, HEADER_BYTES, MAGIC, tableCrc32, writeFrame } from '../../src/log/file/format.js';
import { LogCorruptedError } from '../../src/log/index.js';

describe('file log format', () => {
  it('computes CRC-32 (IEEE): the check value, and the table agrees with zlib', () => {
    expect(crc32(Buffer.from('123456789'))).to.equal(0xcbf43926);
    expect(tableCrc32(Buffer.from('123456789'))).to.equal(0xcbf43926);
    expect(tableCrc32(new Uint8Array(0))).to.equal(0);
    expect(typeof zlib.crc32).to.equal('function'); // Node >= 20.15: the native one is used
    for (const size of [1, 7, 64, 1000, 65_537]) {
      const bytes = randomBytes(size);
      expect(tableCrc32(bytes)).to.equal(zlib.crc32(bytes));
    }
  });

  it('writes a header of magic and version, and checks it', () => {
    const header = fileHeader();
    expect(header.length).to.equal(HEADER_BYTES);
    expect(header.subarray(0, MAGIC.length).toString('latin1')).to.equal('EVLOG\0');
    expect(header.readUInt16LE(MAGIC.length)).to.equal(FORMAT_VERSION);
    expect(() => checkHeader(header, 'f')).not.to.throw();
  });

  it('refuses a file that is not a log, or of a newer format, naming the file', () => {
    expect(() => checkHeader(Buffer.from('{"json":1}'), '/x/events.evlog')).to.throw(LogCorruptedError, '/x/events.evlog: not an evalog event log');
    const newer = fileHeader();
    newer.writeUInt16LE(FORMAT_VERSION + 1, MAGIC.length);
    expect(() => checkHeader(newer, 'f')).to.throw(LogCorruptedError, `format version ${FORMAT_VERSION + 1}`);
  });

  it('lays a frame out as u32 LE length, u32 LE crc32(payload), payload', () => {
    const payload = Buffer.from('hello frame');
    const target = Buffer.alloc(3 + 8 + payload.length);
    expect(writeFrame(target, 3, payload)).to.equal(target.length);
    expect(target.readUInt32LE(3)).to.equal(payload.length);
    expect(target.readUInt32LE(7)).to.equal(zlib.crc32(payload));
    expect(target.subarray(11).equals(payload)).to.equal(true);
  });
});
