import { buildRequestPayload, requestFingerprint } from './fingerprint.js';
import { evaluateCase, evaluationMicros, selectorParamsFromConfig } from './policy-run.js';
import { type ChatMessagePair, renderMessages } from './prompt.js';
import type { Protocol } from './protocol.js';
import { EVICTION_POLICIES, type EvictionPolicy } from './selector.js';
import type { EvalCase } from './types.js';

/** One QA task (case × policy at the QA capacity): what is asked and what it is fingerprinted as. */
export interface QaTask {
  row_id: string;
  case: EvalCase;
  policy: EvictionPolicy;
  capacity: number;
  kept_fact_ids: string[];
  support_all_retained: boolean;
  support_recall: number;
  messages: ChatMessagePair[];
  request_fingerprint: string;
}

/** The recorded, publishable part of a task (no question, answer or fact content). */
export type QaTaskMeta = Omit<QaTask, 'case' | 'messages'> & { case_id: string; source: string; scenario: string; question_type: string };

/** Builds the QA task of one case and policy: selection at the QA capacity, prompt, fingerprint. */
export function qaTask(protocol: Protocol, c: EvalCase, policy: EvictionPolicy): QaTask {
  const cfg = protocol.config;
  const capacity = cfg.pool.qa_capacity;
  const row = evaluateCase(c, policy, capacity, selectorParamsFromConfig(cfg.policies.hybrid_v1), evaluationMicros(cfg.evaluation_time));
  const kept = new Set(row.kept_fact_ids);
  const facts = c.facts.filter((f) => kept.has(f.id));
  const messages = renderMessages(protocol.answerPrompt, { question: c.question, questionDate: c.question_date, facts });
  return {
    row_id: `${c.case_id}__${policy}`,
    case: c,
    policy,
    capacity,
    kept_fact_ids: row.kept_fact_ids,
    support_all_retained: row.support_all_retained,
    support_recall: row.support_recall,
    messages,
    request_fingerprint: requestFingerprint(buildRequestPayload(cfg.qa, messages)),
  };
}

/** Every QA task, cases in protocol order, policies confidence then hybrid-v1. */
export function qaTasks(protocol: Protocol, cases: readonly EvalCase[]): QaTask[] {
  return cases.flatMap((c) => EVICTION_POLICIES.map((p) => qaTask(protocol, c, p)));
}

/** The metadata recorded in the plan for a task. */
export function taskMeta(t: QaTask): QaTaskMeta {
  const { case: c, messages: _m, ...rest } = t;
  return { ...rest, case_id: c.case_id, source: c.source, scenario: c.scenario, question_type: c.question_type };
}
