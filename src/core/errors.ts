/**
 * Bad input the user can fix (a flag, a config, a file, a damaged log): the CLI prints the message
 * alone and exits 2. Every such error extends this, so the CLI needs no list of them.
 */
export class UserError extends Error {
  override name = 'UserError';
}
