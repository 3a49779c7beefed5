// A suite's own rule for when the built-in worker stops, beside the limits every worker has.
//
// Why a rule and not a config key: the harness's limits (worker.turnCap, worker.timeLimitMs) mean
// the same in every suite, so the base config has them and the worker counts them. A limit that
// reproduces one upstream executor (e.g. a graph framework's step count) means something only to
// the study that replicates it: the study keeps its config key in its own schema and gives the
// worker a rule built from it (`AgentSpec.stopRule`). The worker knows only this contract: after
// each event of its loop it shows the rule its progress, and when the rule says stop, it records
// WorkerStopped with the rule's reason. Functions are never recorded; the rule is a pure function
// of the recorded config and the worker's fold, so replay, resume and retry stop where the run did.
import { HARNESS_STOP_REASONS, isHarnessStopReason, SUITE_STOP_REASON } from '../../events/index.js';

/** What a stop rule sees of the worker: a fold of its own events, before each of its moves. */
export interface WorkerProgress {
  /** Model replies so far. */
  turns: number;
  /** Whether the last reply's tool calls are still to run (the next move is the tool round). */
  pendingTools: boolean;
  /** Whether the last reply was an answer: no tool calls (the next move is to stop, answered). */
  answered: boolean;
}

/**
 * A suite's stop rule for the built-in worker. Consulted before each of the worker's moves, after a
 * failed call (which stops the worker anyway) and before the answer, the tool round, the turn cap
 * and the next model turn: so it can stop a worker whose answer arrived too late, as well as one
 * that goes on calling tools.
 */
export interface WorkerStopRule {
  /** The WorkerStopped reason it records: snake_case, never one of the harness's own reasons. */
  reason: string;
  /** The text the stop records: the worker's answer (null unless it answered), or its last reply's text, tool calls or not. */
  answer: 'answer' | 'last_reply';
  /** Whether the worker stops now, before its next move. Pure: replay asks it again and must get the same. */
  stops(progress: WorkerProgress): boolean;
}

/** A suite's stop rule names a reason the harness's own or one that is not snake_case: a mistake in the suite. */
export class StopRuleError extends Error {
  override name = 'StopRuleError';
  constructor(suite: string, reason: string) {
    super(
      `suite ${suite}: stop rule reason ${JSON.stringify(reason)} ` +
        (isHarnessStopReason(reason) ? `is one of the harness's own (${HARNESS_STOP_REASONS.join(', ')})` : 'is not snake_case (a-z, 0-9, _; at most 64)'),
    );
  }
}

/** The rule, checked: its reason must be the suite's own name, so a recorded stop says whose limit it was. */
export function checkedStopRule(suite: string, rule: WorkerStopRule): WorkerStopRule {
  if (isHarnessStopReason(rule.reason) || !SUITE_STOP_REASON.test(rule.reason)) throw new StopRuleError(suite, rule.reason);
  return rule;
}

/** A suite's rule for one config, checked (null when the suite has none or the config sets no such limit). */
export function suiteStopRule<C>(suite: string, ruleOf: ((config: C) => WorkerStopRule | null) | undefined, config: C): WorkerStopRule | null {
  const rule = ruleOf?.(config) ?? null;
  return rule === null ? null : checkedStopRule(suite, rule);
}
