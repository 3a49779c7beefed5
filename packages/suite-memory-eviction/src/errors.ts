/**
 * Named errors of the memory-eviction protocol and dataset code. Every error names the file it is
 * about; protocol errors also name the offending field path (e.g. `pool.capacities[1]`).
 */
import { UserError } from 'evalog';

/** One validation problem: a field path inside the file and what is wrong with it. */
export interface ProtocolIssue {
  /** Dotted field path with `[i]` for array indices; `(root)` for the whole document. */
  path: string;
  message: string;
}

/** A protocol file (config, manifest, answer prompt) is invalid or disagrees with another one. */
export class ProtocolValidationError extends UserError {
  override readonly name = 'ProtocolValidationError';
  /** The file the problem is in. */
  readonly file: string;
  /** Field path of the first issue. */
  readonly field: string;
  readonly issues: readonly ProtocolIssue[];

  constructor(file: string, issues: readonly ProtocolIssue[]) {
    const list = issues.length > 0 ? issues : [{ path: '(root)', message: 'invalid' }];
    super(`${file}: ${list.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.file = file;
    this.field = list[0]!.path;
    this.issues = list;
  }
}

/** One protocol file whose bytes are not the published protocol's. */
export interface PinMismatch {
  file: string;
  expected: string;
  actual: string;
}

/**
 * Files of a `--protocol-dir` folder are not the published protocol's (by sha256), and the run was
 * not allowed to be unpinned: every such file is named with the pinned and the actual hash.
 */
export class ProtocolPinError extends UserError {
  override readonly name = 'ProtocolPinError';
  readonly mismatches: readonly PinMismatch[];

  constructor(mismatches: readonly PinMismatch[]) {
    const list = mismatches.map((m) => `${m.file} has sha256 ${m.actual}, not the published ${m.expected}`).join('; ');
    super(`${list} (give --allow-unpinned to run it as an unpinned protocol)`);
    this.mismatches = mismatches;
  }
}

/** The LongMemEval dataset file is unusable (bad shape, too few eligible rows, disagrees with the manifest...). */
export class DatasetError extends UserError {
  override name = 'DatasetError';
  readonly file: string;
  /** The row the problem is in, when there is one. */
  readonly questionId: string | null;

  constructor(file: string, message: string, questionId: string | null = null) {
    super(`${file}: ${questionId === null ? '' : `question ${JSON.stringify(questionId)}: `}${message}`);
    this.file = file;
    this.questionId = questionId;
  }
}

/** The dataset file's bytes do not hash to the pinned sha256 (checked before parsing). */
export class DatasetHashMismatchError extends DatasetError {
  override name = 'DatasetHashMismatchError';
  readonly expected: string;
  readonly actual: string;

  constructor(file: string, expected: string, actual: string) {
    super(file, `SHA-256 mismatch: expected ${expected}, actual ${actual}`);
    this.expected = expected;
    this.actual = actual;
  }
}

/** Renders a field path the way the errors print it: `a.b[2].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
