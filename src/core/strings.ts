/**
 * A copy of a decoded string that does not keep the text it was cut from alive. msgpackr returns an
 * event's short strings as slices of one string holding all of them, so a projection that keeps a
 * job id or a model name for the whole rebuild would otherwise keep every such string of that event
 * (measured: most of the rebuild's heap; bench/README.md, rebuild); a slice of an id (the log's
 * id index keeps a scope's prefix) keeps the whole id. Short strings are copies already.
 */
export function own<T extends string | null>(s: T): T {
  return (s === null || s.length < 13 ? s : ` ${s}`.slice(1)) as T;
}
