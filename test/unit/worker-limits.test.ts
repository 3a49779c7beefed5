// The worker's limits as the published context-snapshot executor has them (issue 16, C2): its
// LangGraph step limit counted in super-steps (the suite's worker.graphSteps, given to the worker
// as the suite's stop rule), and its hard deadline, whose aborted attempt ends the call and the
// worker. Pure logic: deciders and folds over built events.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { DataOf, EventType, StoredEvent, ToolCallRequest } from '../../src/events/index.js';
import { upcast } from '../../src/events/index.js';
import { evolveProvider, initialProviderState, nextProviderStep } from '../../src/harness/provider/logic.js';
import type { WorkerStopRule } from '../../src/harness/suite/index.js';
import type { WorkerLimits } from '../../src/harness/suite/types.js';
import { evolveWorker, initialWorkerState, nextWorkerStep, stopAnswer, type WorkerState } from '../../src/harness/worker/logic.js';
import {
  answerSteps,
  graphStepRule,
  maxModelTurns,
  modelStep,
  roundSteps,
  SUBAGENT_GRAPH,
  toolsStep,
} from '../../packages/suite-context-snapshot/src/graph-steps.js';
import { failedData, requestedData, storedEvent, succeededData, T0 } from '../support/build-events.js';
import { CONTEXT_SNAPSHOT_2026_09_12, publishedFolder } from '../support/published.js';

const published = publishedFolder(CONTEXT_SNAPSHOT_2026_09_12);
const JOB = 'pagination:snapshot:1';
const protocol: WorkerLimits = { turnCap: 50, timeLimitMs: 180_000 };
const steps50 = graphStepRule(50);

let n = 0;
const ev = <T extends EventType>(type: T, data: DataOf<T>, afterMs = 0): StoredEvent =>
  storedEvent(type, data, { jobId: JOB, n: ++n, at: T0 + afterMs, actor: `job/${JOB}/worker` });
const reply = (k: number, toolCalls: ToolCallRequest[], content: string | null = null) =>
  ev('ProviderCallSucceeded', succeededData(`worker/turn-${k}/attempt-1`, { content, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }));
const toolCall = (k: number): ToolCallRequest => ({ id: `t${k}`, name: 'run_public_checks', arguments: '{}' });
const toolDone = (k: number) =>
  ev('ToolCalled', { callId: `worker/turn-${k}/tool-0`, toolCallId: `t${k}`, name: 'run_public_checks', arguments: '{}', result: 'ok', isError: false });

/**
 * Drives the worker's policy as its machine does: a model that answers `replyAt(k)` to call k.
 * Returns the calls made, the tools run and the stop.
 */
function drive(limits: WorkerLimits, rule: WorkerStopRule | undefined, replyAt: (k: number) => { toolCalls: ToolCallRequest[]; content: string | null }) {
  let s: WorkerState = initialWorkerState([{ role: 'user', content: 'task' }], [], T0);
  let calls = 0;
  let tools = 0;
  for (let guard = 0; guard < 500; guard++) {
    const step = nextWorkerStep(s, limits, rule);
    if (step.type === 'call') {
      calls++;
      const r = replyAt(calls);
      s = evolveWorker(s, reply(calls, r.toolCalls, r.content));
    } else if (step.type === 'tools') {
      tools++;
      s = evolveWorker(s, toolDone(s.turns));
    } else if (step.type === 'stop') {
      return { calls, tools, reason: step.reason, answer: stopAnswer(s, step.reason, rule) };
    } else throw new Error(`unexpected step ${step.type}`);
  }
  throw new Error('the worker never stopped');
}

describe('worker limits: the published executor’s step limit (LangGraph super-steps)', () => {
  it('a round costs 7 super-steps (before_model, model, 4 after_model, tools) after 4 at the start', () => {
    expect(roundSteps(SUBAGENT_GRAPH)).to.equal(7);
    expect([1, 2, 7, 8].map((k) => modelStep(SUBAGENT_GRAPH, k))).to.deep.equal([6, 13, 48, 55]);
    expect([1, 6, 7].map((k) => toolsStep(SUBAGENT_GRAPH, k))).to.deep.equal([11, 46, 53]);
    // An answer at turn 6 ends at super-step 48 (within 49 of 50); at turn 7 it would need 55.
    expect([6, 7].map((k) => answerSteps(SUBAGENT_GRAPH, k))).to.deep.equal([48, 55]);
    expect(maxModelTurns(SUBAGENT_GRAPH, 50)).to.equal(7);
  });

  it('at 50 steps a worker that keeps calling tools sends 7 requests; the 7th reply’s tool calls never run', () => {
    const r = drive(protocol, steps50, (k) => ({ toolCalls: [toolCall(k)], content: null }));
    expect(r).to.deep.equal({ calls: 7, tools: 6, reason: 'graph_step_cap', answer: null });
  });

  it('a capped worker reports its last reply’s text (upstream: completed with the partial result), tool calls or not', () => {
    const r = drive(protocol, steps50, (k) => ({ toolCalls: [toolCall(k)], content: k === 7 ? 'Saved; checks pending.' : null }));
    expect(r).to.deep.equal({ calls: 7, tools: 6, reason: 'graph_step_cap', answer: 'Saved; checks pending.' });
  });

  it('an answer at turn 6 ends the run cleanly; an answer at turn 7 is still capped, with its text', () => {
    const answerAt = (last: number) => (k: number) => (k < last ? { toolCalls: [toolCall(k)], content: null } : { toolCalls: [], content: 'DONE' });
    expect(drive(protocol, steps50, answerAt(6))).to.deep.equal({ calls: 6, tools: 5, reason: 'answered', answer: 'DONE' });
    expect(drive(protocol, steps50, answerAt(7))).to.deep.equal({ calls: 7, tools: 6, reason: 'graph_step_cap', answer: 'DONE' });
  });

  it('without the rule (no graphSteps, or another suite) the worker counts model turns alone, as before', () => {
    const r = drive({ turnCap: 50, timeLimitMs: 180_000 }, undefined, (k) => ({ toolCalls: [toolCall(k)], content: null }));
    expect(r).to.deep.equal({ calls: 50, tools: 50, reason: 'turn_cap', answer: null });
  });

  published.it('agrees with the published rows: the turn-capped ones made 7 worker requests, every clean one fewer', async () => {
    const rows = (await readFile(published.path('rows.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stop_reason: string | null; executor_status: string; worker_usage: { requests: number } });
    const capped = rows.filter((r) => r.stop_reason === 'turn_capped');
    expect(capped).to.have.length(2);
    for (const r of capped) expect([r.worker_usage.requests, r.executor_status]).to.deep.equal([maxModelTurns(SUBAGENT_GRAPH, 50), 'failed']);
    for (const r of rows.filter((x) => x.stop_reason === null)) {
      expect(r.executor_status).to.equal('completed');
      expect(answerSteps(SUBAGENT_GRAPH, r.worker_usage.requests)).to.be.at.most(49);
    }
  });
});

describe('worker limits: the deadline’s aborted attempt', () => {
  const deadlineAborted = (callId: string) =>
    ev(
      'ProviderCallFailed',
      failedData(callId, { kind: 'aborted', status: null, message: 'aborted at the worker deadline', retryable: false, stoppedBy: 'deadline' }),
    );

  it('ends the worker with a deadline stop, not provider_failed', () => {
    let s = initialWorkerState([{ role: 'user', content: 'task' }], [], T0);
    s = evolveWorker(s, deadlineAborted('worker/turn-1/attempt-1'));
    expect(nextWorkerStep(s, protocol, steps50)).to.deep.equal({ type: 'stop', reason: 'deadline' });
    expect(stopAnswer(s, 'deadline', steps50)).to.equal(null);
  });

  it('ends the call: no further attempt, where an interrupted attempt is sent again', () => {
    const site = { actor: `job/${JOB}/worker`, name: 'worker/turn-1', attribution: 'child' as const };
    const policy = { maxAttempts: 3, backoffMs: 10, maxBackoffMs: 10, timeoutMs: 1000 };
    const fold = (events: StoredEvent[]) => events.reduce(evolveProvider, initialProviderState);
    const requested = ev('ProviderCallRequested', requestedData('worker/turn-1/attempt-1'));
    expect(nextProviderStep(fold([requested, deadlineAborted('worker/turn-1/attempt-1')]), site, policy)).to.deep.equal({ type: 'done' });
    const interrupted = ev(
      'ProviderCallFailed',
      failedData('worker/turn-1/attempt-1', { kind: 'aborted', status: null, message: 'aborted by interrupt', retryable: true }),
    );
    expect(nextProviderStep(fold([requested, interrupted]), site, policy)).to.include({ type: 'attempt', attempt: 2 });
  });

  it('older logs read: WorkerStopped v1 (time_limit) and ProviderCallFailed v2 upcast as they are', () => {
    const env = { id: 'r/j/1', runId: 'r', jobId: JOB, at: new Date(T0).toISOString(), actor: `job/${JOB}/worker` };
    const stopped = upcast({ ...env, type: 'WorkerStopped', v: 1, data: { reason: 'time_limit', turns: 2, answer: null } }, 'test');
    expect(stopped).to.deep.include({ v: 2, data: { reason: 'time_limit', turns: 2, answer: null } });
    const data = failedData('worker/turn-1/attempt-1');
    expect(upcast({ ...env, type: 'ProviderCallFailed', v: 2, data }, 'test')).to.deep.include({ v: 3, data });
  });
});
