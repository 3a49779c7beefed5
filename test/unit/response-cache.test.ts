import { expect } from 'chai';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { steppingClock } from '../../src/core/clock.js';
import { upcast } from '../../src/events/index.js';
import { cachingCaller, folderStore, requestKey, type CachedResponse, type ResponseStore } from '../../src/harness/cache/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { usageProjection } from '../../src/projections/usage/index.js';
import type { AttemptResult, ModelCaller } from '../../src/providers/caller.js';
import type { ChatRequest } from '../../src/providers/chat.js';
import { requestedData, succeededData, Timeline } from '../support/build-events.js';
import { tempDir } from '../support/cli.js';

const REQUEST: ChatRequest = {
  model: 'm-1',
  messages: [{ role: 'user', content: 'What is 2 + 2?' }],
  tools: [{ name: 'answer', description: 'Save it.', parameters: { type: 'object' } }],
  params: { temperature: 0, max_tokens: 64, seed: 7 },
};
const RESPONSE: CachedResponse = { content: '4', toolCalls: [], finishReason: 'stop', usage: { prompt: 9, completion: 1, total: 10 } };
const OPTIONS = { signal: new AbortController().signal, timeoutMs: 1000, site: { jobId: 'q:a:1', callId: 'answer/attempt-1', seed: 7 } };

describe('response cache: the key', () => {
  it('is the canonical request: key order does not matter, every part that is sent does', () => {
    const k = requestKey(REQUEST, 7);
    expect(requestKey({ ...REQUEST, params: { seed: 7, max_tokens: 64, temperature: 0 } }, 7)).to.equal(k);
    expect(requestKey({ ...REQUEST, params: { ...REQUEST.params, temperature: 0.5 } }, 7)).not.to.equal(k);
    expect(requestKey({ ...REQUEST, tools: [{ ...REQUEST.tools[0]!, description: 'Save the sum.' }] }, 7), 'a tool description is sent').not.to.equal(k);
    expect(requestKey({ ...REQUEST, model: 'm-2' }, 7)).not.to.equal(k);
    expect(requestKey(REQUEST, 8), "another repetition's job seed").not.to.equal(k);
  });
});

describe('response cache: the folder store', () => {
  it('gives back what it was given; a missing entry is a quiet miss, a damaged one a miss with one warning', async () => {
    const tmp = await tempDir();
    try {
      const warnings: string[] = [];
      const store = folderStore(join(tmp.dir, 'c'), (m) => warnings.push(m));
      const key = requestKey(REQUEST, 7);
      expect(await store.get(key)).to.equal(null);
      expect(warnings).to.deep.equal([]);
      await store.put(key, RESPONSE);
      expect(await store.get(key)).to.deep.equal(RESPONSE);
      const [sub] = (await readdir(join(tmp.dir, 'c'))).filter((n) => n !== '.gitignore');
      const path = join(tmp.dir, 'c', sub!, `${key}.json`);
      expect(sub).to.equal(key.slice(0, 2));
      // Copied under another key: the entry names its own key.
      const other = requestKey(REQUEST, 8);
      const copied = join(tmp.dir, 'c', other.slice(0, 2), `${other}.json`);
      await store.put(other, RESPONSE);
      await writeFile(copied, await readFile(path));
      expect(await store.get(other)).to.equal(null);
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include(copied).and.include('another key');
      // A response edited along with a recomputed-looking but wrong hash, and a truncated file.
      const entry = JSON.parse(await readFile(path, 'utf8'));
      await writeFile(path, JSON.stringify({ ...entry, response: { ...entry.response, content: '5' } }));
      expect(await store.get(key)).to.equal(null);
      await writeFile(path, (await readFile(path, 'utf8')).slice(0, 20));
      expect(await store.get(key)).to.equal(null);
      expect(warnings.slice(1).map((w) => w.replace(/^.*\(/, '('))).to.deep.equal([
        '(its sha256 does not match); calling the model instead',
        '(not JSON); calling the model instead',
      ]);
    } finally {
      await tmp.cleanup();
    }
  });
});

/** An in-memory store and an inner caller that count what reaches them (pure logic under test). */
function parts(result: AttemptResult) {
  const entries = new Map<string, CachedResponse>();
  const store: ResponseStore = { get: async (k) => entries.get(k) ?? null, put: async (k, r) => void entries.set(k, r) };
  const inner = {
    calls: 0,
    async call() {
      inner.calls += 1;
      return result;
    },
  } satisfies ModelCaller & { calls: number };
  return { entries, store, inner, caller: cachingCaller(inner, store, steppingClock(0, 1)) };
}

describe('response cache: the caller', () => {
  it('stores a success, then answers the same request from the store, marked with its key, without calling', async () => {
    const { entries, inner, caller } = parts({ ok: true, data: { ...RESPONSE, latencyMs: 120 } });
    const first = await caller.call(REQUEST, OPTIONS);
    expect(first).to.deep.equal({ ok: true, data: { ...RESPONSE, latencyMs: 120 } });
    expect([...entries.values()]).to.deep.equal([RESPONSE]);
    const second = await caller.call(REQUEST, OPTIONS);
    expect(inner.calls).to.equal(1);
    expect(second.ok && second.data.cached).to.equal(requestKey(REQUEST, 7));
    expect(second.ok && second.data.content).to.equal('4');
  });

  it('never stores a failed attempt', async () => {
    const failure = { kind: 'server_error', status: 500, retryAfterMs: null, message: 'server error (500)', retryable: true, latencyMs: 3 } as const;
    const { entries, inner, caller } = parts({ ok: false, data: failure });
    await caller.call(REQUEST, OPTIONS);
    await caller.call(REQUEST, OPTIONS);
    expect(inner.calls).to.equal(2);
    expect(entries.size).to.equal(0);
  });
});

describe('response cache: events and usage', () => {
  it('a v1 ProviderCallSucceeded reads as a v2 one without `cached`', () => {
    const e = upcast(
      {
        id: 'r/j/1',
        runId: 'r',
        jobId: 'j',
        type: 'ProviderCallSucceeded',
        v: 1,
        at: '2025-03-01T12:00:00.000Z',
        actor: 'a',
        data: { callId: 'c', ...RESPONSE, latencyMs: 1 },
      },
      'test',
    );
    expect(e.v).to.equal(2);
    expect((e.data as { cached?: string }).cached).to.equal(undefined);
  });

  it('usage.json: a hit is outcome cached, counted under `cached` and never in the report of what was spent', async () => {
    const t = new Timeline('run-hits');
    t.add('a:x:1', 10, 'ProviderCallRequested', requestedData('w/turn-1/attempt-1', { attribution: 'child' }));
    t.add('a:x:1', 20, 'ProviderCallSucceeded', succeededData('w/turn-1/attempt-1', { usage: { prompt: 100, completion: 20, total: 120 }, cached: 'k1' }));
    t.add('a:x:1', 30, 'ProviderCallRequested', requestedData('w/turn-2/attempt-1', { attribution: 'child' }));
    t.add('a:x:1', 40, 'ProviderCallSucceeded', succeededData('w/turn-2/attempt-1', { usage: { prompt: 7, completion: 3, total: 10 } }));
    const usage = await fold(usageProjection, t.events);
    expect(usage.calls.map((c) => c.outcome)).to.deep.equal(['cached', 'success']);
    expect(usage.report.calls).to.equal(1);
    expect(usage.report.usage.fields.totalTokens.sum).to.equal(10);
    expect(usage.cached?.calls).to.equal(1);
    expect(usage.cached?.usage.fields.totalTokens.sum).to.equal(120);
    // A run without hits has no `cached` key: its usage.json is what it was.
    const none = await fold(
      usageProjection,
      t.events.filter((e) => e.data && (e.data as { callId: string }).callId.includes('turn-2')),
    );
    expect('cached' in none).to.equal(false);
  });
});
