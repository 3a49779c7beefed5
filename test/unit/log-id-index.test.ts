import { expect } from 'chai';
import { mulberry32 } from '../../src/core/prng.js';
import { EventIdIndex } from '../../src/log/id-index.js';

describe('EventIdIndex (event id -> seq, compact for evalog-shaped ids)', () => {
  it('answers as a Map would for evalog ids, odd ids and near-misses of the shape', () => {
    const ids = [
      'run-1/_run/1',
      'run-1/case:a:1/1',
      'run-1/case:a:1/2',
      'run-1/case:a:1/10',
      'run-1/case/with/slashes:1/3',
      'run-1/case:a:1/01', // a leading zero: another id than /1
      'run-1/case:a:1/0',
      'run-1/case:a:1/',
      'run-1/case:a:1/1x',
      'run-1/case:a:1/1000000',
      'run-1/case:a:1/1000001',
      'run-1/case:a:1/99999999999',
      'no-slash',
      '/1',
      'run-1/case:a:1/-1',
      'run-1/case:a:1/１', // a full-width digit
    ];
    const index = new EventIdIndex();
    const map = new Map<string, number>();
    ids.forEach((id, i) => {
      index.set(id, i + 1);
      map.set(id, i + 1);
    });
    for (const id of [...ids, 'run-1/case:a:1/3', 'run-1/case:b:1/1', 'run-2/_run/1', 'run-1/case:a:1/001']) {
      expect(index.get(id), id).to.equal(map.get(id));
      expect(index.has(id), id).to.equal(map.has(id));
    }
    expect(index.size).to.equal(map.size);
  });

  it('agrees with a Map over many random sets, gets and overwrites (holes, out-of-order n)', () => {
    const rand = mulberry32(20261204);
    const index = new EventIdIndex();
    const map = new Map<string, number>();
    const id = () => {
      const scope = `run/job-${Math.floor(rand() * 20)}`;
      const r = rand();
      if (r < 0.05) return `${scope}/0${Math.floor(rand() * 9)}`;
      if (r < 0.1) return `${scope}-free-form-${Math.floor(rand() * 5)}`;
      return `${scope}/${1 + Math.floor(rand() * 40)}`;
    };
    for (let i = 0; i < 5000; i += 1) {
      const k = id();
      if (rand() < 0.6) {
        index.set(k, i);
        map.set(k, i);
      } else expect(index.get(k), k).to.equal(map.get(k));
    }
    expect(index.size).to.equal(map.size);
  });
});
