/** Injected time source: actor logic never reads the system clock itself. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock, for live runs. */
export const systemClock: Clock = { now: () => Date.now() };

/** A deterministic clock for tests: each reading advances by `stepMs`. */
export function steppingClock(startMs: number, stepMs = 1): Clock {
  let t = startMs - stepMs;
  return { now: () => (t += stepMs) };
}

/** Formats a clock reading as the `at` of an event. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
