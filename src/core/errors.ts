const USER_ERROR = Symbol.for('evalog.UserError');

/**
 * Bad input the user can fix (a flag, a config, a file, a damaged log): the CLI prints the message
 * alone and exits 2. Every such error extends this, so the CLI needs no list of them.
 */
export class UserError extends Error {
  override name = 'UserError';
  readonly [USER_ERROR] = true;
  // A user's suite file loaded through tsx imports its own copy of evalog's modules (the CLI runs its
  // bundle): that copy's UserErrors are recognised by a registered symbol, not by class identity.
  // Subclasses keep the ordinary check; only `instanceof UserError` itself accepts another copy's.
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass being checked against, which must not be UserError's rule
    if (this !== UserError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as { [USER_ERROR]?: unknown })[USER_ERROR] === true;
  }
}
