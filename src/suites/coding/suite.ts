import { z } from 'zod';
import type { ToolCallRequest } from '../../events/index.js';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import { defineSuite, type Delegation, type SuiteDefinition } from '../../harness/suite/index.js';
import { loadCodingCases, type CodingCase } from './cases.js';
import { gradeCoding } from './grade.js';
import { agentMessages, ARM_MODES, parentMessages, TASK_TOOL, WORKSPACE_TOOLS, workerMessages } from './prompts.js';
import { runWorkspaceTool } from './tools.js';
import { changesOf } from './workspace.js';

const CodingConfig = z.object({ ...baseConfigShape }).strict();
/** The coding suite's config. */
export type CodingConfig = z.infer<typeof CodingConfig>;

const defaults: CodingConfig = {
  repetitions: 1,
  concurrency: 2,
  seed: 11,
  orderSeed: 20261207,
  cases: null,
  // Whole files travel in tool arguments: room for a few of them.
  model: { temperature: 0.2, maxTokens: 8192 },
  worker: { turnCap: 12, timeLimitMs: 180_000 },
  provider: { timeoutMs: 60_000, maxAttempts: 3, backoffMs: 200, maxBackoffMs: 2_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
};

/** The coding suite's definition (its hooks, typed), for tests of the hooks themselves. */
export const codingDefinition = {
  name: 'coding',
  description: 'Tiny repositories: the agent edits files in its workspace, hidden tests grade them in the sandbox, the diff is kept',
  shape: 'agent',
  configSchema: CodingConfig,
  defaults,
  prepare: async () => ({ cases: loadCodingCases() }),
  arms: () => Object.keys(ARM_MODES).sort(),
  agent: {
    parentRequest: (c, arm) => ({ messages: parentMessages(c.data, ARM_MODES[arm]!), tools: [TASK_TOOL] }),
    acceptDelegation,
    workerRequest: (_c, _arm, brief) => ({ messages: workerMessages(brief), tools: WORKSPACE_TOOLS }),
    runTool: runWorkspaceTool,
    // One external agent in place of parent and worker: the arm's brief, the repository as its folder.
    agentTask: (c, arm) => ({ messages: agentMessages(c.data, ARM_MODES[arm]!), tools: WORKSPACE_TOOLS }),
    workspace: { files: (c) => c.data.files, changes: changesOf },
  },
  grade: (c, work) => gradeCoding(c.data, work),
  // The artifact is the workspace's changes, as JSON.
  artifactExtension: () => 'json',
} satisfies SuiteDefinition<CodingConfig, CodingCase, never>;

/** The coding suite: an agent changes a tiny repository's files; hidden tests grade what it left. */
export const codingSuite = defineSuite(codingDefinition);

function acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation {
  const tasks = toolCalls.filter((t) => t.name === 'task');
  if (tasks.length !== 1 || toolCalls.length !== 1) {
    return { ok: false, reason: 'parent_no_task', message: `expected exactly one task call, got ${toolCalls.map((t) => t.name).join(', ') || 'none'}` };
  }
  const args = parseArgs(tasks[0]!.arguments);
  const mode = ARM_MODES[arm];
  if (!args || typeof args.brief !== 'string' || args.brief.trim() === '' || args.mode !== mode) {
    return { ok: false, reason: 'parent_bad_task', message: `task call must have mode "${mode}" and a brief` };
  }
  return { ok: true, mode: String(args.mode), brief: args.brief };
}

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
