// The Pyth price source: one batched read of every feed per refresh, a snapshot the desk reads without the
// chain, freshness on the chain's clock, and only fully verified updates of the configured feed as prices.
import type { PublicKey } from '@solana/web3.js';
import { describe, expect, test } from 'vitest';
import { loadConfig, type PriceFeed } from '../../src/config/index.ts';
import { feedStates, type PriceUpdateReader, PythPriceSource } from '../../src/quotes/index.ts';

const config = loadConfig();
if (config.priceSource.kind !== 'pyth') throw new Error('the shipped config reads Pyth');
const FEEDS: readonly PriceFeed[] = config.priceSource.feeds;
const SOL = FEEDS[0] as PriceFeed;
const USDC = FEEDS[1] as PriceFeed;

type Update = Awaited<ReturnType<PriceUpdateReader['readPriceUpdates']>>['updates'][number];

const update = (feed: PriceFeed, overrides: Partial<NonNullable<Update>> = {}): NonNullable<Update> => ({
  feedId: feed.feedId,
  price: 18_742_000_000n,
  conf: 9_000_000n,
  exponent: -8,
  publishTime: 1_800_000_000n,
  emaPrice: 18_700_000_000n,
  verificationLevel: { kind: 'full' },
  ...overrides,
});

/** A chain whose answer the test sets; it counts its calls and the accounts of each. */
function fakeChain() {
  const chain = {
    calls: [] as string[][],
    clockUnix: 1_800_000_010,
    answer: new Map<string, Update>(),
    failWith: null as Error | null,
    readPriceUpdates: async (accounts: readonly PublicKey[]) => {
      chain.calls.push(accounts.map((a) => a.toBase58()));
      if (chain.failWith) throw chain.failWith;
      return {
        updates: accounts.map((a) => chain.answer.get(a.toBase58()) ?? null),
        clockUnix: chain.clockUnix,
      };
    },
  };
  return chain;
}

function sourceOn(chain: ReturnType<typeof fakeChain>, now: { ms: number }, onError?: (e: Error) => void) {
  return new PythPriceSource(chain, {
    feeds: FEEDS,
    commitment: 'confirmed',
    refreshIntervalMs: 60_000,
    nowMs: () => now.ms,
    ...(onError ? { onError } : {}),
  });
}

describe('PythPriceSource', () => {
  test('reads every feed in one call per refresh; concurrent refreshes share it', async () => {
    const chain = fakeChain();
    const source = sourceOn(chain, { ms: 5_000 });
    await Promise.all([source.refresh(), source.refresh(), source.refresh()]);
    expect(chain.calls).toEqual([FEEDS.map((feed) => feed.account)]);
  });

  test('before its first read it has no price, and says so', () => {
    const source = sourceOn(fakeChain(), { ms: 0 });
    expect(source.latest(SOL.asset.mint)).toBeUndefined();
    expect(source.problem(SOL.asset.mint)).toBe('not read yet');
  });

  test('a price is the exact rational of its integer and exponent, published at chain time on the desk’s clock', async () => {
    const chain = fakeChain();
    chain.answer.set(SOL.account, update(SOL));
    const now = { ms: 1_000_000 };
    const source = sourceOn(chain, now);
    await source.refresh();
    const price = source.latest(SOL.asset.mint);
    expect(price?.usd).toEqual({ num: 9_371n, den: 50n }); // 187.42 in lowest terms
    // The chain said 10 s after the publish time at the read: the price is 10 s old on the desk's clock …
    expect(now.ms - (price?.asOf.getTime() ?? 0)).toBe(10_000);
    // … and ages with the wall time since, until the next read tells the chain's clock again.
    now.ms += 2_500;
    expect(now.ms - (source.latest(SOL.asset.mint)?.asOf.getTime() ?? 0)).toBe(12_500);
    expect(source.latest(SOL.asset.mint)?.reading).toEqual({
      source: 'pyth',
      account: SOL.account,
      feedId: SOL.feedId,
      price: 18_742_000_000n,
      conf: 9_000_000n,
      exponent: -8,
      emaPrice: 18_700_000_000n,
      publishTime: 1_800_000_000,
    });
  });

  test.each<[string, Update, string]>([
    ['a missing account', null, `no price update account at ${SOL.account}`],
    ['another feed at the account', update(USDC), `carries feed ${USDC.feedId}, not ${SOL.feedId}`],
    [
      'a partially verified update',
      update(SOL, { verificationLevel: { kind: 'partial' } }),
      'partially verified',
    ],
    ['a price that is not positive', update(SOL, { price: 0n }), 'price 0 is not positive'],
  ])('%s is no price, with the reason', async (_name, answer, problem) => {
    const chain = fakeChain();
    chain.answer.set(SOL.account, answer);
    const source = sourceOn(chain, { ms: 0 });
    await source.refresh();
    expect(source.latest(SOL.asset.mint)).toBeUndefined();
    expect(source.problem(SOL.asset.mint)).toContain(problem);
    expect(source.feeds()[0]).toMatchObject({ reading: null, problem: expect.stringContaining(problem) });
  });

  test('a failed read keeps the snapshot, which ages; the outage is reported once', async () => {
    const chain = fakeChain();
    chain.answer.set(SOL.account, update(SOL));
    const now = { ms: 0 };
    const errors: string[] = [];
    const source = sourceOn(chain, now, (error) => errors.push(error.message));
    await source.refresh();
    const asOf = source.latest(SOL.asset.mint)?.asOf.getTime();
    chain.failWith = new Error('rpc down');
    now.ms += 30_000;
    await expect(source.refresh()).rejects.toThrow('rpc down');
    await expect(source.refresh()).rejects.toThrow('rpc down');
    expect(errors).toEqual(['rpc down']);
    expect(source.latest(SOL.asset.mint)?.asOf.getTime()).toBe(asOf);
    expect(source.problem(SOL.asset.mint)).toBe('last read failed: rpc down');
    chain.failWith = null;
    await source.refresh();
    expect(source.problem(SOL.asset.mint)).toBeUndefined();
  });

  test('a source that never managed to read names the failed read as every feed’s problem', async () => {
    const chain = fakeChain();
    chain.failWith = new Error('connection refused');
    const source = sourceOn(chain, { ms: 0 });
    await source.start();
    source.stop();
    expect(source.latest(SOL.asset.mint)).toBeUndefined();
    expect(source.problem(USDC.asset.mint)).toBe('could not read the price accounts: connection refused');
  });

  test('start() reads before it returns and stop() ends the refreshes', async () => {
    const chain = fakeChain();
    chain.answer.set(SOL.account, update(SOL));
    const source = sourceOn(chain, { ms: 0 });
    await source.start();
    expect(chain.calls).toHaveLength(1);
    expect(source.latest(SOL.asset.mint)).toBeDefined();
    source.stop();
  });

  test('a lagging chain clock does not make an old price fresh: the service’s clock judges it too, within a tolerance', async () => {
    const chain = fakeChain();
    // The RPC node's Clock sysvar is 120 s behind the service's clock; the price is 5 s old on the node's.
    chain.clockUnix = 1_800_000_000;
    chain.answer.set(SOL.account, update(SOL, { publishTime: 1_799_999_995n }));
    const now = { ms: 1_800_000_120_000 };
    const source = sourceOn(chain, now);
    await source.refresh();
    // 125 s old on the service's clock: counted 115 s old (the 10 s tolerance), not 5 s.
    expect(now.ms - (source.latest(SOL.asset.mint)?.asOf.getTime() ?? 0)).toBe(115_000);
    const sol = feedStates(config, source, now.ms).find((state) => state.asset === SOL.asset);
    expect(sol?.ageMs).toBe(115_000);
    expect(sol?.status).toBe('stale');
  });

  test('within the tolerance the chain’s clock decides: a node a few seconds behind changes nothing', async () => {
    const chain = fakeChain();
    chain.clockUnix = 1_800_000_000;
    chain.answer.set(SOL.account, update(SOL, { publishTime: 1_799_999_995n }));
    const now = { ms: 1_800_000_003_000 };
    const source = sourceOn(chain, now);
    await source.refresh();
    expect(now.ms - (source.latest(SOL.asset.mint)?.asOf.getTime() ?? 0)).toBe(5_000);
    expect(feedStates(config, source, now.ms).find((s) => s.asset === SOL.asset)?.status).toBe('fresh');
  });
});
