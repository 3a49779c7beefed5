// Why a context-snapshot protocol folder cannot be used. All are UserErrors: the CLI prints the
// one-line message alone and exits 2, and no run folder exists yet (the protocol is read first).
import { UserError } from 'evalog';

/** A protocol folder that cannot be used; `file` is the path at fault. */
export class ContextSnapshotProtocolError extends UserError {
  override name = 'ContextSnapshotProtocolError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** The folder, or one of its three files, is not there (or is not readable). */
export class ProtocolPathError extends ContextSnapshotProtocolError {
  override name = 'ProtocolPathError';
  constructor(path: string, what: string) {
    super(path, `context-snapshot protocol: ${path}: ${what}`);
  }
}

/** A file's bytes are not the published ones, and the caller did not allow unpinned files. */
export class UnpinnedProtocolError extends ContextSnapshotProtocolError {
  override name = 'UnpinnedProtocolError';
  constructor(
    file: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      file,
      `context-snapshot protocol: ${file}: not the published file (sha256 ${actual}, published ${expected}); pass --allow-unpinned to run a changed protocol`,
    );
  }
}

/** cases.py or prompts.py could not be imported, or what it defines is not of the protocol's form. */
export class ProtocolFileError extends ContextSnapshotProtocolError {
  override name = 'ProtocolFileError';
  constructor(file: string, detail: string) {
    super(file, `context-snapshot protocol: ${file}: ${detail}`);
  }
}

/** config.json breaks one of the protocol's config rules; `field` is the key at fault. */
export class ProtocolConfigError extends ContextSnapshotProtocolError {
  override name = 'ProtocolConfigError';
  constructor(
    file: string,
    readonly field: string,
    detail: string,
  ) {
    super(file, `context-snapshot protocol: ${file}: field ${field}: ${detail}`);
  }
}
