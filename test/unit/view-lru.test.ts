// The viewer's cache of runs: at most `cap` values held, the least recently used released first
// (through the callback, once each), pinned keys kept above the cap until unpinned.
import { expect } from 'chai';
import { Lru } from '../../src/view/lru.js';

describe('view: LRU of held runs', () => {
  const make = (cap: number) => {
    const released: string[] = [];
    const lru = new Lru<string, string>(cap, (k, v) => released.push(`${k}=${v}`));
    return { lru, released };
  };

  it('holds at most the cap, releasing the least recently used, in order', () => {
    const { lru, released } = make(2);
    lru.set('a', '1');
    lru.set('b', '2');
    expect(released).to.deep.equal([]);
    lru.set('c', '3');
    expect(released).to.deep.equal(['a=1']);
    expect(lru.keys()).to.deep.equal(['b', 'c']);
    expect(lru.size).to.equal(2);
    expect(lru.get('a')).to.equal(undefined);
  });

  it('a get makes a key the most recent; a peek does not', () => {
    const { lru, released } = make(2);
    lru.set('a', '1');
    lru.set('b', '2');
    expect(lru.get('a')).to.equal('1');
    expect(lru.keys()).to.deep.equal(['b', 'a']);
    expect(lru.peek('b')).to.equal('2');
    expect(lru.keys()).to.deep.equal(['b', 'a']);
    lru.set('c', '3');
    expect(released).to.deep.equal(['b=2']);
    expect(lru.keys()).to.deep.equal(['a', 'c']);
  });

  it('replacing a value releases the old one', () => {
    const { lru, released } = make(2);
    lru.set('a', '1');
    lru.set('a', '2');
    expect(released).to.deep.equal(['a=1']);
    expect(lru.keys()).to.deep.equal(['a']);
  });

  it('keeps pinned keys above the cap and trims once they are unpinned', () => {
    const { lru, released } = make(1);
    lru.set('a', '1');
    lru.pin('a');
    lru.pin('a');
    lru.set('b', '2');
    // The newest is never the one released, even with the cap taken by a pinned key.
    expect(lru.keys()).to.deep.equal(['a', 'b']);
    lru.set('c', '3');
    expect(released).to.deep.equal(['b=2']);
    expect(lru.keys()).to.deep.equal(['a', 'c']);
    expect(lru.pinned()).to.deep.equal(['a']);
    lru.unpin('a');
    expect(lru.keys()).to.deep.equal(['a', 'c']);
    lru.unpin('a');
    expect(released).to.deep.equal(['b=2', 'a=1']);
    expect(lru.keys()).to.deep.equal(['c']);
    expect(lru.pinned()).to.deep.equal([]);
  });

  it('clear releases everything held; a cap below one is refused', () => {
    const { lru, released } = make(3);
    lru.set('a', '1');
    lru.set('b', '2');
    lru.clear();
    expect(released).to.deep.equal(['a=1', 'b=2']);
    expect(lru.size).to.equal(0);
    expect(() => new Lru(0, () => {})).to.throw(RangeError, /cap/);
  });
});
