// Program-derived addresses exactly as the chain derives them, about ten times cheaper than web3.js:
// sha256 from node:crypto, and an off-curve test that decides what curve25519-dalek decides.

import * as crypto from 'node:crypto';
import type { PublicKey } from '@solana/web3.js';
import { keyBytes, keyFromBytes } from './keys.ts';

/** The chain's limits (solana_pubkey::MAX_SEED_LEN, MAX_SEEDS; the bump counts as a seed). */
export const MAX_SEED_LENGTH = 32;
export const MAX_SEEDS = 16;

const PDA_MARKER = Buffer.from('ProgramDerivedAddress');

// crypto.hash (one-shot, no Hash object) arrived in Node 20.12; older 20.x fall back to createHash.
const sha256: (data: Uint8Array) => Uint8Array =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'buffer')
    : (data) => crypto.createHash('sha256').update(data).digest();

/**
 * The address for these seeds (bump included by the caller), or a throw when the hash is a curve
 * point — the chain's `create_program_address` refuses those (InvalidSeeds).
 */
export function createProgramAddress(seeds: readonly Uint8Array[], programId: PublicKey): PublicKey {
  const preimage = pdaPreimage(seeds, programId, false);
  const hash = sha256(preimage);
  if (isOnCurve(hash)) throw new Error('Invalid seeds, address must fall off the curve');
  return keyFromBytes(hash);
}

/** The first off-curve address trying bumps 255 down to 1, as `find_program_address` (and web3.js) do. */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: PublicKey): [PublicKey, number] {
  const preimage = pdaPreimage(seeds, programId, true);
  const bumpAt = preimage.length - 32 - PDA_MARKER.length - 1;
  for (let bump = 255; bump > 0; bump--) {
    preimage[bumpAt] = bump;
    const hash = sha256(preimage);
    if (!isOnCurve(hash)) return [keyFromBytes(hash), bump];
  }
  throw new Error('Unable to find a viable program address nonce');
}

/** seeds ‖ [bump slot] ‖ program id ‖ "ProgramDerivedAddress", the bytes the chain hashes. */
function pdaPreimage(seeds: readonly Uint8Array[], programId: PublicKey, withBump: boolean): Buffer {
  if (seeds.length + (withBump ? 1 : 0) > MAX_SEEDS) throw new TypeError('Max seeds exceeded');
  let length = withBump ? 1 : 0;
  for (const seed of seeds) {
    if (seed.length > MAX_SEED_LENGTH) throw new TypeError('Max seed length exceeded');
    length += seed.length;
  }
  const out = Buffer.allocUnsafe(length + 32 + PDA_MARKER.length);
  let at = 0;
  for (const seed of seeds) {
    out.set(seed, at);
    at += seed.length;
  }
  if (withBump) out[at++] = 0;
  out.set(keyBytes(programId), at);
  out.set(PDA_MARKER, at + 32);
  return out;
}

// ---- the curve test ----

const P = (1n << 255n) - 19n;
const LOW_255 = (1n << 255n) - 1n;
/** Edwards d = −121665/121666 mod p. */
export const EDWARDS_D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

/**
 * Whether the 32 bytes decompress to an ed25519 point under curve25519-dalek's
 * `CompressedEdwardsY::decompress()`, which is what the chain's `create_program_address` asks
 * (`bytes_are_curve_point`): y is the low 255 bits, x² = u/v with u = y² − 1, v = d·y² + 1, and the
 * point exists iff u = 0 or u·v is a square mod p (v is never 0: −1/d is not a square).
 *
 * Where dalek and web3.js (noble-curves `ExtendedPoint.fromHex`, zip215 = false) disagree, this
 * follows dalek, since the chain does:
 * - y ≥ p (19 non-canonical encodings per sign bit): dalek reduces y mod p and may accept; noble
 *   refuses every one of them ("off curve" to web3).
 * - x = 0 with the sign bit set (y = 1 or y = p − 1): dalek accepts (negating 0 is 0); noble refuses.
 * A sha256 output is one of these 40 encodings with probability ~2⁻²⁵⁰: in practice both agree.
 */
export function isOnCurve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) throw new TypeError('isOnCurve: 32 bytes expected');
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  let y =
    ((view.getBigUint64(24, true) << 192n) |
      (view.getBigUint64(16, true) << 128n) |
      (view.getBigUint64(8, true) << 64n) |
      view.getBigUint64(0, true)) &
    LOW_255;
  if (y >= P) y -= P;
  const y2 = reduce(y * y);
  const u = y2 === 0n ? P - 1n : y2 - 1n;
  if (u === 0n) return true;
  const v = reduce(EDWARDS_D * y2 + 1n);
  return legendre(reduce(u * v)) === 1;
}

/** x mod p for 0 ≤ x < 2^510, folding with 2^255 ≡ 19. */
function reduce(x: bigint): bigint {
  x = (x & LOW_255) + (x >> 255n) * 19n;
  x = (x & LOW_255) + (x >> 255n) * 19n;
  return x >= P ? x - P : x;
}

// The Legendre symbol (x | p) for 0 < x < p, by batches of "posdivsteps" (Bernstein–Yang divsteps
// kept non-negative, with the Jacobi sign tracked from the low bits — the method of libsecp256k1's
// jacobi32_maybe_var). A batch of K steps needs only the low K + 2 bits of f and g, so it runs in
// 32-bit integer arithmetic and yields a matrix with |u| + |v| ≤ 2^K, which is then applied to the
// full values held in K-bit limbs of float64 (products stay below 2^53). About 5x faster than the
// textbook binary algorithm on BigInt, which remains as the fallback for the (astronomically rare)
// inputs that take more than MAX_BATCHES batches.

const K = 24;
const RADIX = 2 ** K;
const LIMBS = 11; // 11 × 24 = 264 bits ≥ 255
const MAX_BATCHES = 64; // 1536 steps; the median is ~760 for 255-bit inputs
const LIMB_MASK = BigInt(RADIX - 1);
const LIMB_BITS = BigInt(K);
/** −1/x mod 256 for odd x, indexed by x >> 1. */
const NEG_INV_256 = new Uint8Array(128);
for (let x = 1; x < 256; x += 2) {
  for (let y = 1; y < 256; y += 2) if (((x * y) & 255) === 255) NEG_INV_256[x >> 1] = y;
}
const P_LIMBS = toLimbs(P);

function toLimbs(x: bigint): Float64Array {
  const limbs = new Float64Array(LIMBS);
  for (let i = 0; i < LIMBS; i++) {
    limbs[i] = Number(x & LIMB_MASK);
    x >>= LIMB_BITS;
  }
  return limbs;
}

/** (x | p) for 0 < x < p: 1 when x is a square mod p, −1 when not. */
export function legendre(x: bigint): number {
  const f = Float64Array.from(P_LIMBS);
  const g = toLimbs(x);
  const step = { eta: -1, jac: 0, u: 0, v: 0, q: 0, r: 0 };
  let len = LIMBS;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    posdivsteps(step, lowBits(f), lowBits(g));
    const { u, v, q, r } = step;
    // [f, g] ← [u v; q r]·[f, g] / 2^K, limb by limb; the low K bits of both sums are zero.
    let cf = (u * (f[0] as number) + v * (g[0] as number)) / RADIX;
    let cg = (q * (f[0] as number) + r * (g[0] as number)) / RADIX;
    for (let i = 1; i < len; i++) {
      const fi = f[i] as number;
      const gi = g[i] as number;
      cf += u * fi + v * gi;
      cg += q * fi + r * gi;
      const cfHigh = Math.floor(cf / RADIX);
      const cgHigh = Math.floor(cg / RADIX);
      f[i - 1] = cf - cfHigh * RADIX;
      g[i - 1] = cg - cgHigh * RADIX;
      cf = cfHigh;
      cg = cgHigh;
    }
    f[len - 1] = cf;
    g[len - 1] = cg;
    if (f[0] === 1 && isOneAbove(f, len)) return 1 - 2 * (step.jac & 1);
    if (len > 1 && f[len - 1] === 0 && g[len - 1] === 0) len--;
  }
  return jacobiBinary(x, P);
}

/** f mod 2^32 from its limbs (only the low K + 2 bits matter to a batch). */
const lowBits = (limbs: Float64Array) => ((limbs[0] as number) + ((limbs[1] as number) % 256) * RADIX) >>> 0;

function isOneAbove(limbs: Float64Array, len: number): boolean {
  for (let i = 1; i < len; i++) if (limbs[i] !== 0) return false;
  return true;
}

/**
 * K posdivsteps on the low bits f, g (both odd f; g ≥ 0): updates eta, the Jacobi sign bit and the
 * transition matrix. eta = −delta. Bit 0 of jac flips whenever the symbol (g | f) changes sign.
 */
function posdivsteps(
  s: { eta: number; jac: number; u: number; v: number; q: number; r: number },
  f0: number,
  g0: number,
): void {
  let u = 1;
  let v = 0;
  let q = 0;
  let r = 1;
  let f = f0;
  let g = g0;
  let { eta, jac } = s;
  let i = K;
  for (;;) {
    // Divide out the twos of g at once (a sentinel bit stops the count at i).
    const sentinel = g | (-1 << i);
    const zeros = 31 - Math.clz32(sentinel & -sentinel);
    g >>>= zeros;
    u *= 1 << zeros;
    v *= 1 << zeros;
    eta -= zeros;
    i -= zeros;
    // (2 | f) = −1 iff f ≡ 3, 5 (mod 8): flips on an odd number of halvings.
    jac ^= zeros & ((f >>> 1) ^ (f >>> 2));
    if (i === 0) break;
    if (eta < 0) {
      eta = -eta;
      // Quadratic reciprocity: swapping flips the sign iff both are 3 mod 4.
      jac ^= (f & g) >>> 1;
      let t = f;
      f = g;
      g = t;
      t = u;
      u = q;
      q = t;
      t = v;
      v = r;
      r = t;
    }
    // Add the multiple of f that clears the low min(eta + 1, i, 8) bits of g.
    const limit = Math.min(eta + 1, i);
    const mask = (0xffffffff >>> (32 - limit)) & 255;
    const w = Math.imul(g, NEG_INV_256[(f >>> 1) & 127] as number) & mask;
    g = (g + Math.imul(f, w)) >>> 0;
    q += u * w;
    r += v * w;
  }
  s.eta = eta;
  s.jac = jac;
  s.u = u;
  s.v = v;
  s.q = q;
  s.r = r;
}

/** The Jacobi symbol (a | n) for odd n > 0, by the binary algorithm: slow, simple, certain. */
export function jacobiBinary(a: bigint, n: bigint): number {
  a %= n;
  let t = 1;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}
