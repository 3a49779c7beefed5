// V8's heap sizing for the CLI process, set by the launchers before anything is allocated.
import { setFlagsFromString } from 'node:v8';

/**
 * Lets the old generation grow to twice what survived the last full collection before the next
 * one, instead of V8's own factor (up to four times for a program whose collections are fast, which
 * a run's are: its live data is 40–55 MB at 10 000 cases, its heap grew to about 250 MB of mostly
 * garbage). Measured at 10 000 cases, 64 in flight (bench/README.md, issue 20): peak RSS 355–365 →
 * 320–330 MB on Node 20, 436–448 → 368–380 MB on Node 24, wall and CPU within the runs' noise. A
 * factor of 1.5 saved a little more memory but cost about 8 % of the time.
 */
export function tuneHeap(): void {
  setFlagsFromString('--heap-growing-percent=100');
}
