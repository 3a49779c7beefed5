import type { LiveProgress } from '../projections/index.js';

/** What the line shows besides the fold: this command's own time and jobs. */
export interface LineClock {
  /** Time since this command began, in ms. */
  elapsedMs: number;
  /** Jobs this command saw end (a resume's recorded past excluded): the rate counts only these. */
  endedHere: number;
}

const paint = (color: boolean, code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);

/**
 * The progress line: done/total, passed, errors, calls, tokens (calls with unknown usage beside),
 * elapsed, rate and ETA. The rate is of jobs ended by this command, so a resume's ETA is not
 * flattered by the jobs it found done.
 */
export function progressLine(p: LiveProgress, clock: LineClock, color: boolean): string {
  const done = p.succeeded + p.failed;
  const rate = clock.elapsedMs > 0 ? clock.endedHere / (clock.elapsedMs / 1000) : 0;
  const remaining = Math.max(0, p.planned - done);
  const eta = remaining === 0 ? '0s' : rate > 0 ? duration((remaining / rate) * 1000) : '--';
  const unknown = p.callsWithoutUsage > 0 ? ` (+${p.callsWithoutUsage} calls with unknown usage)` : '';
  const waiting = p.retryWaits.count > 0 ? ` · ${p.retryWaits.count} waiting on Retry-After (up to ${seconds(p.retryWaits.longestMs)})` : '';
  return [
    `${done}/${p.planned} done`,
    paint(color, 32, `${p.passed} passed`),
    p.failed > 0 ? paint(color, 31, `${p.failed} errors`) : '0 errors',
    `${p.calls} calls`,
    `${p.tokens} tokens${unknown}`,
    `${duration(clock.elapsedMs)} elapsed`,
    `${rate.toFixed(1)} jobs/s`,
    `ETA ${eta}`,
  ]
    .join(' · ')
    .concat(waiting);
}

/** 42s, 3m05s, 1h02m. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** 30 s, 1.5 s. */
export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
