// PDA derivation as the chain does it: same addresses and bumps as web3.js on random seeds, and the
// off-curve test following curve25519-dalek where dalek and web3.js (noble-curves) part ways.

import { fc, test } from '@fast-check/vitest';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { describe, expect } from 'vitest';
import { makerEscrowAddress, takerEscrowAddress, vaultAddress } from '../../src/chain/htlc/index.ts';
import {
  createProgramAddress,
  EDWARDS_D,
  findProgramAddress,
  isOnCurve,
  jacobiBinary,
  legendre,
  MAX_SEEDS,
} from '../../src/chain/pda.ts';
import { ata } from '../../src/chain/token.ts';

const P = (1n << 255n) - 19n;

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const programIdArb = bytes32.map((b) => new PublicKey(b));
const seedsArb = fc.array(fc.uint8Array({ maxLength: 32 }), { maxLength: 4 });

/** The compressed encoding of y (little-endian, may be ≥ p) with the sign bit of x. */
function encoding(y: bigint, sign: 0 | 1): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  out[31] = (out[31] as number) | (sign << 7);
  return out;
}

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % P;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/** Euler's criterion: the Legendre symbol by definition. */
const euler = (x: bigint) => {
  const r = modPow(x, (P - 1n) / 2n);
  return r === 1n ? 1 : r === 0n ? 0 : -1;
};

/** dalek's decompress, written out: y reduced mod p; a point iff u = 0 or u·v is a square. */
function dalekDecompresses(y: bigint): boolean {
  const yr = (y & ((1n << 255n) - 1n)) % P;
  const y2 = (yr * yr) % P;
  const u = (y2 - 1n + P) % P;
  const v = (EDWARDS_D * y2 + 1n) % P;
  return u === 0n || euler((u * v) % P) === 1;
}

describe('isOnCurve', () => {
  test.prop([bytes32], { numRuns: 2_000 })('agrees with web3.js on random 32-byte strings', (b) => {
    expect(isOnCurve(b)).toBe(PublicKey.isOnCurve(b));
  });

  test.prop([bytes32], { numRuns: 500 })('agrees with the written-out dalek decompression', (b) => {
    let y = 0n;
    for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(b[i] as number);
    expect(isOnCurve(b)).toBe(dalekDecompresses(y));
  });

  test('d is −121665/121666 mod p', () => {
    expect((EDWARDS_D * 121666n) % P).toBe(P - 121665n);
  });

  test('u = 0 (y = ±1) is on the curve: x = 0', () => {
    expect(isOnCurve(encoding(1n, 0))).toBe(true);
    expect(isOnCurve(encoding(P - 1n, 0))).toBe(true);
    expect(PublicKey.isOnCurve(encoding(1n, 0))).toBe(true);
    expect(PublicKey.isOnCurve(encoding(P - 1n, 0))).toBe(true);
  });

  test('x = 0 with the sign bit set is on the curve for dalek (negating 0 is 0); web3.js refuses it', () => {
    expect(isOnCurve(encoding(1n, 1))).toBe(true);
    expect(isOnCurve(encoding(P - 1n, 1))).toBe(true);
    expect(PublicKey.isOnCurve(encoding(1n, 1))).toBe(false);
    expect(PublicKey.isOnCurve(encoding(P - 1n, 1))).toBe(false);
  });

  test('a non-canonical y (p ≤ y < 2^255) is reduced mod p as dalek does; web3.js refuses all 38 encodings', () => {
    let accepted = 0;
    for (let k = 0n; k < 19n; k++) {
      for (const sign of [0, 1] as const) {
        const canonical = encoding(k, sign);
        const nonCanonical = encoding(P + k, sign);
        expect(isOnCurve(nonCanonical)).toBe(isOnCurve(canonical));
        expect(isOnCurve(nonCanonical)).toBe(dalekDecompresses(P + k));
        expect(PublicKey.isOnCurve(nonCanonical)).toBe(false);
        if (isOnCurve(nonCanonical)) accepted++;
      }
    }
    // y ≡ 0 (x² = −1, a square since p ≡ 1 mod 4) and y ≡ 1 (x = 0) are among those dalek accepts.
    expect(isOnCurve(encoding(P, 0))).toBe(true);
    expect(isOnCurve(encoding(P + 1n, 1))).toBe(true);
    expect(accepted).toBeGreaterThan(2);
    // The largest encoding: all bits set, y = 2^255 − 1 ≡ 18.
    expect(isOnCurve(new Uint8Array(32).fill(0xff))).toBe(isOnCurve(encoding(18n, 1)));
  });

  test('a canonical y with x ≠ 0 gets the same answer from dalek and web3.js, for either sign', () => {
    for (let k = 0n; k < 19n; k++) {
      if (k === 1n) continue; // x = 0 (above)
      for (const sign of [0, 1] as const) {
        expect(isOnCurve(encoding(k, sign))).toBe(PublicKey.isOnCurve(encoding(k, sign)));
      }
    }
  });
});

describe('legendre', () => {
  test.prop([fc.bigInt({ min: 1n, max: P - 1n })], { numRuns: 1_000 })(
    'equals Euler’s criterion on random field elements',
    (x) => {
      expect(legendre(x)).toBe(euler(x));
    },
  );

  test('equals Euler’s criterion at the ends of the field and on small and power-of-two values', () => {
    const values = [1n, 2n, 3n, 4n, 5n, P - 1n, P - 2n, (P - 1n) / 2n, 1n << 254n, (1n << 254n) - 1n];
    for (const x of values) expect(legendre(x)).toBe(euler(x));
  });

  test.prop([fc.bigInt({ min: 0n, max: P - 1n })], { numRuns: 200 })(
    'the binary fallback agrees too',
    (x) => {
      expect(jacobiBinary(x, P)).toBe(euler(x));
    },
  );
});

describe('findProgramAddress and createProgramAddress', () => {
  test.prop([seedsArb, programIdArb], { numRuns: 300 })(
    'find gives web3.js’s address and bump for random seeds',
    (seeds, programId) => {
      const [address, bump] = findProgramAddress(seeds, programId);
      const [expected, expectedBump] = PublicKey.findProgramAddressSync(seeds, programId);
      expect(address.toBase58()).toBe(expected.toBase58());
      expect(bump).toBe(expectedBump);
    },
  );

  test.prop([seedsArb, fc.integer({ min: 0, max: 255 }), programIdArb], { numRuns: 300 })(
    'create agrees with web3.js: the same address, or both refuse an on-curve hash',
    (seeds, bump, programId) => {
      const withBump = [...seeds, Uint8Array.of(bump)];
      let expected: string;
      try {
        expected = PublicKey.createProgramAddressSync(withBump, programId).toBase58();
      } catch {
        expect(() => createProgramAddress(withBump, programId)).toThrow(/off the curve/);
        return;
      }
      expect(createProgramAddress(withBump, programId).toBase58()).toBe(expected);
    },
  );

  test('a seed longer than 32 bytes is refused, as by web3.js and the chain', () => {
    const programId = new PublicKey(new Uint8Array(32).fill(7));
    expect(() => findProgramAddress([new Uint8Array(33)], programId)).toThrow(TypeError);
    expect(() => createProgramAddress([new Uint8Array(33)], programId)).toThrow(TypeError);
  });

  test('more than 16 seeds (the bump included) is refused, as by the chain (web3.js does not check)', () => {
    const programId = new PublicKey(new Uint8Array(32).fill(7));
    const seeds = (n: number) => Array.from({ length: n }, () => Uint8Array.of(1));
    expect(() => createProgramAddress(seeds(MAX_SEEDS + 1), programId)).toThrow(/Max seeds/);
    expect(() => findProgramAddress(seeds(MAX_SEEDS), programId)).toThrow(/Max seeds/);
    expect(() => findProgramAddress(seeds(MAX_SEEDS - 1), programId)).not.toThrow();
  });
});

describe('the service’s addresses', () => {
  const web3Pda = (seeds: Uint8Array[], programId: PublicKey) =>
    PublicKey.findProgramAddressSync(seeds, programId).map(String);
  const text = (s: string) => Buffer.from(s);

  test.prop([programIdArb, programIdArb, bytes32], { numRuns: 100 })(
    'escrow and vault PDAs are web3.js’s for the program’s seeds',
    (programId, taker, hashlock) => {
      const [takerEscrow, bump] = takerEscrowAddress(programId, taker, hashlock);
      expect([takerEscrow.toBase58(), bump].map(String)).toEqual(
        web3Pda([text('taker'), taker.toBytes(), hashlock], programId),
      );
      expect(makerEscrowAddress(programId, takerEscrow).map(String)).toEqual(
        web3Pda([text('maker'), takerEscrow.toBytes()], programId),
      );
      expect(vaultAddress(programId, takerEscrow).map(String)).toEqual(
        web3Pda([text('vault'), takerEscrow.toBytes()], programId),
      );
    },
  );

  test.prop([programIdArb, programIdArb], { numRuns: 100 })(
    'ata() is spl-token’s associated token address, off-curve owners included',
    (owner, mint) => {
      expect(ata(owner, mint).toBase58()).toBe(getAssociatedTokenAddressSync(mint, owner, true).toBase58());
    },
  );
});
