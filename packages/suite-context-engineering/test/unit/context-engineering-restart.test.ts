import { expect } from 'chai';
import { canonicalJson, replay, resume, sha256 } from 'evalog';
import type { StoredEvent } from 'evalog';
import { startScriptedFor } from 'evalog/testing';
// Engine internals with no public counterpart: the session fold (to rebuild the conversation the
// events imply), the model caller and stepping clock runCe takes, and the scripted model's id.
import { steppingClock } from '../../../../src/core/clock.js';
import { SCRIPTED_MODEL } from '../../../../src/harness/endpoint/endpoint.js';
import { startState } from '../../../../src/harness/session/effects.js';
import { evolveSession } from '../../../../src/harness/session/index.js';
import { openAiCaller } from '../../../../src/providers/openai-caller.js';
import type { CeRow } from '../../src/index.js';
import { contextEngineeringPlayer } from '../../src/player.js';
import { dataOf, loaded, runCe, suite, type CeRun } from './context-engineering-support.js';

const JOB = 'recovery_worker_restart:candidate:1';

/** Side effects of a job by identity, with how often each happened. */
const effectCounts = (events: readonly StoredEvent[]) => {
  const counts: Record<string, number> = {};
  for (const e of dataOf(events, 'EnvironmentChanged')) counts[e.effect] = (counts[e.effect] ?? 0) + 1;
  return counts;
};

describe('context-engineering worker restart: the worker is rebuilt from its events', function () {
  this.timeout(60_000);
  let run: CeRun;
  before(async () => {
    run = await runCe({ cases: ['recovery_worker_restart'] });
  });
  after(() => run.cleanup());

  it('is killed mid-batch after M1; the rebuilt worker runs only the rest of the batch, under its own name', () => {
    const events = run.job(JOB);
    const kill = events.findIndex((e) => e.type === 'FaultInjected');
    expect(events[kill]).to.deep.include({ actor: `job/${JOB}/host` });
    expect(
      dataOf(events.slice(0, kill), 'ToolCalled')
        .map((t) => [t.callId, t.name, t.arguments])
        .at(-1),
    ).to.deep.equal(['worker/turn-2/tool-0', 'apply_migration', '{"id":"M1"}']);
    expect(dataOf(events.slice(kill), 'ToolCalled')[0]).to.include({ callId: 'worker/turn-2/tool-1', arguments: '{"id":"M2"}' });
    // No tool call ran twice, and every side effect happened exactly once.
    const calls = dataOf(events, 'ToolCalled');
    expect(new Set(calls.map((t) => t.toolCallId)).size).to.equal(calls.length);
    expect(effectCounts(events)).to.deep.equal({ 'apply_migration:M1': 1, 'apply_migration:M2': 1, 'set_record:ticket.OPS-4412.status=done': 1, submit: 1 });
  });

  it('continues from the fold of its events: its next call sends exactly the conversation the events rebuild', async () => {
    const events = run.job(JOB);
    const next = events.findIndex((e) => e.type === 'ProviderCallRequested' && e.data.callId === 'worker/turn-3/attempt-1');
    const prepared = await suite.configure(run.outputs.run.config).prepare();
    const hooks = prepared.hooks({ jobId: JOB, arm: 'candidate', caseId: 'recovery_worker_restart', repetition: 1, seed: 1 });
    if (hooks.shape !== 'session') throw new Error('context-engineering runs session jobs');
    const folded = events.slice(0, next).reduce(evolveSession(hooks.session.evolveEnvironment), startState(hooks.session));
    const sent = events[next]!.type === 'ProviderCallRequested' ? (events[next] as Extract<StoredEvent, { type: 'ProviderCallRequested' }>).data.messages : [];
    expect(sent).to.deep.equal(folded.messages.map((m) => sha256(canonicalJson(m))));
    // The host's restart notice came after the whole batch was answered, as a tool reply must follow its call.
    expect(folded.messages.at(-1)).to.deep.include({ role: 'user' });
    expect(String(folded.messages.at(-1)!.content)).to.match(/^\[host\] The worker was stopped/);
    expect(folded.messages.at(-2)).to.deep.include({ role: 'tool' });
  });

  it('replays: every event, the kill and the rebuild included, is re-emitted identically', async () => {
    const report = await replay({ log: run.log, runId: run.runId, suite });
    expect(report, JSON.stringify(report).slice(0, 400)).to.deep.include({ ok: true, jobs: 2, incompleteJobs: 0 });
  });

  it('interrupted right after the restart and resumed: each side effect still happens once, no completed call is sent again (counted at the model)', async () => {
    // The model is a scripted server of the test's own, so it counts completions per call (X-Evalog-Call).
    const model = await startScriptedFor(contextEngineeringPlayer);
    const stop = new AbortController();
    const caller = openAiCaller({ baseURL: model.url, apiKey: 'scripted-no-key', clock: steppingClock(Date.UTC(2026, 0, 1), 1) });
    const first = await runCe({ cases: ['recovery_worker_restart'], signal: stop.signal, caller, onEvent: (e) => e.type === 'FaultInjected' && stop.abort() });
    try {
      expect(first.out.status).to.equal('interrupted');
      const keyOf = (e: StoredEvent) => `${first.runId}/${e.jobId}/${(e.data as { callId: string }).callId}`;
      const loggedBefore = first.events.filter((e) => e.type === 'ProviderCallSucceeded').map(keyOf);
      const atModelBefore = model.stats().completedByCallKey;
      expect(loggedBefore.length, 'calls completed before the interruption').to.be.greaterThan(0);
      for (const k of loggedBefore) expect(atModelBefore[k], `${k} before the resume`).to.equal(1);

      const endpoint = { baseURL: model.url, apiKey: 'scripted-no-key', model: SCRIPTED_MODEL, baseUrlEnv: 'TEST' };
      const resumed = await resume({ log: first.log, runId: first.runId, suite, endpoint });
      expect(resumed.status).to.equal('completed');
      const after = await loaded({ dir: first.root, cleanup: async () => {} }, first.log, first.runId, resumed);
      const atModelAfter = model.stats().completedByCallKey;
      // No call the log had completed reached the model again, and no call was completed twice.
      for (const k of loggedBefore) expect(atModelAfter[k], `${k} was sent again by the resume`).to.equal(1);
      for (const [k, n] of Object.entries(atModelAfter)) expect(n, `completions of ${k}`).to.be.at.most(1);
      // What the resume completed at the model is exactly what the log gained.
      const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
      const loggedAfter = after.events.filter((e) => e.type === 'ProviderCallSucceeded').map(keyOf);
      expect(loggedAfter.length).to.be.greaterThan(loggedBefore.length);
      expect(sum(atModelAfter) - sum(atModelBefore)).to.equal(loggedAfter.length - loggedBefore.length);
      for (const k of loggedAfter) expect(atModelAfter[k], `${k} completed at the model`).to.equal(1);

      for (const cell of ['baseline', 'candidate']) expect(dataOf(after.job(`recovery_worker_restart:${cell}:1`), 'FaultInjected'), cell).to.have.length(1);
      expect(effectCounts(after.job(JOB))).to.deep.equal({
        'apply_migration:M1': 1,
        'apply_migration:M2': 1,
        'set_record:ticket.OPS-4412.status=done': 1,
        submit: 1,
      });
      const rows = after.outputs.rows as unknown as CeRow[];
      expect(rows.map((r) => [r.cell, r.success])).to.deep.equal([
        ['baseline', false],
        ['candidate', true],
      ]);
      expect((await replay({ log: first.log, runId: first.runId, suite })).ok).to.equal(true);
    } finally {
      await first.cleanup();
      await model.close();
    }
  });
});
