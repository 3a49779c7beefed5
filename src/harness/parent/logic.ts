import type { DataOf, StoredEvent } from '../../events/index.js';
import { draft, type AnyDraft } from '../kernel/journal.js';
import type { Delegation } from '../suite/types.js';

/** The parent's state: a fold of its own events. */
export interface ParentState {
  reply: DataOf<'ProviderCallSucceeded'> | null;
  failure: DataOf<'ProviderCallFailed'> | null;
  delegated: DataOf<'TaskDelegated'> | null;
}

/** The start state. */
export const initialParentState: ParentState = { reply: null, failure: null, delegated: null };

/** Folds one of the parent's events into its state. */
export function evolveParent(s: ParentState, e: StoredEvent): ParentState {
  switch (e.type) {
    case 'ProviderCallSucceeded':
      return { ...s, reply: e.data, failure: null };
    case 'ProviderCallFailed':
      return { ...s, failure: e.data };
    case 'TaskDelegated':
      return { ...s, delegated: e.data };
    default:
      return s;
  }
}

/** The parent's decision once its call settled: the handoff event, or nothing when it failed. */
export function decideDelegation(delegation: Delegation): AnyDraft[] {
  if (!delegation.ok) return [];
  const words = delegation.brief.split(/\s+/).filter(Boolean).length;
  return [draft('TaskDelegated', { mode: delegation.mode, brief: delegation.brief, words, acceptanceCriteria: delegation.acceptanceCriteria ?? null })];
}
