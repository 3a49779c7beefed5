// Drives a suite's hooks as an external agent would: the task's messages and tools, a model call,
// the tool calls run by the suite's runTool (artifacts as revisions), again until a final answer.
// The model is the scripted server through the real `openai` client, or a player called in process
// (to pin the random draw); the built-in lead+worker pair runs on the same loop for comparison.
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { AgentSpec, ModelRequest } from '../../src/harness/suite/define.js';
import type { CaseSpec, ToolContext, ToolOutcome } from '../../src/harness/suite/types.js';
import type { ChatMessage, ToolSpec } from '../../src/providers/chat.js';
import { parseChatRequest, type Player } from '../../src/providers/scripted/index.js';
import { playRequest } from '../../src/providers/scripted/players.js';

/** One model reply, as the loop needs it. */
export interface Reply {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
}

/** A model call: the conversation so far and the tools offered. */
export type Complete = (messages: ChatMessage[], tools: ToolSpec[]) => Promise<Reply>;

/** A suite's tool runner, as its AgentSpec has it. */
export type RunTool<D> = (name: string, args: string, ctx: ToolContext<D>) => ToolOutcome | Promise<ToolOutcome>;

/** What one loop gave: the revisions saved, the final answer, the tools called in order, the model calls. */
export interface LoopResult {
  revisions: string[];
  answer: string | null;
  toolCalls: string[];
  modelCalls: number;
}

/** Runs the loop from `start` until a reply without tool calls (or `maxTurns` model calls). */
export async function toolLoop<D>(c: CaseSpec<D>, start: ModelRequest, complete: Complete, runTool: RunTool<D>, maxTurns = 30): Promise<LoopResult> {
  const messages: ChatMessage[] = [...start.messages];
  const revisions: string[] = [];
  const toolCalls: string[] = [];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const r = await complete(messages, start.tools);
    if (r.toolCalls.length === 0) return { revisions, answer: r.content, toolCalls, modelCalls: turn };
    messages.push({
      role: 'assistant',
      content: r.content,
      tool_calls: r.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })),
    });
    for (const t of r.toolCalls) {
      toolCalls.push(t.name);
      const out = await runTool(t.name, t.arguments, { case: c, artifact: revisions.at(-1) ?? null, revision: revisions.length });
      if (out.artifact !== undefined) revisions.push(out.artifact);
      messages.push({ role: 'tool', tool_call_id: t.id, content: out.result });
    }
  }
  throw new Error(`no final answer after ${maxTurns} model calls`);
}

/** The built-in pair on the same loop: the lead's one call, its delegation accepted, then the worker's loop. */
export async function builtInJob<C, D>(
  agent: AgentSpec<C, D>,
  c: CaseSpec<D>,
  arm: string,
  config: C,
  complete: Complete,
): Promise<LoopResult & { brief: string }> {
  const lead = agent.parentRequest(c, arm, config);
  const delegation = agent.acceptDelegation((await complete(lead.messages, lead.tools)).toolCalls, arm);
  if (!delegation.ok) throw new Error(`delegation refused: ${delegation.message}`);
  const worker = await toolLoop(c, agent.workerRequest(c, arm, delegation.brief, config), complete, agent.runTool);
  return { ...worker, brief: delegation.brief };
}

/** How a client words its request: as evalog does, or with content parts, the developer role, names and extra params. */
export type Dialect = 'plain' | 'rich';

/** Model calls to the scripted server through the real openai client. */
export function overHttp(client: OpenAI, dialect: Dialect = 'plain'): Complete {
  return async (messages, tools) => {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: 'any-agent-model',
      messages: messages.map((m) => (dialect === 'rich' ? richMessage(m) : (m as ChatCompletionMessageParam))),
      tools: tools.map((t) => ({
        type: 'function',
        function: dialect === 'rich' ? { name: t.name, parameters: t.parameters } : { name: t.name, description: t.description, parameters: t.parameters },
      })),
      ...(dialect === 'rich'
        ? {
            top_p: 1,
            stop: ['\u0000'],
            parallel_tool_calls: true,
            tool_choice: 'auto' as const,
            response_format: { type: 'text' as const },
            user: 'agent-test',
          }
        : {}),
    };
    const res = await client.chat.completions.create(body);
    const message = res.choices[0]!.message;
    return {
      content: message.content,
      toolCalls: (message.tool_calls ?? []).flatMap((t) =>
        t.type === 'function' ? [{ id: t.id, name: t.function.name, arguments: t.function.arguments }] : [],
      ),
    };
  };
}

// The same message as another client would send it: system as developer, text as content parts, named.
function richMessage(m: ChatMessage): ChatCompletionMessageParam {
  const parts = (text: string) => [{ type: 'text' as const, text }];
  switch (m.role) {
    case 'system':
      return { role: 'developer', name: 'task', content: parts(m.content) };
    case 'user':
      return { role: 'user', name: 'evalog', content: parts(m.content) };
    case 'assistant':
      return { role: 'assistant', name: 'agent', content: m.content === null ? null : parts(m.content), ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}) };
    case 'tool':
      return { role: 'tool', tool_call_id: m.tool_call_id, content: parts(m.content) };
  }
}

/** Model calls answered in process by `player` with a pinned draw (no HTTP), as the server's playRequest would. */
export function inProcess(player: Player, draw: number): Complete {
  let n = 0;
  return async (messages, tools) => {
    const request = parseChatRequest({ model: 'scripted', messages, tools: tools.map((t) => ({ type: 'function', function: t })) });
    const reply = playRequest(request, [player], { rng: () => draw, seed: 0 });
    n += 1;
    return {
      content: reply.content ?? null,
      toolCalls: (reply.toolCalls ?? []).map((t, i) => ({ id: `call_${n}_${i}`, name: t.name, arguments: t.arguments })),
    };
  };
}
