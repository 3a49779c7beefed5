// V8's heap sizing for the CLI process: set by `launch()` before a command starts, and tightened
// when a run turns to deriving its outputs from its log. A program that calls main() itself (the
// tests' in-process CLI, say) keeps its own V8 settings: the flags are the whole process's.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

let launched = false;

/**
 * Lets the old generation grow to twice what survived the last full collection before the next
 * one, instead of V8's own factor (up to four times for a program whose collections are fast, which
 * a run's are: its live data is 40–55 MB at 10 000 cases, its heap grew to about 250 MB of mostly
 * garbage). Measured at 10 000 cases, 64 in flight (bench/README.md, issue 20): peak RSS 355–365 →
 * 320–330 MB on Node 20, 436–448 → 368–380 MB on Node 24, wall and CPU within the runs' noise. A
 * factor of 1.5 for the whole run saved a little more memory but cost about 8 % of the time.
 */
export function tuneHeap(): void {
  launched = true;
  setFlagsFromString('--heap-growing-percent=100');
  capYoungGeneration();
}

/** Node 20's largest young generation (two 16 MB semi-spaces), in bytes. */
export const YOUNG_GENERATION_CAP = 32 * 1024 * 1024;

/**
 * Stops the young generation from growing once it is as large as Node 20 lets it be. Node 24's V8
 * grows it to 64 MB and beyond, which at 10 000 cases took a run's peak RSS from about 200 to
 * 330–356 MB at the same speed (`--max-semi-space-size=16` gave 245 MB; bench/README.md). V8 reads
 * that flag only at start, so the cap is the growth factor instead, which it reads whenever it
 * grows the space: left at 2 until the space reaches the cap, then 1. On Node 20 the space never
 * grows past the cap anyway, so this changes nothing there. The observer runs between turns of the
 * event loop, so a turn that allocates a great deal could grow the space once more first: a soft cap.
 */
export function capYoungGeneration(): void {
  const observer = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (!young || young.space_size < YOUNG_GENERATION_CAP) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * A factor of 1.2 from here on, for the end of a run: deriving the outputs decodes every event of
 * the log again, almost all of it garbage at once, while what it keeps is small (44 MB of outputs
 * at 10 000 cases), so a run's peak was this phase's headroom. At 10 000 cases, 64 in flight, it
 * took the run's peak RSS from 327–331 to 269–278 MB, wall 13.2–14.6 against 14.8–15.6 s (noise of
 * the same size). `evalog rebuild` does not use it: there it cost 15 % of the time for 17 % of the
 * memory (3.1–3.4 → 3.7–3.8 s, 258–260 → 214–216 MB at 10 000 cases), a trade left to measure at 1M events.
 */
export function heapForDerivation(): void {
  if (launched) setFlagsFromString('--heap-growing-percent=20');
}

/**
 * A factor of 1.2 for the write of outputs already derived (`evalog rebuild`, which derives at the
 * factor of two for speed): what it keeps is the outputs, and writing them makes short-lived text,
 * which at the factor of two grew the heap to twice the outputs again. At 1M events (bench/README.md,
 * rebuild) the rebuild's peak RSS went from 431–438 to 366–375 MB (the derive's own peak is about
 * 360 MB), for 0.5–0.8 s more of the write's 2.1–2.3 s.
 */
export function heapForWriting(): void {
  if (launched) setFlagsFromString('--heap-growing-percent=20');
}
