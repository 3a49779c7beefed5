import { expect } from 'chai';
import { agentEnding, neutralise, streamTail, tailNote } from '../../src/projections/index.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const tail = (s: string, lines = 3, max = 100) => streamTail(bytes(s), bytes(s).length, false, { lines, bytes: max });

describe('streamTail (the end of what a failed agent printed)', () => {
  it('keeps a short stream whole, without its final newline, and says nothing is left out', () => {
    const t = tail('one\ntwo\n');
    expect(t).to.deep.include({ text: 'one\ntwo', lines: 2, earlierLines: 0, cutLine: false, bytes: 8, kept: 8, truncated: false });
    expect(tailNote(t)).to.equal(null);
  });

  it('shows the last lines and counts the earlier ones', () => {
    const t = tail('a\nb\nc\nd\ne', 2);
    expect(t).to.deep.include({ text: 'd\ne', lines: 2, earlierLines: 3, cutLine: false });
    expect(tailNote(t)).to.equal('… (3 earlier lines not shown; 9 bytes written)');
  });

  it('an empty stream, and one of line breaks only, show no lines', () => {
    expect(tail('')).to.deep.include({ text: '', lines: 0, earlierLines: 0 });
    expect(tail('\n')).to.deep.include({ text: '', lines: 0, earlierLines: 0 });
    // A blank line among others is a line.
    expect(tail('\nx')).to.deep.include({ text: '\nx', lines: 2, earlierLines: 0 });
  });

  it('cuts a long last line to the byte bound at a character boundary, and says so', () => {
    const s = `x\n${'é'.repeat(100)}`; // 200 bytes of two-byte characters
    const t = tail(s, 20, 51); // 51 bytes back from the end falls inside a character
    expect(t.text).to.equal('é'.repeat(25));
    expect(t).to.deep.include({ lines: 1, earlierLines: 1, cutLine: true });
    expect(tailNote(t)).to.equal(`… (1 earlier line and the start of the first line not shown; ${bytes(s).length} bytes written)`);
  });

  it('a flood of 100 000 lines, truncated at 256 KiB, shows 20 lines of the kept part and says it was cut', () => {
    const all = bytes(Array.from({ length: 100_000 }, (_, i) => `flood line ${i}`).join('\n'));
    const kept = all.subarray(0, 256 * 1024);
    const t = streamTail(kept, all.length, true);
    expect(t.lines).to.equal(20);
    expect(Buffer.byteLength(t.text)).to.be.at.most(4096);
    expect(t.earlierLines + 19).to.equal(kept.filter((b) => b === 0x0a).length);
    expect(tailNote(t)).to.equal(`… (${t.earlierLines} earlier lines not shown; ${all.length} bytes written, only the first 256 KiB kept)`);
  });

  it('renders bytes that are not UTF-8 as U+FFFD', () => {
    const t = streamTail(new Uint8Array([0x66, 0xff, 0x0a, 0x67, 0xc3]), 5, false);
    expect(t.text).to.equal('f\ufffd\ng\ufffd');
  });

  it('writes out control characters so they cannot repaint a terminal: ANSI escapes, carriage returns, bidi overrides', () => {
    const t = tail('\x1b[2J\x1b[31mred\x1b[0m\r\nover\rwrite\u202eevil\x07\ttab');
    expect(t.text).to.equal('\\x1b[2J\\x1b[31mred\\x1b[0m\nover\\x0dwrite\\u202eevil\\x07\ttab');
    expect(neutralise(t.text), 'idempotent').to.equal(t.text);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(t.text).to.not.match(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  });

  it('says how the process ended', () => {
    expect(agentEnding({ reason: 'exited_nonzero', code: 1, signal: null })).to.equal('exited with code 1');
    expect(agentEnding({ reason: 'signalled', code: null, signal: 'SIGSEGV' })).to.equal('killed by SIGSEGV');
    expect(agentEnding({ reason: 'time_limit', code: null, signal: 'SIGKILL' })).to.equal('killed at the time limit (limits.timeLimitMs)');
  });
});
