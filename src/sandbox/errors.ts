// Errors of the sandbox itself (never of the artifact: an artifact's failures are check results).

const NOT_OS = 'the JavaScript sandbox is a restricted Node child process (permission model, vm context), not an operating-system sandbox';

/** The sandbox process could not be started or did not come up with the permission model. */
export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
  constructor(why: string) {
    super(`${NOT_OS}; it could not run: ${why}`);
  }
}

/** The sandbox process answered something that does not follow the line protocol. */
export class SandboxProtocolError extends Error {
  override name = 'SandboxProtocolError';
  constructor(why: string) {
    super(`${NOT_OS}; its answer was not understood: ${why}`);
  }
}

/** A function name the sandbox refuses to splice into its wrapper (not a plain identifier). */
export class InvalidFunctionNameError extends Error {
  override name = 'InvalidFunctionNameError';
  constructor(readonly functionName: string) {
    super(`function name ${JSON.stringify(functionName)} is not a plain JavaScript identifier`);
  }
}
