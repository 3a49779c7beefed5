// given(events).when(command).then(events): decider tests in the style of event-sourcing libraries.
// A decider is a pure pair: `evolve` folds past events into a state, `decide` turns a command and
// that state into new events (drafts). The helper folds, decides and compares type and data only.
// It asserts with node:assert, so it works under any test runner (mocha, node:test, vitest).
import { deepStrictEqual, throws } from 'node:assert/strict';
import type { StoredEvent } from '../../events/index.js';
import type { AnyDraft } from '../../harness/kernel/journal.js';

/** A decider as the helper sees it. */
export interface Decider<S, C> {
  initialState: S;
  evolve(state: S, event: StoredEvent): S;
  decide(command: C, state: S): readonly AnyDraft[];
}

/** An expected event: type and data. */
export type Expected = { type: string; data: unknown };

/** Starts a specification of one decider. */
export function deciderSpec<S, C>(decider: Decider<S, C>) {
  return {
    /** The events that already happened (folded with `evolve`). */
    given(events: readonly StoredEvent[]) {
      const state = events.reduce(decider.evolve, decider.initialState);
      return {
        /** The command to decide. */
        when(command: C) {
          const run = () => decider.decide(command, state).map((d): Expected => ({ type: d.type, data: d.data }));
          return {
            /** The events it must decide, in order (none: an empty list). */
            // biome-ignore lint/suspicious/noThenProperty: then() is the helper's public API (deciderSpec(...).given().when().then()); the when() step is not a promise and is not meant to be awaited
            then(expected: readonly Expected[]): void {
              deepStrictEqual(run(), expected);
            },
            /** The command is refused with an error matching `pattern` (a message pattern or an error class). */
            thenThrows(pattern: RegExp | (new (...args: never[]) => Error)): void {
              throws(run, pattern as RegExp);
            },
          };
        },
      };
    },
  };
}

/** An expected event, typed by its name. */
export const ev = (type: string, data: unknown): Expected => ({ type, data });
