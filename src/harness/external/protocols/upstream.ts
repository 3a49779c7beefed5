// The recording proxy's adapters the other way round, for evalog's scripted model: a request an
// agent would send in Responses or Messages, translated onto chat completions exactly as the
// proxy translates it, played by the scripted model, and its completion rendered back as the
// proxy renders it. So `evalog mock-server` is an upstream that speaks those protocols natively
// (a pass-through run's endpoint in tests), with nothing new to keep in step with the proxy.
import type { ScriptedProtocol, ScriptedWireAnswer } from '../../../providers/scripted/index.js';
import { parseCompletion } from '../../../providers/outcomes.js';
import { conversationMemory } from './memory.js';
import { messagesAdapter } from './messages.js';
import { responsesAdapter } from './responses.js';
import type { AgentCompletion, ProtocolAdapter } from './types.js';

/** The model a request names when its body names none (the scripted model answers to any). */
const UNNAMED_MODEL = 'scripted';

/** One adapter as a scripted server's protocol; `memory` resolves `previous_response_id` across the server's answers. */
export function scriptedProtocol(adapter: ProtocolAdapter, memory = conversationMemory()): ScriptedProtocol {
  return {
    open(text) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { answer: adapter.error(400, 'invalid_request_error', 'the request body is not JSON') };
      }
      const request = adapter.parse(body, 'main', memory);
      if ('refused' in request) return { answer: adapter.error(request.status, request.code, request.message, request.field) };
      const named = (body as { model?: unknown }).model;
      const model = typeof named === 'string' ? named : UNNAMED_MODEL;
      const chat: Record<string, unknown> = {
        model,
        messages: request.messages,
        ...(request.tools.length > 0 ? { tools: request.tools.map((t) => ({ type: 'function', function: t })) } : {}),
        ...request.params,
      };
      return {
        chat,
        render(completion): ScriptedWireAnswer {
          const read = parseCompletion(completion, 0);
          if (!read.ok) return adapter.error(500, 'api_error', `the scripted model's completion is unreadable: ${read.data.message}`);
          const d = read.data;
          const reply: AgentCompletion = {
            ok: true,
            id: String(completion.id ?? 'scripted'),
            model: d.responseModel ?? model,
            content: d.content,
            toolCalls: d.toolCalls,
            finishReason: d.finishReason,
            usage: d.usage,
          };
          const answer = adapter.render(reply, request);
          adapter.remember?.(reply, request, memory);
          return answer;
        },
      };
    },
  };
}

/** The routes `evalog mock-server` answers besides chat completions, one server-wide memory between them. */
export function scriptedProtocols(): Record<string, ScriptedProtocol> {
  const memory = conversationMemory();
  return { '/v1/responses': scriptedProtocol(responsesAdapter, memory), '/v1/messages': scriptedProtocol(messagesAdapter, memory) };
}
