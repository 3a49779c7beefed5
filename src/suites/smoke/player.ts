import { messageText, type ChatRequest, type Player, type PlayerReply } from '../../providers/scripted/index.js';

const PARENT_TAG = /\[evalog:smoke:parent mode=(full|brief)\]/;
const WORKER_TAG = '[evalog:smoke:worker]';
const AGENT_TAG = '[evalog:smoke:agent]';
const ORDER = /^ORDER (\S+) qty=(\d+)$/gm;
const PRICE = /^PRICE (\S+)=(\d+\.\d{2})$/gm;

/** How often the scripted worker forgets the quantities when it sums (a wrong answer now and then). */
const CARELESS_RATE = 0.2;

/**
 * Scripted play of the smoke suite: the parent delegates by its mode; the worker looks up and sums.
 * An external agent's request (its task's messages and its own turns) is played as the worker is.
 */
export const smokePlayer: Player = (request, ctx) => {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  const parent = PARENT_TAG.exec(system);
  if (parent) return playParent(request, parent[1] as 'full' | 'brief');
  if (system.includes(WORKER_TAG)) return playWorker(request, ctx.rng);
  const agent = agentTaskStart(request);
  if (agent >= 0) return playWorker({ ...request, messages: request.messages.slice(agent) }, ctx.rng);
  return null;
};

// Where an agent's task begins: its tagged system (or developer) message, wherever the agent put it,
// so an agent that adds messages of its own before the task is still played from the task on.
function agentTaskStart(request: ChatRequest): number {
  return request.messages.findIndex((m) => (m.role === 'system' || m.role === 'developer') && messageText(m).includes(AGENT_TAG));
}

function playParent(request: ChatRequest, mode: 'full' | 'brief'): PlayerReply {
  const task = messageText(request.messages[1] ?? { role: 'user', content: '' });
  const order = [...task.matchAll(ORDER)].map((m) => m[0]);
  const items = new Set([...task.matchAll(ORDER)].map((m) => m[1]));
  const prices = [...task.matchAll(PRICE)].filter((m) => items.has(m[1])).map((m) => m[0]);
  const brief = ['Compute the total price of this order.', ...order, ...(mode === 'full' ? prices : [])].join('\n');
  return { content: null, toolCalls: [{ name: 'task', arguments: JSON.stringify({ mode, brief }) }] };
}

function playWorker(request: ChatRequest, rng: () => number): PlayerReply {
  const texts = request.messages
    .filter((m) => m.role === 'user' || m.role === 'tool')
    .map(messageText)
    .join('\n');
  const order = [...texts.matchAll(ORDER)].map((m) => ({ item: m[1]!, qty: Number(m[2]) }));
  const prices = new Map([...texts.matchAll(PRICE)].map((m) => [m[1]!, Math.round(Number(m[2]) * 100)]));
  const written = request.messages.flatMap((m) => m.tool_calls ?? []).filter((t) => t.function.name === 'write_answer');
  const last = request.messages.at(-1);
  if (written.length > 0 && last?.role === 'tool') {
    const value = (JSON.parse(written.at(-1)!.function.arguments) as { value: string }).value;
    return { content: `DONE ${value}` };
  }
  const missing = order.find((l) => !prices.has(l.item));
  if (missing) return { content: null, toolCalls: [{ name: 'lookup', arguments: JSON.stringify({ item: missing.item }) }] };
  const careless = rng() < CARELESS_RATE;
  const cents = order.reduce((sum, l) => sum + prices.get(l.item)! * (careless ? 1 : l.qty), 0);
  return { content: null, toolCalls: [{ name: 'write_answer', arguments: JSON.stringify({ value: (cents / 100).toFixed(2) }) }] };
}
