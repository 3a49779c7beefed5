// The fields of an agent's request left out when it is compared with its record (record-only.ts):
// exactly the listed ones, per protocol, and nothing the model sees.
import { expect } from 'chai';
import { comparedBody, firstDifference, RECORD_ONLY_FIELDS, splitChatParams } from '../../src/harness/external/record-only.js';

describe('record-only fields of agent requests', () => {
  it('names, per protocol, exactly these fields', () => {
    const paths = Object.fromEntries(Object.entries(RECORD_ONLY_FIELDS).map(([p, fs]) => [p, fs.map((f) => f.path.join('.'))]));
    expect(paths).to.deep.equal({
      chat: ['metadata', 'prompt_cache_key', 'safety_identifier', 'user'],
      responses: ['client_metadata', 'input.*.id', 'metadata', 'prompt_cache_key', 'safety_identifier', 'user'],
      messages: ['metadata.user_id'],
    });
  });

  it('Messages: leaves out metadata.user_id only; other metadata, the system prompt and messages stay', () => {
    const body = {
      model: 'm',
      system: [{ type: 'text', text: 'cwd /w' }],
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { user_id: 'session-1', other: 1 },
    };
    expect(comparedBody('messages', body)).to.deep.equal({
      model: 'm',
      system: [{ type: 'text', text: 'cwd /w' }],
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { other: 1 },
    });
    expect(body.metadata.user_id, 'the input is not changed').to.equal('session-1');
  });

  it('Responses: leaves out the session fields and the ids of input items, keeps an item_reference id, call ids and outputs', () => {
    const body = {
      model: 'm',
      prompt_cache_key: 'k',
      client_metadata: { session_id: 's' },
      metadata: { a: '1' },
      user: 'u',
      safety_identifier: 'x',
      store: false,
      input: [
        { type: 'message', id: 'msg_1', role: 'user', content: 'hi' },
        { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: 'Wall time: 0.1 seconds' },
        { type: 'item_reference', id: 'msg_0' },
      ],
    };
    expect(comparedBody('responses', body)).to.deep.equal({
      model: 'm',
      store: false,
      input: [
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Wall time: 0.1 seconds' },
        { type: 'item_reference', id: 'msg_0' },
      ],
    });
    // A string input has no items: nothing to leave out.
    expect(comparedBody('responses', { model: 'm', input: 'hi' })).to.deep.equal({ model: 'm', input: 'hi' });
  });

  it('chat params: splits the record-only ones off, keys sorted', () => {
    expect(splitChatParams({ temperature: 0, prompt_cache_key: 'k', user: 'u', store: true })).to.deep.equal({
      compared: { store: true, temperature: 0 },
      recordOnly: { prompt_cache_key: 'k', user: 'u' },
    });
  });

  it('firstDifference names the first differing path, in sorted key order', () => {
    expect(firstDifference({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'y' }] })).to.equal('b[1].c');
    expect(firstDifference({ b: 1, a: 2 }, { a: 3, b: 4 })).to.equal('a');
    expect(firstDifference({ a: [1] }, { a: [1, 2] })).to.equal('a[1]');
    expect(firstDifference({ a: 1 }, { a: 1, z: null })).to.equal('z');
    expect(firstDifference({ a: { b: 1 } }, { a: { b: 1 } })).to.equal(null);
    expect(firstDifference(1, 2)).to.equal('(body)');
  });
});
