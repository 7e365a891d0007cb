// Quotes from the embedded chain's Pyth feeds, end to end: the service reads the price update accounts the
// embedded publisher writes, refuses a feed that went stale by name, quotes again once it recovers, and
// follows a price jump. The publisher steps only when told (interval 0), so every number is the test's.
import { afterEach, describe, expect, test } from 'vitest';
import { type EmbeddedChain, isEmbeddedChain } from '../../src/chain/index.ts';
import { PythPriceSource } from '../../src/quotes/index.ts';
import {
  type ConfigDocument,
  OTHER_WALLET,
  shippedPriceSource,
  startService,
  type TestService,
  WALLET,
} from '../support/service.ts';

const MAX_AGE_SECONDS = 20;

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/** The shipped Pyth source with a short max age and a publisher that moves only on publishNow(). */
function livePrices(doc: ConfigDocument): void {
  const source = shippedPriceSource() as { feeds: Record<string, unknown>[] };
  doc.price_source = {
    ...source,
    refresh_interval_ms: 60_000, // the test refreshes by hand
    feeds: source.feeds.map((feed) => ({ ...feed, max_age_seconds: MAX_AGE_SECONDS })),
    embedded_publisher: { seed: 7, interval_ms: 0 },
  };
  doc.risk.max_open_per_wallet = 100;
  // No option term: it would price the volatility of the jumps below into the spread as soon as it sees
  // them a second apart (a loaded machine does), and these tests look at the price alone.
  const pricing = doc.pricing as Record<string, unknown>;
  doc.pricing = { ...pricing, option: { ...(pricing.option as object), k: 0 } };
}

async function start(): Promise<{ svc: TestService; chain: EmbeddedChain; refresh: () => Promise<void> }> {
  const svc = await startService(livePrices);
  service = svc;
  const chain = svc.chain;
  if (!isEmbeddedChain(chain) || !chain.pyth)
    throw new Error('expected the embedded chain with its publisher');
  const prices = svc.prices;
  if (!(prices instanceof PythPriceSource)) throw new Error('expected the Pyth price source');
  return { svc, chain, refresh: () => prices.refresh() };
}

const rfq = (svc: TestService, input: string, output: string, amount: string, wallet = WALLET) =>
  svc.app
    .inject({
      method: 'POST',
      url: '/v1/rfq',
      payload: { input_asset: input, output_asset: output, amount, taker_wallet: wallet },
    })
    .then((res) => res.json());

describe('quotes from the embedded Pyth feeds', () => {
  test('a quote records the feed it was priced from, and GET /v1/prices shows every feed fresh', async () => {
    const { svc, chain } = await start();
    const published = chain.pyth?.latest('SOL');
    const quote = await rfq(svc, 'SOL', 'USDC', '1');
    expect(quote.status).toBe('accepted');
    expect(quote.risk_checks).toEqual(
      expect.arrayContaining(['price_freshness', 'price_confidence', 'price_deviation']),
    );
    expect(quote.prices.input).toMatchObject({
      asset: 'SOL',
      source: 'pyth',
      feed_id: published?.feedId,
      price_raw: String(published?.price),
      conf_raw: String(published?.conf),
      exponent: -8,
      publish_time: new Date(Number(published?.publishTime) * 1000).toISOString(),
    });
    // The shipped reference price, at the real feed's exponent.
    expect(quote.prices.input.price).toBe('187.42000000');
    const looked = (await svc.app.inject(`/v1/quotes/${quote.quote_id}`)).json();
    expect(looked.quote.prices).toEqual(quote.prices);

    const list = (await svc.app.inject('/v1/prices')).json();
    expect(list.source).toBe('pyth');
    expect(list.feeds.map((f: { asset: string; status: string }) => [f.asset, f.status])).toEqual([
      ['SOL', 'fresh'],
      ['USDC', 'fresh'],
      ['USDT', 'fresh'],
      ['BONK', 'fresh'],
      ['JUP', 'fresh'],
    ]);
  });

  test('a stale feed is refused by price_freshness and reserves nothing; it recovers and quotes resume', async () => {
    const { svc, chain, refresh } = await start();
    expect((await rfq(svc, 'SOL', 'USDC', '1')).status).toBe('accepted');
    const reservedUsdc = svc.quotes.reservations.reserved('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    const reservedSol = svc.quotes.reservations.reserved('So11111111111111111111111111111111111111112');

    // SOL stops publishing; the chain's clock moves past its max age while the others keep publishing.
    chain.pyth?.stale('SOL');
    await chain.advanceClock(MAX_AGE_SECONDS + 1);
    chain.pyth?.publishNow();
    await refresh();

    for (const [input, output] of [
      ['SOL', 'USDC'],
      ['USDC', 'SOL'],
      ['JUP', 'SOL'],
    ] as const) {
      const rejected = await rfq(svc, input, output, input === 'SOL' ? '1' : '100', OTHER_WALLET);
      expect(rejected.status, `${input}->${output}`).toBe('rejected');
      expect(rejected.reasons).toEqual([
        {
          check: 'price_freshness',
          message: expect.stringMatching(/^SOL price is \d+ ms old; the maximum age is 20000 ms$/),
        },
      ]);
    }
    // Pairs without SOL still quote; the refused RFQs held no inventory.
    expect((await rfq(svc, 'USDC', 'USDT', '100')).status).toBe('accepted');
    expect(svc.quotes.reservations.reserved('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(
      reservedUsdc,
    );
    expect(svc.quotes.reservations.reserved('So11111111111111111111111111111111111111112')).toBe(reservedSol);

    const list = (await svc.app.inject('/v1/prices')).json();
    const sol = list.feeds.find((f: { asset: string }) => f.asset === 'SOL');
    expect(sol.status).toBe('stale');
    expect(sol.age_seconds).toBeGreaterThan(MAX_AGE_SECONDS);
    // Anyone reads which feed is stale (GET /v1/prices says it too); the counts are the operator's.
    const ready = (await svc.app.inject('/v1/health/ready')).json();
    expect(ready.parts.find((p: { name: string }) => p.name === 'prices')).toEqual({
      name: 'prices',
      ok: true,
      reason: 'SOL stale',
    });
    const operator = (await svc.app.inject('/v1/runtime/readiness')).json();
    expect(operator.parts.find((p: { name: string }) => p.name === 'prices')).toEqual({
      name: 'prices',
      ok: true,
      reason: 'SOL stale',
      detail: 'SOL stale; 4 of 5 fresh',
    });

    const metrics = (await svc.app.inject('/metrics')).body;
    expect(metrics).toContain('rfq_maker_price_status{asset="SOL",status="stale"} 1');
    expect(metrics).toContain('rfq_maker_price_status{asset="USDC",status="fresh"} 1');
    expect(metrics).toMatch(/rfq_maker_price_age_seconds\{asset="SOL"\} 2\d\.\d+/);

    chain.pyth?.resume('SOL');
    await refresh();
    expect((await rfq(svc, 'SOL', 'USDC', '1')).status).toBe('accepted');
    expect((await svc.app.inject('/v1/prices')).json().feeds[0].status).toBe('fresh');
  });

  test('quotes follow a price jump, and a move too far from the EMA is refused by price_deviation', async () => {
    const { svc, chain, refresh } = await start();
    const before = await rfq(svc, 'SOL', 'USDC', '1');
    chain.pyth?.jump('SOL', 300); // +3%, within SOL's 500 bps from its EMA
    await refresh();
    const after = await rfq(svc, 'SOL', 'USDC', '1');
    expect(after.status).toBe('accepted');
    const ratio = Number((BigInt(after.output.amount_raw) * 10_000n) / BigInt(before.output.amount_raw));
    expect(ratio).toBeGreaterThanOrEqual(10_290);
    expect(ratio).toBeLessThanOrEqual(10_310);
    expect(BigInt(after.prices.input.price_raw)).toBe(
      (BigInt(before.prices.input.price_raw) * 10_300n) / 10_000n,
    );

    chain.pyth?.jump('SOL', 500); // now about 8% above an EMA that has barely moved
    await refresh();
    const refused = await rfq(svc, 'SOL', 'USDC', '1');
    expect(refused.status).toBe('rejected');
    expect(refused.reasons.map((r: { check: string }) => r.check)).toEqual(['price_deviation']);
    expect((await svc.app.inject('/v1/prices')).json().feeds[0].status).toBe('deviating');
  });
});
