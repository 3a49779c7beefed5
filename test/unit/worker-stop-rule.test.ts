// The worker's limit contract: a suite's own stop rule (AgentSpec.stopRule) stops the built-in
// worker with the reason the suite names, and a suite without one never stops by it. Pure logic
// first (the decider and fold over built events), then a user suite through the public API on the
// scripted model (recorded, replayed, rebuilt), then the event and config schemas that old logs
// and configs must still pass.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { hashOf } from '../../src/core/canonical.js';
import { z } from 'zod';
import { baseConfigShape, defineSuite, defineTool, toolResult, type Player, type SuiteConfigBase, type WorkerStopRule } from '../../src/api/index.js';
import { rebuild, replay } from '../../src/api/index.js';
import { runScripted } from '../../src/api/testing/index.js';
import { WorkerStopped, type DataOf, type EventType, type StoredEvent, type ToolCallRequest } from '../../src/events/index.js';
import { StopRuleError } from '../../src/harness/suite/index.js';
import { evolveWorker, initialWorkerState, nextWorkerStep, stopAnswer, type WorkerState } from '../../src/harness/worker/index.js';
import { ContextSnapshotConfig, defaultConfig } from '../../packages/suite-context-snapshot/src/config.js';
import { contextSnapshotDefinition, contextSnapshotSuite } from '../../packages/suite-context-snapshot/src/suite.js';
import { loadContextSnapshotProtocol } from '../../packages/suite-context-snapshot/src/protocol/index.js';
import { protocolOverrides } from '../../packages/suite-context-snapshot/src/protocol-run.js';
import { storedEvent, succeededData, T0 } from '../support/build-events.js';

const STAND_IN = fileURLToPath(new URL('../fixtures/context-snapshot-protocol/', import.meta.url));
const JOB = 'c:a:1';
let n = 0;
const ev = <T extends EventType>(type: T, data: DataOf<T>): StoredEvent => storedEvent(type, data, { jobId: JOB, n: ++n, at: T0, actor: `job/${JOB}/worker` });
const call = (k: number): ToolCallRequest => ({ id: `t${k}`, name: 'note', arguments: '{}' });
const reply = (k: number, toolCalls: ToolCallRequest[], content: string | null) =>
  ev('ProviderCallSucceeded', succeededData(`worker/turn-${k}/attempt-1`, { content, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }));
const toolDone = (k: number) =>
  ev('ToolCalled', { callId: `worker/turn-${k}/tool-0`, toolCallId: `t${k}`, name: 'note', arguments: '{}', result: 'ok', isError: false });

/** A planted rule: two model turns, then no more tool rounds (an answer at turn 2 still counts). */
const twoRounds = (answer: WorkerStopRule['answer']): WorkerStopRule => ({
  reason: 'round_budget',
  answer,
  stops: (p) => p.turns >= 2 && !p.answered,
});

/** The worker's policy driven as its machine drives it, against a model that calls a tool every turn (text `reply k`). */
function drive(rule: WorkerStopRule | undefined, turnCap = 5) {
  let s: WorkerState = initialWorkerState([{ role: 'user', content: 'task' }], [], T0);
  const seen: string[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const step = nextWorkerStep(s, { turnCap, timeLimitMs: 60_000 }, rule);
    seen.push(step.type);
    if (step.type === 'call') s = evolveWorker(s, reply(s.turns + 1, [call(s.turns + 1)], `reply ${s.turns + 1}`));
    else if (step.type === 'tools') s = evolveWorker(s, toolDone(s.turns));
    else if (step.type === 'stop') return { turns: s.turns, reason: step.reason, answer: stopAnswer(s, step.reason, rule), seen };
    else throw new Error(`unexpected ${step.type}`);
  }
  throw new Error('never stopped');
}

describe('worker stop rule: the decider', () => {
  it('a planted rule stops the worker with its reason, before the tool round it would have run', () => {
    const r = drive(twoRounds('answer'));
    expect(r).to.deep.include({ turns: 2, reason: 'round_budget', answer: null });
    expect(r.seen).to.deep.equal(['call', 'tools', 'call', 'stop']);
  });

  it("a rule with answer 'last_reply' records the last reply's text, tool calls or not", () => {
    expect(drive(twoRounds('last_reply'))).to.deep.include({ turns: 2, reason: 'round_budget', answer: 'reply 2' });
  });

  it('a rule is asked before the answer: an answer it says came too late is recorded with its reason', () => {
    const late: WorkerStopRule = { reason: 'late_answer', answer: 'last_reply', stops: (p) => p.answered && p.turns > 1 };
    let s = initialWorkerState([{ role: 'user', content: 'task' }], [], T0);
    s = evolveWorker(s, reply(1, [call(1)], null));
    s = evolveWorker(s, toolDone(1));
    s = evolveWorker(s, reply(2, [], 'DONE'));
    expect(nextWorkerStep(s, { turnCap: 5, timeLimitMs: 1 }, late)).to.deep.equal({ type: 'stop', reason: 'late_answer' });
    expect(nextWorkerStep(s, { turnCap: 5, timeLimitMs: 1 })).to.deep.equal({ type: 'stop', reason: 'answered' });
  });

  it('a worker without a rule never stops by one: the turn cap stops it', () => {
    const r = drive(undefined);
    expect(r).to.deep.include({ turns: 5, reason: 'turn_cap', answer: null });
    expect(r.seen.filter((x) => x === 'tools')).to.have.length(5);
  });

  it("a rule's reason never changes what the harness's own stops record (the answer, not the last reply)", () => {
    const rule = twoRounds('last_reply');
    const s = evolveWorker(initialWorkerState([], [], T0), reply(1, [call(1)], 'thinking'));
    expect(stopAnswer(s, 'turn_cap', rule)).to.equal(null);
    expect(stopAnswer(s, 'round_budget', rule)).to.equal('thinking');
  });
});

type Case = { id: string };
const NOTE = defineTool({ name: 'note', description: 'Write a note', properties: {} });
const config: SuiteConfigBase = {
  repetitions: 1,
  concurrency: 1,
  seed: 1,
  orderSeed: 1,
  cases: null,
  model: { temperature: 0, maxTokens: 64 },
  worker: { turnCap: 4, timeLimitMs: 60_000 },
  provider: { timeoutMs: 10_000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, maxRetryAfterMs: 60_000 },
};

/** A user suite whose worker writes a note every turn and never answers; `rule` is its own limit. */
function noteSuite(rule: ((c: SuiteConfigBase) => WorkerStopRule | null) | undefined) {
  return defineSuite<SuiteConfigBase, Case>({
    name: 'notes',
    description: 'A worker that keeps writing notes',
    shape: 'agent',
    configSchema: z.object({ ...baseConfigShape }).strict(),
    defaults: config,
    prepare: async () => ({ cases: [{ id: 'one', data: { id: 'one' } }] }),
    arms: () => ['a'],
    agent: {
      parentRequest: () => ({ messages: [{ role: 'system', content: '[notes:parent]' }], tools: [] }),
      acceptDelegation: () => ({ ok: true, mode: 'all', brief: '' }),
      workerRequest: () => ({
        messages: [
          { role: 'system', content: '[notes:worker]' },
          { role: 'user', content: 'write notes' },
        ],
        tools: [NOTE],
      }),
      runTool: (_name, _args, ctx) => toolResult('noted', `note ${ctx.revision + 1}`),
      ...(rule ? { stopRule: rule } : {}),
    },
    grade: () => ({ checks: [], firstRevisionPassed: null }),
  });
}

const player: Player = (request) => {
  if (request.messages[0]?.content !== '[notes:worker]') return null;
  const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
  return { content: `note turn ${turn}`, toolCalls: [{ name: 'note', arguments: '{}' }] };
};

async function stops(r: Awaited<ReturnType<typeof runScripted>>): Promise<DataOf<'WorkerStopped'>[]> {
  const out: DataOf<'WorkerStopped'>[] = [];
  for await (const e of r.log.read(r.runId)) if (e.type === 'WorkerStopped') out.push(e.data);
  return out;
}

describe('worker stop rule: a user suite through the public API', function () {
  this.timeout(60_000);

  it("the suite's rule (from its config) stops the worker with its reason; replay and rebuild agree", async () => {
    const suite = noteSuite((c) => ({ reason: 'note_budget', answer: 'last_reply', stops: (p) => p.turns >= c.worker.turnCap - 2 && !p.answered }));
    const r = await runScripted({ suite, player });
    expect(r.status).to.equal('completed');
    expect(await stops(r)).to.deep.equal([{ reason: 'note_budget', turns: 2, answer: 'note turn 2' }]);
    expect(r.outputs!.rows.map((row) => row.stop_reason)).to.deep.equal(['note_budget']);
    expect(await replay({ log: r.log, runId: r.runId, suite })).to.include({ ok: true, jobs: 1, completed: true });
    expect((await rebuild({ log: r.log, runId: r.runId, suite })).rows).to.deep.equal(r.outputs!.rows);
  });

  it('a suite without a rule, or whose rule is null for its config, stops by the turn cap alone', async () => {
    for (const suite of [noteSuite(undefined), noteSuite(() => null)]) {
      const r = await runScripted({ suite, player });
      expect(await stops(r)).to.deep.equal([{ reason: 'turn_cap', turns: 4, answer: null }]);
    }
  });

  it("a rule naming one of the harness's reasons, or a reason that is not snake_case, is refused before any job runs", async () => {
    for (const reason of ['answered', 'turn_cap', 'Note Budget', '']) {
      const suite = noteSuite(() => ({ reason, answer: 'answer', stops: () => true }));
      let error: unknown;
      try {
        await runScripted({ suite, player });
      } catch (e) {
        error = e;
      }
      expect(error, reason).to.be.instanceOf(StopRuleError);
      expect((error as Error).message).to.contain(JSON.stringify(reason));
    }
  });
});

describe('worker stop rule: recorded events and configs', () => {
  const envelope = { id: 'r/j/1', runId: 'r', jobId: JOB, at: new Date(T0).toISOString(), actor: `job/${JOB}/worker`, type: 'WorkerStopped', v: 2 };

  it("WorkerStopped v2 reads the harness's reasons, the step limit's recorded name and a suite's own; not a misspelt one", () => {
    for (const reason of ['answered', 'turn_cap', 'deadline', 'time_limit', 'provider_failed', 'graph_step_cap', 'note_budget'])
      expect(WorkerStopped.safeParse({ ...envelope, data: { reason, turns: 1, answer: null } }).success, reason).to.equal(true);
    for (const reason of ['Graph Step Cap', '', '1st'])
      expect(WorkerStopped.safeParse({ ...envelope, data: { reason, turns: 1, answer: null } }).success, reason).to.equal(false);
  });

  it('the base config has no suite limit: a user schema that spreads it refuses worker.graphSteps', () => {
    const schema = z.object({ ...baseConfigShape }).strict();
    const r = schema.safeParse({ ...config, worker: { turnCap: 4, timeLimitMs: 1, graphSteps: 50 } });
    expect(r.success).to.equal(false);
    expect(r.error?.issues[0]?.path).to.deep.equal(['worker']);
  });

  it("context-snapshot's own schema keeps worker.graphSteps: a recorded config parses to the same value (its hash unchanged)", () => {
    const recorded = { ...defaultConfig(), worker: { turnCap: 50, graphSteps: 50, timeLimitMs: 180_000 } };
    const parsed = ContextSnapshotConfig.parse(JSON.parse(JSON.stringify(recorded)));
    expect(parsed.worker).to.deep.equal({ turnCap: 50, graphSteps: 50, timeLimitMs: 180_000 });
    expect(hashOf(parsed)).to.equal(hashOf(recorded));
    expect(ContextSnapshotConfig.safeParse({ ...recorded, worker: { ...recorded.worker, other: 1 } }).success).to.equal(false);
  });
});

describe('worker stop rule: the study that has one', () => {
  it('context-snapshot gives the worker its step rule when its config has worker.graphSteps, and none when it has not', async () => {
    const stopRule = contextSnapshotDefinition.agent.stopRule;
    const withSteps = stopRule({ ...defaultConfig(), worker: { turnCap: 50, graphSteps: 50, timeLimitMs: 180_000 } });
    expect(withSteps).to.include({ reason: 'graph_step_cap', answer: 'last_reply' });
    // 50 super-steps: the 7th reply's tool calls never run; the 6th's do.
    expect(withSteps!.stops({ turns: 7, pendingTools: true, answered: false })).to.equal(true);
    expect(withSteps!.stops({ turns: 6, pendingTools: true, answered: false })).to.equal(false);
    expect(stopRule(defaultConfig())).to.equal(null);
    // The bundled variant (no graphSteps): its prepared jobs' hooks carry no rule.
    const prepared = await contextSnapshotSuite.configure(defaultConfig()).prepare();
    const job = { jobId: `${prepared.cases[0]!.id}:${prepared.arms[0]!}:1`, caseId: prepared.cases[0]!.id, arm: prepared.arms[0]!, repetition: 1, seed: 1 };
    const hooks = prepared.hooks(job);
    expect(hooks.shape === 'agent' && 'stopRule' in hooks.agent).to.equal(false);
  });

  it("a protocol folder's run (max_graph_steps in its config.json) binds the rule into every job's worker hooks", async () => {
    const protocol = loadContextSnapshotProtocol(STAND_IN, { allowUnpinned: true });
    const overrides = protocolOverrides(protocol, true);
    expect(overrides.worker).to.include({ graphSteps: 50 });
    const prepared = await contextSnapshotSuite.configure({ ...defaultConfig(), ...overrides }).prepare();
    for (const c of prepared.cases) {
      const hooks = prepared.hooks({ jobId: `${c.id}:snapshot:1`, caseId: c.id, arm: 'snapshot', repetition: 1, seed: 1 });
      expect(hooks.shape === 'agent' ? hooks.agent.stopRule?.reason : hooks.shape, c.id).to.equal('graph_step_cap');
    }
  });
});
