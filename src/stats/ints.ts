// Integer helpers that mirror Python int semantics (bit_length, //, seed words) for the RNG port.
import { InvalidArgumentError } from './errors.js';

/** Python's int.bit_length() for a non-negative safe integer. */
export function bitLength(n: number): number {
  if (n < 0x100000000) return 32 - Math.clz32(n);
  return 32 + bitLength(Math.floor(n / 0x100000000));
}

/** Python's int.bit_length() for a non-negative bigint. */
export function bitLengthBig(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Throws InvalidArgumentError unless value is a safe integer. */
export function requireSafeInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new InvalidArgumentError(`${what} must be a safe integer, got ${value}`);
}

/** The 32-bit little-endian words of |seed|, as CPython's random_seed builds the init_by_array key. */
export function seedKey(seed: number | bigint): number[] {
  if (typeof seed === 'number') requireSafeInteger(seed, 'seed');
  let n = BigInt(seed);
  if (n < 0n) n = -n;
  const key: number[] = [];
  do {
    key.push(Number(n & 0xffffffffn));
    n >>= 32n;
  } while (n > 0n); // seed 0 still yields one word [0], as CPython does
  return key;
}

/** Python's floor division `a // b` on bigints. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b; // bigint division truncates toward zero
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
