/** Clock of the golden runs: a fixed start and a fixed step per reading. */
export const GOLDEN_START_MS = Date.UTC(2026, 0, 1);
export const GOLDEN_STEP_MS = 7;
