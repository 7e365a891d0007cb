// The AMM program's honest paths, each checked to the base unit against the pure arithmetic of
// src/venue/math.ts: initialize, deposit, swaps both ways, withdraw, wrapped SOL, the pool's layout and
// the return data; plus the arithmetic at the u64 limits, where the program's 128-bit helpers must agree
// with bigint exactly.

import { NATIVE_MINT } from '@solana/spl-token';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePool,
  initializePoolInstruction,
  liquidityInstruction,
  poolAccounts,
  swapExactIn,
  swapInstruction,
  U64_MAX,
} from '../../src/venue/index.ts';
import { AmmChain, makeVenue } from './amm-harness.ts';
import { expectOk } from './harness.ts';

describe('amm program, honest paths', () => {
  it('initializes a pool at the canonical PDA with two vaults it owns, then takes the admin deposit', () => {
    const v = makeVenue({ liquidity: 5_000n });
    const p = v.pools.XY;
    const account = v.chain.account(p.pool);
    expect(account?.owner.equals(v.programId)).toBe(true);
    const pool = decodePool(account?.data ?? new Uint8Array());
    expect(pool.admin.equals(v.admin.publicKey)).toBe(true);
    expect(pool.mintA.equals(p.mintA) && pool.mintB.equals(p.mintB)).toBe(true);
    expect(pool.vaultA.equals(p.vaultA) && pool.vaultB.equals(p.vaultB)).toBe(true);
    expect(pool.feeBps).toBe(30);
    expect(Buffer.compare(p.mintA.toBuffer(), p.mintB.toBuffer())).toBeLessThan(0);
    expect(v.chain.tokenBalance(p.vaultA)).toBe(5_000n);
    expect(v.chain.tokenBalance(p.vaultB)).toBe(5_000n);
  });

  it('names the same pool whichever order the mints are given in', () => {
    const programId = new AmmChain().ammProgramId;
    const v = makeVenue();
    const one = poolAccounts(programId, v.admin.publicKey, v.mints.X, v.mints.Y);
    const two = poolAccounts(programId, v.admin.publicKey, v.mints.Y, v.mints.X);
    expect(one.pool.equals(two.pool)).toBe(true);
  });

  it('swaps both ways exactly as the arithmetic says, floors in the pool’s favour, and returns amount_out', () => {
    const v = makeVenue({ liquidity: 1_000_000n, feeBps: 30 });
    const p = v.pools.XY;
    for (const [from, amountIn] of [
      ['A', 12_345n],
      ['B', 777n],
      ['A', 1n],
      ['B', 250_000n],
    ] as const) {
      const reserveIn = v.chain.tokenBalance(from === 'A' ? p.vaultA : p.vaultB);
      const reserveOut = v.chain.tokenBalance(from === 'A' ? p.vaultB : p.vaultA);
      const expected = swapExactIn({ reserveIn, reserveOut }, amountIn, 30);
      const ix = v.swap(p, from, amountIn, 0n);
      const outcome = v.chain.send([ix], [v.trader]);
      if (!expected.ok) {
        expect(outcome.errorName).toBe(expected.error);
        continue;
      }
      expectOk(outcome, `swap ${from} ${amountIn}`);
      expect(v.chain.tokenBalance(from === 'A' ? p.vaultA : p.vaultB)).toBe(expected.reserveIn);
      expect(v.chain.tokenBalance(from === 'A' ? p.vaultB : p.vaultA)).toBe(expected.reserveOut);
      expect(outcome.logs).toContain('Program log: amm: swapped');
      const returned = outcome.logs.find((l) => l.startsWith('Program return: '));
      expect(returned).toBeDefined();
      const bytes = Buffer.from(returned?.split(' ').at(-1) ?? '', 'base64');
      expect(bytes.readBigUInt64LE(0)).toBe(expected.amountOut);
    }
  });

  it('lets the admin withdraw either side, and nothing more than the vault holds', () => {
    const v = makeVenue({ liquidity: 10_000n });
    const p = v.pools.XY;
    expectOk(v.chain.send([v.liquidity('withdraw', p, 4_000n, 0n)], [v.admin]), 'withdraw');
    expect(v.chain.tokenBalance(p.vaultA)).toBe(6_000n);
    expect(v.chain.tokenBalance(p.vaultB)).toBe(10_000n);
    const tooMuch = v.chain.send([v.liquidity('withdraw', p, 0n, 10_001n)], [v.admin]);
    expect(tooMuch.errorName).toBe('InsufficientLiquidity');
    expectOk(v.chain.send([v.liquidity('withdraw', p, 6_000n, 10_000n)], [v.admin]), 'withdraw all');
    // An empty pool has no price: a swap is refused rather than paying out nothing or everything.
    const swap = v.chain.send([v.swap(p, 'A', 100n, 0n)], [v.trader]);
    expect(swap.errorName).toBe('InsufficientLiquidity');
  });

  it('runs a wrapped-SOL pool: the vault is a native token account and swaps move its lamports', () => {
    const chain = new AmmChain({ nativeMints: true });
    const v = makeVenue({ chain, liquidity: 1_000_000n });
    const admin = v.admin;
    const programId = v.programId;
    const usd = v.mints.Y;
    const p = poolAccounts(programId, admin.publicKey, NATIVE_MINT, usd);
    expectOk(
      chain.send(
        [
          initializePoolInstruction({
            programId,
            admin: admin.publicKey,
            mints: [NATIVE_MINT, usd],
            feeBps: 25,
          }),
        ],
        [admin],
      ),
      'initialize SOL pool',
    );
    const adminSol = chain.createTokenAccount(admin.publicKey, NATIVE_MINT, 5_000_000_000n);
    const traderSol = chain.createTokenAccount(v.trader.publicKey, NATIVE_MINT, 1_000_000_000n);
    const solIsA = p.mintA.equals(NATIVE_MINT);
    expectOk(
      chain.send(
        [
          liquidityInstruction({
            programId,
            kind: 'deposit',
            admin: admin.publicKey,
            pool: p.pool,
            vaultA: p.vaultA,
            vaultB: p.vaultB,
            adminTokenA: solIsA ? adminSol : v.accounts.admin.Y,
            adminTokenB: solIsA ? v.accounts.admin.Y : adminSol,
            amountA: solIsA ? 4_000_000_000n : 600_000n,
            amountB: solIsA ? 600_000n : 4_000_000_000n,
          }),
        ],
        [admin],
      ),
      'deposit SOL pool',
    );
    const solVault = solIsA ? p.vaultA : p.vaultB;
    const lamportsBefore = chain.lamports(solVault);
    const expected = swapExactIn({ reserveIn: 600_000n, reserveOut: 4_000_000_000n }, 1_000n, 25);
    if (!expected.ok) throw new Error('expected a swap');
    expectOk(
      chain.send(
        [
          swapInstruction({
            programId,
            user: v.trader.publicKey,
            pool: p.pool,
            vaultIn: solIsA ? p.vaultB : p.vaultA,
            vaultOut: solVault,
            userSource: v.accounts.trader.Y,
            userDestination: traderSol,
            amountIn: 1_000n,
            minOut: expected.amountOut,
          }),
        ],
        [v.trader],
      ),
      'swap USD for SOL',
    );
    expect(chain.tokenBalance(traderSol)).toBe(1_000_000_000n + expected.amountOut);
    expect(chain.lamports(solVault)).toBe(lamportsBefore - expected.amountOut);
  });
});

describe('amm program, arithmetic at the limits', () => {
  it('agrees with the bigint arithmetic bit for bit, from one raw unit up to u64::MAX reserves', () => {
    const v = makeVenue({ liquidity: 1_000n });
    const p = v.pools.XY;
    const big = fc.oneof(
      fc.bigInt({ min: 1n, max: 1_000n }),
      fc.bigInt({ min: 1n, max: 2n ** 40n }),
      fc.bigInt({ min: 2n ** 60n, max: U64_MAX }),
    );
    const seen = { ok: 0, okAbove2to63: 0, refused: new Set<string>() };
    fc.assert(
      fc.property(
        big,
        big,
        big,
        fc.integer({ min: 0, max: 9_999 }),
        (reserveIn, reserveOut, amountIn, feeBps) => {
          // Place the state directly: a pool with this fee, vaults holding these reserves, a trader holding the input.
          const pool = v.chain.account(p.pool);
          if (!pool) throw new Error('no pool');
          const data = Buffer.from(pool.data);
          data.writeUInt16LE(feeBps, 6);
          v.chain.place(p.pool, data, v.programId, pool.lamports);
          v.chain.createTokenAccount(p.pool, p.mintA, reserveIn, p.vaultA);
          v.chain.createTokenAccount(p.pool, p.mintB, reserveOut, p.vaultB);
          v.chain.createTokenAccount(
            v.trader.publicKey,
            p.mintA,
            amountIn,
            v.accounts.trader[v.nameOf(p.mintA)],
          );
          v.chain.createTokenAccount(v.trader.publicKey, p.mintB, 0n, v.accounts.trader[v.nameOf(p.mintB)]);
          const expected = swapExactIn({ reserveIn, reserveOut }, amountIn, feeBps);
          const outcome = v.chain.send([v.swap(p, 'A', amountIn, 0n)], [v.trader]);
          if (!expected.ok) {
            expect(outcome.errorName).toBe(expected.error);
            seen.refused.add(expected.error);
            return;
          }
          expectOk(outcome, 'swap');
          seen.ok += 1;
          if (reserveOut * expected.amountOut > 0n && (reserveIn > 2n ** 63n || reserveOut > 2n ** 63n))
            seen.okAbove2to63 += 1;
          expect(v.chain.tokenBalance(p.vaultA)).toBe(expected.reserveIn);
          expect(v.chain.tokenBalance(p.vaultB)).toBe(expected.reserveOut);
          expect(v.chain.tokenBalance(v.accounts.trader[v.nameOf(p.mintB)])).toBe(expected.amountOut);
          // k never decreases.
          expect(expected.reserveIn * expected.reserveOut >= reserveIn * reserveOut).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
    // The run exercised real swaps, at the top of the range too, and the refusals at the limits.
    expect(seen.ok).toBeGreaterThan(40);
    expect(seen.okAbove2to63).toBeGreaterThan(5);
    expect([...seen.refused]).toEqual(expect.arrayContaining(['ArithmeticOverflow', 'ZeroOutput']));
  });

  it('reports the compute units of each instruction (README table)', () => {
    const v = makeVenue();
    const p = v.pools.XY;
    const swap = expectOk(v.chain.send([v.swap(p, 'A', 1_000n, 1n)], [v.trader]), 'swap');
    const deposit = expectOk(v.chain.send([v.liquidity('deposit', p, 10n, 10n)], [v.admin]), 'deposit');
    expect(swap.computeUnits).toBeLessThan(30_000n);
    expect(deposit.computeUnits).toBeLessThan(30_000n);
  });
});
