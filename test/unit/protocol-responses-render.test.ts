// The Responses adapter's answers: a job's reply as a `response` object and as its typed SSE
// events, byte-stable, with usage by the Responses names (unknown never 0), and errors in OpenAI's shape.
import { expect } from 'chai';
import { conversationMemory, responsesAdapter } from '../../src/harness/external/protocols/index.js';
import { responseEvents } from '../../src/harness/external/protocols/responses-stream.js';
import type { AgentCompletion } from '../../src/harness/external/protocols/types.js';
import { PROXY_CREATED } from '../../src/harness/external/protocols/chat-wire.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';
import { parseCompletion } from '../../src/providers/outcomes.js';

const TOOL = { type: 'function', name: 'lookup', description: 'Looks up.', parameters: { type: 'object', properties: {} }, strict: true };

function requestOf(body: Record<string, unknown>): AgentModelRequest {
  const r = responsesAdapter.parse(body, 'main', conversationMemory());
  if ('refused' in r) throw new Error(r.message);
  return r;
}

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
  { id: 'call_a', name: 'lookup', arguments: '{"item":"fig"}' },
  { id: 'call_b', name: 'lookup', arguments: '' },
];

const bodyOf = (r: AgentCompletion, request = requestOf({ input: 'x' })) => {
  const answer = responsesAdapter.render(r, request);
  expect(answer.status).to.equal(200);
  expect(answer.contentType).to.equal('application/json');
  return JSON.parse(answer.body) as Record<string, unknown>;
};

describe('responses adapter: a reply as a response object', () => {
  it('renders every field the clients read, echoing the request’s own settings', () => {
    const request = requestOf({
      model: 'scripted',
      instructions: 'Be brief.',
      input: 'figs?',
      tools: [TOOL],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.5,
      max_output_tokens: 99,
      metadata: { k: 'v' },
      store: false,
      previous_response_id: null,
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_object' }, verbosity: 'low' },
      truncation: 'auto',
      user: 'u',
    });
    expect(bodyOf(reply(), request)).to.deep.equal({
      id: 'resp_evalog_agent-call-2-attempt-1',
      object: 'response',
      created_at: PROXY_CREATED,
      status: 'completed',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: 'Be brief.',
      max_output_tokens: 99,
      model: 'run-model',
      output: [
        {
          id: 'msg_evalog_agent-call-2-attempt-1',
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'figs: 3' }],
          role: 'assistant',
        },
      ],
      parallel_tool_calls: false,
      previous_response_id: null,
      reasoning: { effort: 'low', summary: null },
      service_tier: null,
      store: false,
      temperature: 0.5,
      text: { format: { type: 'json_object' }, verbosity: 'low' },
      tool_choice: 'required',
      tools: [TOOL],
      top_p: null,
      truncation: 'auto',
      usage: { input_tokens: 30, output_tokens: 4, total_tokens: 34 },
      user: 'u',
      metadata: { k: 'v' },
    });
    // The API's defaults where the request set nothing.
    expect(bodyOf(reply())).to.deep.include({
      instructions: null,
      parallel_tool_calls: true,
      store: true,
      tool_choice: 'auto',
      tools: [],
      truncation: 'disabled',
      metadata: {},
      text: { format: { type: 'text' } },
    });
  });

  it('tool calls are function_call items after the message, call_id the tool call’s id; no message item for calls without text', () => {
    const fc = (i: number, c: (typeof CALLS)[number]) => ({
      id: `fc_evalog_agent-call-2-attempt-1_${i}`,
      type: 'function_call',
      status: 'completed',
      arguments: c.arguments,
      call_id: c.id,
      name: c.name,
    });
    const withText = bodyOf(reply({ toolCalls: CALLS, finishReason: 'tool_calls' }));
    expect((withText.output as { type: string }[]).map((o) => o.type)).to.deep.equal(['message', 'function_call', 'function_call']);
    expect((withText.output as unknown[]).slice(1)).to.deep.equal([fc(0, CALLS[0]!), fc(1, CALLS[1]!)]);
    expect(bodyOf(reply({ content: null, toolCalls: CALLS })).output).to.deep.equal([fc(0, CALLS[0]!), fc(1, CALLS[1]!)]);
    expect(bodyOf(reply({ content: '', toolCalls: CALLS })).output).to.deep.equal([fc(0, CALLS[0]!), fc(1, CALLS[1]!)]);
    // An empty answer is an empty message; no answer at all, no item.
    expect((bodyOf(reply({ content: '' })).output as { content: { text: string }[] }[])[0]!.content[0]!.text).to.equal('');
    expect(bodyOf(reply({ content: null })).output).to.deep.equal([]);
  });

  it('a truncated reply is incomplete (max_output_tokens), a filtered one too (content_filter); any other finish is completed', () => {
    const cut = bodyOf(reply({ finishReason: 'length' }));
    expect(cut).to.deep.include({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect((cut.output as { status: string }[])[0]!.status).to.equal('incomplete');
    expect(bodyOf(reply({ finishReason: 'content_filter' }))).to.deep.include({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    for (const finishReason of ['stop', 'tool_calls', null]) expect(bodyOf(reply({ finishReason })).status, String(finishReason)).to.equal('completed');
  });

  it('usage by the Responses names, details only when reported; a usage reported in part is null, never a 0', () => {
    const usage = (u: AgentCompletion['usage']) => bodyOf(reply({ usage: u })).usage;
    expect(usage({ prompt: 30, completion: 4, total: 34, cached: 8, reasoning: 2 })).to.deep.equal({
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 34,
    });
    expect(usage({ prompt: 30, completion: 4, total: 34, cached: null })).to.deep.equal({ input_tokens: 30, output_tokens: 4, total_tokens: 34 });
    expect(usage({ prompt: null, completion: 4, total: 34 })).to.equal(null);
    expect(usage({ prompt: 30, completion: 4, total: null })).to.equal(null);
    expect(usage(null)).to.equal(null);
  });

  it('the reasoning count comes from chat’s completion_tokens_details, absent when not reported (and an odd one fails nothing)', () => {
    const completion = (usage: unknown) => ({ model: 'm', choices: [{ finish_reason: 'stop', message: { content: 'x' } }], usage });
    const usageOf = (u: unknown) => {
      const r = parseCompletion(completion(u), 1);
      if (!r.ok) throw new Error(r.data.message);
      return r.data.usage;
    };
    expect(usageOf({ prompt_tokens: 3, completion_tokens: 9, total_tokens: 12, completion_tokens_details: { reasoning_tokens: 7 } })).to.deep.equal({
      prompt: 3,
      completion: 9,
      total: 12,
      reasoning: 7,
    });
    expect(usageOf({ prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 })).to.deep.equal({ prompt: 3, completion: 9, total: 12 });
    expect(usageOf({ prompt_tokens: 3, completion_tokens: 9, total_tokens: 12, completion_tokens_details: { reasoning_tokens: -1 } })).to.not.have.property(
      'reasoning',
    );
    expect(usageOf({ prompt_tokens: 3, completion_tokens: 9, total_tokens: 12, completion_tokens_details: 'odd' })).to.not.have.property('reasoning');
  });

  it('ids come from the reply’s id, so the same reply renders the same bytes', () => {
    const request = requestOf({ input: 'x', tools: [TOOL] });
    const r = reply({ toolCalls: CALLS });
    expect(responsesAdapter.render(r, request).body).to.equal(responsesAdapter.render(structuredClone(r), requestOf({ input: 'x', tools: [TOOL] })).body);
    expect(bodyOf(reply({ id: 'chatcmpl-other' })).id).to.equal('resp_evalog_chatcmpl-other');
    expect(bodyOf(reply({ id: 'chatcmpl-evalog-agent-r1-call-9-attempt-2' })).id).to.equal('resp_evalog_agent-r1-call-9-attempt-2');
  });

  it('an error reply keeps its status, in OpenAI’s shape with evalog’s code', () => {
    const answer = responsesAdapter.failure({ ok: false, status: 403, code: 'budget_exhausted', message: 'used up' });
    expect(answer.status).to.equal(403);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: { message: 'used up', type: 'evalog_error', code: 'budget_exhausted', param: null } });
    const gateway = responsesAdapter.error(401, 'invalid_api_key', 'wrong token');
    expect(JSON.parse(gateway.body)).to.deep.equal({ error: { message: 'wrong token', type: 'invalid_request_error', code: 'invalid_api_key', param: null } });
  });
});

describe('responses adapter: a reply as typed SSE events', () => {
  const streamed = (r: AgentCompletion, body: Record<string, unknown> = { input: 'x', stream: true }) => {
    const request = requestOf(body);
    const answer = responsesAdapter.render(r, request);
    expect(answer.contentType).to.equal('text/event-stream; charset=utf-8');
    return { answer, request, events: responseEvents(r, request) };
  };

  it('each event is an `event:` line and a `data:` line whose type is the event’s, numbered from 0, and no [DONE]', () => {
    const { answer, events } = streamed(reply({ toolCalls: CALLS }));
    const frames = answer.body.split('\n\n').filter((f) => f !== '');
    expect(frames).to.have.length(events.length);
    frames.forEach((frame, n) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length)) as { type: string; sequence_number: number };
      expect(rest).to.deep.equal([]);
      expect(eventLine).to.equal(`event: ${data.type}`);
      expect(data.sequence_number).to.equal(n);
    });
    expect(answer.body).to.not.include('[DONE]');
  });

  it('the API’s order: created, in progress, each item added / content / done, then completed with the whole response', () => {
    const r = reply({ toolCalls: CALLS, finishReason: 'tool_calls' });
    const { events, request } = streamed(r);
    expect(events.map((e) => e.type)).to.deep.equal([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      // The second call's arguments are empty: no delta, only done.
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const opening = events[0]!.response as Record<string, unknown>;
    expect(opening).to.deep.include({ status: 'in_progress', output: [], usage: null, incomplete_details: null });
    expect(events.at(-1)!.response).to.deep.equal(JSON.parse(responsesAdapter.render(r, { ...request, stream: false }).body));
    const msgId = 'msg_evalog_agent-call-2-attempt-1';
    expect(events[2]).to.deep.include({ output_index: 0, item: { id: msgId, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
    expect(events[4]).to.deep.include({ item_id: msgId, output_index: 0, content_index: 0, delta: 'figs: 3', logprobs: [] });
    expect(events[5]).to.deep.include({ item_id: msgId, text: 'figs: 3' });
    const fcId = 'fc_evalog_agent-call-2-attempt-1_0';
    expect(events[8]).to.deep.include({
      output_index: 1,
      item: { id: fcId, type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_a', name: 'lookup' },
    });
    expect(events[9]).to.deep.include({ item_id: fcId, output_index: 1, delta: '{"item":"fig"}' });
    expect(events[10]).to.deep.include({ item_id: fcId, output_index: 1, name: 'lookup', arguments: '{"item":"fig"}' });
  });

  it('a truncated reply ends with response.incomplete; an empty text has no delta', () => {
    expect(streamed(reply({ finishReason: 'length' })).events.at(-1)).to.deep.include({ type: 'response.incomplete' });
    const types = streamed(reply({ content: '' })).events.map((e) => e.type);
    expect(types).to.not.include('response.output_text.delta');
    expect(types).to.include('response.output_text.done');
  });
});
