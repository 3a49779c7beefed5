// CSV as RFC 4180 has it: fields split by commas, records by CRLF or LF, a field in double quotes
// may hold commas, line breaks and doubled quotes. Small enough to own; no dependency needed.

/** A CSV text that breaks the format; `line` is the 1-based line where the problem is. */
export class CsvSyntaxError extends Error {
  override name = 'CsvSyntaxError';
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
  }
}

/** One record and the 1-based line it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Parses a CSV text into records; blank lines are skipped. Throws CsvSyntaxError at the first bad quote. */
export function parseCsv(text: string): CsvRecord[] {
  const n = text.length;
  const eolAt = (i: number) => text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n');
  const records: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  while (i < n) {
    if (eolAt(i)) {
      i += text[i] === '\r' ? 2 : 1;
      line += 1;
      continue;
    }
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        const open = line;
        i += 1;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(open, 'a quoted field is not closed');
          if (text[i] === '"') {
            if (text[i + 1] !== '"') break;
            field += '"';
            i += 2;
            continue;
          }
          if (text[i] === '\n') line += 1;
          field += text[i];
          i += 1;
        }
        i += 1;
        if (i < n && text[i] !== ',' && !eolAt(i))
          throw new CsvSyntaxError(line, `${JSON.stringify(text[i])} after the closing quote of a field (a quote inside a quoted field is written "")`);
      } else {
        while (i < n && text[i] !== ',' && !eolAt(i)) {
          if (text[i] === '"') throw new CsvSyntaxError(line, 'a quote inside an unquoted field (quote the whole field and write "" for each quote)');
          field += text[i];
          i += 1;
        }
      }
      record.fields.push(field);
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (i < n) {
        i += text[i] === '\r' ? 2 : 1;
        line += 1;
      }
      break;
    }
    records.push(record);
  }
  return records;
}

/** One CSV field: quoted when it holds a comma, a quote or a line break, or starts or ends with a space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV record with its CRLF line end (RFC 4180). */
export function csvRecord(fields: readonly string[]): string {
  // A record of one empty field is quoted, or it would read back as a blank line.
  if (fields.length === 1 && fields[0] === '') return '""\r\n';
  return `${fields.map(csvField).join(',')}\r\n`;
}
