// Public surface of the scripted model: a deterministic OpenAI-compatible server on loopback.
export { startScriptedModel } from './server.js';
export { fallbackPlayer } from './players.js';
export { ChatRequestSchema, parseChatRequest, messageText, lastMessageText, maxTokensOf } from './request.js';
export type { ChatRequest, ChatMessage, ToolSpec } from './request.js';
export { canonicalJson, requestHash } from './hash.js';
export { SCRIPTED_CREATED, promptTokens } from './completion.js';
export type { ScriptedUsage } from './completion.js';
export { validateFaultRule } from './faults.js';
export { ScriptedConfigError, InvalidChatRequestError, PlayerFailedError } from './errors.js';
export { FAULT_KINDS } from './types.js';
export type {
  Player,
  PlayerContext,
  PlayerReply,
  PlayerToolCall,
  FaultKind,
  FaultRule,
  LatencyOption,
  OmitUsageOption,
  ScriptedModelOptions,
  ScriptedStats,
  ScriptedModel,
  ScriptedProtocol,
  ScriptedWireAnswer,
} from './types.js';
