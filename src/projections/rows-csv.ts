// Rows as a CSV table, for spreadsheets: nested objects flattened to dotted column names
// (`usage.total.input_tokens`), columns in sorted order, one record a row in the rows' order.
import { canonicalJson } from '../core/canonical.js';
import { csvRecord } from '../core/csv.js';

/**
 * The cells of one row by dotted column name. A string is itself, a number or boolean its JSON,
 * an array its canonical JSON in one cell (lists vary in length: columns per item would not line
 * up), null an empty cell. An empty object gives no column.
 */
function flatten(value: Record<string, unknown>, prefix: string, out: Map<string, string | null>): void {
  for (const [k, v] of Object.entries(value)) {
    const name = prefix === '' ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, name, out);
    else out.set(name, v === null || v === undefined ? null : typeof v === 'string' ? v : canonicalJson(v));
  }
}

/** The rows as CSV (RFC 4180, CRLF line ends): a header of every column any row has, sorted. */
export function rowsCsv(rows: readonly Record<string, unknown>[]): string {
  const flat = rows.map((r) => {
    const cells = new Map<string, string | null>();
    flatten(r, '', cells);
    return cells;
  });
  const names = new Set<string>();
  const valued = new Set<string>();
  for (const cells of flat) {
    for (const [name, cell] of cells) {
      names.add(name);
      if (cell !== null) valued.add(name);
    }
  }
  // A key that is null in some rows and an object in others (`failure`) is the object's columns alone.
  const objects = new Set(
    [...names].flatMap((n) =>
      n
        .split('.')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('.')),
    ),
  );
  const columns = [...names].filter((n) => valued.has(n) || !objects.has(n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let out = csvRecord(columns);
  for (const cells of flat) out += csvRecord(columns.map((c) => cells.get(c) ?? ''));
  return out;
}
