// The scripted player: plays the coordinator and the worker of suite.ts on evalog's built-in
// scripted model, so the suite runs offline and the same way every time. It recognises its
// requests by the tools they offer and returns null for anything else (the scripted judge answers
// the model-graded check's requests). It follows the worker prompt: only when the prompt asks for
// the unit symbol does it write one.
import type { Player } from 'evalog';

type Unit = 'mi' | 'km' | 'g' | 'oz' | 'kg' | 'lb' | '°C' | '°F';

const CONVERT: Partial<Record<`${Unit}>${Unit}`, (x: number) => number>> = {
  'mi>km': (x) => x * 1.609344,
  'km>mi': (x) => x / 1.609344,
  'g>oz': (x) => x / 28.349523125,
  'oz>g': (x) => x * 28.349523125,
  'kg>lb': (x) => x / 0.45359237,
  'lb>kg': (x) => x * 0.45359237,
  '°C>°F': (x) => (x * 9) / 5 + 32,
  '°F>°C': (x) => ((x - 32) * 5) / 9,
};

// How a question may name the unit it asks for.
const TARGET_WORDS: [RegExp, Unit][] = [
  [/\bkilomet(?:re|er)s\b|\bkm\b/i, 'km'],
  [/\bmiles\b/i, 'mi'],
  [/\bounces\b/i, 'oz'],
  [/\bgrams\b/i, 'g'],
  [/\bpounds\b/i, 'lb'],
  [/\bkilograms\b/i, 'kg'],
  [/°F/, '°F'],
  [/°C/, '°C'],
];

/** The converted quantity of a question, or null when the player cannot read it. */
export function convert(question: string): { value: number; unit: Unit } | null {
  const m = /(\d+(?:\.\d+)?)\s*(mi|km|kg|lb|g|oz|°C|°F)(?![A-Za-z])/.exec(question);
  if (!m) return null;
  const from = m[2] as Unit;
  const rest = question.slice(m.index + m[0].length);
  const to = TARGET_WORDS.find(([re, unit]) => unit !== from && re.test(rest))?.[1];
  const f = to ? CONVERT[`${from}>${to}`] : undefined;
  return f && to ? { value: f(Number(m[1])), unit: to } : null;
}

const offers = (request: Parameters<Player>[0], tool: string) => request.tools?.some((t) => t.function.name === tool) === true;
const text = (content: unknown) => (typeof content === 'string' ? content : '');

export const player: Player = (request) => {
  const system = text(request.messages[0]?.content);
  const user = text(request.messages[1]?.content);
  if (offers(request, 'delegate')) return { content: null, toolCalls: [{ name: 'delegate', arguments: JSON.stringify({ brief: user }) }] };
  if (!offers(request, 'save_answer')) return null;
  if (request.messages.at(-1)?.role === 'tool') return { content: 'done' };
  const result = convert(user);
  if (!result) return { content: 'I cannot read that question.' };
  const answer = system.includes('unit symbol') ? `${result.value.toFixed(2)} ${result.unit}` : result.value.toFixed(2);
  return { content: null, toolCalls: [{ name: 'save_answer', arguments: JSON.stringify({ answer }) }] };
};
