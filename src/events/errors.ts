import { UserError } from '../core/errors.js';

/** A stored event that this version of evalog cannot read. */
export class UnreadableEventError extends UserError {
  override name = 'UnreadableEventError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A stored event whose schema version is newer than this evalog knows. */
export class NewerSchemaError extends UnreadableEventError {
  override name = 'NewerSchemaError';
}
