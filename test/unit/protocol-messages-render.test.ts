// The Messages adapter's answers: a job's reply as a `message` object and as its SSE events,
// byte-stable, with usage by Anthropic's names (the two required counts 0 only when unknown, and
// then said so in a header), and errors in Anthropic's shape with the status's error type.
import { expect } from 'chai';
import { conversationMemory } from '../../src/harness/external/protocols/index.js';
import { messagesAdapter } from '../../src/harness/external/protocols/messages.js';
import { messageEvents } from '../../src/harness/external/protocols/messages-stream.js';
import type { AgentCompletion, AgentFailure } from '../../src/harness/external/protocols/types.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

function requestOf(body: Record<string, unknown>): AgentModelRequest {
  const r = messagesAdapter.parse({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'x' }], ...body }, 'main', conversationMemory());
  if ('refused' in r) throw new Error(r.message);
  return r;
}
const PLAIN = requestOf({});
const STREAMED = requestOf({ stream: true });

const reply = (over: Partial<AgentCompletion> = {}): AgentCompletion => ({
  ok: true,
  id: 'chatcmpl-evalog-agent-call-2-attempt-1',
  model: 'run-model',
  content: 'figs: 3',
  toolCalls: [],
  finishReason: 'stop',
  usage: { prompt: 30, completion: 4, total: 34 },
  ...over,
});
const CALLS = [
  { id: 'call_a', name: 'lookup', arguments: '{"item": "fig"}' },
  { id: 'call_b', name: 'lookup', arguments: '' },
];

const bodyOf = (r: AgentCompletion) => {
  const answer = messagesAdapter.render(r, PLAIN);
  expect(answer).to.include({ status: 200, contentType: 'application/json' });
  return JSON.parse(answer.body) as Record<string, unknown>;
};

describe('messages adapter: a reply as a message object', () => {
  it('renders the fields in the API’s order: id from the reply’s, the run’s model, text then tool_use blocks', () => {
    const answer = messagesAdapter.render(
      reply({ toolCalls: CALLS, finishReason: 'tool_calls', usage: { prompt: 30, completion: 4, total: 34, cached: 10 } }),
      PLAIN,
    );
    expect(answer.body).to.equal(
      JSON.stringify({
        id: 'msg_evalog_agent-call-2-attempt-1',
        type: 'message',
        role: 'assistant',
        model: 'run-model',
        content: [
          { type: 'text', text: 'figs: 3' },
          { type: 'tool_use', id: 'call_a', name: 'lookup', input: { item: 'fig' } },
          { type: 'tool_use', id: 'call_b', name: 'lookup', input: {} },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 20, cache_creation_input_tokens: null, cache_read_input_tokens: 10, output_tokens: 4 },
      }),
    );
    expect(answer.headers ?? {}).to.deep.equal({});
    // The same reply renders the same bytes.
    expect(
      messagesAdapter.render(reply({ toolCalls: CALLS, finishReason: 'tool_calls', usage: { prompt: 30, completion: 4, total: 34, cached: 10 } }), PLAIN),
    ).to.deep.equal(answer);
  });

  it('no text block for null or empty content; a reply with nothing is an empty content list', () => {
    expect(bodyOf(reply({ content: null, toolCalls: [CALLS[0]!], finishReason: 'tool_calls' })).content).to.deep.equal([
      { type: 'tool_use', id: 'call_a', name: 'lookup', input: { item: 'fig' } },
    ]);
    expect(bodyOf(reply({ content: '' })).content).to.deep.equal([]);
  });

  it('arguments that are not a JSON object reach the agent as the text the model wrote', () => {
    const calls = ['not json', '[1,2]', '5', '"s"'].map((a, i) => ({ id: `c${i}`, name: 'lookup', arguments: a }));
    const content = bodyOf(reply({ content: null, toolCalls: calls, finishReason: 'tool_calls' })).content as { input: unknown }[];
    expect(content.map((b) => b.input)).to.deep.equal(['not json', '[1,2]', '5', '"s"']);
  });

  for (const [finish, calls, stop] of [
    ['stop', [], 'end_turn'],
    ['stop', CALLS, 'tool_use'],
    ['tool_calls', CALLS, 'tool_use'],
    ['function_call', CALLS, 'tool_use'],
    ['length', [], 'max_tokens'],
    ['length', CALLS, 'max_tokens'],
    ['content_filter', [], 'refusal'],
    ['eos', [], 'eos'],
    [null, [], null],
  ] as const) {
    it(`finish_reason ${finish}${calls.length ? ' with tool calls' : ''} → stop_reason ${stop}`, () => {
      expect(bodyOf(reply({ finishReason: finish, toolCalls: [...calls] }))).to.deep.include({ stop_reason: stop, stop_sequence: null });
    });
  }

  it('usage: input excludes cache reads; reasoning is thinking_tokens; a count not reported is 0 on the wire and named in a header', () => {
    const usageOf = (usage: AgentCompletion['usage']) => bodyOf(reply({ usage })).usage;
    expect(usageOf({ prompt: 30, completion: 4, total: 34 })).to.deep.equal({
      input_tokens: 30,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens: 4,
    });
    expect(usageOf({ prompt: 30, completion: 9, total: 39, cached: null, reasoning: 5 })).to.deep.equal({
      input_tokens: 30,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens: 9,
      output_tokens_details: { thinking_tokens: 5 },
    });
    expect(usageOf({ prompt: 30, completion: 4, total: 34, cached: 0 })).to.deep.include({ input_tokens: 30, cache_read_input_tokens: 0 });
    for (const [usage, unknown] of [
      [null, 'input_tokens,output_tokens'],
      [{ prompt: null, completion: 4, total: null }, 'input_tokens'],
      [{ prompt: 7, completion: null, total: null }, 'output_tokens'],
    ] as const) {
      const answer = messagesAdapter.render(reply({ usage }), PLAIN);
      const body = JSON.parse(answer.body) as { usage: Record<string, unknown> };
      expect(body.usage).to.deep.equal({
        input_tokens: usage?.prompt ?? 0,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        output_tokens: usage?.completion ?? 0,
      });
      expect(answer.headers).to.deep.equal({ 'x-evalog-usage-unknown': unknown });
      expect(messagesAdapter.render(reply({ usage }), STREAMED).headers).to.deep.include({ 'x-evalog-usage-unknown': unknown, 'cache-control': 'no-cache' });
    }
  });
});

describe('messages adapter: a reply as SSE events', () => {
  const full = reply({ toolCalls: CALLS, finishReason: 'tool_calls' });

  it('each frame is an `event:` line and a `data:` line whose type is the event’s, then a blank line', () => {
    const answer = messagesAdapter.render(full, STREAMED);
    expect(answer).to.include({ status: 200, contentType: 'text/event-stream; charset=utf-8' });
    expect(answer.headers).to.deep.equal({ 'cache-control': 'no-cache' });
    expect(answer.body.endsWith('\n\n')).to.equal(true);
    const frames = answer.body.slice(0, -2).split('\n\n');
    expect(frames).to.have.length(messageEvents(full).length);
    for (const frame of frames) {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).to.deep.equal([]);
      const name = /^event: (\w+)$/.exec(eventLine ?? '')?.[1];
      expect(JSON.parse((dataLine ?? '').replace(/^data: /, ''))).to.have.property('type', name);
    }
    expect(messagesAdapter.render(full, STREAMED).body).to.equal(answer.body);
  });

  it('the API’s order: start (empty content, stop null), ping, each block start / delta / stop, delta with the stop, stop', () => {
    const events = messageEvents(full).map((e) => e.data);
    const usage = { input_tokens: 30, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 4 };
    expect(events).to.deep.equal([
      {
        type: 'message_start',
        message: {
          id: 'msg_evalog_agent-call-2-attempt-1',
          type: 'message',
          role: 'assistant',
          model: 'run-model',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'figs: 3' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'lookup', input: {} } },
      // The arguments byte for byte, as the upstream wrote them.
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"item": "fig"}' } },
      { type: 'content_block_stop', index: 1 },
      // Empty arguments: no delta, the input stays {}.
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_b', name: 'lookup', input: {} } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage },
      { type: 'message_stop' },
    ]);
  });

  it('no text block without text; arguments that are not a JSON object stream as the JSON of their text', () => {
    const events = messageEvents(reply({ content: null, toolCalls: [{ id: 'c', name: 'lookup', arguments: 'oops' }], finishReason: 'length' })).map(
      (e) => e.data,
    );
    expect(events.map((e) => e.type)).to.deep.equal([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[3]).to.deep.equal({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"oops"' } });
    expect(events[5]).to.deep.include({ delta: { stop_reason: 'max_tokens', stop_sequence: null } });
  });
});

describe('messages adapter: errors', () => {
  const failure = (status: number, code: string, message: string): AgentFailure => ({ ok: false, status, code, message });
  const errorOf = (answer: { body: string }) => JSON.parse(answer.body) as { type: string; error: { type: string; message: string } };

  for (const [status, code, type] of [
    [403, 'budget_exhausted', 'permission_error'],
    [502, 'upstream_rate_limited', 'api_error'],
    [503, 'job_ended', 'api_error'],
    [429, 'slow_down', 'rate_limit_error'],
    [529, 'busy', 'overloaded_error'],
  ] as const) {
    it(`a ${status} ${code} reply is ${type}, its message led by the code, and not to be retried`, () => {
      const answer = messagesAdapter.failure(failure(status, code, 'evalog: something'));
      expect(answer).to.include({ status, contentType: 'application/json' });
      expect(answer.headers).to.deep.equal({ 'x-should-retry': 'false' });
      expect(errorOf(answer)).to.deep.equal({ type: 'error', error: { type, message: `${code}: evalog: something` } });
    });
  }

  it('a message that already starts with its code is not prefixed twice', () => {
    expect(errorOf(messagesAdapter.failure(failure(403, 'budget_exhausted', 'budget_exhausted: used up'))).error.message).to.equal('budget_exhausted: used up');
  });

  for (const [status, code, type] of [
    [400, 'invalid_request', 'invalid_request_error'],
    [401, 'invalid_api_key', 'authentication_error'],
    [403, 'forbidden', 'permission_error'],
    [404, 'not_found', 'not_found_error'],
    [405, 'method_not_allowed', 'invalid_request_error'],
    [413, 'request_too_large', 'request_too_large'],
    [500, 'internal_error', 'api_error'],
    [400, 'permission_error', 'permission_error'],
  ] as const) {
    it(`a gateway error ${status} ${code} is ${type}`, () => {
      const answer = messagesAdapter.error(status, code, 'no such thing');
      expect(answer).to.include({ status, contentType: 'application/json' });
      expect(errorOf(answer)).to.deep.equal({ type: 'error', error: { type, message: 'no such thing' } });
    });
  }
});
