// The short form's input errors: one base class, itself a UserError (exit 2, one line, no stack).
import { UserError } from '../../core/errors.js';

/** A defineEval spec, a case or a template that cannot be used; the message names the field (and the file). */
export class EvalSpecError extends UserError {
  override name = 'EvalSpecError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A case of a data file that cannot be used; the message names the file and the 1-based line. */
export class EvalDataLineError extends EvalSpecError {
  override name = 'EvalDataLineError';
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file} line ${line}: ${detail}`);
  }
}

/** The data file differs from the one the run recorded: resuming or replaying it would mix two datasets. */
export class EvalDataChangedError extends EvalSpecError {
  override name = 'EvalDataChangedError';
  constructor(
    readonly file: string,
    readonly recorded: string,
    readonly actual: string | null,
  ) {
    super(
      actual === null
        ? `data file ${file} is missing or unreadable; the run recorded sha256 ${recorded}`
        : `data file ${file} changed since the run recorded it: sha256 ${actual.slice(0, 12)}…, recorded ${recorded.slice(0, 12)}…; restore the file the run started with`,
    );
  }
}

/** A function task: not yet a recorded shape (its model calls could not be replayed), so it is refused. */
export class EvalTaskFunctionError extends EvalSpecError {
  override name = 'EvalTaskFunctionError';
  constructor(suite: string) {
    super(
      `defineEval ${suite}: field task: a function task is not supported yet (its model calls would not be recorded, so resume and replay could not work); give a prompt template ("{{input}}") or templates by arm name`,
    );
  }
}
