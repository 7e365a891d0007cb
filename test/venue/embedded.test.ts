// The embedded venue on the embedded chain: pools seeded once, by the venue's own admin, at the published
// price; a keeper that swaps them back to the Pyth mid through the program after each publication,
// deterministically for a seed; and the venue's lookup table.

import { rmSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePool, deviationBps, spotPrice } from '../../src/venue/index.ts';
import { INVENTORY, SOL, tempDir, USDC } from '../chain/fixtures.ts';
import { type VenueChain, venueChain } from './fixtures.ts';

const open: VenueChain[] = [];
const track = (v: VenueChain) => {
  open.push(v);
  return v;
};

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

describe('embedded venue genesis', () => {
  it('seeds a pool per pair from its own admin, at the published price, worth the configured USD a side', async () => {
    const { chain, venue, maker } = track(venueChain());
    expect(venue.pools).toHaveLength(1);
    const pool = venue.poolOf(USDC, SOL);
    if (!pool) throw new Error('no SOL/USDC pool');
    const snapshot = venue.snapshot(pool);
    if (!snapshot) throw new Error('pool not on chain');
    const state = decodePool(chain.ledger.getAccount(pool.pool)?.data ?? new Uint8Array());
    expect(state.admin.equals(venue.admin.publicKey)).toBe(true);
    expect(state.admin.equals(maker.publicKey)).toBe(false);
    expect(snapshot.feeBps).toBe(30);
    // The publisher's SOL starts at 150 USD (DEFAULT_FEED_SEEDS), USDC at 1: $1.5M a side.
    const sol = pool.mintA.equals(SOL) ? snapshot.reserveA : snapshot.reserveB;
    const usdc = pool.mintA.equals(SOL) ? snapshot.reserveB : snapshot.reserveA;
    expect(sol).toBe(10_000n * 10n ** 9n);
    expect(usdc).toBe(1_500_000n * 10n ** 6n);
    // The maker's inventory is the maker's: the venue took nothing from it.
    for (const { mint, amount } of INVENTORY)
      expect(await chain.tokenBalance(maker.publicKey, mint)).toBe(amount);
  });

  it('does not seed again on restart: the pools are found as trading left them', async () => {
    const dataDir = tempDir('venue-restart');
    const maker = Keypair.generate();
    const first = venueChain({ dataDir, maker });
    const pool = first.venue.pools[0];
    if (!pool) throw new Error('no pool');
    first.chain.pyth?.jump('SOL', 300);
    // Past slot 0, so the venue has made its lookup table too: a restart has nothing left to do.
    await first.chain.advanceClock(1);
    first.venue.lookupTables(pool);
    const before = first.venue.snapshot(pool);
    const count = first.chain.ledger.transactionCount();
    await first.chain.close();
    const second = venueChain({ dataDir, maker });
    try {
      expect(second.venue.snapshot(pool)).toEqual(before);
      expect(second.chain.ledger.transactionCount()).toBe(count);
    } finally {
      await second.chain.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded venue keeper', () => {
  it('swaps each pool back to within a few bps of the Pyth mid after a publication, through the program', async () => {
    const { chain, venue } = track(venueChain());
    const pool = venue.pools[0];
    if (!pool) throw new Error('no pool');
    chain.pyth?.jump('SOL', 250);
    const snapshot = venue.snapshot(pool);
    const target = venue.targetPrice(pool);
    if (!snapshot || !target) throw new Error('no price');
    expect(
      deviationBps(spotPrice({ reserveIn: snapshot.reserveA, reserveOut: snapshot.reserveB }), target),
    ).toBeLessThanOrEqual(1n);
    // The move was a keeper swap of the AMM program, on the chain's record like any other.
    const history = await chain.signaturesForAddress(pool.vaultA, 'finalized', 5);
    const tx = await chain.getTransaction(history[0]?.signature ?? '', 'finalized');
    expect(tx?.accountKeys[0]).toBe(venue.keeper.publicKey.toBase58());
    expect(tx?.logs).toContain('Program log: amm: swapped');
  });

  it('leaves a pool alone while it is within the trigger', async () => {
    const { chain } = track(venueChain({ venue: { keeperTriggerBps: 500 } }));
    const count = chain.ledger.transactionCount();
    chain.pyth?.jump('SOL', 100);
    expect(chain.ledger.transactionCount()).toBe(count);
  });

  it('is deterministic for a publisher seed: the same steps leave the same reserves', async () => {
    const run = () => {
      const v = track(venueChain({ pythSeed: 7 }));
      for (let i = 0; i < 25; i++) v.chain.pyth?.publishNow();
      const pool = v.venue.pools[0];
      return pool ? v.venue.snapshot(pool) : null;
    };
    const a = run();
    const b = run();
    expect(a).not.toBeNull();
    expect(a?.reserveA).toBe(b?.reserveA);
    expect(a?.reserveB).toBe(b?.reserveB);
  });
});

describe('embedded venue lookup table', () => {
  it('makes one table of its pools’ accounts, usable from the slot after it was extended', async () => {
    const { chain, venue } = track(venueChain());
    const pool = venue.pools[0];
    if (!pool) throw new Error('no pool');
    await chain.advanceClock(1);
    expect(venue.lookupTables(pool)).toEqual([]);
    await chain.advanceClock(1);
    const [table] = venue.lookupTables(pool);
    expect(table).toBeDefined();
    const account = chain.ledger.getAccount(table ?? Keypair.generate().publicKey);
    expect(account?.owner).toBe('AddressLookupTab1e1111111111111111111111111');
  });
});
