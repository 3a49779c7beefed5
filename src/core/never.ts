/** Closes a switch over a union: a new member that is not handled fails to compile. */
export function assertNever(x: never): never {
  throw new Error(`unhandled case ${JSON.stringify(x)}`);
}
