// Text a user hands evalog (config files, case files): a UTF-8 byte-order mark is accepted, and a
// JSON syntax error is placed by line and column, which Node 20's JSON.parse does not always say.

/** The text without a leading UTF-8 byte-order mark (editors on Windows write one). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Where a JSON text first stops being JSON: 1-based line and column, and what was found there. */
export interface JsonErrorAt {
  line: number;
  column: number;
  detail: string;
}

/** Parses JSON; a syntax error comes back with its line and column (`at`) instead of a bare message. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; at: JsonErrorAt } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, at: locateJsonError(text) ?? { line: 1, column: 1, detail: (err as Error).message } };
  }
}

/** 1-based line and column of an offset. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

class Stop {
  constructor(
    readonly offset: number,
    readonly detail: string,
  ) {}
}

/**
 * Scans a text as JSON (RFC 8259) and returns where it first fails, or null when it is valid. A
 * scan of its own: it only finds the place, JSON.parse still does the parsing.
 */
export function locateJsonError(text: string): JsonErrorAt | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const found = () => (i >= text.length ? 'the end of the text' : JSON.stringify(text[i]));
  const fail = (expected: string): never => {
    throw new Stop(i, `expected ${expected}, found ${found()}`);
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail('a JSON value');
  };
  const string = () => {
    i += 1;
    for (;;) {
      if (i >= text.length) fail('the closing quote of a string');
      const c = text[i]!;
      if (c === '"') break;
      if (c < ' ') throw new Stop(i, 'a control character inside a string (write it as an escape)');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, 'a bad \\u escape');
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop(i, 'a bad escape in a string');
        i += 2;
        continue;
      }
      i += 1;
    }
    i += 1;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-') fail('a JSON value');
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i += 1;
      ws();
      if (text[i] === '}') {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a quoted key');
        string();
        ws();
        if (text[i] !== ':') fail('":"');
        i += 1;
        value();
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === '}') {
          i += 1;
          return;
        }
        fail('"," or "}"');
      }
    }
    if (c === '[') {
      i += 1;
      ws();
      if (text[i] === ']') {
        i += 1;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === ']') {
          i += 1;
          return;
        }
        fail('"," or "]"');
      }
    }
    if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else number();
  };
  try {
    value();
    ws();
    if (i < text.length) fail('the end of the text');
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { ...lineColumnOf(text, err.offset), detail: err.detail };
  }
}

/** The 1-based line where each item of a valid JSON text's top-level array starts (none when it is not an array). */
export function arrayItemLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectItem = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\n') line += 1;
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (expectItem && !' \t\n\r'.includes(c)) {
      if (c !== ']') lines.push(line);
      expectItem = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth === 1 && c === '[') expectItem = true;
    } else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 1) expectItem = true;
  }
  return lines;
}
