// The RNG port against vectors CPython 3.11 produced (test/fixtures/stats/make-vectors.py).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CPythonRandom, EmptyRangeError, EmptySequenceError, InvalidArgumentError, bitLength, seedKey } from '../../src/stats/index.js';

interface SeedVectors {
  seed: string;
  random: number[];
  getrandbits32: number[];
  getrandbits70: string[];
  getrandbits: Record<string, string[]>;
  randrange: Record<string, number[]>;
  randbelow_big: Record<string, string[]>;
  randrange3: { args: number[]; out: number[] }[];
  randint_1_6: number[];
  choice_abc: string[];
  shuffle16: number[];
  shuffle45: number[];
  mixed: { random1: number; bits70: string; randrange45: number; bits5: number; random2: number };
}
interface Vectors {
  python: string;
  negative_seed: { seed: string; random: number[] };
  seeds: SeedVectors[];
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/stats/mt19937.json', import.meta.url), 'utf8')) as Vectors;

function take<T>(seed: string, count: number, draw: (r: CPythonRandom) => T): T[] {
  const rng = new CPythonRandom(BigInt(seed));
  return Array.from({ length: count }, () => draw(rng));
}

describe('stats/mt19937: CPython random.Random port', () => {
  it('vectors come from CPython and cover the requested seeds', () => {
    expect(vectors.python).to.match(/^CPython 3\./);
    expect(vectors.seeds.map((s) => s.seed)).to.include.members(['0', '1', '42', '1703', '4789', '20260913', String(2 ** 32 + 5)]);
    expect(vectors.seeds.some((s) => BigInt(s.seed) > 2n ** 64n)).to.equal(true);
  });

  for (const v of vectors.seeds) {
    describe(`seed ${v.seed}`, () => {
      it('random() matches bit for bit', () => {
        expect(take(v.seed, v.random.length, (r) => r.random())).to.deep.equal(v.random);
      });
      it('getrandbits(32) and getrandbits(70)', () => {
        expect(take(v.seed, 8, (r) => Number(r.getrandbits(32)))).to.deep.equal(v.getrandbits32);
        expect(take(v.seed, 8, (r) => r.genrandUint32())).to.deep.equal(v.getrandbits32);
        expect(take(v.seed, 4, (r) => r.getrandbits(70).toString())).to.deep.equal(v.getrandbits70);
      });
      it('getrandbits(k) for k = 0, 1, 31, 33, 53, 64, 100 (and the number variant up to 53)', () => {
        for (const [k, want] of Object.entries(v.getrandbits)) {
          expect(
            take(v.seed, 3, (r) => r.getrandbits(Number(k)).toString()),
            `k=${k}`,
          ).to.deep.equal(want);
          if (Number(k) <= 53) {
            expect(
              take(v.seed, 3, (r) => String(r.getrandbitsNumber(Number(k)))),
              `number k=${k}`,
            ).to.deep.equal(want);
          }
        }
      });
      it('randrange(n) for assorted n, including non-powers of two and n > 2^32', () => {
        for (const [n, want] of Object.entries(v.randrange)) {
          expect(
            take(v.seed, 10, (r) => r.randrange(Number(n))),
            `n=${n}`,
          ).to.deep.equal(want);
          expect(
            take(v.seed, 10, (r) => Number(r.randbelowBig(BigInt(n)))),
            `big n=${n}`,
          ).to.deep.equal(want);
        }
      });
      it('randbelowBig(n) beyond 2^53', () => {
        for (const [n, want] of Object.entries(v.randbelow_big)) {
          expect(
            take(v.seed, 5, (r) => r.randbelowBig(BigInt(n)).toString()),
            `n=${n}`,
          ).to.deep.equal(want);
        }
      });
      it('randrange(start, stop, step), randint, choice', () => {
        for (const { args, out } of v.randrange3) {
          const [a, b, c] = args as [number, number, number?];
          expect(
            take(v.seed, 6, (r) => r.randrange(a, b, c)),
            args.join(','),
          ).to.deep.equal(out);
        }
        expect(take(v.seed, 10, (r) => r.randint(1, 6))).to.deep.equal(v.randint_1_6);
        expect(take(v.seed, 10, (r) => r.choice('abcdefg'))).to.deep.equal(v.choice_abc);
      });
      it('shuffle(range(16)) and shuffle(range(45)) in place', () => {
        for (const [n, want] of [
          [16, v.shuffle16],
          [45, v.shuffle45],
        ] as const) {
          const xs = Array.from({ length: n }, (_, i) => i);
          const same = new CPythonRandom(BigInt(v.seed)).shuffle(xs);
          expect(same).to.equal(xs);
          expect(xs).to.deep.equal(want);
        }
      });
      it('a mixed call sequence hands state over exactly', () => {
        const r = new CPythonRandom(BigInt(v.seed));
        expect(r.random()).to.equal(v.mixed.random1);
        expect(r.getrandbits(70).toString()).to.equal(v.mixed.bits70);
        expect(r.randrange(45)).to.equal(v.mixed.randrange45);
        expect(Number(r.getrandbits(5))).to.equal(v.mixed.bits5);
        expect(r.random()).to.equal(v.mixed.random2);
      });
    });
  }

  it('fillBelow(n) gives the draws of as many randbelow(n) calls and leaves the same state (across twists)', () => {
    for (const n of [1, 2, 3, 7, 1000, 1023, 1024, 1025, 65_537, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 5, 2 ** 32 - 1]) {
      // 1500 draws per fill pass the 624-word twist at least twice (more with rejections).
      const one = new CPythonRandom(4789);
      const many = new CPythonRandom(4789);
      for (let round = 0; round < 3; round++) {
        const out = new Uint32Array(1500);
        many.fillBelow(n, out);
        const want = Array.from({ length: out.length }, () => one.randbelow(n));
        expect(Array.from(out), `n=${n}, fill ${round}`).to.deep.equal(want);
      }
      expect(many.genrandUint32(), `n=${n}: the next word`).to.equal(one.genrandUint32());
    }
    // Vectors from CPython for the bounds they cover below 2^32 (2^32 itself takes two words a draw).
    for (const v of vectors.seeds) {
      for (const [n, want] of Object.entries(v.randrange).filter(([n]) => Number(n) < 2 ** 32)) {
        const out = new Uint32Array(10);
        new CPythonRandom(BigInt(v.seed)).fillBelow(Number(n), out);
        expect(Array.from(out), `seed ${v.seed} n=${n}`).to.deep.equal(want);
      }
    }
    expect(() => new CPythonRandom(1).fillBelow(0, new Uint32Array(1))).to.throw(InvalidArgumentError);
    expect(() => new CPythonRandom(1).fillBelow(2 ** 32, new Uint32Array(1))).to.throw(InvalidArgumentError);
  });

  it('a negative seed seeds with its absolute value, as CPython', () => {
    expect(take(vectors.negative_seed.seed, 4, (r) => r.random())).to.deep.equal(vectors.negative_seed.random);
    expect(new CPythonRandom(-42).random()).to.equal(new CPythonRandom(42).random());
  });

  it('number and bigint seeds agree; seed() restarts the stream', () => {
    const a = new CPythonRandom(4789);
    const first = [a.random(), a.random()];
    expect([new CPythonRandom(4789n).random()]).to.deep.equal([first[0]]);
    a.seed(4789);
    expect([a.random(), a.random()]).to.deep.equal(first);
  });

  it('spec A10: first randrange draws for seed 4789', () => {
    expect(take('4789', 10, (r) => r.randrange(40))).to.deep.equal([33, 0, 1, 18, 19, 3, 5, 4, 14, 38]);
    expect(take('4789', 10, (r) => r.randrange(45))).to.deep.equal([43, 33, 0, 1, 18, 19, 3, 42, 5, 4]);
    expect(take('4789', 10, (r) => r.randrange(5))).to.deep.equal([4, 0, 0, 2, 2, 0, 0, 0, 1, 4]);
  });

  it('context-snapshot: 16 jobs shuffled with seed 20260913 give the historical order', () => {
    const jobs = Array.from({ length: 16 }, (_, i) => i);
    new CPythonRandom(20260913).shuffle(jobs);
    expect(jobs).to.deep.equal([4, 8, 7, 1, 11, 2, 0, 10, 14, 6, 5, 13, 15, 12, 9, 3]);
  });

  it('seed words and bit lengths follow Python int semantics', () => {
    expect(seedKey(0)).to.deep.equal([0]);
    expect(seedKey(2 ** 32 + 5)).to.deep.equal([5, 1]);
    expect(seedKey(-7n)).to.deep.equal([7]);
    expect([0, 1, 2, 40, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1].map(bitLength)).to.deep.equal([0, 1, 2, 6, 32, 33, 53]);
  });

  it('throws named errors on empty ranges, empty sequences and bad arguments', () => {
    const r = new CPythonRandom(1);
    expect(() => r.randrange(0)).to.throw(EmptyRangeError);
    expect(() => r.randrange(5, 5)).to.throw(EmptyRangeError);
    expect(() => r.randrange(0, 10, -1)).to.throw(EmptyRangeError);
    expect(() => r.randrange(0, 10, 0)).to.throw(InvalidArgumentError, /zero step/);
    expect(() => r.randrange(10, undefined, 2)).to.throw(InvalidArgumentError);
    expect(() => r.randrange(1.5)).to.throw(InvalidArgumentError);
    expect(() => r.randbelow(0)).to.throw(EmptyRangeError);
    expect(() => r.randbelowBig(0n)).to.throw(EmptyRangeError);
    expect(() => r.choice([])).to.throw(EmptySequenceError);
    expect(() => r.getrandbits(-1)).to.throw(InvalidArgumentError);
    expect(() => r.getrandbitsNumber(54)).to.throw(InvalidArgumentError);
    expect(() => new CPythonRandom(0.5)).to.throw(InvalidArgumentError);
    expect(() => new CPythonRandom(2 ** 60)).to.throw(InvalidArgumentError);
  });

  it('getrandbits(0) and shuffles of length 0/1 consume no draws', () => {
    const a = new CPythonRandom(9);
    const b = new CPythonRandom(9);
    expect(a.getrandbits(0)).to.equal(0n);
    a.shuffle([]);
    a.shuffle(['x']);
    expect(a.random()).to.equal(b.random());
  });
});
