/**
 * A copy of a decoded string that does not keep the text it was cut from alive. msgpackr returns an
 * event's short strings as slices of one string holding all of them, so a projection that keeps a
 * job id or a model name for the whole rebuild would otherwise keep every such string of that event
 * (measured: most of the rebuild's heap; bench/README.md, rebuild); a slice of an id (the log's
 * id index keeps a scope's prefix) keeps the whole id. Short strings are copies already.
 *
 * The same text asked for again soon gets the same copy: every fold of a derive keeps the job id
 * of the JobStarted it has just been given, and every job's arm is one of a few. Without this, a
 * rebuild kept three copies of each job id and one of its arm per job and fold (bench/README.md,
 * rebuild). The copies are equal strings either way, so nothing but memory depends on it.
 */
export function own<T extends string | null>(s: T): T {
  if (s === null || s.length < 13) return s;
  const seen = recent.get(s);
  if (seen !== undefined) return seen as T;
  const mine = ` ${s}`.slice(1);
  // Bounded by clearing, which costs nothing per call: what is asked for again comes soon after.
  if (recent.size >= RECENT) recent.clear();
  recent.set(mine, mine);
  return mine as T;
}

/** How many copies `own` remembers. */
const RECENT = 1024;
const recent = new Map<string, string>();
