// The public entries as a library user sees them: `evalog` runs, replays and rebuilds a user's suite
// object, and `evalog/testing` runs it on the scripted model into the in-memory log.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import * as evalog from '../../src/api/index.js';
import {
  baseConfigShape,
  defineTool,
  openFileLog,
  parseToolArguments,
  rebuild,
  replay,
  resume,
  run,
  toolError,
  toolResult,
  defineSuite,
  type Player,
} from '../../src/api/index.js';
import { MemoryEventLog, runScripted, startScriptedFor } from '../../src/api/testing/index.js';

type Sum = { a: number; b: number };
const ANSWER = defineTool({ name: 'answer', description: 'Save the sum.', properties: { value: { type: 'string' } } });

const player: Player = (request) => {
  const system = String(request.messages[0]?.content ?? '');
  if (system !== '[sum:worker]') return null;
  if (request.messages.at(-1)?.role === 'tool') return { content: 'DONE' };
  const [, a, b] = /(\d+) \+ (\d+)/.exec(String(request.messages[1]?.content))!;
  return { content: null, toolCalls: [{ name: 'answer', arguments: JSON.stringify({ value: String(Number(a) + Number(b)) }) }] };
};

const suite = defineSuite({
  name: 'sum',
  description: 'A worker sums two numbers',
  shape: 'agent',
  configSchema: z.object({ ...baseConfigShape }).strict(),
  defaults: {
    repetitions: 1,
    concurrency: 2,
    seed: 1,
    orderSeed: 1,
    cases: null,
    model: { temperature: 0, maxTokens: 128 },
    worker: { turnCap: 4, timeLimitMs: 60_000 },
    provider: { timeoutMs: 10_000, maxAttempts: 2, backoffMs: 10, maxBackoffMs: 100, maxRetryAfterMs: 60_000 },
  },
  prepare: async () => ({
    cases: [
      { id: 'one', data: { a: 1, b: 2 } as Sum },
      { id: 'two', data: { a: 20, b: 22 } as Sum },
    ],
  }),
  arms: () => ['a', 'b'],
  agent: {
    parentRequest: (c) => ({
      messages: [
        { role: 'system', content: '[sum:parent]' },
        { role: 'user', content: `${c.data.a} + ${c.data.b}` },
      ],
      tools: [],
    }),
    // The scripted fallback answers the parent in prose; this suite delegates whatever it says.
    acceptDelegation: () => ({ ok: true, mode: 'all', brief: '' }),
    workerRequest: (c) => ({
      messages: [
        { role: 'system', content: '[sum:worker]' },
        { role: 'user', content: `${c.data.a} + ${c.data.b}` },
      ],
      tools: [ANSWER],
    }),
    runTool: (name, raw) => {
      const value = parseToolArguments(raw)?.value;
      return name === 'answer' && typeof value === 'string' ? toolResult('saved', value) : toolError('bad call');
    },
  },
  grade: (c, work) => ({
    checks: [{ checkId: 'sum', visibility: 'hidden', passed: work.final === String(c.data.a + c.data.b), detail: String(work.final) }],
    firstRevisionPassed: null,
  }),
});

describe('public API', function () {
  this.timeout(60_000);

  it('evalog names the documented exports', () => {
    for (const name of [
      'exact',
      'contains',
      'regex',
      'jsonField',
      'overlap',
      'modelGraded',
      'defineTool',
      'run',
      'resume',
      'replay',
      'rebuild',
      'openFileLog',
      'connectJetStreamLog',
      'EVENT_TYPES',
    ]) {
      expect(evalog, name).to.have.property(name);
    }
  });

  it('evalog/testing runs a user suite on the scripted model into the in-memory log; replay and rebuild agree', async () => {
    const r = await runScripted({ suite: suite, player, config: { repetitions: 2 } });
    expect(r.status).to.equal('completed');
    expect(r.log).to.be.instanceOf(MemoryEventLog);
    const rows = r.outputs!.rows;
    expect(rows).to.have.length(8);
    expect(
      rows.every((row) => row.passed === true),
      JSON.stringify(rows),
    ).to.equal(true);
    expect(r.outputs!.run.model.scripted).to.equal(true);
    expect(await replay({ log: r.log, runId: r.runId, suite: suite })).to.include({ ok: true, jobs: 8, completed: true });
    expect((await rebuild({ log: r.log, runId: r.runId, suite: suite })).rows).to.deep.equal(rows);
  });

  it('evalog runs into the file log, and resume of a completed run only derives its outputs', async () => {
    const root = await mkdtemp(join(tmpdir(), 'evalog-api-'));
    try {
      const log = await openFileLog({ root });
      const first = await run({ suite: suite, player, log, runId: 'api-run' });
      expect(first.status).to.equal('completed');
      await log.close();
      const again = await openFileLog({ root });
      const resumed = await resume({ suite: suite, player, log: again, runId: 'api-run' });
      expect(resumed.outputs!.rows).to.deep.equal(first.outputs!.rows);
      await again.close();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('startScriptedFor serves the user player over OpenAI-compatible HTTP', async () => {
    const model = await startScriptedFor(player);
    try {
      const res = await fetch(`${model.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'evalog-scripted',
          messages: [
            { role: 'system', content: '[sum:worker]' },
            { role: 'user', content: '3 + 4' },
          ],
        }),
      });
      const body = (await res.json()) as { choices: { message: { tool_calls: { function: { arguments: string } }[] } }[] };
      expect(JSON.parse(body.choices[0]!.message.tool_calls[0]!.function.arguments)).to.deep.equal({ value: '7' });
    } finally {
      await model.close();
    }
  });
});
