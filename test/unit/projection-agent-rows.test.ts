import { expect } from 'chai';
import { eventLine } from '../../src/cli/event-line.js';
import { buildEvent, type DataOf, EvalogEventSchema, type EventType, eventId, type StoredEvent, withSeq } from '../../src/events/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { type Row, rowsProjection } from '../../src/projections/rows.js';
import { ceRows } from '../../packages/suite-context-engineering/src/index.js';
import { csRows } from '../../packages/suite-context-snapshot/src/report.js';
import { qaAnswerRows } from '../../packages/suite-memory-eviction/src/qa-report.js';
import { failedData, requestedData, succeededData, T0 } from '../support/build-events.js';

const TASK = 'a'.repeat(64);
const ANSWERED = 'sum:agent:1'; // answers, with a retried call and a saved artifact
const TOKENS = 'sum:agent:2'; // runs out of its token budget
const CRASHED = 'sum:agent:3'; // exits non-zero
const BUILTIN = 'sum:builtin:1'; // evalog's own loop, for contrast

/**
 * A run's log of external-agent jobs as the job will record them, each event put together by
 * buildEvent (as the journal does) and checked against the root schema (as the log decodes it).
 */
class AgentLog {
  readonly events: StoredEvent[] = [];
  private readonly n = new Map<string, number>();

  add<T extends EventType>(jobId: string | undefined, afterMs: number, type: T, data: DataOf<T>): void {
    const n = (this.n.get(jobId ?? '') ?? 0) + 1;
    this.n.set(jobId ?? '', n);
    const e = buildEvent({
      id: eventId('run-agent', jobId, n),
      runId: 'run-agent',
      jobId,
      type,
      at: new Date(T0 + afterMs).toISOString(),
      actor: jobId === undefined ? 'run' : `job/${jobId}/agent`,
      data,
    });
    this.events.push(withSeq(EvalogEventSchema.parse(e), this.events.length + 1));
  }

  /** JobStarted then AgentLaunched: how every external-agent job begins. */
  launch(jobId: string, arm: string, repetition: number): void {
    this.add(jobId, 0, 'JobStarted', { caseId: 'sum', arm, repetition, seed: 7 });
    this.add(jobId, 5, 'AgentLaunched', { agent: 'node-agent', command: ['node', 'examples/agents/node-agent.mjs'], task: TASK });
  }

  call(jobId: string, afterMs: number, callId: string, attribution: 'main' | 'child' | 'query', total: number): void {
    this.add(jobId, afterMs, 'ProviderCallRequested', requestedData(callId, { attribution }));
    this.add(jobId, afterMs + 10, 'ProviderCallSucceeded', succeededData(callId, { usage: { prompt: total - 5, completion: 5, total } }));
  }

  exited(jobId: string, afterMs: number, reason: DataOf<'AgentExited'>['reason'], modelCalls: number, code: number | null = 0): void {
    const stream = { blob: null, bytes: 0, truncated: false };
    this.add(jobId, afterMs, 'AgentExited', { reason, code, signal: null, answer: 'DONE', modelCalls, toolCalls: 1, stdout: stream, stderr: stream });
  }

  graded(jobId: string, afterMs: number, passed: boolean): void {
    this.add(jobId, afterMs, 'CheckEvaluated', { checkId: 'total_correct', visibility: 'hidden', passed, detail: passed ? 'right' : 'wrong' });
    this.add(jobId, afterMs + 1, 'JobGraded', { passed, checksPassed: passed ? 1 : 0, checksTotal: 1, firstRevisionPassed: passed });
    this.add(jobId, afterMs + 2, 'JobSucceeded', { passed });
  }
}

function log(): StoredEvent[] {
  const t = new AgentLog();
  t.launch(ANSWERED, 'agent', 1);
  t.call(ANSWERED, 10, 'agent/call-1/attempt-1', 'main', 15);
  t.add(ANSWERED, 30, 'ToolCalled', {
    callId: 'agent/tool-1',
    toolCallId: 'call_1',
    name: 'write_answer',
    arguments: '{"value":"3.75"}',
    result: 'saved',
    isError: false,
  });
  t.add(ANSWERED, 31, 'ArtifactRevised', { revision: 1, content: '3.75', sha256: 'c'.repeat(64) });
  t.add(ANSWERED, 40, 'ProviderCallRequested', requestedData('agent/call-2/attempt-1', { attribution: 'child' }));
  t.add(ANSWERED, 45, 'ProviderCallFailed', failedData('agent/call-2/attempt-1'));
  t.add(
    ANSWERED,
    50,
    'ProviderCallRequested',
    requestedData('agent/call-2/attempt-2', { attribution: 'child', attempt: 2, retryOf: 'agent/call-2/attempt-1' }),
  );
  t.add(ANSWERED, 60, 'ProviderCallSucceeded', succeededData('agent/call-2/attempt-2', { usage: { prompt: 20, completion: 5, total: 25 } }));
  t.call(ANSWERED, 70, 'agent/call-3/attempt-1', 'query', 10);
  t.exited(ANSWERED, 100, 'answered', 3);
  t.graded(ANSWERED, 110, true);

  t.launch(TOKENS, 'agent', 2);
  t.call(TOKENS, 10, 'agent/call-1/attempt-1', 'main', 50);
  t.add(TOKENS, 30, 'BudgetExhausted', { budget: 'tokens', limit: 40, used: 50 });
  t.exited(TOKENS, 40, 'budget', 2);
  t.graded(TOKENS, 50, false);

  t.launch(CRASHED, 'agent', 3);
  t.call(CRASHED, 10, 'agent/call-1/attempt-1', 'main', 15);
  t.exited(CRASHED, 20, 'exited_nonzero', 1, 3);
  t.add(CRASHED, 30, 'JobFailed', { reason: 'agent_failed', message: 'the agent exited with code 3' });

  t.add(BUILTIN, 0, 'JobStarted', { caseId: 'sum', arm: 'builtin', repetition: 1, seed: 7 });
  t.call(BUILTIN, 10, 'worker/turn-1/attempt-1', 'child', 15);
  t.add(BUILTIN, 30, 'WorkerStopped', { reason: 'answered', turns: 1, answer: 'DONE' });
  t.graded(BUILTIN, 40, true);
  return t.events;
}

const byId = <R extends { job_id: string }>(rows: R[], jobId: string): R => rows.find((r) => r.job_id === jobId)!;

describe('rows of external-agent jobs', () => {
  it('take the stop reason from AgentExited, the turns from its model calls, and name the agent', async () => {
    const rows: Row[] = await fold(rowsProjection, log());
    const a = byId(rows, ANSWERED);
    expect(a).to.deep.include({ agent: 'node-agent', status: 'succeeded', passed: true, stop_reason: 'answered', turns: 3, tool_calls: 1, revisions: 1 });
    // Every attempt is the agent's, the retried one included; usage splits main (parent) from child and query (worker).
    expect(a).to.deep.include({ calls: 4, failed_calls: 1 });
    expect(a.usage.parent.total_tokens).to.equal(15);
    expect(a.usage.worker.total_tokens).to.equal(35);
    expect(Object.keys(a).slice(0, 5)).to.deep.equal(['job_id', 'case_id', 'arm', 'agent', 'repetition']);
  });

  it('a budget that ran out is the stop reason, as for the built-in loop; a crashed agent fails the job', async () => {
    const rows: Row[] = await fold(rowsProjection, log());
    expect(byId(rows, TOKENS)).to.deep.include({ stop_reason: 'budget:tokens', turns: 2, passed: false, agent: 'node-agent' });
    expect(byId(rows, CRASHED)).to.deep.include({
      status: 'failed',
      stop_reason: 'exited_nonzero',
      turns: 1,
      passed: false,
      failure: { reason: 'agent_failed', message: 'the agent exited with code 3' },
    });
  });

  it('a row of evalog’s own loop has no agent key, so older runs keep their rows byte for byte', async () => {
    const b = byId(await fold(rowsProjection, log()), BUILTIN);
    expect(b).to.not.have.property('agent');
    expect(b).to.deep.include({ stop_reason: 'answered', turns: 1, passed: true });
  });

  it("context-snapshot reads the agent's exit as the executor's stop", async () => {
    const rows = await fold(csRows, log());
    expect(byId(rows, ANSWERED)).to.deep.include({ executor_status: 'completed', stop_reason: null, error_type: null, seconds: 0.1, clean_success: false });
    expect(byId(rows, TOKENS)).to.deep.include({ executor_status: 'failed', stop_reason: null, error_type: 'budget:tokens' });
    expect(byId(rows, CRASHED)).to.deep.include({ executor_status: 'failed', stop_reason: null, error_type: 'agent_failed' });
  });

  it('context-engineering names an agent that did not answer among the ways the job fell short', async () => {
    const rows = await fold(ceRows, log());
    expect(byId(rows, CRASHED)).to.deep.include({ stop_reason: 'exited_nonzero', failure_types: ['exited_nonzero'] });
    expect(byId(rows, TOKENS).failure_types).to.deep.equal(['budget:tokens']);
    expect(byId(rows, ANSWERED).failure_types).to.deep.equal([]);
  });

  it("memory-eviction's answer is the agent's, not the text of its last model call", async () => {
    const t = new AgentLog();
    const job = { jobId: 'q1__fifo:agent:1', caseId: 'q1', arm: 'agent', repetition: 1, seed: 7, meta: { row_id: 'q1__fifo', policy: 'fifo' } };
    t.add(undefined, 0, 'RunStarted', {
      suite: 'memory-eviction',
      config: {},
      configHash: 'h',
      seed: 1,
      orderSeed: 1,
      jobs: [job],
      model: { name: 'm', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
      concurrency: 1,
      provenance: {},
    });
    t.launch(job.jobId, 'agent', 1);
    t.call(job.jobId, 10, 'agent/call-1/attempt-1', 'main', 15); // its content is 'ok'
    t.exited(job.jobId, 30, 'answered', 1);
    t.add(job.jobId, 40, 'JobSucceeded', { passed: null });
    const [row] = await fold(qaAnswerRows, t.events);
    expect(row).to.deep.include({ row_id: 'q1__fifo', status: 'answered', prediction: 'DONE', attempts: 1 });
  });

  it('evalog events prints one short line for each agent event', () => {
    const lines = log()
      .filter((e) => e.jobId === CRASHED && e.type.startsWith('Agent'))
      .map(eventLine);
    expect(lines[0]).to.match(/AgentLaunched\s+agent=node-agent node$/);
    expect(lines[1]).to.match(/AgentExited\s+reason=exited_nonzero code=3 calls=1 tools=1$/);
    const diverged = withSeq(
      buildEvent({
        id: eventId('r', 'j', 1),
        runId: 'r',
        jobId: 'j',
        type: 'AgentDiverged',
        at: new Date(T0).toISOString(),
        actor: 'job/j/agent',
        data: { index: 4, kind: 'model', field: 'messages[2]', detail: 'content differs' },
      }),
      9,
    );
    expect(eventLine(diverged)).to.match(/AgentDiverged\s+index=4 model field=messages\[2\]$/);
  });
});
