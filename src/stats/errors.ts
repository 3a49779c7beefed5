// Named errors for src/stats. Each maps to the Python exception the reference code raises,
// so callers can tell "bad input" from "nothing to compute" without parsing messages.

/** Base class of every error thrown by src/stats. */
export class StatsError extends Error {
  override name = 'StatsError';
}

/** An argument is out of its domain (non-integer, unsafe integer, negative bit count, bad alpha…); Python's ValueError/TypeError. */
export class InvalidArgumentError extends StatsError {
  override name = 'InvalidArgumentError';
}

/** randrange/randbelow over an empty range (Python: "empty range for randrange()"). */
export class EmptyRangeError extends StatsError {
  override name = 'EmptyRangeError';
}

/** choice() on an empty sequence (Python: IndexError). */
export class EmptySequenceError extends StatsError {
  override name = 'EmptySequenceError';
}

/** McNemar or the bootstrap was given zero pairs; no statistic is defined. */
export class EmptyPairsError extends StatsError {
  override name = 'EmptyPairsError';
}

/** Per-arm outcomes cannot be paired (duplicate case/arm, or a case missing one arm). */
export class PairingError extends StatsError {
  override name = 'PairingError';
}
