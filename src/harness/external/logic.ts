// The pure part of an external-agent job: the fold of its events, how the agent's n-th request is
// matched against its record, and how the job concludes from the way the process ended.
import type { AgentStopReason, DataOf, PlannedJob, StoredEvent } from '../../events/index.js';
import { canonicalJson } from '../../core/canonical.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { comparedBody, firstDifference as firstBodyDifference, splitChatParams } from './record-only.js';
import type { AgentLimits } from '../kernel/agent-gateway.js';

/** What the job knows of its agent so far: a fold of the job's own events. */
export interface AgentJobState {
  modelCalls: number;
  toolCalls: number;
  /** Sum of reported total tokens (a call that reported none adds nothing). */
  tokens: number;
  artifact: string | null;
  firstArtifact: string | null;
  revisions: number;
  budget: DataOf<'BudgetExhausted'>['budget'] | null;
  /** Divergences recorded so far; call names after one carry it, so they never meet the abandoned record's. */
  epoch: number;
}

export const initialAgentJobState: AgentJobState = {
  modelCalls: 0,
  toolCalls: 0,
  tokens: 0,
  artifact: null,
  firstArtifact: null,
  revisions: 0,
  budget: null,
  epoch: 0,
};

/** Folds one of the job's events into its state. */
export function evolveAgentJob(s: AgentJobState, e: StoredEvent): AgentJobState {
  switch (e.type) {
    case 'ProviderCallRequested':
      // A retry is the same request again: the agent's count is of its requests, not of attempts;
      // and a session tool's queries are the harness's calls, made for the tool, not the agent's.
      return e.data.attempt === 1 && isAgentCall(e.data.callId) ? { ...s, modelCalls: s.modelCalls + 1 } : s;
    case 'ProviderCallSucceeded':
      return { ...s, tokens: s.tokens + (e.data.usage?.total ?? 0) };
    case 'ToolCalled':
      return { ...s, toolCalls: s.toolCalls + 1 };
    case 'ArtifactRevised':
      return { ...s, artifact: e.data.content, firstArtifact: e.data.revision === 1 ? e.data.content : s.firstArtifact, revisions: e.data.revision };
    case 'BudgetExhausted':
      return { ...s, budget: e.data.budget };
    case 'AgentDiverged':
      return { ...s, epoch: s.epoch + 1 };
    default:
      return s;
  }
}

/** Actor of everything the agent does (its model calls, tool calls, launch and exit). */
export const agentActor = (jobId: string): string => `job/${jobId}/agent`;

/** The causal name of the agent's n-th model call or tool call (after a divergence, in a new round). */
export function agentCallName(kind: 'call' | 'tool', n: number, epoch: number): string {
  return epoch === 0 ? `agent/${kind}-${n}` : `agent/r${epoch}/${kind}-${n}`;
}

const AGENT_CALL = /^agent\/(?:r\d+\/)?call-\d+\//;

/** Whether an attempt's callId is one of the agent's own model requests (named by `agentCallName`). */
export function isAgentCall(callId: string): boolean {
  return AGENT_CALL.test(callId);
}

/** The budget a new model request would break, or null when it may go. */
export function budgetBreach(s: AgentJobState, limits: AgentLimits): { budget: 'model_calls' | 'tokens'; limit: number; used: number } | null {
  if (s.modelCalls >= limits.modelCalls) return { budget: 'model_calls', limit: limits.modelCalls, used: s.modelCalls };
  if (limits.tokens !== null && s.tokens >= limits.tokens) return { budget: 'tokens', limit: limits.tokens, used: s.tokens };
  return null;
}

/** Where the agent's request differs from the record at its position. */
export interface Mismatch {
  field: string;
  detail: string;
}

/** What a model request would record: compared with the recorded request before anything is sent. */
export interface ModelRequestFacts {
  callId: string;
  attribution: string;
  model: string;
  messages: readonly string[];
  tools: readonly string[];
  params: Record<string, unknown>;
  /** The agent's own request, for a protocol other than chat completions (AgentRequestReceived). */
  received?: DataOf<'AgentRequestReceived'>;
  /** That request's body, parsed: compared field by field with the recorded one when their hashes differ. */
  receivedBody?: unknown;
}

/**
 * Compares the agent's model request with the record at its position; null when it is the
 * recorded request. `recorded` is the next recorded event; for a request in another protocol it is
 * the AgentRequestReceived, and `following` the ProviderCallRequested after it (absent where the
 * record ends between them). The translated request is compared first (it names the message or
 * parameter that changed), then the body as received, which also catches a change that translates
 * to the same chat request (a field kept in the record only). Fields a protocol documents as the
 * client's bookkeeping (record-only.ts) are left out of both comparisons; `recordedBody` is the
 * recorded body, parsed (without it, a body whose hash differs is a divergence).
 */
export function matchModelRequest(facts: ModelRequestFacts, recorded: StoredEvent, following?: StoredEvent, recordedBody?: unknown): Mismatch | null {
  if (recorded.type === 'AgentRequestReceived') {
    const translated = following === undefined ? null : matchTranslated(facts, following);
    return translated ?? matchReceived(facts, recorded.data, recordedBody);
  }
  if (facts.received && recorded.type === 'ProviderCallRequested') {
    return { field: 'received', detail: `the record holds a chat completions request here, the agent spoke ${facts.received.protocol}` };
  }
  return matchTranslated(facts, recorded);
}

function matchReceived(facts: ModelRequestFacts, r: DataOf<'AgentRequestReceived'>, recordedBody: unknown): Mismatch | null {
  const now = facts.received;
  if (!now) return { field: 'received', detail: `the record holds a ${r.protocol} request here, the agent spoke chat completions` };
  if (r.call !== now.call) return { field: 'received.call', detail: `recorded ${r.call}, now ${now.call}` };
  if (r.protocol !== now.protocol) return { field: 'received.protocol', detail: `recorded ${r.protocol}, now ${now.protocol}` };
  if (r.body === now.body) return null;
  if (recordedBody !== undefined && facts.receivedBody !== undefined) {
    const at = firstBodyDifference(comparedBody(now.protocol, recordedBody), comparedBody(now.protocol, facts.receivedBody));
    // Only record-only fields differ: the same request (the recorder keeps the recorded body).
    if (at === null) return null;
    return { field: `received.body.${at}`, detail: `the ${now.protocol} request body differs from the recorded one at ${at}` };
  }
  return {
    field: 'received.body',
    detail: `the ${now.protocol} request body differs from the recorded one (sha256 ${r.body.slice(0, 12)}, now ${now.body.slice(0, 12)})`,
  };
}

function matchTranslated(facts: ModelRequestFacts, recorded: StoredEvent): Mismatch | null {
  if (recorded.type !== 'ProviderCallRequested') return { field: 'kind', detail: `the record holds ${recorded.type} here, the agent sent a model request` };
  const r = recorded.data;
  if (r.callId !== facts.callId) return { field: 'callId', detail: `recorded ${r.callId}, now ${facts.callId}` };
  const firstMessage = firstDifference(r.messages, facts.messages);
  if (firstMessage !== null) return { field: `messages[${firstMessage}]`, detail: `message ${firstMessage + 1} differs from the recorded one` };
  if (canonicalJson(r.tools) !== canonicalJson(facts.tools)) return { field: 'tools', detail: `recorded ${r.tools.join(',')}, now ${facts.tools.join(',')}` };
  if (r.attribution !== facts.attribution) return { field: 'attribution', detail: `recorded ${r.attribution}, now ${facts.attribution}` };
  if (r.model !== facts.model) return { field: 'model', detail: `recorded ${r.model}, now ${facts.model}` };
  // Record-only params (a cache key, an end-user id) are not compared: see record-only.ts.
  const [was, now] = [splitChatParams(r.params).compared, splitChatParams(facts.params).compared];
  const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])].sort();
  // A field sent as null is not a field left out: the upstream sees different bodies.
  const shown = (p: Record<string, unknown>, k: string) => (Object.hasOwn(p, k) ? canonicalJson(p[k]) : '(absent)');
  const param = keys.find((k) => shown(was, k) !== shown(now, k));
  if (param !== undefined) return { field: `params.${param}`, detail: `recorded ${shown(was, param)}, now ${shown(now, param)}` };
  return null;
}

/** Compares the agent's tool call with the next recorded event; null when it is the recorded call. */
export function matchToolCall(callId: string, name: string, args: string, recorded: StoredEvent): Mismatch | null {
  if (recorded.type !== 'ToolCalled') return { field: 'kind', detail: `the record holds ${recorded.type} here, the agent called a tool` };
  if (recorded.data.callId !== callId) return { field: 'callId', detail: `recorded ${recorded.data.callId}, now ${callId}` };
  if (recorded.data.name !== name) return { field: 'tool', detail: `recorded ${recorded.data.name}, now ${name}` };
  if (recorded.data.arguments !== args) return { field: 'arguments', detail: `recorded ${recorded.data.arguments}, now ${args}` };
  return null;
}

function firstDifference(a: readonly string[], b: readonly string[]): number | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return null;
}

/** How the agent's process ended, as the process runner saw it. */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  ended: 'exited' | 'time_limit' | 'aborted' | 'killed';
}

/** The stop reason of an ended agent (an interrupted run never gets here: it is resumed instead). */
export function stopReasonOf(end: ProcessEnd, s: AgentJobState): AgentStopReason {
  if (end.ended === 'aborted') return 'aborted';
  if (end.ended === 'time_limit') return 'time_limit';
  // A refused request is the job's limit, not the agent's failure, whatever the agent did next.
  if (s.budget !== null) return 'budget';
  if (end.signal !== null) return 'signalled';
  if (end.code !== 0) return 'exited_nonzero';
  return s.modelCalls === 0 ? 'no_model_calls' : 'answered';
}

/** Reasons that fail the job (`agent_failed`) instead of grading what the agent left. */
export function failsJob(reason: AgentStopReason): boolean {
  return reason === 'exited_nonzero' || reason === 'signalled';
}

/** The EVALOG_TASK file: everything the agent is told, and nothing of this machine (no paths, ports or tokens). */
export interface AgentTaskFile {
  run: string;
  job: string;
  case: string;
  arm: string;
  agent: string;
  repetition: number;
  seed: number;
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  limits: AgentLimits;
}

export function agentTaskFile(o: {
  runId: string;
  job: PlannedJob;
  arm: string;
  agent: string;
  model: string;
  task: { messages: ChatMessage[]; tools: ToolSpec[] };
  limits: AgentLimits;
}): AgentTaskFile {
  return {
    run: o.runId,
    job: o.job.jobId,
    case: o.job.caseId,
    arm: o.arm,
    agent: o.agent,
    repetition: o.job.repetition,
    seed: o.job.seed,
    model: o.model,
    messages: o.task.messages,
    tools: o.task.tools,
    limits: o.limits,
  };
}

/**
 * Limits of an agent's jobs: the agent's own, else the job's defaults: the suite's worker time
 * limit and 50 calls, or a session cell's deadline and model-call budget.
 */
export function agentLimitsOf(own: Partial<AgentLimits> | undefined, defaults: { timeLimitMs: number; modelCalls?: number }): AgentLimits {
  return { modelCalls: own?.modelCalls ?? defaults.modelCalls ?? 50, tokens: own?.tokens ?? null, timeLimitMs: own?.timeLimitMs ?? defaults.timeLimitMs };
}
