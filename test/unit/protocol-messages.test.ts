// The Messages adapter's translation of a request onto chat completions: every carried field lands
// where chat has it, fields kept in the record only leave the chat request alone, and everything
// that cannot be carried is refused as Anthropic's 400 invalid_request_error, naming the field.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { messagesAdapter } from '../../src/harness/external/protocols/messages.js';
import { conversationMemory } from '../../src/harness/external/protocols/index.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

const parse = (body: unknown) => messagesAdapter.parse(body, 'main', conversationMemory());

function parsed(body: unknown): AgentModelRequest {
  const r = parse(body);
  if ('refused' in r) throw new Error(`refused: ${r.message}`);
  return r;
}

const BASE = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const with_ = (over: Record<string, unknown>) => ({ ...BASE, ...over });
const LOOKUP_SCHEMA = { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] };
const TOOL = { name: 'lookup', description: 'Looks up a fruit.', input_schema: LOOKUP_SCHEMA };

describe('messages adapter: a request translated onto chat completions', () => {
  it('a string prompt is one user message; max_tokens is carried; model and stream are the proxy’s; the body is kept as received', () => {
    const r = parsed(BASE);
    expect(r).to.deep.equal({
      attribution: 'main',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      params: { max_tokens: 100 },
      stream: false,
      includeUsage: true,
      protocol: 'messages',
      received: BASE,
    });
    expect(parsed(with_({ stream: true })).stream).to.equal(true);
    expect(parsed(with_({ stream: false })).stream).to.equal(false);
    expect(messagesAdapter.parse(BASE, 'child', conversationMemory())).to.include({ attribution: 'child' });
  });

  it('system, as a string or text blocks (cache_control ignored), is the first message; text blocks join with a blank line', () => {
    expect(parsed(with_({ system: 'Be brief.' })).messages[0]).to.deep.equal({ role: 'system', content: 'Be brief.' });
    const blocks = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two', cache_control: { type: 'ephemeral' } },
    ];
    expect(parsed(with_({ system: blocks })).messages).to.deep.equal([
      { role: 'system', content: 'one\n\ntwo' },
      { role: 'user', content: 'hi' },
    ]);
    // A system message in the conversation keeps its place (Claude Code sends them).
    const mid = parsed(
      with_({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'system', content: [{ type: 'text', text: 's' }] },
        ],
      }),
    );
    expect(mid.messages).to.deep.equal([
      { role: 'user', content: 'a' },
      { role: 'system', content: 's' },
    ]);
  });

  it('a tool loop: assistant tool_use → tool_calls with the input’s JSON; tool_result → tool messages, then the turn’s text', () => {
    const r = parsed(
      with_({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'price?' },
              { type: 'text', text: 'of figs', cache_control: { type: 'ephemeral' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'text', text: 'Looking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { item: 'fig', n: [1, 2] } },
              { type: 'redacted_thinking', data: 'xx' },
              { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'here:' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: '3 coins', cache_control: { type: 'ephemeral' } },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_2',
                content: [
                  { type: 'text', text: 'no' },
                  { type: 'text', text: 'item' },
                ],
                is_error: true,
              },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3' }] },
          { role: 'assistant', content: 'Done.' },
        ],
      }),
    );
    expect(r.messages).to.deep.equal([
      { role: 'user', content: 'price?\n\nof figs' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{"item":"fig","n":[1,2]}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'lookup', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '3 coins' },
      { role: 'tool', tool_call_id: 'toolu_2', content: '[tool error] no\n\nitem' },
      { role: 'user', content: 'here:' },
      { role: 'tool', tool_call_id: 'toolu_3', content: '' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('an assistant turn of tool calls only has content null; of thinking only, an empty string; an empty user turn stays a message', () => {
    const r = parsed(
      with_({
        messages: [
          { role: 'user', content: [] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'lookup', input: 'not an object' }] },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's' }] },
        ],
      }),
    );
    expect(r.messages).to.deep.equal([
      { role: 'user', content: '' },
      { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'lookup', arguments: '"not an object"' } }] },
      { role: 'assistant', content: '' },
    ]);
  });

  it('custom tools (type absent or "custom"; cache_control, strict, eager_input_streaming ignored) become chat tools', () => {
    const r = parsed(
      with_({
        tools: [
          { ...TOOL, cache_control: { type: 'ephemeral' }, strict: true, eager_input_streaming: true },
          { type: 'custom', name: 'ls', input_schema: { type: 'object' }, defer_loading: false, allowed_callers: ['direct'], input_examples: [] },
        ],
      }),
    );
    expect(r.tools).to.deep.equal([
      { name: 'lookup', description: 'Looks up a fruit.', parameters: LOOKUP_SCHEMA },
      { name: 'ls', description: '', parameters: { type: 'object' } },
    ]);
  });

  for (const [choice, params] of [
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [{ type: 'tool', name: 'lookup' }, { tool_choice: { type: 'function', function: { name: 'lookup' } } }],
    [
      { type: 'auto', disable_parallel_tool_use: true },
      { tool_choice: 'auto', parallel_tool_calls: false },
    ],
    [
      { type: 'tool', name: 'lookup', disable_parallel_tool_use: true },
      { tool_choice: { type: 'function', function: { name: 'lookup' } }, parallel_tool_calls: false },
    ],
    [{ type: 'any', disable_parallel_tool_use: false }, { tool_choice: 'required' }],
  ] as const) {
    it(`tool_choice ${JSON.stringify(choice)} → ${JSON.stringify(params)}`, () => {
      expect(parsed(with_({ tools: [TOOL], tool_choice: choice })).params).to.deep.equal({ max_tokens: 100, ...params });
    });
  }

  it('sampling and stops are carried (temperature, top_p, stop_sequences → stop); an empty stop list is no stop', () => {
    const r = parsed(with_({ temperature: 0.3, top_p: 0.9, stop_sequences: ['END', '\n\n'] }));
    expect(r.params).to.deep.equal({ max_tokens: 100, temperature: 0.3, top_p: 0.9, stop: ['END', '\n\n'] });
    expect(parsed(with_({ stop_sequences: [], temperature: null })).params).to.deep.equal({ max_tokens: 100 });
  });

  it('output_config.format json_schema → response_format; effort, thinking, metadata and the hints are recorded only', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const body = with_({
      output_config: { effort: 'high', format: { type: 'json_schema', schema } },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      metadata: { user_id: 'u1' },
      service_tier: 'auto',
      inference_geo: 'us',
      speed: 'standard',
      diagnostics: {},
      cache_control: { type: 'ephemeral' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      container: null,
    });
    const r = parsed(body);
    expect(r.params).to.deep.equal({ max_tokens: 100, response_format: { type: 'json_schema', json_schema: { name: 'output', schema } } });
    expect(r.received).to.equal(body);
    for (const thinking of [{ type: 'adaptive' }, { type: 'disabled' }]) expect(parsed(with_({ thinking })).params).to.deep.equal({ max_tokens: 100 });
    expect(parsed(with_({ output_config: { effort: 'max' } })).params).to.deep.equal({ max_tokens: 100 });
  });

  it('the real clients’ bodies (AI SDK, Anthropic SDK fixtures) translate without refusal', () => {
    const dir = resolve(import.meta.dirname, '../fixtures/wire');
    const names = ['ai-sdk-anthropic-messages-tool-result.json', 'anthropic-sdk-messages-tool-result.json'];
    for (const name of names) {
      const r = parsed(JSON.parse(readFileSync(join(dir, name), 'utf8')));
      expect(
        r.messages.map((m) => m.role),
        name,
      ).to.deep.equal(['system', 'user', 'assistant', 'tool']);
      expect(r.messages[2], name).to.deep.include({ content: null });
      expect(r.messages[3], name).to.deep.equal({ role: 'tool', tool_call_id: 'toolu_1', content: 'apple: 3 coins' });
    }
  });

  it('a body shaped like Claude Code’s translates: billing header block, system message, thinking, context_management, effort', () => {
    const body = {
      model: 'claude-opus-4-8',
      max_tokens: 32000,
      stream: true,
      metadata: { user_id: '{"device_id":"d","session_id":"s"}' },
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      output_config: { effort: 'high' },
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197;' },
        { type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } },
      ],
      tools: [{ name: 'Bash', description: 'Runs.', input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>ctx</system-reminder>\n\n' },
            { type: 'text', text: 'Say hi', cache_control: { type: 'ephemeral' } },
          ],
        },
        { role: 'system', content: 'Available agent types: ...' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'Bash', input: { command: 'ls' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'Exit code 1', is_error: true, cache_control: { type: 'ephemeral' } }],
        },
      ],
    };
    const r = parsed(body);
    expect(r.params).to.deep.equal({ max_tokens: 32000 });
    expect(r.stream).to.equal(true);
    expect(r.messages).to.deep.equal([
      { role: 'system', content: 'x-anthropic-billing-header: cc_version=2.1.197;\n\nYou are a Claude agent.' },
      { role: 'user', content: '<system-reminder>ctx</system-reminder>\n\n\n\nSay hi' },
      { role: 'system', content: 'Available agent types: ...' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_9', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_9', content: '[tool error] Exit code 1' },
    ]);
  });
});
