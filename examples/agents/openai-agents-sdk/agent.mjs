#!/usr/bin/env node
// An example external agent built on the OpenAI Agents SDK (@openai/agents), for
// `evalog run <suite> --agent "node examples/agents/openai-agents-sdk/agent.mjs"`.
// It imports nothing of evalog: it reads the job contract of docs/agents.md and lets the SDK do
// what it does by default, which is to call the model through the OpenAI Responses API
// (`POST $OPENAI_BASE_URL/responses`) and to take its tools from an MCP server over streamable HTTP.
//
// Three settings differ from a bare `run(agent, input)`, each for a reason of the contract:
// - tracing is disabled: the SDK would otherwise export traces to api.openai.com with the job's
//   token, which is not an OpenAI key, from a machine that may have no internet;
// - the SDK's default OpenAI client is one with `maxRetries: 0`: evalog retries failed upstream
//   calls itself, and a client retry would be a second request against the call budget;
// - `parallelToolCalls: false`: the SDK runs the function calls of one model turn concurrently,
//   and evalog's resume and replay match the n-th tool call to the n-th recorded one, so the model
//   is asked for one call per turn.
//
// Flags: --stream runs the agent streamed (Responses SSE events) and waits for it to complete.
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, MaxTurnsExceededError, MCPServerStreamableHttp, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
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

/** The task's chat messages as the SDK's inputs: system text becomes the agent's instructions. */
function agentInput(messages) {
  const text = (m, i) => {
    if (typeof m.content === 'string') return m.content;
    throw new AgentStop(`openai-agents-sdk: task messages[${i}].content is not a string`, 1);
  };
  const instructions = messages.flatMap((m, i) => (m.role === 'system' || m.role === 'developer' ? [text(m, i)] : [])).join('\n\n');
  const input = messages.flatMap((m, i) => {
    if (m.role === 'user') return [{ role: 'user', content: text(m, i) }];
    if (m.role === 'assistant') return [{ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: text(m, i) }] }];
    if (m.role === 'system' || m.role === 'developer') return [];
    throw new AgentStop(`openai-agents-sdk: task messages[${i}].role "${m.role}" is not supported by this example`, 1);
  });
  return { instructions, input };
}

async function main() {
  const task = JSON.parse(readFileSync(requireEnv('EVALOG_TASK'), 'utf8'));
  const token = requireEnv('OPENAI_API_KEY');
  setTracingDisabled(true);
  setDefaultOpenAIClient(new OpenAI({ baseURL: requireEnv('OPENAI_BASE_URL'), apiKey: token, maxRetries: 0 }));
  const mcp = new MCPServerStreamableHttp({
    name: 'evalog',
    url: requireEnv('EVALOG_MCP_URL'),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await mcp.connect();
  try {
    const { instructions, input } = agentInput(task.messages);
    const agent = new Agent({
      name: 'evalog-example-agents-sdk',
      instructions,
      model: task.model,
      mcpServers: [mcp],
      modelSettings: { parallelToolCalls: false },
    });
    const answer = await runAgent(agent, input, task.limits.modelCalls);
    if (answer !== null) deliver(answer);
  } finally {
    await mcp.close();
  }
}

/** The final output, or null when the turn limit (limits.modelCalls) stopped the agent first. */
async function runAgent(agent, input, maxTurns) {
  try {
    if (!stream) return String((await run(agent, input, { maxTurns })).finalOutput ?? '');
    const result = await run(agent, input, { maxTurns, stream: true });
    await result.completed;
    if (result.error) throw result.error;
    return String(result.finalOutput ?? '');
  } catch (err) {
    if (err instanceof MaxTurnsExceededError) {
      process.stderr.write(`openai-agents-sdk: stopped at limits.modelCalls (${maxTurns}) without a final reply\n`);
      return null;
    }
    throw proxyStop(err);
  }
}

/** A budget is evalog's stop, not the agent's failure (exit 0); any other API error is (exit 1). */
function proxyStop(err) {
  for (let e = err; e; e = e.cause) {
    if (e.status === 403 && (e.code ?? e.error?.code) === 'budget_exhausted') return new AgentStop(`openai-agents-sdk: budget exhausted: ${e.message}`, 0);
    if (typeof e.status === 'number') return new AgentStop(`openai-agents-sdk: model call failed: ${e.message}`, 1);
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
    process.stderr.write(`${err instanceof AgentStop ? err.message : `openai-agents-sdk: ${err?.message ?? err}`}\n`);
    process.exit(err instanceof AgentStop ? err.exitCode : 1);
  },
);
