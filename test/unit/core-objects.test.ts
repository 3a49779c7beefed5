import { expect } from 'chai';
import { merged } from '../../src/core/index.js';

describe('merged (a spread of several objects, for objects made in bulk)', () => {
  it('has the own enumerable properties of every part in spread order, a later value winning', () => {
    const a = { id: 'j1', status: 'failed', n: 1 };
    const b = { status: 'succeeded', extra: null };
    const out = merged<Record<string, unknown>>(a, b, {}, { n: 2 });
    expect(out).to.deep.equal({ ...a, ...b, ...{ n: 2 } });
    expect(Object.keys(out)).to.deep.equal(Object.keys({ ...a, ...b, n: 2 }));
    expect(out).to.not.equal(a);
    expect(a.status, 'the parts are not changed').to.equal('failed');
  });

  it('keeps an own __proto__ key as a property, as a spread does, and leaves the prototype alone', () => {
    const part = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as object;
    const out = merged<Record<string, unknown>>(part);
    expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
    expect(Object.keys(out)).to.deep.equal(['__proto__', 'x']);
    expect(JSON.stringify(out)).to.equal('{"__proto__":{"polluted":true},"x":1}');
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});
