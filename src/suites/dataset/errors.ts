// The dataset suite's input errors. They share one base class, itself a UserError (exit 2, message
// only), so every subclass is covered.
import { UserError } from '../../core/errors.js';

/** Bad dataset input: a case file, a template, a grader or the data file's recorded hash. */
export class DatasetSuiteError extends UserError {
  override name = 'DatasetSuiteError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A line of the case file that cannot be used; the message names the file and the 1-based line. */
export class CaseLineError extends DatasetSuiteError {
  override name = 'CaseLineError';
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${file} line ${line}: ${detail}`, options);
  }
}

/** The case file (or the rubric file) differs from the one the run recorded (or the config pinned), so it cannot be trusted. */
export class DataChangedError extends DatasetSuiteError {
  override name = 'DataChangedError';
  constructor(
    readonly file: string,
    readonly recorded: string,
    readonly actual: string | null,
    what: 'case file' | 'rubric file' = 'case file',
  ) {
    super(
      actual === null
        ? `${what} ${file} is missing or unreadable; the run recorded sha256 ${recorded}`
        : `${what} ${file} changed since the run recorded it: sha256 ${actual}, recorded ${recorded}`,
    );
  }
}
