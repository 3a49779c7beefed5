import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { composeAnswer, completionBody, promptTokens } from '../../src/providers/scripted/completion.js';
import { FaultPlan, type FaultProbe } from '../../src/providers/scripted/faults.js';
import { answerKey, canonicalJson, requestHash, rngFromKey, unitDraw } from '../../src/providers/scripted/hash.js';
import { resolveOptions } from '../../src/providers/scripted/options.js';
import { playRequest } from '../../src/providers/scripted/players.js';
import { completionChunks, splitPieces } from '../../src/providers/scripted/stream.js';
import {
  InvalidChatRequestError,
  parseChatRequest,
  PlayerFailedError,
  ScriptedConfigError,
  type ChatRequest,
  type Player,
} from '../../src/providers/scripted/index.js';

const request = (extra: Partial<ChatRequest> = {}): ChatRequest =>
  parseChatRequest({ model: 'scripted', messages: [{ role: 'user', content: 'hello' }], ...extra });
const compose = (req: ChatRequest, content: string | null, toolCalls: { name: string; arguments: string }[] = [], more = {}) =>
  composeAnswer(req, { content, toolCalls }, { key: 'ab'.repeat(32), seed: 0, maxTokensTruncation: true, truncate: false, omitUsage: false, ...more });

describe('scripted model: hashing and randomness', () => {
  it('hashes the canonical JSON (keys sorted at every depth), as documented', () => {
    const a = { model: 'm', messages: [{ role: 'user', content: 'x' }], z: { b: 1, a: [{ d: 1, c: 2 }] } };
    const b = { z: { a: [{ c: 2, d: 1 }], b: 1 }, messages: [{ content: 'x', role: 'user' }], model: 'm' };
    expect(canonicalJson(a)).to.equal('{"messages":[{"content":"x","role":"user"}],"model":"m","z":{"a":[{"c":2,"d":1}],"b":1}}');
    expect(requestHash(a)).to.equal(requestHash(b));
    expect(requestHash(a)).to.equal(createHash('sha256').update(canonicalJson(b)).digest('hex'));
  });

  it('keys answers by what is asked and the seed, not by stream options', () => {
    const body = { model: 'm', messages: [] };
    expect(answerKey({ ...body, stream: true, stream_options: { include_usage: true } }, 0)).to.equal(answerKey(body, 0));
    expect(answerKey(body, 1)).to.not.equal(answerKey(body, 0));
  });

  it('gives reproducible uniform draws and PRNG streams', () => {
    expect(unitDraw('k', 'p')).to.equal(unitDraw('k', 'p'));
    expect(unitDraw('k', 'p')).to.not.equal(unitDraw('k', 'q'));
    const [r1, r2] = [rngFromKey('seed'), rngFromKey('seed')];
    const xs = Array.from({ length: 1000 }, () => r1());
    expect(xs).to.deep.equal(Array.from({ length: 1000 }, () => r2()));
    expect(Math.min(...xs)).to.be.at.least(0);
    expect(Math.max(...xs)).to.be.below(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).to.be.within(0.45, 0.55);
  });
});

describe('scripted model: composing answers', () => {
  it('counts usage from characters and picks the finish reason', () => {
    const req = request();
    expect(promptTokens(req)).to.equal(Math.ceil(canonicalJson(req.messages).length / 4));
    const plain = compose(req, 'twelve chars');
    expect(plain.finishReason).to.equal('stop');
    expect(plain.usage).to.deep.equal({ prompt_tokens: promptTokens(req), completion_tokens: 3, total_tokens: promptTokens(req) + 3 });
    const tools = compose(req, null, [{ name: 'add', arguments: '{"a":1}' }]);
    expect(tools.finishReason).to.equal('tool_calls');
    expect(tools.toolCalls[0]?.id).to.equal(`call_${'ab'.repeat(8)}_0`);
  });

  it('cuts the output to max_tokens and reports length', () => {
    const ans = compose(request({ max_tokens: 2 }), 'a'.repeat(40));
    expect(ans.content).to.equal('a'.repeat(8));
    expect(ans.finishReason).to.equal('length');
    expect(ans.usage?.completion_tokens).to.equal(2);
    const off = compose(request({ max_completion_tokens: 2 }), 'a'.repeat(40), [], { maxTokensTruncation: false });
    expect(off.content).to.have.length(40);
  });

  it('cuts content first, then tool call arguments, for the truncated fault', () => {
    const ans = compose(request(), 'abcd', [{ name: 'f', arguments: '{"x":"0123456789"}' }], { truncate: true });
    expect(ans.finishReason).to.equal('length');
    expect(ans.content).to.equal('abcd');
    expect(ans.toolCalls[0]?.arguments).to.equal('{"x":"0'); // (4 + 1 + 18) / 2 = 12 chars in all
  });

  it('omits usage and renders empty choices on request', () => {
    const ans = compose(request(), 'hi', [], { omitUsage: true });
    const body = completionBody(ans, true);
    expect(body).to.not.have.property('usage');
    expect(body.choices).to.deep.equal([]);
  });

  it('streams content in pieces and ends with a usage chunk', () => {
    expect(splitPieces('abcdefg', 3)).to.deep.equal(['abc', 'def', 'g']);
    expect(splitPieces('', 3)).to.deep.equal([]);
    const chunks = completionChunks(compose(request(), 'hello world', [{ name: 'f', arguments: '{}' }]), true);
    const last = chunks[chunks.length - 1] as { choices: unknown[]; usage: unknown };
    expect(last.choices).to.deep.equal([]);
    expect(last.usage).to.have.property('total_tokens');
    expect(chunks.every((c) => 'usage' in c)).to.equal(true);
  });
});

describe('scripted model: players', () => {
  it('asks players in order and falls back', () => {
    const never: Player = () => null;
    const ctx = { rng: () => 0.5, seed: 3 };
    expect(playRequest(request(), [never, () => ({ content: 'mine' })], ctx).content).to.equal('mine');
    expect(playRequest(request(), [never], ctx).content).to.match(/^Scripted reply \(seed 3\)/);
    const forced = playRequest(request({ tools: [{ type: 'function', function: { name: 'go' } }], tool_choice: 'required' }), [], ctx);
    expect(forced.toolCalls).to.deep.equal([{ name: 'go', arguments: '{}' }]);
  });

  it('turns a throwing or ill-typed player into PlayerFailedError', () => {
    const ctx = { rng: () => 0, seed: 0 };
    expect(() =>
      playRequest(
        request(),
        [
          () => {
            throw new Error('boom');
          },
        ],
        ctx,
      ),
    ).to.throw(PlayerFailedError, /boom/);
    expect(() => playRequest(request(), [() => ({ toolCalls: [{ name: 'f', arguments: {} as unknown as string }] })], ctx)).to.throw(PlayerFailedError);
  });
});

describe('scripted model: validation', () => {
  it('names the bad request field', () => {
    expect(() => parseChatRequest({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }))
      .to.throw(InvalidChatRequestError)
      .with.property('param', 'messages.0.role');
    expect(() => parseChatRequest({ model: 'm', messages: [{ role: 'user' }], max_tokens: 0 })).to.throw(InvalidChatRequestError, /max_tokens/);
    expect(() => parseChatRequest({ model: 'm', messages: [{ role: 'user' }], top_p: 0.5, user: 'u' })).to.not.throw();
  });

  it('rejects bad options and fault rules', () => {
    expect(() => resolveOptions({ latencyMs: { minMs: 5, maxMs: 1 } })).to.throw(ScriptedConfigError, /latencyMs/);
    expect(() => resolveOptions({ omitUsage: 2 })).to.throw(ScriptedConfigError, /omitUsage/);
    expect(() => new FaultPlan([{ kind: 'rate_limit', rate: 1.5 }])).to.throw(ScriptedConfigError, /rate/);
    expect(() => new FaultPlan([{ kind: 'reset', status: 500 }])).to.throw(ScriptedConfigError, /status/);
    expect(() => new FaultPlan([{ kind: 'nope' as 'reset' }])).to.throw(ScriptedConfigError, /kind/);
    expect(() => new FaultPlan([{ kind: 'reset', match: '/(/' }])).to.throw(ScriptedConfigError, /pattern/);
  });
});

describe('scripted model: fault plan', () => {
  const probe = (text: string, hash = 'h', occurrence = 0): FaultProbe => ({
    lastMessageText: text,
    canonicalBody: `{"x":"${text}"}`,
    hash,
    seed: 0,
    occurrence,
  });

  it('honours times, everyNth and match', () => {
    const times = new FaultPlan([{ kind: 'reset', times: 2 }]);
    expect([1, 2, 3].map(() => times.pick(probe('a'))?.kind ?? null)).to.deep.equal(['reset', 'reset', null]);
    const nth = new FaultPlan([{ kind: 'timeout', everyNth: 3 }]);
    expect([1, 2, 3, 4, 5, 6].map(() => nth.pick(probe('a')) !== null)).to.deep.equal([false, false, true, false, false, true]);
    const match = new FaultPlan([
      { kind: 'malformed', match: 'boom' },
      { kind: 'no_usage', match: /^calm$/g },
    ]);
    expect(match.pick(probe('a boom'))?.kind).to.equal('malformed');
    expect(match.pick(probe('calm'))?.kind).to.equal('no_usage');
    expect(match.pick(probe('calm'))?.kind).to.equal('no_usage'); // a /g pattern must not keep state
    expect(match.pick(probe('other'))).to.equal(null);
    expect(new FaultPlan([{ kind: 'reset', match: '/^B/i' }]).pick(probe('boom'))?.kind).to.equal('reset');
  });

  it('draws rates per (request, occurrence), close to the rate overall', () => {
    const plan = () => new FaultPlan([{ kind: 'server_error', rate: 0.3 }]);
    const [p1, p2] = [plan(), plan()];
    const hits = Array.from({ length: 2000 }, (_, i) => p1.pick(probe('x', `h${i}`)) !== null);
    expect(hits).to.deep.equal(Array.from({ length: 2000 }, (_, i) => p2.pick(probe('x', `h${i}`)) !== null));
    expect(hits.filter(Boolean).length / hits.length).to.be.within(0.25, 0.35);
    // A retry of the same body draws again, so some retries get through.
    const draws = Array.from({ length: 200 }, (_, i) => [0, 1].map((occ) => p1.pick(probe('x', `r${i}`, occ)) !== null));
    const recovered = draws.filter(([first, retry]) => first && !retry).length;
    expect(recovered).to.be.within(30, 55); // about 200 * 0.3 * 0.7 = 42
  });
});
