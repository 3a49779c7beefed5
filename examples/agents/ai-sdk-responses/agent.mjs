#!/usr/bin/env node
// An example external agent built on the AI SDK (`ai` with `@ai-sdk/openai` and `@ai-sdk/mcp`), for
// `evalog run <suite> --agent "node examples/agents/ai-sdk-responses/agent.mjs"`.
// It imports nothing of evalog: it reads the job contract of docs/agents.md. `openai(model)` is the
// provider's default model, which calls the OpenAI Responses API (`POST $OPENAI_BASE_URL/responses`);
// the provider reads OPENAI_BASE_URL and OPENAI_API_KEY from the environment by itself. The tools
// come from the job's MCP endpoint through the AI SDK's MCP client (streamable HTTP), and the SDK's
// own loop (`stopWhen`) runs model call → tool calls → model call until a reply without tool calls.
//
// Two settings serve the contract: `maxRetries: 0` (evalog retries failed upstream calls itself,
// and a retry here would be a second request against the call budget) and `parallelToolCalls:
// false` (the SDK runs the tool calls of one step concurrently, while evalog's resume and replay
// match the n-th tool call to the n-th recorded one, so the model is asked for one call per step).
//
// Flags: --stream uses `streamText` (Responses SSE events) instead of `generateText`.
import { readFileSync, writeFileSync } from 'node:fs';
import { openai } from '@ai-sdk/openai';
import { createMCPClient } from '@ai-sdk/mcp';
import { generateText, stepCountIs, streamText } from 'ai';

const stream = process.argv.slice(2).includes('--stream');
const NAME = 'ai-sdk-responses';

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

/**
 * The task's chat messages as the AI SDK's prompt: system (and developer) text as `system`, the
 * rest as messages (text only: that is what a task holds). The SDK warns about system messages
 * inside `messages`, so they go where its docs put them.
 */
function prompt(messages) {
  const text = (m, i) => {
    if (typeof m.content === 'string') return m.content;
    throw new AgentStop(`${NAME}: task messages[${i}].content is not a string`, 1);
  };
  const system = messages.flatMap((m, i) => (m.role === 'system' || m.role === 'developer' ? [text(m, i)] : [])).join('\n\n');
  const rest = messages.flatMap((m, i) => {
    if (m.role === 'user' || m.role === 'assistant') return [{ role: m.role, content: text(m, i) }];
    if (m.role === 'system' || m.role === 'developer') return [];
    throw new AgentStop(`${NAME}: task messages[${i}].role "${m.role}" is not supported by this example`, 1);
  });
  return { ...(system === '' ? {} : { system }), messages: rest };
}

async function main() {
  const task = JSON.parse(readFileSync(requireEnv('EVALOG_TASK'), 'utf8'));
  const token = requireEnv('OPENAI_API_KEY');
  requireEnv('OPENAI_BASE_URL'); // read by the provider; without it, it would call api.openai.com
  const mcp = await createMCPClient({
    transport: { type: 'http', url: requireEnv('EVALOG_MCP_URL'), headers: { Authorization: `Bearer ${token}` } },
  });
  try {
    const options = {
      model: openai(task.model),
      ...prompt(task.messages),
      tools: await mcp.tools(),
      stopWhen: stepCountIs(task.limits.modelCalls),
      maxRetries: 0,
      providerOptions: { openai: { parallelToolCalls: false } },
    };
    const result = stream ? await streamed(options) : await generateText(options).catch((err) => Promise.reject(proxyStop(err)));
    if (result.finishReason === 'tool-calls') {
      process.stderr.write(`${NAME}: stopped at limits.modelCalls (${task.limits.modelCalls}) without a final reply\n`);
      return;
    }
    deliver(result.text);
  } finally {
    await mcp.close();
  }
}

/** `streamText` reports a failed call through `onError`, not by rejecting; it is rethrown here. */
async function streamed(options) {
  let failure = null;
  const result = streamText({
    ...options,
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  try {
    await result.consumeStream();
    const [text, finishReason] = await Promise.all([result.text, result.finishReason]);
    if (failure) throw failure;
    return { text, finishReason };
  } catch (err) {
    throw proxyStop(failure ?? err);
  }
}

/** A budget is evalog's stop, not the agent's failure (exit 0); any other API error is (exit 1). */
function proxyStop(err) {
  for (let e = err; e; e = e.cause ?? e.lastError) {
    if (typeof e.statusCode !== 'number') continue;
    if (e.statusCode === 403 && String(e.responseBody ?? '').includes('budget_exhausted')) return new AgentStop(`${NAME}: budget exhausted: ${e.message}`, 0);
    return new AgentStop(`${NAME}: model call failed (HTTP ${e.statusCode}): ${e.message}`, 1);
  }
  return err;
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
