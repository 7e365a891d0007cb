// The one source of the proxy's randomness: a small generator (sfc32) whose state is the SHA-256 of the
// seed and a stream name. Each request draws from a stream of its own, named by its arrival number, so
// what happens to request k is a function of (seed, k, the request) and nothing else: the same seed and
// the same request sequence give the same decisions, however the answers interleave.
import { createHash } from 'node:crypto';

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** True with probability `rate` (0 never draws true, 1 always). */
  chance(rate: number): boolean;
  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number;
  /** One of the items, uniformly. */
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: string | number, stream: string): Random {
  const digest = createHash('sha256').update(`${seed}\u0000${stream}`).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const next32 = () => {
    // sfc32 (Chris Doty-Humphrey's small fast counting generator), 32-bit words.
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  // A few rounds first, so that seeds differing in one bit give unrelated first draws.
  for (let i = 0; i < 12; i++) next32();
  const next = () => next32() / 4_294_967_296;
  return {
    next,
    chance: (rate) => rate > 0 && next() < rate,
    between: (min, max) => (max <= min ? min : min + Math.floor(next() * (max - min + 1))),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick: no items');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
  };
}
