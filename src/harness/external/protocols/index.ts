// The wire protocols of the recording proxy, one adapter each, and the memory a job's adapters share.
export { chatAdapter, jsonAnswer, openAiGatewayError, sseAnswer } from './chat.js';
export { conversationMemory } from './memory.js';
export { countTokensAnswer, messagesAdapter } from './messages.js';
export { responsesAdapter } from './responses.js';
export { scriptedProtocol, scriptedProtocols } from './upstream.js';
export type * from './types.js';
