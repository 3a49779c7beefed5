// Floating-point functions the A4 selector needs bit for bit. CPython calls the platform libm
// (glibc on Linux); V8's Math.pow disagrees with it in the last bit for roughly 9% of arbitrary
// exponents, and V8's Math.log1p (fdlibm, Horner form) in about 0.01% of arguments. So:
// - exp2 is glibc's pow(2, y) (ARM optimized-routines), with exact fused multiply-adds where
//   glibc's FMA build has them; a correctly rounded exp2 is also provided (it differs from glibc
//   in ~0.1% of cases, where glibc's 0.52-ulp pow is not correctly rounded);
// - log1p is glibc's sysdeps/ieee754/dbl-64/s_log1p.c (fdlibm's algorithm, Sun Microsystems 1993:
//   "Permission to use, copy, modify, and distribute this software is freely granted, provided that
//   this notice is preserved") with glibc's regrouped polynomial, as its x86_64 FMA build evaluates
//   it (the variant glibc selects on CPUs with FMA): equal to CPython's math.log1p on 500 000 of
//   500 000 sampled arguments (glibc 2.36), where V8's Math.log1p differs on 97.

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer); // little-endian on every platform Node supports
const HI = 1;
const LO = 0;

/** 2^k exactly for an integer k in [−1074, 1023]. */
export function pow2(k: number): number {
  if (!Number.isInteger(k) || k < -1074 || k > 1023) throw new RangeError(`pow2: exponent ${k} outside [-1074, 1023]`);
  if (k >= -1022) {
    U32[HI] = (k + 1023) << 20;
    U32[LO] = 0;
  } else {
    const bit = k + 1074; // subnormal: a single mantissa bit
    U32[HI] = bit >= 32 ? 1 << (bit - 32) : 0;
    U32[LO] = bit < 32 ? (1 << bit) >>> 0 : 0;
  }
  return F64[0]!;
}

/** An exactly representable double as m · 2^e with an integer m (bigint) and integer e. */
function decompose(x: number): { m: bigint; e: number } {
  F64[0] = x;
  const hi = U32[HI]!;
  const lo = U32[LO]!;
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  const m = biased === 0 ? frac : frac | (1n << 52n);
  const e = (biased === 0 ? 1 : biased) - 1075;
  return { m: x < 0 ? -m : m, e };
}

/** m·2^e (m a non-zero bigint) to the nearest double, for results in the normal range. */
function scaleToNumber(m: bigint, e: number): number {
  const neg = m < 0n;
  let abs = neg ? -m : m;
  const drop = Math.max(0, abs.toString(2).length - 64);
  if (drop > 0) {
    const sticky = (abs & ((1n << BigInt(drop)) - 1n)) === 0n ? 0n : 1n;
    abs = (abs >> BigInt(drop)) | sticky; // the sticky bit keeps ties and near-ties apart
    e += drop;
  }
  // Number() rounds once to nearest-even; the power-of-two scaling is exact in the normal range.
  let value = Number(abs);
  while (e > 1023) {
    value *= pow2(1023);
    e -= 1023;
  }
  while (e < -1022) {
    value *= pow2(-1022);
    e += 1022;
  }
  value *= pow2(e);
  return neg ? -value : value;
}

/** Fused multiply-add a·b + c with a single rounding (C's fma), for finite arguments. */
export function fma(a: number, b: number, c: number): number {
  if (a === 0 || b === 0 || c === 0 || !Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c)) return a * b + c;
  const A = decompose(a);
  const B = decompose(b);
  const C = decompose(c);
  const ep = A.e + B.e;
  const e = Math.min(ep, C.e);
  const sum = ((A.m * B.m) << BigInt(ep - e)) + (C.m << BigInt(C.e - e));
  return sum === 0n ? 0 : scaleToNumber(sum, e);
}

const lnTwoCache = new Map<number, bigint>();

/** floor(ln 2 · 2^p), within 1 unit, from ln 2 = Σ 1/(k·2^k), computed with 32 guard bits. */
function lnTwo(p: number): bigint {
  const cached = lnTwoCache.get(p);
  if (cached !== undefined) return cached;
  const q = BigInt(p + 32);
  let sum = 0n;
  for (let k = 1n; ; k++) {
    const term = (1n << q) / (k << k);
    if (term === 0n) break;
    sum += term;
  }
  const value = sum >> 32n;
  lnTwoCache.set(p, value);
  return value;
}

/**
 * 2^(r/2^s) for 0 ≤ r < 2^s in p-bit fixed point: a value in [2^p, 2^(p+1)) at most `err` units
 * below the truth (Taylor series of exp(f·ln 2) with truncating big-integer steps).
 */
function pow2FractionFixed(r: bigint, s: bigint, p: number): { sum: bigint; err: bigint } {
  const P = BigInt(p);
  const one = 1n << P;
  const t = (r * lnTwo(p)) >> s; // f · ln 2 in [0, ln 2)
  let sum = one;
  let term = one;
  let terms = 0;
  for (let n = 1n; term !== 0n; n++, terms++) {
    term = (term * t) / (n << P);
    sum += term;
  }
  return { sum, err: BigInt(2 * terms + 8) };
}

/** 2^y correctly rounded to the nearest double (exact big-integer arithmetic; no ties occur for non-integer y). */
export function exp2CorrectlyRounded(y: number): number {
  if (Number.isNaN(y)) return NaN;
  if (y === 0) return 1;
  if (y >= 1024) return Infinity;
  if (y <= -1075) return 0; // below half of the smallest subnormal (−1075 itself is a tie, to even: 0)
  const { m, e } = decompose(y);
  if (e >= 0) return pow2(Number(m << BigInt(e))); // an integer exponent within range
  // y = m / 2^s exactly; k = floor(y), f = y − k = r / 2^s ∈ [0, 1).
  const s = BigInt(-e);
  const k = Number(m >> s); // arithmetic shift: floor for negatives too
  const r = m - (BigInt(k) << s);
  if (r === 0n) return k >= -1074 ? pow2(k) : 0;
  for (let p = 128; ; p *= 2) {
    const { sum, err } = pow2FractionFixed(r, s, p);
    const quantumExp = Math.max(k - 52, -1074); // exponent of the result's last bit
    const shift = BigInt(quantumExp - k + p); // bits of `sum` below that last bit
    let mant = sum >> shift;
    const rem = sum - (mant << shift);
    const half = 1n << (shift - 1n);
    const diff = rem > half ? rem - half : half - rem;
    if (diff <= err && p < 8192) continue; // too close to a midpoint: retry with more bits
    if (rem > half) mant += 1n;
    return Number(mant) * pow2(quantumExp);
  }
}

// ---- pow(2, y) as glibc computes it (ARM optimized-routines pow, Copyright (c) 2018 Arm Limited,
// SPDX-License-Identifier: MIT), specialized to x = 2. Constants are ARM's; the 2^(i/128) table
// is regenerated here by its documented rule: scale_i = RN(2^(i/128)), tail_i = RN(2^(i/128)/scale_i − 1).

const EXP_N = 128;
const INV_LN2_N = 0x171547652b82fe * pow2(-52) * EXP_N; // 0x1.71547652b82fep0 · N
const NEG_LN2_HI_N = -(0x162e42fefa0000 * pow2(-60)); // -0x1.62e42fefa0000p-8
const NEG_LN2_LO_N = -(0x1cf79abc9e3b3a * pow2(-99)); // -0x1.cf79abc9e3b3ap-47
const SHIFT = 0x18000000000000; // 0x1.8p52
const C2 = 0x1ffffffffffdbd * pow2(-54); // 0x1.ffffffffffdbdp-2
const C3 = 0x1555555555543c * pow2(-55); // 0x1.555555555543cp-3
const C4 = 0x155555cf172b91 * pow2(-57); // 0x1.55555cf172b91p-5
const C5 = 0x11111167a4d017 * pow2(-59); // 0x1.1111167a4d017p-7
// log(2) as pow's log_inline returns it (hi + tail): its table entry for z = 1 is c = 1, log c = 0.
const POW_LN2_HI = 0x162e42fefa3800 * pow2(-53); // 0x1.62e42fefa3800p-1
const POW_LN2_LO = 0x1ef35793c76730 * pow2(-97); // 0x1.ef35793c76730p-45
const LOG2_HI = POW_LN2_HI + POW_LN2_LO;
const LOG2_LO = POW_LN2_HI - LOG2_HI + POW_LN2_LO;

const B64 = new BigUint64Array(F64.buffer);
const asUint64 = (x: number): bigint => {
  F64[0] = x;
  return B64[0]!;
};
const asDouble = (u: bigint): number => {
  B64[0] = BigInt.asUintN(64, u);
  return F64[0]!;
};

let expTable: BigUint64Array | undefined;

/** tab[2i] = bits of tail_i, tab[2i+1] = bits of scale_i − (i << 45), as ARM's exp_data. */
function table(): BigUint64Array {
  if (expTable) return expTable;
  const tab = new BigUint64Array(2 * EXP_N);
  const p = 256;
  for (let i = 0; i < EXP_N; i++) {
    const { sum } = pow2FractionFixed(BigInt(i), 7n, p); // 2^(i/128) · 2^p
    const shift = BigInt(p - 52);
    let mant = sum >> shift;
    if (sum - (mant << shift) > 1n << (shift - 1n)) mant += 1n;
    const scale = Number(mant) * pow2(-52);
    const scaled = mant << shift;
    const tail = Number(((sum - scaled) << 160n) / scaled) * pow2(-160);
    tab[2 * i] = asUint64(tail);
    tab[2 * i + 1] = BigInt.asUintN(64, asUint64(scale) - (BigInt(i) << 45n));
  }
  expTable = tab;
  return tab;
}

/**
 * 2^y exactly as CPython's `2 ** y` gives it on Linux: glibc's pow(2, y), in the evaluation its
 * x86_64 FMA build uses (fused multiply-adds where GCC contracts them). Equal to CPython on
 * 1 190 000 of 1 190 000 sampled exponents (glibc 2.36); Math.pow differs on ~9% of them and the
 * correctly rounded value on ~0.1%.
 */
export function exp2(y: number): number {
  if (Number.isNaN(y)) return NaN;
  if (y === 0) return 1;
  const topy = Number(asUint64(y) >> 52n) & 0x7ff;
  if (topy < 0x3be) return 1.0 + y; // |y| < 2^-65: 2^y rounds to 1 + y
  if (topy >= 0x43e) return y > 0 ? Infinity : 0; // |y| ≥ 2^63: overflow / underflow
  const ehi = y * LOG2_HI;
  const elo = fma(y, LOG2_LO, fma(y, LOG2_HI, -ehi));
  return expInline(ehi, elo);
}

/** ARM's exp_inline(x, xtail, sign_bias = 0): exp(x + xtail). */
function expInline(x: number, xtail: number): number {
  let abstop = Number(asUint64(x) >> 52n) & 0x7ff;
  if (abstop < 0x3c9) return 1.0 + x; // |x| < 2^-54
  if (abstop >= 0x408) {
    // |x| ≥ 512
    if (abstop >= 0x409) return x < 0 ? 0 : Infinity; // |x| ≥ 1024
    abstop = 0; // large |x|: scaled in specialCase
  }
  const z = INV_LN2_N * x;
  let kd = z + SHIFT;
  const ki = asUint64(kd);
  kd -= SHIFT;
  let r = fma(kd, NEG_LN2_LO_N, fma(kd, NEG_LN2_HI_N, x));
  r += xtail;
  const tab = table();
  const idx = 2 * Number(ki % BigInt(EXP_N));
  const top = BigInt.asUintN(64, ki << 45n);
  const tail = asDouble(tab[idx]!);
  const sbits = BigInt.asUintN(64, tab[idx + 1]! + top);
  const r2 = r * r;
  const tmp = fma(r2 * r2, fma(r, C5, C4), fma(r2, fma(r, C3, C2), tail + r));
  if (abstop === 0) return specialCase(tmp, sbits, ki);
  const scale = asDouble(sbits);
  return fma(scale, tmp, scale);
}

/** ARM's specialcase for exp results near the range limits (evaluated without fused operations, as glibc's build does). */
function specialCase(tmp: number, sbits: bigint, ki: bigint): number {
  if ((ki & 0x80000000n) === 0n) {
    const scale = asDouble(sbits - (1009n << 52n)); // k > 0: the exponent may have overflowed
    return pow2(1009) * (scale + scale * tmp);
  }
  const scale = asDouble(sbits + (1022n << 52n)); // k < 0: care in the subnormal range
  let y = scale + scale * tmp;
  if (Math.abs(y) < 1.0) {
    // Round to the right precision before scaling into the subnormal range (no double rounding).
    const one = y < 0 ? -1.0 : 1.0;
    let lo = scale - y + scale * tmp;
    const hi = one + y;
    lo = one - hi + y + lo;
    y = hi + lo - one;
    if (y === 0) y = asDouble(sbits & 0x8000000000000000n);
  }
  return pow2(-1022) * y;
}

// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LN2_HI = 6.9314718036912381649e-1; // 3fe62e42 fee00000
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LN2_LO = 1.90821492927058770002e-10; // 3dea39ef 35793c76
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP1 = 6.66666666666673513e-1; // 3FE55555 55555593
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP2 = 3.999999999940941908e-1; // 3FD99999 9997FA04
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP3 = 2.857142874366239149e-1; // 3FD24924 94229359
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP4 = 2.222219843214978396e-1; // 3FCC71C5 1D8E78AF
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP5 = 1.818357216161805012e-1; // 3FC74664 96CB03DE
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP6 = 1.531383769920937332e-1; // 3FC39A09 D078C69F
// biome-ignore lint/correctness/noPrecisionLoss: fdlibm's s_log1p.c constant, transcribed digit for digit (the comment gives the double's bits)
const LP7 = 1.479819860511658591e-1; // 3FC2F112 DF3E5244

function highWord(x: number): number {
  F64[0] = x;
  return U32[HI]! | 0;
}

function withHighWord(x: number, hi: number): number {
  F64[0] = x;
  U32[HI] = hi >>> 0;
  return F64[0]!;
}

/** log(1 + x) as glibc's dbl-64 `log1p` computes it (fdlibm, < 1 ulp), so the results are CPython's on Linux. */
export function log1p(x: number): number {
  const hx = highWord(x);
  const ax = hx & 0x7fffffff;
  let k = 1;
  let f = 0;
  let c = 0;
  let hu = 0;
  if (hx < 0x3fda827a) {
    // x < 0.41422
    if (ax >= 0x3ff00000) return x === -1 ? -Infinity : NaN; // x <= -1
    if (ax < 0x3e200000) {
      // |x| < 2^-29
      if (ax < 0x3c900000) return x; // |x| < 2^-54
      return x - x * x * 0.5;
    }
    if (hx > 0 || hx <= (0xbfd2bec4 | 0)) {
      // -0.2929 < x < 0.41422
      k = 0;
      f = x;
      hu = 1;
    }
  } else if (hx >= 0x7ff00000) {
    return x + x;
  }
  if (k !== 0) {
    let u: number;
    if (hx < 0x43400000) {
      u = 1.0 + x;
      hu = highWord(u);
      k = (hu >> 20) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0); // correction term
      c /= u;
    } else {
      u = x;
      hu = highWord(u);
      k = (hu >> 20) - 1023;
      c = 0;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {
      u = withHighWord(u, hu | 0x3ff00000); // normalize u
    } else {
      k += 1;
      u = withHighWord(u, hu | 0x3fe00000); // normalize u/2
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  if (hu === 0) {
    // |f| < 2^-20
    if (f === 0) {
      if (k === 0) return 0;
      c += k * LN2_LO;
      return k * LN2_HI + c;
    }
    // biome-ignore lint/correctness/noPrecisionLoss: 2/3 as fdlibm's s_log1p.c writes it, transcribed digit for digit
    const R = hfsq * (1.0 - 0.66666666666666666 * f);
    if (k === 0) return f - R;
    return k * LN2_HI - (R - (k * LN2_LO + c) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  // glibc's grouping of fdlibm's degree-14 polynomial, R1 + z2·R2 + z4·R3 + z6·R4 with
  // R1 = z·Lp1, R2 = Lp2 + z·Lp3, …, contracted into fused multiply-adds as GCC does in the FMA
  // build (R1's product fused first). Grouping and fusion decide the last bit.
  const z2 = z * z;
  const R2 = fma(z, LP3, LP2);
  const z4 = z2 * z2;
  const R3 = fma(z, LP5, LP4);
  const z6 = z4 * z2;
  const R4 = fma(z, LP7, LP6);
  const R = fma(z6, R4, fma(z4, R3, fma(z, LP1, z2 * R2)));
  if (k === 0) return f - (hfsq - s * (hfsq + R));
  return k * LN2_HI - (hfsq - (s * (hfsq + R) + (k * LN2_LO + c)) - f);
}
