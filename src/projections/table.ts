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
  return `${[`suite ${s.suite}, model ${s.model}${label}`, line(head), ...rows.map(line)].join('\n')}\n`;
}
