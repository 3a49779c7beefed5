import type { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../providers/chat.js';
import type { ToolCallRequest } from '../events/index.js';

/** One case (task) of a suite, with the data its prompts, tools and checks use. */
export interface CaseSpec<D = unknown> {
  id: string;
  data: D;
}

/** What a tool call returned; `artifact` is a new artifact revision when the tool saved one. */
export interface ToolOutcome {
  result: string;
  isError: boolean;
  artifact?: string;
}

/** One check result, as the grader records it. */
export interface CheckResult {
  checkId: string;
  visibility: 'public' | 'hidden';
  passed: boolean;
  detail: string;
}

/** The parent's delegation, accepted or refused (a refusal is a recorded job failure). */
export type Delegation =
  | { ok: true; mode: string; brief: string }
  | { ok: false; reason: 'parent_no_task' | 'parent_bad_task'; message: string };

/** Worker limits, recorded as stop reasons when reached. */
export interface WorkerLimits {
  turnCap: number;
  timeLimitMs: number;
}

/** What the worker's tools see of the job: never the arm, so tools behave alike in both. */
export interface ToolContext<D> {
  case: CaseSpec<D>;
  artifact: string | null;
}

/** A suite: cases, arms, prompts, tools and checks. Everything here is pure. */
export interface Suite<C extends SuiteConfigBase = SuiteConfigBase, D = unknown> {
  name: string;
  description: string;
  /** Validates the suite config; unknown keys are rejected. */
  configSchema: z.ZodType<C>;
  defaults: C;
  cases(config: C): CaseSpec<D>[];
  arms(config: C): string[];
  parentRequest(c: CaseSpec<D>, arm: string, config: C): { messages: ChatMessage[]; tools: ToolSpec[] };
  acceptDelegation(toolCalls: readonly ToolCallRequest[], arm: string): Delegation;
  workerRequest(c: CaseSpec<D>, brief: string, config: C): { messages: ChatMessage[]; tools: ToolSpec[] };
  runTool(name: string, args: string, ctx: ToolContext<D>): ToolOutcome;
  /** Hidden checks on the final artifact and answer: blind to the arm by signature. */
  grade(c: CaseSpec<D>, artifact: string | null, answer: string | null): CheckResult[];
}

/** Settings every suite config has. */
export interface SuiteConfigBase {
  repetitions: number;
  concurrency: number;
  seed: number;
  orderSeed: number;
  cases: string[] | null;
  model: { temperature: number; maxTokens: number };
  worker: WorkerLimits;
  provider: { timeoutMs: number; maxAttempts: number; backoffMs: number; maxBackoffMs: number };
}
