#!/usr/bin/env node
// An example external agent built on Anthropic's TypeScript SDK (@anthropic-ai/sdk) and the MCP
// client SDK, for `evalog run <suite> --agent "node examples/agents/anthropic-sdk/agent.mjs"`.
// It imports nothing of evalog: it reads the job contract of docs/agents.md. The model is called
// with the Anthropic Messages API (`POST $ANTHROPIC_BASE_URL/v1/messages`, the token sent as
// `x-api-key`, as the SDK does) and the tools come from the job's MCP endpoint. The loop is the
// tool-use loop of Anthropic's docs: call the model; while it stops for `tool_use`, run each
// `tool_use` block over MCP, one at a time and in order, and answer with one user message of
// `tool_result` blocks; the text of the first reply that stops otherwise is the answer.
//
// `maxRetries: 0`: evalog retries failed upstream calls itself, and a retry here would be a second
// request against the call budget. `max_tokens` is required by the API and the task has none, so
// the agent sends MAX_TOKENS.
//
// Flags: --stream uses `messages.stream(...)` (SSE events) and its `finalMessage()`.
import { readFileSync, writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const stream = process.argv.slice(2).includes('--stream');
const NAME = 'anthropic-sdk';
const MAX_TOKENS = 4096;

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

/** The task's chat messages as Messages API input: system text apart, the rest as turns. */
function prompt(messages) {
  const text = (m, i) => {
    if (typeof m.content === 'string') return m.content;
    throw new AgentStop(`${NAME}: task messages[${i}].content is not a string`, 1);
  };
  const system = messages.flatMap((m, i) => (m.role === 'system' || m.role === 'developer' ? [text(m, i)] : [])).join('\n\n');
  const turns = messages.flatMap((m, i) => {
    if (m.role === 'user' || m.role === 'assistant') return [{ role: m.role, content: text(m, i) }];
    if (m.role === 'system' || m.role === 'developer') return [];
    throw new AgentStop(`${NAME}: task messages[${i}].role "${m.role}" is not supported by this example`, 1);
  });
  return { system, turns };
}

async function main() {
  const task = JSON.parse(readFileSync(requireEnv('EVALOG_TASK'), 'utf8'));
  const token = requireEnv('ANTHROPIC_API_KEY');
  const anthropic = new Anthropic({ baseURL: requireEnv('ANTHROPIC_BASE_URL'), apiKey: token, maxRetries: 0 });
  const mcp = new Client({ name: 'evalog-example-anthropic-sdk', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(requireEnv('EVALOG_MCP_URL')), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  try {
    const answer = await loop(task, anthropic, mcp);
    if (answer !== null) deliver(answer);
  } finally {
    await mcp.close();
  }
}

async function loop(task, anthropic, mcp) {
  const tools = (await mcp.listTools()).tools.map((t) => ({ name: t.name, description: t.description ?? '', input_schema: t.inputSchema }));
  const { system, turns } = prompt(task.messages);
  const messages = [...turns];
  for (let call = 1; call <= task.limits.modelCalls; call++) {
    const body = { model: task.model, max_tokens: MAX_TOKENS, messages, ...(system ? { system } : {}), ...(tools.length > 0 ? { tools } : {}) };
    const message = await complete(anthropic, body);
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (message.stop_reason !== 'tool_use' || uses.length === 0) {
      return message.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
    }
    messages.push({ role: 'assistant', content: message.content });
    // One at a time, in the model's order: replay matches the n-th tool call to the n-th recorded one.
    const results = [];
    for (const use of uses) results.push(await callTool(mcp, use));
    messages.push({ role: 'user', content: results });
  }
  process.stderr.write(`${NAME}: stopped at limits.modelCalls (${task.limits.modelCalls}) without a final reply\n`);
  return null;
}

/** One model call: the message, plain or assembled by the SDK from the stream. */
async function complete(anthropic, body) {
  try {
    return stream ? await anthropic.messages.stream(body).finalMessage() : await anthropic.messages.create(body);
  } catch (err) {
    throw proxyStop(err);
  }
}

/** A budget is evalog's stop, not the agent's failure (exit 0); any other API error is (exit 1). */
function proxyStop(err) {
  if (!(err instanceof Anthropic.APIError)) return err;
  if (err.status === 403 && err.message.includes('budget_exhausted')) return new AgentStop(`${NAME}: budget exhausted: ${err.message}`, 0);
  return new AgentStop(`${NAME}: model call failed: ${err.message}`, 1);
}

/** One `tool_use` block run over MCP; the text parts of its result become its `tool_result`. */
async function callTool(mcp, use) {
  const result = await mcp.callTool({ name: use.name, arguments: use.input });
  const text = result.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
  return { type: 'tool_result', tool_use_id: use.id, content: text, ...(result.isError ? { is_error: true } : {}) };
}

function deliver(answer) {
  const path = process.env.EVALOG_RESULT;
  if (path) writeFileSync(path, answer);
  else process.stdout.write(answer);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof AgentStop ? err.message : `${NAME}: ${err?.message ?? err}`}\n`);
    process.exit(err instanceof AgentStop ? err.exitCode : 1);
  },
);
