/** Injected time source: actor logic never reads the system clock itself. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * A monotonic reading in milliseconds on the epoch's scale, as a float with sub-millisecond
   * resolution (the real clock: `performance.timeOrigin + performance.now()`). Recorded beside `at`
   * so durations are measured as the published runners measure them (`perf_counter`), not from
   * millisecond wall-clock strings that may step. Optional: a clock without it records none.
   */
  mono?(): number;
}

/** The real clock, for live runs. */
export const systemClock: Clock = { now: () => Date.now(), mono: () => performance.timeOrigin + performance.now() };

/** A deterministic clock for tests: each reading of `now` advances by `stepMs`; `mono` reads the last one. */
export function steppingClock(startMs: number, stepMs = 1): Clock {
  let t = startMs - stepMs;
  return { now: () => (t += stepMs), mono: () => t };
}

// The last reading formatted: the events of one millisecond (a group commit's worth at a busy
// run's rate) share their string instead of each building a Date and formatting it again.
let lastMs = Number.NaN;
let lastIso = '';

/** Formats a clock reading as the `at` of an event. */
export function isoOf(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
