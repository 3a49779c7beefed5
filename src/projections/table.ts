import type { SideComparison } from './compare/index.js';
import type { Summary } from './summary.js';

/** Renders the per-arm summary as an aligned text table; unknown usage is shown beside every sum. */
export function summaryTable(s: Summary): string {
  const head = ['arm', 'n', 'passed', 'rate', 'failed', 'calls', 'tokens', 'unknown', 'mean s'];
  const rows = Object.entries(s.arms).map(([arm, a]) => [
    arm,
    String(a.n),
    String(a.passed),
    a.pass_rate === null ? '-' : a.pass_rate.toFixed(3),
    String(a.failed),
    String(a.calls),
    a.tokens.total.sum === null ? 'unknown' : String(a.tokens.total.sum),
    String(a.tokens.total.unknown_calls),
    a.mean_seconds === null ? '-' : a.mean_seconds.toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const label = s.scripted ? ' (scripted model: not a real model result)' : '';
  return `${[`suite ${s.suite}, model ${s.model}${label}`, line(head), ...rows.map(line), ...s.paired.map(pairedLine)].join('\n')}\n`;
}

// Three decimals as the rates have, but a p below them is not shown as 0.
const pValue = (p: number | null): string => (p === null ? 'p=-' : p < 0.001 ? 'p<0.001' : `p=${p.toFixed(3)}`);
// A difference of rates in percentage points, signed (− for a drop), as `evalog compare` prints it.
const points = (x: number): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(1)}`;

/**
 * One paired comparison as a line under a summary's table: who passed alone, the exact McNemar p,
 * and the bootstrap difference (b − a) with its interval; `evalog compare` prints the whole block.
 */
export function pairedLine(p: SideComparison): string {
  const unpaired = p.unpaired.total > 0 ? `, unpaired ${p.unpaired.total}` : '';
  const boot = p.bootstrap;
  const difference = boot
    ? `, difference ${points(boot.difference)} points, ${((1 - boot.alpha) * 100).toFixed(0)}% CI [${points(boot.lower)}, ${points(boot.upper)}]`
    : '';
  return `paired ${p.a} vs ${p.b}: ${p.n} pairs, ${p.a} only ${p.a_only}, ${p.b} only ${p.b_only}, ${pValue(p.mcnemar_p)}${difference}${unpaired}`;
}
