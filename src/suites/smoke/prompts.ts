import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { money, type SmokeCase } from './cases.js';

/** Handoff mode per arm: the arms differ only in what the parent puts in the brief. */
export const ARM_MODES: Readonly<Record<string, 'full' | 'brief'>> = { brief_handoff: 'brief', full_handoff: 'full' };

/** The parent's one tool. */
export const TASK_TOOL: ToolSpec = {
  name: 'task',
  description: 'Delegate the task to a worker. Call exactly once.',
  parameters: {
    type: 'object',
    properties: { mode: { type: 'string', enum: ['full', 'brief'] }, brief: { type: 'string' } },
    required: ['mode', 'brief'],
    additionalProperties: false,
  },
};

/** The worker's tools. */
export const WORKER_TOOLS: ToolSpec[] = [
  {
    name: 'lookup',
    description: 'Look up the unit price of one catalog item.',
    parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'], additionalProperties: false },
  },
  {
    name: 'write_answer',
    description: 'Save the order total (a decimal with two digits) as a new revision of your answer.',
    parameters: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'], additionalProperties: false },
  },
];

// The bracketed tags let the scripted model recognise its role; a real model reads the prose.
/** Messages of the parent (lead agent). */
export function parentMessages(c: SmokeCase, mode: 'full' | 'brief'): ChatMessage[] {
  const lines = c.order.map((l) => `ORDER ${l.item} qty=${l.qty}`);
  const catalog = Object.keys(c.catalog)
    .sort()
    .map((k) => `PRICE ${k}=${money(c.catalog[k]!)}`);
  return [
    {
      role: 'system',
      content:
        `[evalog:smoke:parent mode=${mode}] You are the lead agent. Delegate the pricing task below to a worker ` +
        `by calling the task tool exactly once with mode "${mode}". ` +
        (mode === 'full'
          ? 'Write a complete brief: copy every order line and the PRICE line of every ordered item.'
          : 'Write a short brief: copy the order lines only; the worker can look prices up.'),
    },
    { role: 'user', content: [`Task ${c.id}: compute the total price of this order.`, ...lines, 'Catalog:', ...catalog].join('\n') },
  ];
}

/**
 * The task of one external agent (`--agent`), which prices the order alone. The arm keeps its
 * meaning as far as a single agent can: full_handoff hands it the PRICE lines a complete brief
 * would carry, brief_handoff only the order lines, so it must look the prices up.
 */
export function agentMessages(c: SmokeCase, mode: 'full' | 'brief'): ChatMessage[] {
  const ordered = new Set(c.order.map((l) => l.item));
  const prices = Object.keys(c.catalog)
    .sort()
    .filter((k) => ordered.has(k))
    .map((k) => `PRICE ${k}=${money(c.catalog[k]!)}`);
  const lines = c.order.map((l) => `ORDER ${l.item} qty=${l.qty}`);
  return [
    {
      role: 'system',
      content:
        '[evalog:smoke:agent] You compute the total price of an order on your own, with two tools: lookup(item) ' +
        'gives the unit price of a catalog item and write_answer(value) saves your answer. Look up every price the ' +
        'task does not give, multiply each unit price by its quantity and sum them. Save the total with ' +
        'write_answer as a decimal with two digits (such as 12.50), then reply briefly with the total.',
    },
    { role: 'user', content: ['Compute the total price of this order.', ...lines, ...(mode === 'full' ? prices : [])].join('\n') },
  ];
}

/** Messages that start the worker. */
export function workerMessages(brief: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        '[evalog:smoke:worker] You are a worker. Use lookup(item) for every price the brief does not give. ' +
        'Multiply each unit price by its quantity, sum them, save the total with write_answer(value) as a decimal ' +
        'with two digits, then reply with DONE and the total.',
    },
    { role: 'user', content: brief },
  ];
}
