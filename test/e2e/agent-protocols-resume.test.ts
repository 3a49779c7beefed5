// SIGKILL of evalog mid-run, then `evalog resume`, for agents that speak OpenAI Responses and
// Anthropic Messages: the resumed agents are served their recorded answers while their requests
// match the record, so the scripted-model server (a process of its own, counting what it completes
// per call) sees no completed call again, and the rows equal an uninterrupted run's.
import { expect } from 'chai';
import { join } from 'node:path';
import { checkAttemptsAccounted } from '../support/attempts.js';
import { readJsonl, runEvalogHere, runKilledAfterJobs, withoutWallClock } from '../support/cli.js';
import type { Json } from '../support/outputs.js';
import { agentCommand, type Example, logFacts, type ProtocolFixture, protocolFixture, SMOKE_ARGS, smokeName } from './agent-protocols-shared.js';

describe('agent protocols: SIGKILL mid-run, then evalog resume (Responses and Messages agents; e2e)', function () {
  this.timeout(360_000);
  let fx: ProtocolFixture;
  before(async () => {
    fx = await protocolFixture('evalog-protocol-resume-');
  });
  after(async () => {
    await fx?.close();
  });

  const cases: { agent: Example; stream: boolean; protocol: string }[] = [
    { agent: 'openai-agents-sdk', stream: false, protocol: 'Responses' },
    { agent: 'anthropic-sdk', stream: true, protocol: 'Messages' },
  ];
  for (const { agent, stream, protocol } of cases) {
    it(`${protocol} (${agent}${stream ? ' --stream' : ''}): resume completes, sends no completed call again, and its rows equal an uninterrupted run's`, async () => {
      const name = `killed-${agent}`;
      const root = join(fx.dir, 'runs');
      // A real child: only a process of its own can be SIGKILLed mid-run.
      const killed = await runKilledAfterJobs(
        ['run', 'smoke', ...SMOKE_ARGS, '--agent', agentCommand(agent, stream), '--out', `runs/${name}`],
        { cwd: fx.dir, env: fx.env },
        3,
      );
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
      const stopped = await logFacts(root, name);
      expect(stopped.completed, 'the run had completed before the kill').to.equal(false);
      const ended = [...stopped.jobs.values()].filter((j) => j.exits > 0).length;
      expect(ended, 'jobs ended before the kill').to.be.within(3, 7);

      const before = (await fx.server.stats()).completed;
      const resumed = await runEvalogHere(['resume', `runs/${name}`, '--model', 'evalog-scripted'], { cwd: fx.dir, env: fx.env });
      expect(resumed.code, resumed.stdout + resumed.stderr).to.equal(0);
      const after = (await fx.server.stats()).completed;
      const final = await logFacts(root, name);
      expect(final.completed).to.equal(true);
      // Every call the resume completed upstream is a new success in the log: no logged one was sent again.
      expect(after - before, 'calls the resume completed upstream').to.equal(final.successes - stopped.successes);
      expect(final.diverged, 'the deterministic agent diverged from its record').to.equal(0);
      expect(final.successes - stopped.successes, 'the resume had calls left to make').to.be.greaterThan(0);

      const cut = await checkAttemptsAccounted(fx.server, join(root, name), name);
      const cutJobs = new Set(cut.map((c) => c.job_id));
      // The uninterrupted run of the same 8 jobs (the fixture's smokeRun has fewer cases).
      const refName = `whole-${smokeName(agent, stream)}`;
      const reference = await fx.runOnce(refName, ['smoke', ...SMOKE_ARGS, '--agent', agentCommand(agent, stream)]);
      expect(reference.code, reference.stderr).to.equal(0);
      const rows = (await readJsonl(fx.out(name, 'rows.jsonl'))).map(withoutWallClock);
      const refRows = (await readJsonl(fx.out(refName, 'rows.jsonl'))).map(withoutWallClock);
      const outcome = (r: Json) => ({ job: r.job_id, passed: r.passed, checks: r.checks, stop: r.stop_reason, tools: r.tool_calls, turns: r.turns });
      expect(rows.map(outcome)).to.deep.equal(refRows.map(outcome));
      // A job with an attempt cut off by the kill has one more (unknown) call; every other job matches whole.
      const whole = (rs: Json[]) => rs.filter((r) => !cutJobs.has(r.job_id as string));
      expect(whole(rows)).to.deep.equal(whole(refRows));
      // Across the kill and the resume, the server completed for each job exactly the calls an
      // uninterrupted run completes (a call sent again under a new id would add one), besides
      // attempts cut off by the kill: one the server answered before evalog could log it is retried.
      const cutKeys = new Set(cut.map((c) => `${name}/${c.job_id}/${c.call_id}`));
      const completed = Object.keys((await fx.server.stats()).completedByCallKey).filter((k) => k.startsWith(`${name}/`) && !cutKeys.has(k));
      const perJob = (id: string) => completed.filter((k) => k.startsWith(`${name}/${id}/`)).length;
      expect(refRows.map((r) => [r.job_id, perJob(r.job_id as string)])).to.deep.equal(refRows.map((r) => [r.job_id, r.calls]));
    });
  }
});
