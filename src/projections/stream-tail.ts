// The end of what an agent printed, as a reader wants it when the agent failed: its last lines,
// bounded (a flood of 100 000 lines shows 20), decoded leniently (a byte that is not UTF-8 becomes
// U+FFFD) and with every control character made visible as text, so an agent's ANSI escapes or
// carriage returns cannot repaint the terminal (or page) of whoever reads its output.
// No redaction is needed: the agent never had a provider key (the proxy holds it), so its output
// cannot contain one; what it printed is shown as printed.

/** How much of a stream's end is shown: at most this many lines and this many bytes. */
export interface TailLimits {
  lines: number;
  bytes: number;
}

/** The default bounds: the last 20 lines, at most 4 KiB. */
export const TAIL_LIMITS: TailLimits = { lines: 20, bytes: 4096 };

/** The last lines of one captured stream, and how much of it they are. */
export interface StreamTail {
  /** The lines shown, joined by `\n`, control characters escaped (`\x1b`); '' for an empty stream. */
  text: string;
  /** Lines shown. */
  lines: number;
  /** Whole lines of the kept bytes before the ones shown. */
  earlierLines: number;
  /** True when the first line shown is only the end of a longer line (the byte bound cut it). */
  cutLine: boolean;
  /** Bytes the process wrote to the stream. */
  bytes: number;
  /** Bytes evalog kept of them (the blob); fewer than `bytes` when `truncated`. */
  kept: number;
  /** True when the process wrote more than evalog keeps: the lines shown end where the record stops. */
  truncated: boolean;
}

const NL = 0x0a;

/**
 * The tail of `kept` (the stream's recorded bytes) within `limits`; `bytes` and `truncated` are the
 * stream's own counts, as its AgentExited event records them.
 */
export function streamTail(kept: Uint8Array, bytes: number, truncated: boolean, limits: TailLimits = TAIL_LIMITS): StreamTail {
  let end = kept.length;
  if (end > 0 && kept[end - 1] === NL) end -= 1; // the final newline ends the last line, it starts none
  // Back from the end, a line at a time, to the start of the last `limits.lines` lines...
  let start = end;
  for (let shown = 0; start > 0 && shown < limits.lines; shown += 1) {
    const nl = kept.lastIndexOf(NL, start - 1);
    start = nl + 1;
    if (nl === -1 || shown + 1 === limits.lines) break;
    start = nl; // the separator; the next line back ends here
  }
  // ...then no more than `limits.bytes` of them: the first line shown may be the end of a longer one.
  if (end - start > limits.bytes) start = end - limits.bytes;
  const cutLine = start > 0 && kept[start - 1] !== NL;
  // A cut inside a multi-byte character starts at the next character, not at a U+FFFD of its tail.
  if (cutLine) for (let n = 0; n < 3 && start < end && (kept[start]! & 0xc0) === 0x80; n += 1) start += 1;
  const text = neutralise(new TextDecoder('utf-8', { fatal: false }).decode(kept.subarray(start, end)));
  return {
    text,
    lines: start === end ? 0 : countNewlines(kept, start, end) + 1,
    earlierLines: countNewlines(kept, 0, start),
    cutLine,
    bytes,
    kept: kept.length,
    truncated,
  };
}

/**
 * What a tail leaves out, as one line, e.g. `… (15162 earlier lines not shown; 1188890 bytes written,
 * only the first 256 KiB kept)`; null when the tail is the whole stream.
 */
export function tailNote(t: StreamTail): string | null {
  const parts: string[] = [];
  const n = t.earlierLines;
  const hidden = [n > 0 ? `${n} earlier line${n === 1 ? '' : 's'}` : null, t.cutLine ? 'the start of the first line' : null].filter((x) => x !== null);
  if (hidden.length > 0) parts.push(`${hidden.join(' and ')} not shown`);
  // Truncated, the lines shown are the last ones kept, not the last ones written: "only the first" says so.
  if (t.truncated) parts.push(`${t.bytes} bytes written, only the first ${size(t.kept)} kept`);
  else if (parts.length > 0) parts.push(`${t.bytes} bytes written`);
  return parts.length === 0 ? null : `… (${parts.join('; ')})`;
}

// C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates
// (which reorder what follows them on screen).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character but tab and newline written out (`\x1b`, `\u202e`); CRLF becomes a newline. */
export function neutralise(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function countNewlines(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = bytes.indexOf(NL, from); i !== -1 && i < to; i = bytes.indexOf(NL, i + 1)) n += 1;
  return n;
}

/** 256 KiB for a whole number of KiB, else the bytes. */
function size(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
