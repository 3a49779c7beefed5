// The terminal view of `evalog compare`: the sides as a table, then one block per comparison with
// rates as percentages and p rounded (the JSON keeps every figure exact).
import type { Comparison, Delta, Flip, SideComparison } from '../projections/compare/index.js';

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
const pp = (x: number): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(1)}`;
// Three decimals, but a p below them is not shown as 0.
const pValue = (p: number | null): string => (p === null ? '-' : p < 0.001 ? '< 0.001' : p.toFixed(3));
const signed = (x: number, digits: number): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(digits)}`;

/** Renders the comparison for a terminal. */
export function compareTable(c: Comparison): string {
  const b = c.bootstrap;
  const out = [
    `bootstrap seed ${b.seed}, ${b.iterations} resamples, ${((1 - b.alpha) * 100).toFixed(0)}% CI (--seed N to change the seed)`,
    ...c.differences.map((d) => `compared with --force although ${d}`),
    '',
    ...table(
      ['side', 'suite', 'model', 'jobs', 'graded', 'passed', 'rate'],
      c.sides.map((s) => [s.name, s.suite, s.model, String(s.jobs), String(s.graded), String(s.passed), pct(s.graded === 0 ? null : s.passed / s.graded)]),
    ),
  ];
  for (const x of c.comparisons) out.push('', ...block(x));
  return `${out.join('\n')}\n`;
}

function block(x: SideComparison): string[] {
  const head = `${x.a} vs ${x.b}: ${x.n} paired jobs${x.unpaired.total > 0 ? `, ${x.unpaired.total} unpaired (${unpairedWhy(x)})` : ''}`;
  if (x.n === 0) return [head, '  no (case, repetition) graded on both sides: nothing to compare'];
  const boot = x.bootstrap!;
  const ci = `${((1 - boot.alpha) * 100).toFixed(0)}% CI [${pp(boot.lower)}, ${pp(boot.upper)}]`;
  return [
    head,
    `  passed            ${x.a} ${x.passed_a} (${pct(x.rate_a)}), ${x.b} ${x.passed_b} (${pct(x.rate_b)})`,
    `  discordant        only ${x.a} passed ${x.a_only}, only ${x.b} passed ${x.b_only} (both ${x.both}, neither ${x.neither})`,
    `  exact McNemar p   ${pValue(x.mcnemar_p)}`,
    `  difference        ${pp(boot.difference)} points (${x.b} − ${x.a}), ${ci}`,
    `  input tokens      ${deltaLine(x.tokens.input, 1, USAGE)}`,
    `  output tokens     ${deltaLine(x.tokens.output, 1, USAGE)}`,
    `  total tokens      ${deltaLine(x.tokens.total, 1, USAGE)}`,
    `  seconds           ${deltaLine(x.seconds, 2, 'no recorded time')}`,
    `  only ${x.a} passed: ${flips(x.flipped.a_only)}`,
    `  only ${x.b} passed: ${flips(x.flipped.b_only)}`,
  ];
}

function unpairedWhy(x: SideComparison): string {
  const u = x.unpaired;
  const parts = [
    [u.missing_a, `not in ${x.a}`],
    [u.missing_b, `not in ${x.b}`],
    [u.ungraded_a, `failed or unfinished in ${x.a}`],
    [u.ungraded_b, `failed or unfinished in ${x.b}`],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, why]) => `${n} ${why}`)
    .join(', ');
}

// Per paired job; the pairs whose figure is unknown on a side are counted beside it, never taken as 0.
const USAGE = 'calls with unknown usage';
function deltaLine(d: Delta, digits: number, why: string): string {
  const unknown = `${why} in ${d.unknown} pair${d.unknown === 1 ? '' : 's'}`;
  if (d.mean_difference === null) return `unknown (${unknown})`;
  return `mean per job ${d.mean_a!.toFixed(digits)} → ${d.mean_b!.toFixed(digits)}, ${signed(d.mean_difference, digits)} over ${d.known} pairs${d.unknown > 0 ? `; ${unknown}` : ''}`;
}

const flips = (list: readonly Flip[]): string =>
  list.length === 0 ? '-' : list.map((f) => (f.repetition === 1 ? f.case_id : `${f.case_id} (repetition ${f.repetition})`)).join(', ');

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}
