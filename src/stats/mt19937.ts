// A port of CPython 3's random.Random core (Modules/_randommodule.c + Lib/random.py, 3.11).
// Published results were produced with it, so every draw must match bit for bit: the seeding,
// the word order of getrandbits and the rejection loop of _randbelow are all CPython's.
import { EmptyRangeError, EmptySequenceError, InvalidArgumentError } from './errors.js';
import { bitLength, bitLengthBig, floorDiv, requireSafeInteger, seedKey } from './ints.js';

const N = 624;
const M = 397;
// The state is kept as int32 words and the constants above 2^31 as their int32 values: V8 then
// keeps every step in 32-bit integer registers; as unsigned numbers (0x80000000 and up are not
// small integers) each step went through doubles, 2.5x slower per word (bench/README.md, rebuild).
const UPPER_MASK = 0x80000000 | 0;
const LOWER_MASK = 0x7fffffff;
const MATRIX_A = 0x9908b0df | 0;
const TEMPER_B = 0x9d2c5680 | 0;
const TEMPER_C = 0xefc60000 | 0;

/** CPython-compatible random.Random (integer seeds only); pure: all state lives in the instance. */
export class CPythonRandom {
  private readonly mt = new Int32Array(N);
  private mti = N + 1;

  /** Seeds like `random.Random(seed)` for an int seed (negative seeds use abs, as CPython). */
  constructor(seed: number | bigint) {
    this.seed(seed);
  }

  /** Re-seeds like `random.seed(int)`: init_by_array over the 32-bit words of |seed|. */
  seed(seed: number | bigint): void {
    this.initByArray(seedKey(seed));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]!;
      // Math.imul keeps the product modulo 2^32 as the C uint32 arithmetic does.
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = UPPER_MASK; // MSB is 1, assuring a non-zero initial array
  }

  // C's three loops (no modulo per word): the run summaries' bootstraps draw millions of words.
  private twist(): void {
    const mt = this.mt;
    let kk = 0;
    let y: number;
    for (; kk < N - M; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
    }
    for (; kk < N - 1; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
    }
    y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
    mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
    this.mti = 0;
  }

  /** The next raw 32-bit output (C genrand_uint32), as an unsigned number. */
  genrandUint32(): number {
    if (this.mti >= N) this.twist();
    let y = this.mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & TEMPER_B;
    y ^= (y << 15) & TEMPER_C;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: a 53-bit float in [0, 1), (a·2^26 + b)/2^53 from two draws exactly as CPython. */
  random(): number {
    const a = this.genrandUint32() >>> 5;
    const b = this.genrandUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `getrandbits(k)` for any k ≥ 0 as a bigint; words are drawn low word first, the last one truncated. */
  getrandbits(k: number): bigint {
    if (!Number.isSafeInteger(k) || k < 0) throw new InvalidArgumentError(`number of bits must be a non-negative integer, got ${k}`);
    if (k <= 32) return BigInt(this.bits32(k));
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32, shift += 32n) {
      const word = left < 32 ? this.genrandUint32() >>> (32 - left) : this.genrandUint32();
      result |= BigInt(word) << shift;
    }
    return result;
  }

  /** `getrandbits(k)` for 0 ≤ k ≤ 53 as an exact number (same draws as getrandbits). */
  getrandbitsNumber(k: number): number {
    if (!Number.isInteger(k) || k < 0 || k > 53) throw new InvalidArgumentError(`getrandbitsNumber needs 0 ≤ k ≤ 53, got ${k}`);
    if (k <= 32) return this.bits32(k);
    const low = this.genrandUint32();
    const high = this.genrandUint32() >>> (64 - k);
    return high * 0x100000000 + low;
  }

  private bits32(k: number): number {
    if (k === 0) return 0; // CPython returns 0 without consuming a draw
    return this.genrandUint32() >>> (32 - k);
  }

  /** `_randbelow(n)` for a safe integer n > 0: k = bit_length(n), redraw getrandbits(k) while ≥ n. */
  randbelow(n: number): number {
    requireSafeInteger(n, 'randbelow bound');
    if (n <= 0) throw new EmptyRangeError(`empty range for randbelow(${n})`);
    const k = bitLength(n);
    if (k <= 32) {
      // getrandbits(k) for k ≤ 32 is one word's top k bits (k ≥ 1 here): the same draws, without the checks per draw.
      const shift = 32 - k;
      let r = this.genrandUint32() >>> shift;
      while (r >= n) r = this.genrandUint32() >>> shift;
      return r;
    }
    let r = this.getrandbitsNumber(k);
    while (r >= n) r = this.getrandbitsNumber(k);
    return r;
  }

  /**
   * Fills `out` with `out.length` draws of `randbelow(n)` for an integer 0 < n < 2^32 (one word a draw): exactly the
   * draws (and the state after them) of as many randbelow calls, in one loop without a call, a
   * check or a bit length per draw. A run summary's bootstrap draws pairs × 10000 of them.
   */
  fillBelow(n: number, out: Uint32Array): void {
    if (!Number.isInteger(n) || n <= 0 || n > 0xffffffff) throw new InvalidArgumentError(`fillBelow needs an integer 0 < n < 2^32, got ${n}`);
    if (n >= 0x80000000) {
      for (let d = 0; d < out.length; d++) out[d] = this.randbelow(n);
      return;
    }
    const shift = 32 - bitLength(n);
    const mt = this.mt;
    let mti = this.mti;
    for (let d = 0; d < out.length; ) {
      if (mti >= N) {
        this.twist();
        mti = 0;
      }
      let y = mt[mti++]!;
      y ^= y >>> 11;
      y ^= (y << 7) & TEMPER_B;
      y ^= (y << 15) & TEMPER_C;
      y ^= y >>> 18;
      const r = y >>> shift;
      // Without a branch (a rejected draw is overwritten by the next): up to half the draws are
      // rejected, unpredictably, and the mispredicted branch cost 40 % of the loop. r and n are
      // below 2^31 here, so r - n is negative, its bit 31 set, exactly when r < n.
      out[d] = r;
      d += (r - n) >>> 31;
    }
    this.mti = mti;
  }

  /** `_randbelow(n)` for a bigint n > 0 (same draws as randbelow for the same value). */
  randbelowBig(n: bigint): bigint {
    if (n <= 0n) throw new EmptyRangeError(`empty range for randbelow(${n})`);
    const k = bitLengthBig(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randrange(stop)` or `randrange(start, stop, step=1)` with CPython's arithmetic and errors (safe integers only). */
  randrange(start: number, stop?: number, step = 1): number {
    requireSafeInteger(start, 'randrange start');
    if (stop === undefined) {
      if (step !== 1) throw new InvalidArgumentError('Missing a non-undefined stop argument');
      if (start > 0) return this.randbelow(start);
      throw new EmptyRangeError('empty range for randrange()');
    }
    requireSafeInteger(stop, 'randrange stop');
    requireSafeInteger(step, 'randrange step');
    const width = stop - start;
    requireSafeInteger(width, 'randrange width');
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new EmptyRangeError(`empty range for randrange() (${start}, ${stop}, ${width})`);
    }
    if (step === 0) throw new InvalidArgumentError('zero step for randrange()');
    // Python's floor division, done in bigint so no float rounding can move the count.
    const w = BigInt(width);
    const s = BigInt(step);
    const num = step > 0 ? w + s - 1n : w + s + 1n;
    const n = Number(floorDiv(num, s));
    if (n <= 0) throw new EmptyRangeError('empty range for randrange()');
    return start + step * this.randbelow(n);
  }

  /** `randint(a, b)`: a random integer in [a, b], i.e. randrange(a, b + 1). */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `choice(seq)`: seq[randbelow(len(seq))]; throws EmptySequenceError on an empty sequence. */
  choice<T>(seq: ArrayLike<T>): T {
    if (seq.length === 0) throw new EmptySequenceError('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)]!;
  }

  /** `shuffle(x)` in place (CPython's backward Fisher–Yates via randbelow); returns the same array. */
  shuffle<T>(array: T[]): T[] {
    for (let i = array.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const tmp = array[i]!;
      array[i] = array[j]!;
      array[j] = tmp;
    }
    return array;
  }
}
