import type { StoredEvent } from '../../events/index.js';

/**
 * A projection is a fold over a run's events. `evolve` may update the accumulator that
 * `initialState` created (it is never shared), which keeps rebuilding a large log linear; it
 * must depend only on the events, so a rebuild equals the live result whatever the interleaving.
 */
export interface Projection<S, O> {
  name: string;
  initialState(): S;
  canHandle(e: StoredEvent): boolean;
  evolve(state: S, e: StoredEvent): S;
  /** The projection's output, sorted by stable keys. */
  result(state: S): O;
}

/** Runs a projection over events. */
export async function fold<S, O>(p: Projection<S, O>, events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>): Promise<O> {
  let s = p.initialState();
  for await (const e of events) if (p.canHandle(e)) s = p.evolve(s, e);
  return p.result(s);
}
