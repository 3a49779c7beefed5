/** Ends a machine with the error its invoked child failed with, so the job reports it. */
export function rethrow({ event }: { event: unknown }): never {
  throw (event as { error?: unknown }).error;
}
