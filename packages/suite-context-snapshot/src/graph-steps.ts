// The published context-snapshot executor's worker limit, counted as it counts it, and the stop
// rule the suite gives evalog's worker from it (worker.graphSteps, a key of this suite's config). Its runner sets
// SubagentConfig(max_turns = config max_graph_steps = 50), and the executor passes max_turns to its
// LangGraph run as `recursion_limit`: a limit on graph super-steps, not on model turns. Its graph
// is langchain's `create_agent` with deer-flow's subagent middlewares, and create_agent gives every
// middleware hook of its own a node, run as a super-step of its own:
//   start, once:      before_agent nodes (thread data, sandbox, token budget, the date reminder)
//   each model turn:  before_model nodes (durable context), the model node, after_model nodes
//                     (durable context, token budget, loop detection, safety finish reason)
//   each tool round:  one tools node (a turn's tool calls run in that one super-step)
//   end, once:        after_agent nodes (sandbox, token budget, loop detection)
// So a round (model turn + tool round) costs 1 + 1 + 4 + 1 = 7 super-steps and the start 4. The
// other middlewares of that chain wrap the model or tool call and add no node. LangGraph (measured
// with langgraph 1.2.12) runs super-steps 1..limit and raises GraphRecursionError after the
// limit-th unless the graph ended within limit - 1 of them; the executor then reports stop_reason
// `turn_capped`, status `completed` with the last reply's text when it has text, else `failed`.
//
// With limit 50: model turn k runs at super-step 7k - 1 (turn 7 at 48, turn 8 would be at 55), the
// tools of turn k at 7k + 4 (turn 6 at 46, turn 7 would be at 53). So a worker that keeps calling
// tools sends 7 requests and its 7th reply's tool calls never run, which is what the published
// turn-capped rows show (7 worker requests, executor_status failed: the 7th reply was only tool
// calls); an answer at turn 6 ends at 48 (clean), an answer at turn 7 would need 55 (capped). The
// before/after_agent counts are read from deer-flow's later sources (the stored middleware files
// are not the pinned commit's); every count above holds for any start of 3 to 6 super-steps and an
// end of up to 8 minus the start, which is what the published rows allow (a 6-request worker
// finished clean, a 7-request one was capped).

import type { WorkerProgress, WorkerStopRule } from 'evalog';

/** Super-steps of the nodes around the model node in upstream's subagent graph. */
export interface GraphShape {
  /** before_agent nodes: run once, before the first model turn. */
  beforeAgent: number;
  /** before_model nodes: run before every model turn. */
  beforeModel: number;
  /** after_model nodes: run after every model turn. */
  afterModel: number;
  /** after_agent nodes: run once, after the last reply. */
  afterAgent: number;
}

/** deer-flow's subagent graph as the published context-snapshot runner builds it (see above). */
export const SUBAGENT_GRAPH: GraphShape = { beforeAgent: 4, beforeModel: 1, afterModel: 4, afterAgent: 3 };

/** Super-steps of one round: the before_model nodes, the model node, the after_model nodes and the tools node. */
export function roundSteps(g: GraphShape): number {
  return g.beforeModel + 1 + g.afterModel + 1;
}

/** The super-step (1-based) at which model turn `k` (1-based) runs. */
export function modelStep(g: GraphShape, k: number): number {
  return g.beforeAgent + (k - 1) * roundSteps(g) + g.beforeModel + 1;
}

/** The super-step at which the tool calls of reply `k` run. */
export function toolsStep(g: GraphShape, k: number): number {
  return g.beforeAgent + k * roundSteps(g);
}

/** Super-steps of a run whose answer is reply `k` (no tool calls): through its after_model and after_agent nodes. */
export function answerSteps(g: GraphShape, k: number): number {
  return modelStep(g, k) + g.afterModel + g.afterAgent;
}

/** What the step limit says after `turns` replies (the last with tool calls pending, or an answer, or neither yet). */
export type StepVerdict = 'go_on' | 'capped';

/**
 * Whether upstream's graph, at `limit` super-steps, gets to the worker's next move: the pending tool
 * calls' node, the next model node, or (for an answer) its own end within `limit - 1` steps.
 */
export function stepVerdict(g: GraphShape, limit: number, s: { turns: number; pendingTools: boolean; answered: boolean }): StepVerdict {
  if (s.answered) return answerSteps(g, s.turns) <= limit - 1 ? 'go_on' : 'capped';
  if (s.pendingTools) return toolsStep(g, s.turns) <= limit ? 'go_on' : 'capped';
  return modelStep(g, s.turns + 1) <= limit ? 'go_on' : 'capped';
}

/** Model requests a worker that never stops calling tools sends before `limit` stops it (7 at 50). */
export function maxModelTurns(g: GraphShape, limit: number): number {
  let k = 0;
  while (modelStep(g, k + 1) <= limit) k++;
  return k;
}

/**
 * The WorkerStopped reason of the step limit. Recorded since WorkerStopped v2 (it was a harness
 * reason then, and is this suite's rule's now), so logs that hold it read as they always did.
 */
export const GRAPH_STEP_CAP = 'graph_step_cap';

/**
 * The worker stops where `limit` super-steps stop upstream's graph: before the tool round or model
 * turn the graph would not reach, or on an answer whose graph would not end in time. It records
 * the last reply's text, the partial result the executor reports for a capped run.
 */
export function graphStepRule(limit: number): WorkerStopRule {
  return {
    reason: GRAPH_STEP_CAP,
    answer: 'last_reply',
    stops: (p: WorkerProgress) => stepVerdict(SUBAGENT_GRAPH, limit, p) === 'capped',
  };
}
