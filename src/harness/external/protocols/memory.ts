// The gateway's ConversationMemory: what one agent process was answered, by the adapter's keys.
// In memory only: a resumed agent is a new process, which sends its requests again and gets the
// same ids back from the record, so it rebuilds the same memory as it goes.
import type { ChatMessage } from '../../../providers/chat.js';
import type { ConversationMemory } from './types.js';

/** An empty memory for one registered job (one agent process). */
export function conversationMemory(): ConversationMemory {
  const kept = new Map<string, readonly ChatMessage[]>();
  return {
    recall: (key) => {
      const found = kept.get(key);
      return found ? [...found] : undefined;
    },
    remember: (key, conversation) => void kept.set(key, [...conversation]),
  };
}
