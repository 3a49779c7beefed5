/** A usage input file that cannot be read: names the file and, when known, the 1-based line. */
export class UsageInputError extends Error {
  override name = 'UsageInputError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}${line === null ? '' : ` line ${line}`}: ${reason}`, options);
  }
}
