// Why `evalog compare` refused its runs: each is bad input the user can fix (exit 2, one line).
import { UserError } from '../../core/errors.js';

/** Runs that cannot be compared as named: an arm a run lacks, rows without a case and repetition, a run named twice. */
export class CompareInputError extends UserError {
  override name = 'CompareInputError';
}

/** Runs of different suites or protocols, compared only with --force: the message names the first difference. */
export class ProtocolMismatchError extends UserError {
  override name = 'ProtocolMismatchError';
}
