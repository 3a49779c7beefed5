// What the Messages adapter refuses, each as the agent receives it: a 400 with Anthropic's error
// body (`invalid_request_error`) whose message starts with the field. Refused rather than dropped:
// content chat completions cannot hold, server tools, settings with no chat equivalent, unknown
// fields, and malformed bodies. Also count_tokens, which refuses what create refuses.
import { expect } from 'chai';
import { conversationMemory } from '../../src/harness/external/protocols/index.js';
import { countTokensAnswer, messagesAdapter } from '../../src/harness/external/protocols/messages.js';

const BASE = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const TOOL = { name: 'lookup', description: 'Looks up.', input_schema: { type: 'object' } };
const user = (...content: unknown[]) => ({ ...BASE, messages: [{ role: 'user', content }] });
const assistant = (...content: unknown[]) => ({
  ...BASE,
  messages: [
    { role: 'user', content: 'x' },
    { role: 'assistant', content },
  ],
});
const tool = (over: Record<string, unknown>) => ({ ...BASE, tools: [TOOL, { ...TOOL, ...over }] });
const PNG = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };

/** [what, body, field, the message's tail after "<field>: "]. */
const CASES: [string, unknown, string, string][] = [
  ['a body that is not an object', [BASE], 'body', 'the request body must be a JSON object'],
  ['an unknown top-level field', { ...BASE, foo: 1 }, 'foo', 'is not a Messages field evalog can carry onto chat completions'],
  ['a beta field evalog cannot carry (mcp_servers)', { ...BASE, mcp_servers: [] }, 'mcp_servers', 'is not a Messages field'],
  ['no model', { ...BASE, model: undefined }, 'model', 'is required: a non-empty string'],
  ['no max_tokens', { ...BASE, max_tokens: undefined }, 'max_tokens', 'is required: a positive integer'],
  ['max_tokens 0 (cache warming)', { ...BASE, max_tokens: 0 }, 'max_tokens', '0 (warming the prompt cache) has no chat completions equivalent'],
  ['a fractional max_tokens', { ...BASE, max_tokens: 1.5 }, 'max_tokens', 'is required: a positive integer'],
  ['no messages', { ...BASE, messages: undefined }, 'messages', 'is required'],
  ['messages that are not an array', { ...BASE, messages: 'hi' }, 'messages', 'must be an array of messages'],
  ['a message that is not an object', { ...BASE, messages: ['hi'] }, 'messages[0]', 'must be a message object'],
  ['a message with a chat role', { ...BASE, messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role', 'must be "user", "assistant" or "system"'],
  ['content that is neither string nor blocks', { ...BASE, messages: [{ role: 'user', content: 3 }] }, 'messages[0].content', 'must be a string or an array'],
  ['a block without a type', user({ text: 'x' }), 'messages[0].content[0].type', 'must be a string'],
  ['an image in a user message', user({ type: 'text', text: 'see' }, PNG), 'messages[0].content[1].type', '"image" cannot be carried onto chat completions'],
  [
    'a document',
    user({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }),
    'messages[0].content[0].type',
    '"document" cannot be carried',
  ],
  [
    'a search result',
    user({ type: 'search_result', source: 's', title: 't', content: [] }),
    'messages[0].content[0].type',
    '"search_result" cannot be carried',
  ],
  [
    'a thinking block in a user message',
    user({ type: 'thinking', thinking: 'x', signature: 's' }),
    'messages[0].content[0].type',
    '"thinking" cannot be carried',
  ],
  [
    'a tool_use block in a user message',
    user({ type: 'tool_use', id: 't', name: 'n', input: {} }),
    'messages[0].content[0].type',
    '"tool_use" cannot be carried',
  ],
  [
    'a server tool call in history',
    assistant({ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }),
    'messages[1].content[0].type',
    '"server_tool_use" cannot be carried',
  ],
  [
    'a server tool result in history',
    assistant({ type: 'web_search_tool_result', tool_use_id: 's', content: [] }),
    'messages[1].content[0].type',
    '"web_search_tool_result" cannot be carried',
  ],
  [
    'a tool_result in an assistant message',
    assistant({ type: 'tool_result', tool_use_id: 't' }),
    'messages[1].content[0].type',
    '"tool_result" cannot be carried',
  ],
  [
    'an image inside a tool result',
    user({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'x' }, PNG] }),
    'messages[0].content[0].content[1].type',
    '"image" cannot be carried',
  ],
  ['a tool result without its tool_use_id', user({ type: 'tool_result', content: 'x' }), 'messages[0].content[0].tool_use_id', 'must be a non-empty string'],
  [
    'a tool result’s is_error that is not a boolean',
    user({ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }),
    'messages[0].content[0].is_error',
    'must be a boolean',
  ],
  [
    'a tool result’s content of another kind',
    user({ type: 'tool_result', tool_use_id: 't', content: 5 }),
    'messages[0].content[0].content',
    'must be a string or an array of text blocks',
  ],
  ['a text block without text', user({ type: 'text' }), 'messages[0].content[0].text', 'must be a string'],
  [
    'a text block with citations',
    assistant({ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }),
    'messages[1].content[0].citations',
    'citations cannot be carried',
  ],
  ['a tool_use without input', assistant({ type: 'tool_use', id: 't', name: 'n' }), 'messages[1].content[0].input', 'is required'],
  ['a tool_use without id', assistant({ type: 'tool_use', name: 'n', input: {} }), 'messages[1].content[0].id', 'must be a non-empty string'],
  ['a tool_use without name', assistant({ type: 'tool_use', id: 't', input: {} }), 'messages[1].content[0].name', 'must be a non-empty string'],
  [
    'a tool_use made by server-side code',
    assistant({ type: 'tool_use', id: 't', name: 'n', input: {}, caller: { type: 'code_execution_20250825', tool_id: 'x' } }),
    'messages[1].content[0].caller',
    'cannot be carried',
  ],
  ['an image in system', { ...BASE, system: [{ type: 'text', text: 'a' }, PNG] }, 'system[1].type', '"image" cannot be carried'],
  ['a system that is neither string nor blocks', { ...BASE, system: { text: 'a' } }, 'system', 'must be a string or an array of text blocks'],
  ['tools that are not an array', { ...BASE, tools: TOOL }, 'tools', 'must be an array of tools'],
  ['a tool that is not an object', { ...BASE, tools: ['lookup'] }, 'tools[0]', 'must be a tool object'],
  ['a tool without a name', tool({ name: '' }), 'tools[1].name', 'must be a non-empty string'],
  ['a tool without input_schema', tool({ input_schema: undefined }), 'tools[1].input_schema', 'must be a JSON schema object'],
  ['a tool description that is not a string', tool({ description: 3 }), 'tools[1].description', 'must be a string'],
  ['a deferred tool', tool({ defer_loading: true }), 'tools[1].defer_loading', 'server-side tool search'],
  ['tool input examples', tool({ input_examples: [{ item: 'fig' }] }), 'tools[1].input_examples', 'cannot be carried onto chat completions'],
  ['a tool callable from code execution', tool({ allowed_callers: ['code_execution_20250825'] }), 'tools[1].allowed_callers', 'cannot be carried'],
  ['an unknown tool field', tool({ color: 'red' }), 'tools[1].color', 'is not a custom tool field'],
  ['tool_choice as a string', { ...BASE, tool_choice: 'auto' }, 'tool_choice', 'must be an object with a "type"'],
  ['an unknown tool_choice type', { ...BASE, tool_choice: { type: 'required' } }, 'tool_choice.type', 'must be "auto", "any", "tool" or "none"'],
  ['tool_choice tool without a name', { ...BASE, tool_choice: { type: 'tool' } }, 'tool_choice.name', 'must be a non-empty string'],
  [
    'disable_parallel_tool_use not a boolean',
    { ...BASE, tool_choice: { type: 'auto', disable_parallel_tool_use: 1 } },
    'tool_choice.disable_parallel_tool_use',
    'must be a boolean',
  ],
  ['a temperature that is not a number', { ...BASE, temperature: 'hot' }, 'temperature', 'must be a number'],
  ['a top_p that is not a number', { ...BASE, top_p: '0.9' }, 'top_p', 'must be a number'],
  ['top_k (no chat equivalent)', { ...BASE, top_k: 5 }, 'top_k', 'has no chat completions equivalent'],
  ['stop_sequences that are not strings', { ...BASE, stop_sequences: 'END' }, 'stop_sequences', 'must be an array of strings'],
  ['a stream that is not a boolean', { ...BASE, stream: 'yes' }, 'stream', 'must be a boolean'],
  ['an unknown thinking type', { ...BASE, thinking: { type: 'on' } }, 'thinking.type', 'must be "enabled", "disabled", "adaptive" or "between_tools"'],
  ['thinking enabled without a budget', { ...BASE, thinking: { type: 'enabled' } }, 'thinking.budget_tokens', 'must be a positive integer'],
  ['metadata that is not an object', { ...BASE, metadata: 'u1' }, 'metadata', 'must be an object'],
  ['a service_tier that is not a string', { ...BASE, service_tier: 1 }, 'service_tier', 'must be a string'],
  ['a code execution container', { ...BASE, container: 'cntr_1' }, 'container', '"cntr_1" cannot be carried'],
  [
    'context management that clears tool results',
    { ...BASE, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } },
    'context_management.edits[0].type',
    '"clear_tool_uses_20250919" cannot be carried',
  ],
  ['an unknown context_management field', { ...BASE, context_management: { edits: [], keep: 1 } }, 'context_management.keep', 'is not a field'],
  ['an output format that is not json_schema', { ...BASE, output_config: { format: { type: 'text' } } }, 'output_config.format.type', 'must be "json_schema"'],
  [
    'a json_schema format without a schema',
    { ...BASE, output_config: { format: { type: 'json_schema' } } },
    'output_config.format.schema',
    'must be a JSON schema object',
  ],
  ['an unknown output_config field', { ...BASE, output_config: { verbosity: 'low' } }, 'output_config.verbosity', 'is not a field'],
];

const SERVER_TOOLS = [
  'web_search_20250305',
  'web_fetch_20250910',
  'bash_20250124',
  'text_editor_20250728',
  'code_execution_20250825',
  'computer_20250124',
  'memory_20250818',
];

describe('messages adapter: refusals, as the agent receives them', () => {
  for (const [what, body, field, tail] of CASES) {
    it(`refuses ${what}, naming ${field}`, () => {
      const r = messagesAdapter.parse(body, 'main', conversationMemory());
      if (!('refused' in r)) throw new Error(`not refused: ${JSON.stringify(r)}`);
      expect(r).to.include({ status: 400, code: 'invalid_request_error', field });
      expect(r.message.startsWith(`${field}: `), r.message).to.equal(true);
      expect(r.message).to.include(tail);
      const answer = messagesAdapter.error(r.status, r.code, r.message, r.field);
      expect(answer).to.include({ status: 400, contentType: 'application/json' });
      expect(JSON.parse(answer.body)).to.deep.equal({ type: 'error', error: { type: 'invalid_request_error', message: r.message } });
    });
  }

  for (const type of SERVER_TOOLS) {
    it(`refuses the server tool ${type}, naming tools[1].type`, () => {
      const r = messagesAdapter.parse({ ...BASE, tools: [TOOL, { type, name: type.split('_')[0] }] }, 'main', conversationMemory());
      expect(r).to.deep.equal({
        refused: true,
        status: 400,
        code: 'invalid_request_error',
        field: 'tools[1].type',
        message: `tools[1].type: "${type}" cannot be carried onto chat completions`,
      });
    });
  }

  it('names the first unknown field by name order, whatever order the client wrote its keys in', () => {
    const a = messagesAdapter.parse({ zeta: 1, ...BASE, alpha: 2 }, 'main', conversationMemory());
    const b = messagesAdapter.parse({ alpha: 2, ...BASE, zeta: 1 }, 'main', conversationMemory());
    expect(a).to.deep.include({ field: 'alpha' });
    expect(b).to.deep.include({ field: 'alpha' });
  });
});

describe('messages adapter: count_tokens', () => {
  const answer = (body: unknown) => {
    const a = countTokensAnswer(body);
    return { ...a, json: JSON.parse(a.body) as Record<string, unknown> };
  };

  it('estimates ceil(chars / 4) of the canonical translated messages and tools, with no max_tokens', () => {
    const a = answer({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] });
    const canonical = '{"messages":[{"content":"hi","role":"user"}],"tools":[]}';
    expect(a).to.include({ status: 200, contentType: 'application/json' });
    expect(a.json).to.deep.equal({ input_tokens: Math.ceil(canonical.length / 4) });
  });

  it('counts system and tools, and grows with the conversation; the same body gives the same count', () => {
    const small = answer({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).json.input_tokens as number;
    const body = {
      model: 'm',
      system: 'Be brief.',
      tools: [TOOL],
      tool_choice: { type: 'auto' },
      thinking: { type: 'adaptive' },
      messages: [{ role: 'user', content: 'hi' }],
    };
    const big = answer(body).json.input_tokens as number;
    const canonical =
      '{"messages":[{"content":"Be brief.","role":"system"},{"content":"hi","role":"user"}],"tools":[{"description":"Looks up.","name":"lookup","parameters":{"type":"object"}}]}';
    expect(big)
      .to.equal(Math.ceil(canonical.length / 4))
      .and.be.greaterThan(small);
    expect(countTokensAnswer(body).body).to.equal(countTokensAnswer(structuredClone(body)).body);
  });

  for (const [what, body, field] of [
    ['an image', { model: 'm', messages: [{ role: 'user', content: [PNG] }] }, 'messages[0].content[0].type'],
    ['a server tool', { model: 'm', messages: BASE.messages, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0].type'],
    ['max_tokens (not a count_tokens field)', BASE, 'max_tokens'],
    ['stream (not a count_tokens field)', { model: 'm', messages: BASE.messages, stream: true }, 'stream'],
    ['no model', { messages: BASE.messages }, 'model'],
  ] as const) {
    it(`refuses ${what} as create does, in Anthropic's error shape`, () => {
      const a = answer(body);
      expect(a.status).to.equal(400);
      expect(a.json).to.have.keys('type', 'error');
      expect(a.json.type).to.equal('error');
      const error = a.json.error as { type: string; message: string };
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message.startsWith(`${field}: `), error.message).to.equal(true);
    });
  }
});
