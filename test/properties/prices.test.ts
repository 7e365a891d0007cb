// Properties of quoting from Pyth readings, through the real desk and the real Pyth source (its chain read
// answered by the test): for any two feeds, prices and exponents, the quoted output is the exact rational
// computation floored; and a stale, wide or deviating feed always rejects with its named check and never
// reserves inventory.
import { fc, test } from '@fast-check/vitest';
import { PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type Config, type Pair, resolveConfig } from '../../src/config/index.ts';
import {
  type PriceUpdateFields,
  type PriceUpdateReader,
  PythPriceSource,
  QuoteDesk,
  RfqInputError,
} from '../../src/quotes/index.ts';
import { GroupCommit, openStore, type Store } from '../../src/store/index.ts';
import { defaultConfigDocument, shippedPriceSource, tempDir, WALLET } from '../support/service.ts';
import { runs } from './support.ts';

const NOW_MS = Date.parse('2026-11-23T12:00:00.000Z');
const CLOCK_UNIX = NOW_MS / 1000;
const INT64_MAX = 2n ** 63n - 1n;
const MAX_NOTIONAL_USD = '9000000000000';

/** The input's USD value, to keep the generated orders under the (int64-bounded) notional limit. */
const notionalUsd = (x: bigint, decimals: number, u: { price: bigint; exponent: number }) =>
  u.exponent >= 0
    ? (x * u.price * 10n ** BigInt(u.exponent)) / 10n ** BigInt(decimals)
    : (x * u.price) / 10n ** BigInt(decimals - u.exponent);
const underLimit = (x: bigint, decimals: number, u: { price: bigint; exponent: number }) =>
  notionalUsd(x, decimals, u) < BigInt(MAX_NOTIONAL_USD);

/** What the source reads of an account; every update here is fully verified. */
type Update = PriceUpdateFields & { verificationLevel: { kind: 'full' } };

let config: Config;
let store: Store;
let durable: GroupCommit;
let source: PythPriceSource;
let desk: QuoteDesk;
let dir: ReturnType<typeof tempDir>;
/** What the chain answers at the next refresh, by mint. */
const onChain = new Map<string, Update>();

beforeAll(async () => {
  const doc = defaultConfigDocument();
  doc.price_source = { ...shippedPriceSource(), embedded_publisher: undefined };
  // Nothing but the prices and the base spread decides the output, and no other check gets in the way.
  // The readings jump arbitrarily from run to run: no option term (the volatility they imply is nonsense),
  // and no reservation budget (an order may take the whole of the inventory).
  doc.pricing = {
    size_spread_max_bps: 0,
    inventory_skew_max_bps: 0,
    inventory_free_share_bps: 0,
    option: { k: 0 },
  };
  doc.reservations = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };
  doc.risk = {
    ...doc.risk,
    min_notional_usd: '0',
    max_notional_usd: MAX_NOTIONAL_USD,
    max_open_per_wallet: 1_000_000,
  };
  for (const pair of doc.pairs) {
    const decimals = doc.assets.find((asset) => asset.symbol === pair.input)?.decimals as number;
    Object.assign(pair, { min_input: formatRaw(1n, decimals), max_input: '1000000000' });
  }
  config = resolveConfig(doc);
  dir = tempDir('rfq-prices-');
  store = await openStore({ dataDir: dir.path });
  await store.insertRun({
    runId: RUN,
    version: 'test',
    startedAt: new Date(NOW_MS).toISOString(),
    url: null,
  });
  durable = new GroupCommit(store);
  if (config.priceSource.kind !== 'pyth') throw new Error('expected the Pyth source');
  const feeds = config.priceSource.feeds;
  const reader: PriceUpdateReader = {
    readPriceUpdates: async (accounts: readonly PublicKey[]) => ({
      updates: accounts.map((account) => {
        const feed = feeds.find((f) => new PublicKey(f.account).equals(account));
        return (feed && onChain.get(feed.asset.mint)) ?? null;
      }),
      clockUnix: CLOCK_UNIX,
    }),
  };
  source = new PythPriceSource(reader, {
    feeds,
    commitment: 'confirmed',
    refreshIntervalMs: 60_000,
    nowMs: () => NOW_MS,
  });
  desk = await QuoteDesk.open({
    config,
    store,
    durable,
    prices: source,
    inventory: { balance: () => INT64_MAX },
    runId: RUN,
    nowMs: () => NOW_MS,
  });
});
afterAll(() => {
  durable.close();
  store.close();
  dir.remove();
});

const RUN = '0190c2a4-7b6e-7000-8000-0000000000aa';

function feedOf(mint: string) {
  if (config.priceSource.kind !== 'pyth') throw new Error('expected the Pyth source');
  const feed = config.priceSource.feeds.find((f) => f.asset.mint === mint);
  if (!feed) throw new Error(`no feed for ${mint}`);
  return feed;
}

/** A healthy reading: within its confidence bound, at its EMA, published `ageSeconds` ago. */
const readingArb = fc.record({
  price: fc.bigInt({ min: 1n, max: 10n ** 15n }),
  exponent: fc.integer({ min: -12, max: 3 }),
  confPpm: fc.integer({ min: 0, max: 1_000_000 }), // share of the feed's confidence bound
  ageSeconds: fc.integer({ min: 0, max: 30 }),
});
type ReadingArb = typeof readingArb extends fc.Arbitrary<infer T> ? T : never;

function publish(mint: string, r: ReadingArb, change: Partial<Update> = {}): Update {
  const feed = feedOf(mint);
  const update: Update = {
    feedId: feed.feedId,
    price: r.price,
    // conf ≤ maxConfidenceBps of the price, so price_confidence passes.
    conf: (r.price * BigInt(feed.maxConfidenceBps) * BigInt(r.confPpm)) / (10_000n * 1_000_000n),
    exponent: r.exponent,
    publishTime: BigInt(CLOCK_UNIX - r.ageSeconds),
    emaPrice: r.price,
    verificationLevel: { kind: 'full' },
    ...change,
  };
  onChain.set(mint, update);
  return update;
}

const pairArb = fc.integer({ min: 0, max: 100 }).map((i) => config.pairs[i % config.pairs.length] as Pair);

/** x · pIn·10^eIn / (pOut·10^eOut) · 10^dOut / 10^dIn · (10000 − σ) / 10000, floored, by hand. */
function expectedOutput(pair: Pair, x: bigint, input: Update, output: Update): bigint {
  const confBps = (u: Update, max: number) => {
    const bps = (u.conf * 10_000n + u.price - 1n) / u.price; // rounded up
    return bps < BigInt(max) ? bps : BigInt(max);
  };
  const sigma =
    BigInt(pair.baseSpreadBps) +
    confBps(input, feedOf(pair.input.mint).maxConfidenceBps) +
    confBps(output, feedOf(pair.output.mint).maxConfidenceBps);
  const pow = (e: number) => 10n ** BigInt(e);
  const num =
    x *
    input.price *
    pow(pair.output.decimals) *
    (10_000n - sigma) *
    pow(Math.max(input.exponent, 0)) *
    pow(Math.max(-output.exponent, 0));
  const den =
    output.price *
    pow(pair.input.decimals) *
    10_000n *
    pow(Math.max(-input.exponent, 0)) *
    pow(Math.max(output.exponent, 0));
  return num / den;
}

const quote = (pair: Pair, x: bigint) =>
  desk.requestQuote({
    inputAsset: pair.input.symbol,
    outputAsset: pair.output.symbol,
    amount: formatRaw(x, pair.input.decimals),
    takerWallet: WALLET,
  });

const formatRaw = (raw: bigint, decimals: number) => {
  const digits = raw.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
};

describe('quotes from Pyth readings', () => {
  test.prop([pairArb, readingArb, readingArb, fc.bigInt({ min: 1n, max: 10n ** 12n })], {
    numRuns: runs(200),
  })(
    'the quoted output is the exact rational computation from the two readings, floored',
    async (pair, a, b, x) => {
      fc.pre(underLimit(x, pair.input.decimals, a));
      const input = publish(pair.input.mint, a);
      const output = publish(pair.output.mint, b);
      await source.refresh();
      const expected = expectedOutput(pair, x, input, output);
      if (expected > INT64_MAX) {
        // An output beyond int64 is the client's amount being too large at this price: a 400, not a quote.
        await expect(quote(pair, x)).rejects.toBeInstanceOf(RfqInputError);
        return;
      }
      const result = await quote(pair, x);
      expect(result.status).toBe('accepted');
      if (result.status !== 'accepted') return;
      expect(result.outputRaw).toBe(expected);
      // The quote records exactly the readings it was priced from.
      expect(result.prices.input).toMatchObject({
        price: input.price,
        conf: input.conf,
        exponent: input.exponent,
      });
      expect(result.prices.output).toMatchObject({ price: output.price, exponent: output.exponent });
      desk.releaseQuote(result.quoteId);
    },
  );

  const faultArb = fc.oneof(
    fc.record({ kind: fc.constant('stale' as const), beyond: fc.integer({ min: 1, max: 100_000 }) }),
    fc.record({ kind: fc.constant('wide' as const), beyond: fc.integer({ min: 1, max: 100_000 }) }),
    fc.record({ kind: fc.constant('deviating' as const), beyond: fc.integer({ min: 1, max: 100_000 }) }),
  );
  const CHECK = { stale: 'price_freshness', wide: 'price_confidence', deviating: 'price_deviation' } as const;

  test.prop(
    [pairArb, readingArb, readingArb, fc.boolean(), faultArb, fc.bigInt({ min: 1n, max: 10n ** 9n })],
    {
      numRuns: runs(200),
    },
  )(
    'a stale, wide or deviating feed always rejects with its named check and reserves nothing',
    async (pair, a, b, onInput, fault, x) => {
      const bumped = a.price < 100_000n ? { ...a, price: a.price + 100_000n } : a;
      fc.pre(underLimit(x, pair.input.decimals, onInput ? bumped : a));
      const faulty = onInput ? pair.input : pair.output;
      const feed = feedOf(faulty.mint);
      const healthy = onInput ? b : a;
      publish(onInput ? pair.output.mint : pair.input.mint, healthy);
      const r = onInput ? a : b;
      const price = r.price < 100_000n ? r.price + 100_000n : r.price; // room for a deviation of 1 bps
      const base = { ...r, price };
      // Each fault just beyond its bound (`beyond` units past it), everything else healthy.
      const change: Partial<Update> =
        fault.kind === 'stale'
          ? { publishTime: BigInt(CLOCK_UNIX - feed.maxAgeSeconds) - BigInt(fault.beyond) }
          : fault.kind === 'wide'
            ? { conf: (price * BigInt(feed.maxConfidenceBps)) / 10_000n + BigInt(fault.beyond) }
            : { emaPrice: (price * 10_000n) / BigInt(10_000 + feed.maxDeviationBps) - BigInt(fault.beyond) };
      if (fault.kind === 'deviating' && (change.emaPrice ?? 0n) < 1n) change.emaPrice = 1n;
      publish(faulty.mint, base, { ...change, ...(fault.kind === 'wide' ? {} : { conf: 0n }) });
      await source.refresh();
      const reservedBefore = desk.reservations.size;
      const quotesBefore = (await store.openQuotes(NOW_MS)).length;

      let result: Awaited<ReturnType<typeof quote>>;
      try {
        result = await quote(pair, x);
      } catch (error) {
        // Only an output beyond int64 at the healthy side's price may stop the RFQ before its checks.
        expect(error).toBeInstanceOf(RfqInputError);
        return;
      }
      expect(result.status).toBe('rejected');
      if (result.status !== 'rejected') return;
      expect(result.reasons.map((reason) => reason.check)).toEqual([CHECK[fault.kind]]);
      expect(result.reasons[0]?.message).toContain(faulty.symbol);
      expect(result.riskChecks).not.toContain(CHECK[fault.kind]);
      expect(desk.reservations.size).toBe(reservedBefore);
      expect((await store.openQuotes(NOW_MS)).length).toBe(quotesBefore);
    },
  );
});
