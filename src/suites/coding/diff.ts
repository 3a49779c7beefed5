// The unified diff of a workspace against the files the job was given: git's format (`diff --git`
// headers, `new file mode` / `deleted file mode`, three lines of context, `\ No newline at end of
// file`), files sorted by path, so the same change is the same text on every run and `git apply`
// takes it. Pure: no git binary, no clock.
import type { GradedWorkspace } from '../../harness/suite/types.js';

/** Lines of context around each change. */
const CONTEXT = 3;
/** Above this many cells the middle of a file is diffed as one replacement (a bound on time and memory). */
const MAX_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

/** One file's diff: its text (headers and hunks, '' when unchanged) and its line counts. */
export interface FileDiff {
  text: string;
  added: number;
  removed: number;
}

/** The diff of one file from `before` to `after` (null = the file does not exist). */
export function fileDiff(path: string, before: string | null, after: string | null): FileDiff {
  if (before === after) return { text: '', added: 0, removed: 0 };
  const a = linesOf(before ?? '');
  const b = linesOf(after ?? '');
  const ops = editScript(keysOf(a), keysOf(b)).map((o) => ({ ...o, line: o.line.endsWith(NO_EOL) ? o.line.slice(0, -1) : o.line }));
  const added = ops.filter((o) => o.kind === '+').length;
  const removed = ops.filter((o) => o.kind === '-').length;
  const head = [`diff --git a/${path} b/${path}`];
  if (before === null) head.push('new file mode 100644');
  if (after === null) head.push('deleted file mode 100644');
  // An empty file made or removed: git prints the header alone.
  if (added === 0 && removed === 0) return { text: `${head.join('\n')}\n`, added, removed };
  head.push(before === null ? '--- /dev/null' : `--- a/${path}`, after === null ? '+++ /dev/null' : `+++ b/${path}`);
  const body: string[] = [];
  for (const h of hunksOf(ops)) {
    body.push(hunkHeader(h));
    for (const o of h) {
      body.push(`${o.kind}${o.line}`);
      const lastOfA = o.kind !== '+' && o.a === a.lines.length - 1 && !a.newline;
      const lastOfB = o.kind !== '-' && o.b === b.lines.length - 1 && !b.newline;
      if (lastOfA || lastOfB) body.push('\\ No newline at end of file');
    }
  }
  return { text: `${[...head, ...body].join('\n')}\n`, added, removed };
}

// The last line of a file without a final newline differs from the same text with one, as in git.
const NO_EOL = '\u0000';

function keysOf(f: { lines: string[]; newline: boolean }): string[] {
  return f.newline || f.lines.length === 0 ? f.lines : [...f.lines.slice(0, -1), `${f.lines.at(-1)}${NO_EOL}`];
}

/** The graded workspace of a job: each changed path of `changed` (over `seed`) with its diff, all sorted by path. */
export function workspaceDiff(
  seed: Readonly<Record<string, string>>,
  changed: Readonly<Record<string, string | null>>,
  skipped: GradedWorkspace['skipped'] = [],
): GradedWorkspace {
  const files: GradedWorkspace['files'] = [];
  let diff = '';
  for (const path of Object.keys(changed).sort()) {
    const before = Object.hasOwn(seed, path) ? seed[path]! : null;
    const after = changed[path]!;
    if (before === after) continue;
    const d = fileDiff(path, before, after);
    const change = before === null ? 'added' : after === null ? 'deleted' : 'modified';
    files.push({ path, change, content: after, added: d.added, removed: d.removed });
    diff += d.text;
  }
  return { files, skipped: [...skipped].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)), diff };
}

function linesOf(text: string): { lines: string[]; newline: boolean } {
  if (text === '') return { lines: [], newline: true };
  const newline = text.endsWith('\n');
  const lines = (newline ? text.slice(0, -1) : text).split('\n');
  return { lines, newline };
}

// Common head and tail first (most edits touch a few lines of a file), then a longest common
// subsequence of the middle by dynamic programming, or one replacement when that would be too big.
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const ops: Op[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: ' ', line: a[i]!, a: i, b: i });
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  for (const o of middle(am, bm)) ops.push({ ...o, a: o.a + head, b: o.b + head });
  for (let k = tail; k > 0; k--) ops.push({ kind: ' ', line: a[a.length - k]!, a: a.length - k, b: b.length - k });
  return ops;
}

function middle(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS)
    return [...a.map((line, i) => ({ kind: '-' as const, line, a: i, b: 0 })), ...b.map((line, j) => ({ kind: '+' as const, line, a: n, b: j }))];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[at(i, j)] = a[i] === b[j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i]!, a: i++, b: j++ });
    // Removals before additions, as diff and git print them.
    else if (i < n && (j === m || lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!)) ops.push({ kind: '-', line: a[i]!, a: i++, b: j });
    else ops.push({ kind: '+', line: b[j]!, a: i, b: j++ });
  }
  return ops;
}

// Changes closer than twice the context share a hunk.
function hunksOf(ops: readonly Op[]): Op[][] {
  const changed = ops.flatMap((o, k) => (o.kind === ' ' ? [] : [k]));
  const hunks: Op[][] = [];
  let start = -1;
  let end = -1;
  for (const k of changed) {
    if (start >= 0 && k - end > 2 * CONTEXT) {
      hunks.push(ops.slice(start, end + 1));
      start = -1;
    }
    if (start < 0) start = Math.max(0, k - CONTEXT);
    end = Math.min(ops.length - 1, k + CONTEXT);
  }
  if (start >= 0) hunks.push(ops.slice(start, end + 1));
  return hunks;
}

function hunkHeader(h: readonly Op[]): string {
  const range = (side: 'a' | 'b', kind: '-' | '+') => {
    const mine = h.filter((o) => o.kind === ' ' || o.kind === kind);
    const count = mine.length;
    const first = mine[0]?.[side];
    // An empty side names the line before the hunk (0 at the top of the file).
    const startLine = count === 0 ? otherStart(h, side) : first! + 1;
    return count === 1 ? `${startLine}` : `${startLine},${count}`;
  };
  return `@@ -${range('a', '-')} +${range('b', '+')} @@`;
}

function otherStart(h: readonly Op[], side: 'a' | 'b'): number {
  // All of this side's lines are absent: the hunk sits after line `pos` of it, `pos` = the index the ops carry.
  const pos = h[0]?.[side] ?? 0;
  return Math.max(0, pos);
}
