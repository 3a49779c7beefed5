// The Responses adapter's translation of a request onto chat completions: every carried field
// lands where chat has it, fields kept in the record only leave the chat request alone, and
// everything that cannot be carried is refused in OpenAI's error shape, naming the field.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { conversationMemory, responsesAdapter } from '../../src/harness/external/protocols/index.js';
import type { AgentCompletion, ConversationMemory, WireRefusal } from '../../src/harness/external/protocols/types.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

const parse = (body: unknown, memory: ConversationMemory = conversationMemory()) => responsesAdapter.parse(body, 'main', memory);

function parsed(body: unknown, memory?: ConversationMemory): AgentModelRequest {
  const r = parse(body, memory);
  if ('refused' in r) throw new Error(`refused: ${r.message}`);
  return r;
}

function refused(body: unknown, memory?: ConversationMemory): WireRefusal {
  const r = parse(body, memory);
  if (!('refused' in r)) throw new Error(`not refused: ${JSON.stringify(r.messages)}`);
  return r;
}

const TOOL = {
  type: 'function',
  name: 'lookup',
  description: 'Looks up a fruit.',
  parameters: { type: 'object', properties: { item: { type: 'string' } } },
  strict: true,
};
const LOOKUP = { name: 'lookup', description: 'Looks up a fruit.', parameters: TOOL.parameters };
const call = (id: string, args = '{"item":"fig"}') => ({ id, type: 'function', function: { name: 'lookup', arguments: args } });

describe('responses adapter: a request translated onto chat completions', () => {
  it('a string input is one user message; instructions come first as a system message; the body is kept as received', () => {
    const body = { model: 'scripted', instructions: 'Be brief.', input: 'how many figs?' };
    const r = parsed(body);
    expect(r).to.deep.equal({
      attribution: 'main',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'how many figs?' },
      ],
      tools: [],
      params: {},
      stream: false,
      includeUsage: false,
      protocol: 'responses',
      received: body,
    });
    expect(parsed({ ...body, stream: true }).stream).to.equal(true);
    // Empty or null instructions are no message.
    expect(parsed({ input: 'x', instructions: '' }).messages).to.deep.equal([{ role: 'user', content: 'x' }]);
    expect(parsed({ input: 'x', instructions: null }).messages).to.deep.equal([{ role: 'user', content: 'x' }]);
  });

  it('messages keep their roles; one text part is its string, several keep their boundaries as chat text parts, none is ""', () => {
    const r = parsed({
      input: [
        { role: 'developer', content: 'dev rules' },
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'sys' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'part one' },
            { type: 'input_text', text: 'part two' },
          ],
        },
        // An output message echoed back, with the fields the API gave it.
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          phase: 'final_answer',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'an answer', annotations: [], logprobs: [] }],
        },
        { role: 'user', content: [] },
      ],
    });
    expect(r.messages).to.deep.equal([
      { role: 'developer', content: 'dev rules' },
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'part one' },
          { type: 'text', text: 'part two' },
        ],
      },
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: '' },
    ]);
  });

  it('function calls join the assistant message before them (one reply again); outputs are tool messages', () => {
    const r = parsed({
      input: [
        { role: 'user', content: 'figs and plums?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'looking', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'lookup', arguments: '{"item":"fig"}', status: 'completed' },
        { type: 'function_call', call_id: 'c2', name: 'lookup', arguments: '{"item":"plum"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'fig: 3' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'plum: 1' }], status: 'completed' },
        // Calls with no text before them are an assistant message with null content.
        { type: 'function_call', call_id: 'c3', name: 'lookup', arguments: '' },
        { type: 'function_call_output', id: 'fco_3', call_id: 'c3', output: [] },
      ],
    });
    expect(r.messages).to.deep.equal([
      { role: 'user', content: 'figs and plums?' },
      { role: 'assistant', content: 'looking', tool_calls: [call('c1'), call('c2', '{"item":"plum"}')] },
      { role: 'tool', tool_call_id: 'c1', content: 'fig: 3' },
      { role: 'tool', tool_call_id: 'c2', content: 'plum: 1' },
      { role: 'assistant', content: null, tool_calls: [call('c3', '')] },
      { role: 'tool', tool_call_id: 'c3', content: '' },
    ]);
  });

  it('drops a reasoning item that carries nothing (chat has no reasoning input, and evalog never returns one)', () => {
    const r = parsed({
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: null },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(r.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
  });

  it('function tools become tool specs (strict is kept in the record only); defaults for a missing description and parameters', () => {
    const r = parsed({ input: 'x', tools: [TOOL, { type: 'function', name: 'noop', description: null, parameters: null, strict: null }] });
    expect(r.tools).to.deep.equal([LOOKUP, { name: 'noop', description: '', parameters: { type: 'object', properties: {} } }]);
  });

  it('tool_choice and parallel_tool_calls go to chat with tools, in chat’s shape; without tools they are left out (chat refuses them)', () => {
    const choice = (tool_choice: unknown) => parsed({ input: 'x', tools: [TOOL], tool_choice }).params.tool_choice;
    expect(choice('auto')).to.equal('auto');
    expect(choice('none')).to.equal('none');
    expect(choice('required')).to.equal('required');
    expect(choice({ type: 'function', name: 'lookup' })).to.deep.equal({ type: 'function', function: { name: 'lookup' } });
    expect(parsed({ input: 'x', tools: [TOOL], parallel_tool_calls: false }).params).to.deep.equal({ parallel_tool_calls: false });
    expect(parsed({ input: 'x', tool_choice: 'required', parallel_tool_calls: true }).params).to.deep.equal({});
  });

  it('sampling, limits and identifiers map onto chat’s names; a null is left out', () => {
    const r = parsed({
      input: 'x',
      max_output_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u-1',
      safety_identifier: 'safe-1',
      prompt_cache_key: 'cache-1',
      service_tier: 'flex',
      reasoning: { effort: 'low', summary: 'auto' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true, description: 'the answer' }, verbosity: 'low' },
    });
    expect(r.params).to.deep.equal({
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u-1',
      safety_identifier: 'safe-1',
      prompt_cache_key: 'cache-1',
      service_tier: 'flex',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true, description: 'the answer' } },
      verbosity: 'low',
    });
    expect(parsed({ input: 'x', text: { format: { type: 'json_object' } } }).params).to.deep.equal({ response_format: { type: 'json_object' } });
    // Plain text is chat's default: nothing is sent for it.
    expect(parsed({ input: 'x', text: { format: { type: 'text' } }, reasoning: { effort: null } }).params).to.deep.equal({});
    expect(parsed({ input: 'x', max_output_tokens: null, temperature: null, top_p: null, user: null, service_tier: null }).params).to.deep.equal({});
  });

  it('keeps storage, metadata, include, truncation and client telemetry in the record only, and accepts the "off" values of what it cannot do', () => {
    const body = {
      input: 'x',
      store: false,
      metadata: { run: 'r1' },
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
      stream_options: { include_obfuscation: false },
      prompt_cache_retention: '24h',
      client_metadata: { session: 's' },
      background: false,
      conversation: null,
      top_logprobs: 0,
      context_management: null,
    };
    const r = parsed(body);
    expect(r.params).to.deep.equal({});
    expect(r.messages).to.deep.equal([{ role: 'user', content: 'x' }]);
    expect(r.received).to.equal(body);
  });

  it('continues a response of the job by previous_response_id: its conversation and reply first, without its instructions', () => {
    const memory = conversationMemory();
    const first = parsed({ instructions: 'old rules', input: 'figs?', tools: [TOOL] }, memory);
    const reply: AgentCompletion = {
      ok: true,
      id: 'chatcmpl-evalog-agent-call-1-attempt-1',
      model: 'm',
      content: 'looking',
      toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"item":"fig"}' }],
      finishReason: 'tool_calls',
      usage: null,
    };
    responsesAdapter.remember!(reply, first, memory);
    const next = parsed(
      {
        instructions: 'new rules',
        previous_response_id: 'resp_evalog_agent-call-1-attempt-1',
        input: [{ type: 'function_call_output', call_id: 'c1', output: 'fig: 3' }],
        tools: [TOOL],
      },
      memory,
    );
    expect(next.messages).to.deep.equal([
      { role: 'system', content: 'new rules' },
      { role: 'user', content: 'figs?' },
      { role: 'assistant', content: 'looking', tool_calls: [call('c1')] },
      { role: 'tool', tool_call_id: 'c1', content: 'fig: 3' },
    ]);
    // Echoing the items instead (by reference, as the AI SDK does with store on) gives the same chat request.
    const echoed = parsed(
      {
        instructions: 'new rules',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'figs?' }] },
          { type: 'item_reference', id: 'msg_evalog_agent-call-1-attempt-1' },
          { type: 'item_reference', id: 'fc_evalog_agent-call-1-attempt-1_0' },
          { type: 'function_call_output', call_id: 'c1', output: 'fig: 3' },
        ],
        tools: [TOOL],
      },
      memory,
    );
    expect(echoed.messages).to.deep.equal(next.messages);
  });

  it('is deterministic: the same body gives the same chat request', () => {
    const body = { input: [{ role: 'user', content: 'a' }], tools: [TOOL], temperature: 1, text: { verbosity: 'high' } };
    expect(parsed(structuredClone(body))).to.deep.equal(parsed(structuredClone(body)));
  });
});

describe('responses adapter: what it refuses, named, in OpenAI’s error shape', () => {
  /** The refusal's field and message, and that its answer is OpenAI's error with the field as `param`. */
  function refusal(body: unknown, memory?: ConversationMemory) {
    const r = refused(body, memory);
    const answer = responsesAdapter.error(r.status, r.code, r.message, r.field);
    expect(answer.status).to.equal(400);
    expect(answer.contentType).to.equal('application/json');
    expect(JSON.parse(answer.body)).to.deep.equal({ error: { message: r.message, type: 'invalid_request_error', code: r.code, param: r.field } });
    expect(r.message.startsWith(`${r.field}: `), r.message).to.equal(true);
    return { field: r.field, code: r.code, message: r.message };
  }

  it('an input item evalog cannot carry names the item’s type', () => {
    expect(
      refusal({
        input: [
          { role: 'user', content: 'x' },
          { role: 'user', content: 'y' },
          { role: 'user', content: 'z' },
          { type: 'input_image', image_url: 'u' },
        ],
      }),
    ).to.deep.equal({
      field: 'input[3].type',
      code: 'unsupported_value',
      message: 'input[3].type: "input_image" cannot be carried onto chat completions',
    });
    for (const type of ['computer_call', 'web_search_call', 'file_search_call', 'local_shell_call', 'custom_tool_call', 'mcp_call', 'image_generation_call']) {
      expect(refusal({ input: [{ type }] }).field, type).to.equal('input[0].type');
    }
  });

  it('content parts that are not text: images, files, audio, refusals', () => {
    for (const type of ['input_image', 'input_file', 'input_audio', 'refusal']) {
      const r = refusal({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'see' }, { type }] }] });
      expect(r, type).to.deep.equal({
        field: 'input[0].content[1].type',
        code: 'unsupported_value',
        message: `input[0].content[1].type: "${type}" cannot be carried onto chat completions`,
      });
    }
    expect(refusal({ input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'u' }] }] }).field).to.equal(
      'input[0].output[0].type',
    );
    const cited = [{ type: 'output_text', text: 't', annotations: [{ type: 'url_citation', url: 'u' }] }];
    expect(refusal({ input: [{ role: 'assistant', content: cited }] }).field).to.equal('input[0].content[0].annotations');
  });

  it('reasoning that carries content, encrypted or not', () => {
    expect(refusal({ input: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'because' }] }] }).field).to.equal('input[0].summary');
    expect(refusal({ input: [{ type: 'reasoning', summary: [], encrypted_content: 'gAAA' }] }).field).to.equal('input[0].encrypted_content');
  });

  it('malformed items: not an object, a bad role, a missing call id, an unknown field', () => {
    expect(refusal({ input: ['hi'] }).field).to.equal('input[0]');
    expect(refusal({ input: [{ role: 'tool', content: 'x' }] }).field).to.equal('input[0].role');
    expect(refusal({ input: [{ type: 'function_call', name: 'lookup', arguments: '{}' }] }).message).to.equal('input[0].call_id: must be a non-empty string');
    expect(refusal({ input: [{ type: 'function_call_output', call_id: 'c', output: 3 }] }).field).to.equal('input[0].output');
    expect(refusal({ input: [{ type: 'function_call', call_id: 'c', name: 'n', arguments: '{}', namespace: 'ns' }] })).to.deep.include({
      field: 'input[0].namespace',
      code: 'unknown_parameter',
    });
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_text', text: 3 }] }] }).field).to.equal('input[0].content[0].text');
    expect(refusal({ input: 7 }).field).to.equal('input');
  });

  it('references to nothing the job answered', () => {
    expect(refusal({ previous_response_id: 'resp_elsewhere', input: 'x' })).to.deep.equal({
      field: 'previous_response_id',
      code: 'previous_response_not_found',
      message: 'previous_response_id: no response "resp_elsewhere" in this job (only this agent\'s earlier responses can be continued)',
    });
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_elsewhere' }] })).to.deep.include({ field: 'input[0].id', code: 'item_not_found' });
  });

  it('hosted tools and other non-function tools, naming tools[i].type', () => {
    const hosted = [
      'web_search',
      'web_search_preview',
      'file_search',
      'code_interpreter',
      'computer_use_preview',
      'mcp',
      'image_generation',
      'local_shell',
      'shell',
      'apply_patch',
      'custom',
      'namespace',
    ];
    for (const type of hosted) {
      const r = refusal({ input: 'x', tools: [TOOL, { type }] });
      expect(r, type).to.deep.equal({
        field: 'tools[1].type',
        code: 'unsupported_value',
        message: `tools[1].type: "${type}" is not a function tool and cannot be carried onto chat completions (only "function" tools)`,
      });
    }
    expect(refusal({ input: 'x', tools: [{ ...TOOL, defer_loading: true }] })).to.deep.include({ field: 'tools[0].defer_loading', code: 'unknown_parameter' });
    expect(refusal({ input: 'x', tools: [{ type: 'function', parameters: {} }] }).field).to.equal('tools[0].name');
    expect(refusal({ input: 'x', tools: [{ ...TOOL, parameters: 'any' }] }).field).to.equal('tools[0].parameters');
    expect(refusal({ input: 'x', tools: {} }).field).to.equal('tools');
  });

  it('tool choices chat has not, even without tools', () => {
    expect(refusal({ input: 'x', tools: [TOOL], tool_choice: { type: 'web_search_preview' } })).to.deep.include({
      field: 'tool_choice.type',
      code: 'unsupported_value',
    });
    expect(refusal({ input: 'x', tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }).field).to.equal('tool_choice.type');
    expect(refusal({ input: 'x', tool_choice: 'sometimes' }).field).to.equal('tool_choice');
  });

  it('an unknown top-level field, and the features chat has not', () => {
    expect(refusal({ input: 'x', max_tool_calls: 3 })).to.deep.equal({
      field: 'max_tool_calls',
      code: 'unknown_parameter',
      message: 'max_tool_calls: unknown field: evalog cannot carry it onto chat completions',
    });
    expect(refusal({ input: 'x', background: true })).to.deep.equal({
      field: 'background',
      code: 'unsupported_value',
      message: 'background: true cannot be carried onto chat completions (only false or null)',
    });
    expect(refusal({ input: 'x', conversation: 'conv_1' }).field).to.equal('conversation');
    expect(refusal({ input: 'x', prompt: { id: 'pmpt_1' } }).field).to.equal('prompt');
    expect(refusal({ input: 'x', top_logprobs: 2 }).field).to.equal('top_logprobs');
    expect(refusal({ input: 'x', context_management: [{ type: 'compaction' }] }).field).to.equal('context_management');
    expect(refusal({ input: 'x', include: ['message.output_text.logprobs'] })).to.deep.include({ field: 'include[0]', code: 'unsupported_value' });
  });

  it('malformed settings, each named', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ max_output_tokens: 0 }, 'max_output_tokens'],
      [{ max_output_tokens: 1.5 }, 'max_output_tokens'],
      [{ temperature: 'hot' }, 'temperature'],
      [{ user: 7 }, 'user'],
      [{ stream: 'yes' }, 'stream'],
      [{ model: 3 }, 'model'],
      [{ instructions: ['a'] }, 'instructions'],
      [{ parallel_tool_calls: 'yes' }, 'parallel_tool_calls'],
      [{ reasoning: { effort: 'low', budget: 3 } }, 'reasoning.budget'],
      [{ reasoning: 'low' }, 'reasoning'],
      [{ text: { format: { type: 'grammar' } } }, 'text.format.type'],
      [{ text: { format: { type: 'json_schema', name: 'a' } } }, 'text.format.schema'],
      [{ text: { format: { type: 'json_schema', schema: {} } } }, 'text.format.name'],
      [{ include: 'all' }, 'include'],
    ];
    for (const [extra, field] of cases) expect(refusal({ input: 'x', ...extra }).field, field).to.equal(field);
  });

  it('a body that is not an object, or has nothing to send', () => {
    expect(refusal([])).to.deep.equal({ field: 'body', code: 'invalid_request', message: 'body: the request body must be a JSON object' });
    expect(refusal({ model: 'm' }).field).to.equal('input');
    expect(refusal({ input: [] }).field).to.equal('input');
  });
});

describe('responses adapter: the bodies the real clients sent (test/fixtures/wire)', () => {
  const dir = fileURLToPath(new URL('../fixtures/wire/', import.meta.url));
  const bodies = readdirSync(dir).filter((f) => f.includes('-responses-'));

  it('has the captures of both Responses clients', () => {
    expect(bodies.some((f) => f.startsWith('openai-agents-sdk-')) && bodies.some((f) => f.startsWith('ai-sdk-openai-'))).to.equal(true);
  });

  for (const file of bodies) {
    it(`${file}: carried whole, the tool outputs as tool messages after the calls they answer`, () => {
      const body = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        instructions?: string;
        input: { type?: string; call_id?: string }[];
        tools: { name: string }[];
      };
      const r = parsed(body);
      expect(r.tools.map((t) => t.name)).to.deep.equal(body.tools.map((t) => t.name));
      if (body.instructions) expect(r.messages[0]).to.deep.equal({ role: 'system', content: body.instructions });
      const outputs = body.input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id);
      const tools = r.messages.filter((m) => m.role === 'tool') as { tool_call_id: string; content: unknown }[];
      expect(tools.map((m) => m.tool_call_id)).to.deep.equal(outputs);
      for (const m of tools) expect(m.content, 'one text part is its string').to.be.a('string');
      const calls = r.messages.flatMap((m) => ('tool_calls' in m && m.tool_calls ? m.tool_calls.map((c) => c.id) : []));
      expect(calls).to.deep.equal(body.input.filter((i) => i.type === 'function_call').map((i) => i.call_id));
    });
  }
});
