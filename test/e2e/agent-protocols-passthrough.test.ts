// Pass-through upstream (`--endpoint-protocols`): agents on real SDKs speaking OpenAI Responses and
// Anthropic Messages, through the recording proxy, to an endpoint that speaks those protocols
// itself (`evalog mock-server`, a process of its own, which answers /v1/responses and /v1/messages
// by the proxy's own adapters and counts what reached each route). The agent's body reaches the
// endpoint byte for byte, nothing goes to chat completions, the answer comes back as received;
// replay passes and catches an edit of the agent's request, the upstream request or the answer;
// SIGKILL then resume sends no completed call again.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../src/core/canonical.js';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { checkAttemptsAccounted } from '../support/attempts.js';
import { readJsonl, runEvalogHere, runKilledAfterJobs } from '../support/cli.js';
import { type Json, readJson } from '../support/outputs.js';
import { agentCommand, editedCopy, type Example, logFacts, type ProtocolFixture, protocolFixture, SMOKE_ARGS } from './agent-protocols-shared.js';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const PATHS = { responses: '/v1/responses', messages: '/v1/messages' } as const;

/** Every event of `runId`'s log under `root`, with a reader of its blobs. */
async function logOf(root: string, runId: string): Promise<{ events: StoredEvent[]; blob(ref: string): Promise<Buffer> }> {
  const log = await FileEventLog.open({ root });
  const events: StoredEvent[] = [];
  for await (const e of log.read(runId)) events.push(e);
  const blobs = log.blobs(runId);
  const bytes = new Map<string, Buffer>();
  for (const e of events) {
    const refs =
      e.type === 'ProviderCallRequested' && e.data.body
        ? [e.data.body]
        : e.type === 'ProviderCallSucceeded' && e.data.answer
          ? [e.data.answer.blob]
          : e.type === 'AgentRequestReceived'
            ? [e.data.body]
            : [];
    for (const r of refs) bytes.set(r, Buffer.from(await blobs.get(r)));
  }
  await log.close();
  return { events, blob: async (ref) => bytes.get(ref)! };
}

describe('agent protocols: pass-through to an endpoint that speaks Responses and Messages natively (e2e)', function () {
  this.timeout(360_000);
  let fx: ProtocolFixture;
  before(async () => {
    fx = await protocolFixture('evalog-protocol-passthrough-');
  });
  after(async () => {
    await fx?.close();
  });

  const runs: { agent: Example; stream: boolean; protocol: 'responses' | 'messages' }[] = [
    { agent: 'openai-agents-sdk', stream: false, protocol: 'responses' },
    { agent: 'ai-sdk-responses', stream: true, protocol: 'responses' },
    { agent: 'anthropic-sdk', stream: true, protocol: 'messages' },
    { agent: 'ai-sdk-anthropic', stream: false, protocol: 'messages' },
  ];
  const nameOf = (agent: Example, stream: boolean) => `pass-${agent}${stream ? '-stream' : ''}`;
  const passRun = (agent: Example, stream: boolean, protocols = 'responses,messages') =>
    fx.runOnce(nameOf(agent, stream), ['smoke', ...SMOKE_ARGS, '--endpoint-protocols', protocols, '--agent', agentCommand(agent, stream)]);

  for (const { agent, stream, protocol } of runs) {
    it(`${protocol} (${agent}${stream ? ' --stream' : ''}): the agent's bodies reach /v1/${protocol} unchanged, none is translated, the run completes with usage`, async () => {
      const before = await fx.server.stats();
      const name = nameOf(agent, stream);
      const r = await passRun(agent, stream);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      const after = await fx.server.stats();
      const { events, blob } = await logOf(join(fx.dir, 'runs'), name);
      const requested = events.filter((e) => e.type === 'ProviderCallRequested');
      expect(requested.length).to.be.greaterThan(8);
      const count = (s: typeof after, p: string) => s.requestsByPath[p] ?? 0;
      expect(count(after, PATHS[protocol]) - count(before, PATHS[protocol]), `requests at ${PATHS[protocol]}`).to.equal(requested.length);
      expect(count(after, '/v1/chat/completions') - count(before, '/v1/chat/completions'), 'requests translated onto chat').to.equal(0);
      const bodies = after.bodiesByPath[PATHS[protocol]] ?? {};
      for (const e of events) {
        if (e.type !== 'ProviderCallRequested') continue;
        expect(e.data, e.data.callId).to.deep.include({ protocol, messages: [], tools: [], params: {} });
        // The upstream request as sent is the body's bytes; the server hashed the bytes it received.
        const sent = await blob(e.data.body!);
        expect(sha256(sent), 'the blob is the bytes').to.equal(e.data.body);
        expect(bodies[e.data.body!], `${e.data.callId}: the server received these exact bytes`).to.be.greaterThan(0);
        // And they are the agent's request as received (recorded canonically, once per call).
        const call = e.data.callId.replace(/\/attempt-\d+$/, '');
        const received = events.find((x) => x.jobId === e.jobId && x.type === 'AgentRequestReceived' && x.data.call === call);
        if (received?.type !== 'AgentRequestReceived') throw new Error(`${e.data.callId}: no AgentRequestReceived`);
        expect(canonicalJson(JSON.parse(sent.toString('utf8')))).to.equal((await blob(received.data.body)).toString('utf8'));
        const settled = events.find((x) => x.type === 'ProviderCallSucceeded' && x.data.callId === e.data.callId);
        if (settled?.type !== 'ProviderCallSucceeded') throw new Error(`${e.data.callId}: no success`);
        expect(settled.data.answer?.contentType, 'the answer as received').to.match(stream ? /^text\/event-stream/ : /^application\/json/);
      }
      const rows = await readJsonl(fx.out(name, 'rows.jsonl'));
      expect(rows).to.have.length(8);
      for (const row of rows) {
        expect(row, String(row.job_id)).to.deep.include({ stop_reason: 'answered', status: 'succeeded' });
        expect(row.tool_calls, 'tool calls over MCP').to.be.greaterThan(0);
        const usage = row.usage as { total: { complete: boolean; total_tokens: number } };
        expect(usage.total.complete, 'usage of every call read from the answers').to.equal(true);
        expect(usage.total.total_tokens).to.be.greaterThan(0);
      }
      const runJson = await readJson<{ model: Json }>(fx.out(name, 'run.json'));
      expect(runJson.model.protocols, 'run.json records the pass-through protocols').to.deep.equal(['responses', 'messages']);
    });
  }

  it('replay of a pass-through run passes and sends nothing; replay of an edited agent request, upstream request or answer fails (exit 1)', async () => {
    const name = nameOf('openai-agents-sdk', false);
    expect((await passRun('openai-agents-sdk', false)).code).to.equal(0);
    const before = await fx.server.stats();
    const replay = await runEvalogHere(['replay', `runs/${name}`], { cwd: fx.dir, env: fx.env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(8 jobs\)/);
    expect((await fx.server.stats()).requestsByPath, 'requests replay sent upstream').to.deep.equal(before.requestsByPath);

    /** A copy whose middle event of `type` has the JSON of its blob `field` changed by `change`. */
    const editBody = (tag: string, type: 'AgentRequestReceived' | 'ProviderCallRequested', change: (body: Json) => Json) =>
      editedCopy(fx.dir, name, tag, async (events, log) => {
        const hits = events.filter((e) => e.type === type);
        const target = hits[Math.floor(hits.length / 2)]!;
        if (target.type !== 'AgentRequestReceived' && target.type !== 'ProviderCallRequested') throw new Error('unreachable');
        const blobs = log.blobs(target.runId);
        const body = JSON.parse(Buffer.from(await blobs.get(target.data.body!)).toString('utf8')) as Json;
        const ref = await blobs.put(Buffer.from(JSON.stringify(change(body))));
        return events.map((e) => (e === target ? ({ ...target, data: { ...target.data, body: ref } } as StoredEvent) : e));
      });
    const replayOf = (copy: string) => runEvalogHere(['replay', copy], { cwd: fx.dir, env: fx.env });

    // The agent's request: a field the model reads.
    const r1 = await replayOf(await editBody('pass-received', 'AgentRequestReceived', (b) => ({ ...b, temperature: 0.123 })));
    expect(r1.code, r1.stdout + r1.stderr).to.equal(1);
    expect(r1.stdout).to.match(/differs from the record at received\.body/);

    // The upstream request as sent: other bytes of the same request (spacing, a fresh
    // prompt_cache_key, a record-only field) are the same request; a field the model reads is not.
    const same = await replayOf(await editBody('pass-upstream-same', 'ProviderCallRequested', (b) => ({ prompt_cache_key: 'fresh', ...b })));
    expect(same.code, same.stdout + same.stderr).to.equal(0);
    const r2 = await replayOf(await editBody('pass-upstream', 'ProviderCallRequested', (b) => ({ ...b, temperature: 0.123 })));
    expect(r2.code, r2.stdout + r2.stderr).to.equal(1);
    expect(r2.stdout).to.match(/divergence at seq \d+/);
    expect(r2.stdout).to.match(/body/);

    // The answer: a function call's arguments changed in the recorded Responses body.
    const answerCopy = await editedCopy(fx.dir, name, 'pass-answer', async (events, log) => {
      const blobs = log.blobs(events[0]!.runId);
      for (const [i, e] of events.entries()) {
        if (e.type !== 'ProviderCallSucceeded' || !e.data.answer || e.data.toolCalls.length === 0) continue;
        const body = JSON.parse(Buffer.from(await blobs.get(e.data.answer.blob)).toString('utf8')) as { output: Json[] };
        for (const item of body.output) if (item.type === 'function_call') item.arguments = JSON.stringify({ edited: true });
        const blob = await blobs.put(Buffer.from(JSON.stringify(body)));
        const edited = { ...e, data: { ...e.data, answer: { ...e.data.answer, blob } } };
        return events.map((x, j) => (j === i ? edited : x));
      }
      throw new Error('no answer with a function call');
    });
    const r3 = await runEvalogHere(['replay', answerCopy], { cwd: fx.dir, env: fx.env });
    expect(r3.code, r3.stdout + r3.stderr).to.equal(1);
    expect(r3.stdout).to.match(/divergence at seq \d+/);
  });

  it("an agent's odd bytes (spacing, key order) reach the endpoint byte for byte, and its answer comes back as the endpoint sent it", async () => {
    const agent = join(fx.dir, 'raw-agent.mjs');
    // A client that writes its own JSON text: what a pass-through keeps that a JSON round trip would not.
    await writeFile(
      agent,
      `import { readFileSync, writeFileSync } from 'node:fs';
const task = JSON.parse(readFileSync(process.env.EVALOG_TASK, 'utf8'));
const text = '{ "stream":false,  "model" : ' + JSON.stringify(task.model) + ', "input":"Say hello."\\n}';
writeFileSync(process.env.EVALOG_RESULT + '.sent', text);
const res = await fetch(process.env.OPENAI_BASE_URL + '/responses', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.OPENAI_API_KEY, 'content-type': 'application/json' }, body: text });
const answer = await res.text();
writeFileSync(process.env.EVALOG_RESULT, String(res.status) + ' ' + answer);
`,
    );
    const r = await fx.runOnce('pass-raw', ['smoke', ...SMOKE_ARGS, '--case', 'fruit_basket', '--endpoint-protocols', 'responses', '--agent', `node ${agent}`]);
    expect(r.code, r.stdout + r.stderr).to.be.oneOf([0, 1]);
    const { events, blob } = await logOf(join(fx.dir, 'runs'), 'pass-raw');
    const stats = await fx.server.stats();
    const requested = events.filter((e) => e.type === 'ProviderCallRequested');
    expect(requested).to.have.length(2);
    for (const e of requested) {
      if (e.type !== 'ProviderCallRequested') continue;
      const sent = (await blob(e.data.body!)).toString('utf8');
      expect(sent, 'the bytes the agent wrote').to.match(/^\{ "stream":false, {2}"model" : "evalog-scripted", "input":"Say hello\."\n\}$/);
      expect(stats.bodiesByPath['/v1/responses']?.[sha256(sent)], 'the server got them').to.be.greaterThan(0);
    }
    for (const e of events) {
      if (e.type !== 'AgentExited') continue;
      const succeeded = events.find((x) => x.jobId === e.jobId && x.type === 'ProviderCallSucceeded');
      if (succeeded?.type !== 'ProviderCallSucceeded') throw new Error('no answer');
      expect(e.data.answer, 'the agent was given the answer as received').to.equal(`200 ${(await blob(succeeded.data.answer!.blob)).toString('utf8')}`);
    }
  });

  it('a bad --endpoint-protocols, one without an endpoint, and one with --cache are refused in one line naming the flag (exit 2)', async () => {
    const base = ['run', 'smoke', ...SMOKE_ARGS, '--case', 'fruit_basket', '--agent', agentCommand('node', false)];
    const bad = await runEvalogHere([...base, '--endpoint-protocols', 'responses,gemini', '--out', 'runs/bad-protocols'], { cwd: fx.dir, env: fx.env });
    expect(bad.code).to.equal(2);
    expect(bad.stderr.trim()).to.equal('evalog run: --endpoint-protocols takes a comma-separated list of chat, responses, messages (got "gemini")');
    const none = await runEvalogHere([...base, '--scripted', '--endpoint-protocols', 'messages', '--out', 'runs/no-endpoint'], { cwd: fx.dir, env: fx.env });
    expect(none.code).to.equal(2);
    expect(none.stderr).to.match(/^evalog run: --endpoint-protocols needs an endpoint \(--base-url\)/);
    const cache = await runEvalogHere([...base, '--endpoint-protocols', 'messages', '--cache', join(fx.dir, 'cache'), '--out', 'runs/cached'], {
      cwd: fx.dir,
      env: fx.env,
    });
    expect(cache.code).to.equal(2);
    expect(cache.stderr).to.match(/--cache keys chat completion requests only, not with --endpoint-protocols/);
  });

  const killed: { agent: Example; stream: boolean; protocol: string }[] = [
    { agent: 'openai-agents-sdk', stream: true, protocol: 'Responses' },
    { agent: 'anthropic-sdk', stream: false, protocol: 'Messages' },
  ];
  for (const { agent, stream, protocol } of killed) {
    it(`SIGKILL mid-run then resume (${protocol}, ${agent}${stream ? ' --stream' : ''}): completes, and no completed call reaches the endpoint twice`, async () => {
      const name = `pass-killed-${agent}`;
      const root = join(fx.dir, 'runs');
      const args = [
        'run',
        'smoke',
        ...SMOKE_ARGS,
        '--endpoint-protocols',
        'responses,messages',
        '--agent',
        agentCommand(agent, stream),
        '--out',
        `runs/${name}`,
      ];
      const run = await runKilledAfterJobs(args, { cwd: fx.dir, env: fx.env }, 3);
      expect(run.signal, 'the run was killed').to.equal('SIGKILL');
      const stopped = await logFacts(root, name);
      expect(stopped.completed).to.equal(false);
      const before = (await fx.server.stats()).completed;
      const resumed = await runEvalogHere(['resume', `runs/${name}`, '--model', 'evalog-scripted'], { cwd: fx.dir, env: fx.env });
      expect(resumed.code, resumed.stdout + resumed.stderr).to.equal(0);
      const final = await logFacts(root, name);
      expect(final.completed).to.equal(true);
      expect(final.diverged, 'the deterministic agent diverged from its record').to.equal(0);
      expect((await fx.server.stats()).completed - before, 'calls the resume completed upstream').to.equal(final.successes - stopped.successes);
      expect(final.successes - stopped.successes, 'the resume had calls left to make').to.be.greaterThan(0);
      // Counted at the server, per attempt name: none received or completed twice, each in usage.json.
      await checkAttemptsAccounted(fx.server, join(root, name), name);
      const replay = await runEvalogHere(['replay', `runs/${name}`], { cwd: fx.dir, env: fx.env });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    });
  }
});
