// A complete user suite: a coordinator hands an everyday unit conversion to a worker, which saves
// its answer with one tool. The two arms are two ways of prompting the worker; the grader checks
// the number deterministically and asks a judge model whether the answer reads as the rubric wants.
//
// Run it offline (the exported `player` plays both agents on the built-in scripted model):
//   npx evalog run examples/suite-quickstart/suite.ts
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { baseConfigShape, type CaseSpec, contains, defineSuite, defineTool, modelGraded, parseToolArguments, toolError, toolResult } from 'evalog';

export { player } from './player.js';

/** One case of cases.jsonl: a question and the answer we expect, rounded to two decimals with its unit. */
export interface Conversion {
  question: string;
  expected: string;
}

/** The two ways of prompting the worker that this suite compares. */
export const WORKER_PROMPTS = {
  terse: 'Convert the quantity in the question. Save your answer with save_answer.',
  explicit:
    'Convert the quantity in the question. Round to two decimals and write the number followed by the unit symbol of the result, ' +
    'for example "8.05 km". Save exactly that with save_answer, then reply "done".',
} as const;
type Arm = keyof typeof WORKER_PROMPTS;

/** The coordinator's one tool: hand the question to the worker. */
export const DELEGATE = defineTool({
  name: 'delegate',
  description: 'Hand the question to the conversion worker.',
  properties: { brief: { type: 'string', description: 'The question, as the user asked it' } },
});

/** The worker's one tool: save the answer (what the grader sees). */
export const SAVE_ANSWER = defineTool({
  name: 'save_answer',
  description: 'Save your final answer.',
  properties: { answer: { type: 'string', description: 'The converted quantity' } },
});

const value = contains();
const readable = modelGraded({
  rubric:
    'The answer gives the converted quantity rounded to two decimals, followed by the unit symbol of the result (for example "8.05 km"), and nothing else.',
});

// The cases file sits beside this file, wherever the suite is run from.
const CASES = new URL('./cases.jsonl', import.meta.url);
const CaseLine = z.object({ id: z.string().min(1), question: z.string().min(1), expected: z.string().min(1) }).strict();

async function loadCases(): Promise<CaseSpec<Conversion>[]> {
  const lines = (await readFile(CASES, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const { id, ...data } = CaseLine.parse(JSON.parse(line));
    return { id, data };
  });
}

const Config = z.object({ ...baseConfigShape }).strict();

export default defineSuite({
  name: 'unit-conversion',
  description: 'A coordinator delegates an everyday unit conversion to a worker that saves its answer; two worker prompts compared',
  shape: 'agent',
  configSchema: Config,
  defaults: {
    repetitions: 1,
    concurrency: 2,
    seed: 1,
    orderSeed: 1,
    cases: null,
    model: { temperature: 0, maxTokens: 512 },
    worker: { turnCap: 4, timeLimitMs: 60_000 },
    provider: { timeoutMs: 30_000, maxAttempts: 3, backoffMs: 200, maxBackoffMs: 2_000, maxRetryAfterMs: 60_000 },
  },
  prepare: async () => ({ cases: await loadCases() }),
  arms: () => Object.keys(WORKER_PROMPTS),
  agent: {
    parentRequest: (c) => ({
      messages: [
        { role: 'system', content: 'You coordinate a unit-conversion helper. Pass the user question on, unchanged, with the delegate tool.' },
        { role: 'user', content: c.data.question },
      ],
      tools: [DELEGATE],
    }),
    acceptDelegation: (calls) => {
      const args = calls.length === 1 && calls[0]!.name === 'delegate' ? parseToolArguments(calls[0]!.arguments) : null;
      if (typeof args?.brief === 'string' && args.brief.trim() !== '') return { ok: true, mode: 'delegate', brief: args.brief };
      return { ok: false, reason: calls.length === 0 ? 'parent_no_task' : 'parent_bad_task', message: 'expected one delegate call with a brief' };
    },
    workerRequest: (_c, arm, brief) => ({
      messages: [
        { role: 'system', content: WORKER_PROMPTS[arm as Arm] },
        { role: 'user', content: brief },
      ],
      tools: [SAVE_ANSWER],
    }),
    runTool: (name, raw) => {
      if (name !== 'save_answer') return toolError(`there is no tool ${name}`);
      const args = parseToolArguments(raw);
      if (typeof args?.answer !== 'string' || args.answer.trim() === '') return toolError('save_answer needs {"answer": "..."}');
      return toolResult('saved', args.answer.trim());
    },
  },
  // Blind to the arm: the grader sees the case and the saved answer only.
  async grade(c, work, judge) {
    const output = work.final ?? '';
    const number = c.data.expected.split(' ')[0]!;
    const v = value.score(output, number);
    const j = await readable.grade(judge, { input: c.data.question, expected: c.data.expected, output });
    return {
      checks: [
        { checkId: 'value', visibility: 'hidden', passed: v.passed, detail: v.detail },
        { checkId: readable.name, visibility: 'hidden', passed: j.passed, detail: j.detail },
      ],
      firstRevisionPassed: null,
    };
  },
});
