/** One line of a line diff: kept (' '), removed ('-') or added ('+'). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Past this many cells the quadratic table is not built and the revision shows as replaced whole. */
const MAX_CELLS = 4_000_000;

/**
 * Line diff by longest common subsequence. Artifacts are small (a script, a JSON answer), so the
 * plain table is fast enough and gives the same, minimal answer every time.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Common head and tail need no table.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: ' ', text }));
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) {
    out.push(...x.map((text) => ({ op: '-' as const, text })), ...y.map((text) => ({ op: '+' as const, text })));
  } else {
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i -= 1) {
      for (let j = y.length - 1; j >= 0; j -= 1) {
        lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        out.push({ op: ' ', text: x[i]! });
        i += 1;
        j += 1;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
        out.push({ op: '-', text: x[i]! });
        i += 1;
      } else {
        out.push({ op: '+', text: y[j]! });
        j += 1;
      }
    }
    for (; i < x.length; i += 1) out.push({ op: '-', text: x[i]! });
    for (; j < y.length; j += 1) out.push({ op: '+', text: y[j]! });
  }
  out.push(...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text })));
  return out;
}
