// The embedded chain's Pyth publisher: real-layout accounts at the sponsored addresses, a walk that is a
// function of its seed, and the controls a demo or a test uses (freeze, stale, jump, resume).

import { rmSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmbeddedChain } from '../../src/chain/embedded/index.ts';
import {
  DEFAULT_FEED_SEEDS,
  decodePriceUpdateV2,
  PRICE_UPDATE_V2_LEN,
  type PriceAccountWriter,
  type PriceUpdate,
  PYTH_RECEIVER_PROGRAM_ID,
  PythPublisher,
  SPONSORED_FEEDS,
  sponsoredFeedSpecs,
} from '../../src/chain/pyth/index.ts';
import { tempDir, testEmbeddedChain } from './fixtures.ts';

/** Wall time stands still for these chains: only advanceClock moves their clock, so ages are exact. */
const T0 = Date.parse('2026-11-23T12:00:00Z');

/** An embedded chain publishing the sponsored feeds, on a clock the test moves (advanceClock). */
function pythChain(options: { seed?: string; intervalMs?: number } = {}) {
  const dataDir = tempDir('pyth');
  const chain = testEmbeddedChain(dataDir, Keypair.generate(), {
    clock: () => T0,
    pyth: { feeds: sponsoredFeedSpecs(), seed: options.seed ?? 'test', intervalMs: options.intervalMs ?? 0 },
  });
  opened.push({ chain, dataDir });
  return chain;
}
const opened: { chain: EmbeddedChain; dataDir: string }[] = [];
afterEach(async () => {
  for (const { chain, dataDir } of opened.splice(0)) {
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const publisherOf = (chain: EmbeddedChain): PythPublisher => {
  if (!chain.pyth) throw new Error('no publisher');
  return chain.pyth;
};

/** Reads one sponsored feed back through the port, with the clock of the same read. */
async function read(chain: EmbeddedChain, symbol: keyof typeof SPONSORED_FEEDS) {
  const account = sponsoredFeedSpecs([symbol])[0]?.account as PublicKey;
  const { updates, clockUnix } = await chain.readPriceUpdates([account], 'confirmed');
  const update = updates[0];
  if (!update) throw new Error(`${symbol}: no price update`);
  return { update, age: BigInt(clockUnix) - update.publishTime };
}

/** A writer that only keeps what it is given: the walk without a chain. */
function memoryWriter(): PriceAccountWriter & { written: PriceUpdate[] } {
  const written: PriceUpdate[] = [];
  return {
    written,
    tick: () => ({ slot: 7, unix: 1_700_000_000n }),
    placeAccount: (_address, _owner, data) => {
      written.push(decodePriceUpdateV2(data));
    },
  };
}

const walk = (seed: string, steps: number) => {
  const writer = memoryWriter();
  const publisher = new PythPublisher(writer, { feeds: sponsoredFeedSpecs(), seed, intervalMs: 0 });
  publisher.start();
  for (let i = 0; i < steps; i++) publisher.publishNow();
  return writer.written;
};

describe('embedded Pyth publisher', () => {
  it('publishes the sponsored feeds at their real addresses, owned by the receiver, in the real layout', async () => {
    const chain = pythChain();
    const { slot, unix } = chain.ledger.tick();
    for (const [symbol, feed] of Object.entries(SPONSORED_FEEDS)) {
      const account = chain.ledger.getAccount(feed.account);
      expect(account?.owner).toBe(PYTH_RECEIVER_PROGRAM_ID.toBase58());
      expect(account?.data.length).toBe(PRICE_UPDATE_V2_LEN);
      expect(account?.lamports).toBe(chain.ledger.minimumBalanceForRentExemption(PRICE_UPDATE_V2_LEN));
      const update = decodePriceUpdateV2(account?.data ?? new Uint8Array());
      const seed = DEFAULT_FEED_SEEDS[symbol as keyof typeof DEFAULT_FEED_SEEDS];
      expect(update).toMatchObject({
        feedId: feed.feedId,
        verificationLevel: { kind: 'full' },
        price: seed.price,
        exponent: seed.exponent,
        conf: (seed.price * BigInt(seed.confBps)) / 10_000n,
        publishTime: unix,
        postedSlot: BigInt(slot),
      });
      expect(update.writeAuthority.toBase58()).toBe(feed.account);
    }
  });

  it('the walk is a function of the seed: the same seed gives the same prices, another seed others', () => {
    const a = walk('alpha', 200);
    expect(walk('alpha', 200)).toEqual(a);
    expect(walk('beta', 200).map((u) => u.price)).not.toEqual(a.map((u) => u.price));
  });

  test.prop([fc.string(), fc.integer({ min: 1, max: 300 })], { numRuns: 20 })(
    'every step stays within the volatility, conf is price × confBps, and the EMA moves toward the price',
    (seed, steps) => {
      const written = walk(seed, steps);
      const specs = sponsoredFeedSpecs();
      const n = specs.length;
      for (let i = n; i < written.length; i++) {
        const now = written[i] as PriceUpdate;
        const before = written[i - n] as PriceUpdate;
        const spec = specs[i % n];
        if (!spec) throw new Error('spec');
        expect(now.feedId).toBe(spec.feedId);
        expect(now.price).toBeGreaterThanOrEqual(1n);
        expect(now.conf).toBe((now.price * BigInt(spec.confBps)) / 10_000n);
        // One step: at most volatility of the price, plus the peg's pull (rounded), plus one unit.
        const pull = ((spec.price - before.price) * BigInt(spec.reversionBps ?? 0)) / 10_000n;
        const bound = (before.price * BigInt(spec.volatilityBps)) / 10_000n + (pull < 0n ? -pull : pull) + 1n;
        const move = now.price - before.price;
        expect(move <= bound && move >= -bound).toBe(true);
        const gapBefore = now.price - before.emaPrice;
        const gapAfter = now.price - now.emaPrice;
        expect(gapAfter * gapBefore >= 0n && (gapAfter < 0n ? -gapAfter : gapAfter) <= abs(gapBefore)).toBe(
          true,
        );
      }
    },
  );

  it('a stablecoin stays near its peg over a long walk', () => {
    const written = walk('peg', 3_000);
    const usdc = written.filter((u) => u.feedId === SPONSORED_FEEDS.USDC.feedId).map((u) => u.price);
    for (const price of usdc) expect(abs(price - 100_000_000n)).toBeLessThan(100_000n); // 10 bps
  });

  it('stale: the feed stops publishing and its publish time ages with the chain clock; the others stay fresh', async () => {
    const chain = pythChain();
    const pyth = publisherOf(chain);
    pyth.stale('SOL');
    await chain.advanceClock(45);
    pyth.publishNow();
    expect((await read(chain, 'SOL')).age).toBe(45n);
    expect((await read(chain, 'USDC')).age).toBe(0n);
    expect(pyth.mode('SOL')).toBe('stale');

    pyth.resume('sol');
    expect((await read(chain, 'SOL')).age).toBe(0n);
    expect(pyth.mode('SOL')).toBe('live');
  });

  it('freeze: the price holds while the publish time stays fresh', async () => {
    const chain = pythChain();
    const pyth = publisherOf(chain);
    pyth.freeze('JUP');
    const before = (await read(chain, 'JUP')).update;
    for (let i = 0; i < 5; i++) {
      await chain.advanceClock(2);
      pyth.publishNow();
    }
    const { update, age } = await read(chain, 'JUP');
    expect(update.price).toBe(before.price);
    expect(age).toBe(0n);
    expect(update.publishTime - before.publishTime).toBe(10n);
    expect(update.prevPublishTime).toBe(update.publishTime - 2n);
  });

  it('jump: the price moves by the basis points at once, and the EMA lags behind it', async () => {
    const chain = pythChain();
    const pyth = publisherOf(chain);
    const before = (await read(chain, 'SOL')).update;
    pyth.jump('SOL', 500);
    const { update } = await read(chain, 'SOL');
    expect(update.price).toBe((before.price * 10_500n) / 10_000n);
    expect(update.emaPrice).toBeLessThan(update.price);
    expect(update.emaPrice).toBeGreaterThan(before.price);
    pyth.jump('SOL', -500);
    expect((await read(chain, 'SOL')).update.price).toBe((update.price * 9_500n) / 10_000n);
  });

  it('refuses controls for a feed it does not publish, and a jump to zero or below', () => {
    const pyth = publisherOf(pythChain());
    expect(() => pyth.freeze('DOGE')).toThrow(/no embedded Pyth feed DOGE/);
    expect(() => pyth.jump('SOL', -10_000)).toThrow(/bps/);
    expect(() => pyth.jump('SOL', 1.5)).toThrow(/bps/);
  });

  it('publishes on its interval, and stops with the chain', async () => {
    const chain = pythChain({ intervalMs: 5 });
    const pyth = publisherOf(chain);
    const first = pyth.latest('SOL');
    // Published again within a few intervals, or a loaded machine's later turn: waited for, not paused for.
    const until = Date.now() + 10_000;
    while (pyth.latest('SOL') === first && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(pyth.latest('SOL')).not.toBe(first);
    await chain.close();
    const last = pyth.latest('SOL');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(pyth.latest('SOL')).toBe(last);
  });

  it('a chain without pyth options publishes nothing', async () => {
    const dataDir = tempDir('nopyth');
    const chain = testEmbeddedChain(dataDir);
    opened.push({ chain, dataDir });
    expect(chain.pyth).toBeNull();
    expect(chain.ledger.getAccount(SPONSORED_FEEDS.SOL.account)).toBeNull();
  });
});

const abs = (v: bigint) => (v < 0n ? -v : v);
