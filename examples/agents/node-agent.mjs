#!/usr/bin/env node
// An example external agent for `evalog run <suite> --agent "node examples/agents/node-agent.mjs"`.
// It imports nothing of evalog: it reads the job contract of docs/agents.md (environment variables
// and the task file) and speaks only public protocols, OpenAI chat completions through the `openai`
// client and MCP through the official client SDK. Its imports resolve from the repository's
// node_modules because the file lives in the repository, whatever folder it is started in.
//
// The loop: the task's messages, the tools the MCP endpoint lists, then model call → tool calls →
// model call ... until a reply without tool calls (its text is the answer) or limits.modelCalls.
// Everything it sends is a function of the task and the answers it got, and it makes one call at a
// time, so evalog's resume and replay can serve it the recorded answers.
//
// Flags: --stream asks for streamed completions (SSE) and assembles them.
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';

const stream = process.argv.slice(2).includes('--stream');

/** Exit codes: 0 done (an answer, or a budget evalog set), 1 anything that went wrong. */
class AgentStop extends Error {
  constructor(message, exitCode) {
    super(message);
    this.name = 'AgentStop';
    this.exitCode = exitCode;
  }
}

function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new AgentStop(`${name} is not set (is this process started by evalog?)`, 1);
  return value;
}

async function main() {
  const task = JSON.parse(readFileSync(requireEnv('EVALOG_TASK'), 'utf8'));
  const token = requireEnv('OPENAI_API_KEY');
  // evalog retries failed upstream calls itself; a client retry would be a second, unrecorded ask.
  const openai = new OpenAI({ baseURL: requireEnv('OPENAI_BASE_URL'), apiKey: token, maxRetries: 0 });
  const mcp = new Client({ name: 'evalog-example-node-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(requireEnv('EVALOG_MCP_URL')), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await mcp.connect(transport);
  try {
    const answer = await loop(task, openai, mcp);
    if (answer !== null) deliver(answer);
  } finally {
    await mcp.close();
  }
}

async function loop(task, openai, mcp) {
  const listed = await mcp.listTools();
  const tools = listed.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
  }));
  const messages = [...task.messages];
  for (let call = 1; call <= task.limits.modelCalls; call++) {
    const message = await complete(openai, { model: task.model, messages, ...(tools.length > 0 ? { tools } : {}) });
    const toolCalls = message.tool_calls ?? [];
    if (toolCalls.length === 0) return message.content ?? '';
    messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: toolCalls });
    // One at a time, in the model's order: replay matches the n-th tool call to the n-th recorded one.
    for (const toolCall of toolCalls) {
      messages.push({ role: 'tool', tool_call_id: toolCall.id, content: await callTool(mcp, toolCall) });
    }
  }
  process.stderr.write(`node-agent: stopped at limits.modelCalls (${task.limits.modelCalls}) without a final reply\n`);
  return null;
}

/** One chat completion: the assistant message, from a plain response or an assembled stream. */
async function complete(openai, body) {
  try {
    if (!stream) return (await openai.chat.completions.create(body)).choices[0]?.message ?? { content: '' };
    const chunks = await openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
    return assemble(chunks);
  } catch (err) {
    throw proxyStop(err);
  }
}

/** Folds stream deltas into one message: content concatenated, tool calls merged by index. */
async function assemble(chunks) {
  let content = null;
  const calls = [];
  for await (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue; // the usage chunk has no choices
    if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
    for (const part of delta.tool_calls ?? []) {
      calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      const call = calls[part.index];
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }
  const toolCalls = calls.filter(Boolean);
  return { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

/** A budget is evalog's stop, not the agent's failure (exit 0); an upstream failure is (exit 1). */
function proxyStop(err) {
  if (err instanceof OpenAI.APIError && err.status === 403 && err.code === 'budget_exhausted') {
    return new AgentStop(`node-agent: budget exhausted: ${err.message}`, 0);
  }
  if (err instanceof OpenAI.APIError) return new AgentStop(`node-agent: model call failed: ${err.message}`, 1);
  return err;
}

/** One tool call over MCP; the text parts of its result are the tool message the model reads. */
async function callTool(mcp, toolCall) {
  const result = await mcp.callTool({ name: toolCall.function.name, arguments: toolArguments(toolCall.function.arguments) });
  return result.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/**
 * The model's arguments as an object when they are one; otherwise its text unchanged (MCP types
 * `arguments` as an object, but evalog's endpoint takes anything and its tool answers the mistake,
 * so the model's malformed call is recorded and the model is told, rather than hidden here).
 */
function toolArguments(text) {
  if (text.trim() === '') return {}; // some models send "" for a call without arguments
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : text;
  } catch {
    return text;
  }
}

function deliver(answer) {
  const path = process.env.EVALOG_RESULT;
  if (path) writeFileSync(path, answer);
  else process.stdout.write(answer);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof AgentStop ? err.message : `node-agent: ${err?.message ?? err}`}\n`);
    process.exit(err instanceof AgentStop ? err.exitCode : 1);
  },
);
