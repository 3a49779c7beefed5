import { z } from 'zod';
import type { ToolCallRequest } from '../../events/index.js';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import {
  defineSuite,
  type CheckResult,
  type Delegation,
  type GradeInput,
  type GradeOutput,
  type SuiteDefinition,
  type ToolContext,
  type ToolOutcome,
} from '../../harness/suite/index.js';
import { expectedTotal, loadSmokeCases, money, type SmokeCase } from './cases.js';
import { agentMessages, ARM_MODES, parentMessages, TASK_TOOL, WORKER_TOOLS, workerMessages } from './prompts.js';

const SmokeConfig = z.object({ ...baseConfigShape }).strict();
/** The smoke suite's config. */
export type SmokeConfig = z.infer<typeof SmokeConfig>;

const defaults: SmokeConfig = {
  repetitions: 2,
  concurrency: 4,
  seed: 7,
  orderSeed: 20260913,
  cases: null,
  model: { temperature: 0.2, maxTokens: 1024 },
  worker: { turnCap: 8, timeLimitMs: 120_000 },
  provider: { timeoutMs: 30_000, maxAttempts: 3, backoffMs: 200, maxBackoffMs: 2_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
};

/** The smoke suite's definition (its hooks, typed), for tests of the hooks themselves. */
export const smokeDefinition = {
  name: 'smoke',
  description: 'Order pricing: parent delegates, worker looks prices up, hidden checks grade the total',
  shape: 'agent',
  configSchema: SmokeConfig,
  defaults,
  prepare: async () => ({ cases: loadSmokeCases() }),
  arms: () => Object.keys(ARM_MODES).sort(),
  agent: {
    parentRequest: (c, arm) => ({ messages: parentMessages(c.data, ARM_MODES[arm]!), tools: [TASK_TOOL] }),
    acceptDelegation,
    workerRequest: (_c, _arm, brief) => ({ messages: workerMessages(brief), tools: WORKER_TOOLS }),
    runTool,
    // One external agent in place of the parent and worker: the worker's tools, the arm's brief.
    agentTask: (c, arm) => ({ messages: agentMessages(c.data, ARM_MODES[arm]!), tools: WORKER_TOOLS }),
  },
  grade,
} satisfies SuiteDefinition<SmokeConfig, SmokeCase, never>;

/** The smoke suite: a parent delegates an order-pricing task to a worker with a lookup tool. */
export const smokeSuite = defineSuite(smokeDefinition);

function acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation {
  const tasks = toolCalls.filter((t) => t.name === 'task');
  if (tasks.length !== 1 || toolCalls.length !== 1) {
    return { ok: false, reason: 'parent_no_task', message: `expected exactly one task call, got ${toolCalls.map((t) => t.name).join(', ') || 'none'}` };
  }
  const args = parseArgs(tasks[0]!.arguments);
  const mode = ARM_MODES[arm];
  if (!args || typeof args.brief !== 'string' || args.mode !== mode) {
    return { ok: false, reason: 'parent_bad_task', message: `task call must have mode "${mode}" and a brief` };
  }
  return { ok: true, mode: String(args.mode), brief: args.brief };
}

function runTool(name: string, rawArgs: string, ctx: ToolContext<SmokeCase>): ToolOutcome {
  const args = parseArgs(rawArgs);
  if (!args) return { result: 'error: arguments are not a JSON object', isError: true };
  if (name === 'lookup') {
    const item = String(args.item ?? '');
    const price = ctx.case.data.catalog[item];
    return price === undefined
      ? { result: `error: unknown item ${JSON.stringify(item)}`, isError: true }
      : { result: `PRICE ${item}=${money(price)}`, isError: false };
  }
  if (name === 'write_answer') {
    const value = typeof args.value === 'string' ? args.value.trim() : '';
    if (value === '') return { result: 'error: value must be a non-empty string', isError: true };
    return { result: 'saved', isError: false, artifact: value };
  }
  return { result: `error: unknown tool ${JSON.stringify(name)}`, isError: true };
}

function grade(c: { data: SmokeCase }, work: GradeInput): GradeOutput {
  return { checks: checksOf(c.data, work.final), firstRevisionPassed: null };
}

function checksOf(c: SmokeCase, artifact: string | null): CheckResult[] {
  const expected = expectedTotal(c);
  const value = artifact ?? '';
  return [
    { checkId: 'answer_saved', visibility: 'hidden', passed: artifact !== null, detail: artifact === null ? 'no answer saved' : 'answer saved' },
    { checkId: 'two_decimals', visibility: 'hidden', passed: /^\d+\.\d{2}$/.test(value), detail: `format of ${JSON.stringify(value)}` },
    {
      checkId: 'total_correct',
      visibility: 'hidden',
      passed: value === expected,
      detail: value === expected ? 'total matches' : `total ${JSON.stringify(value)} is wrong`,
    },
  ];
}

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
