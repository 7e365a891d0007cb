// The spread's option term, end to end: the service estimates each feed's volatility from what the embedded
// Pyth publisher writes and prices the taker's option from it; when the publisher's walk grows wilder the
// term grows with it. Pairs may keep their quotes and their takers' options shorter.
import { afterEach, describe, expect, test } from 'vitest';
import { type EmbeddedChain, isEmbeddedChain } from '../../src/chain/index.ts';
import { PythPriceSource } from '../../src/quotes/index.ts';
import {
  type ConfigDocument,
  shippedPriceSource,
  startService,
  type TestService,
  WALLET,
} from '../support/service.ts';
import { newSecret } from '../support/taker.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/** The shipped Pyth feeds, published only when the test steps them; volatility forgets within a minute. */
function livePrices(doc: ConfigDocument): void {
  doc.price_source = {
    ...shippedPriceSource(),
    refresh_interval_ms: 60_000, // the test reads after each step
    embedded_publisher: { seed: 11, interval_ms: 0 },
  };
  doc.pricing = {
    ...(doc.pricing as object),
    option: { k: 0.4, max_bps: 100, volatility_half_life_seconds: 20 },
  };
  doc.risk.max_open_per_wallet = 100;
}

async function start(change: (doc: ConfigDocument) => void = () => {}) {
  const svc = await startService((doc) => {
    livePrices(doc);
    change(doc);
  });
  service = svc;
  const chain = svc.chain;
  if (!isEmbeddedChain(chain) || !chain.pyth)
    throw new Error('expected the embedded chain with its publisher');
  const prices = svc.prices;
  if (!(prices instanceof PythPriceSource)) throw new Error('expected the Pyth price source');
  return { svc, chain: chain as EmbeddedChain & { pyth: NonNullable<EmbeddedChain['pyth']> }, prices };
}

/** `n` publishing steps a chain second apart, each read by the service's source. */
async function walk(chain: EmbeddedChain, prices: PythPriceSource, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await chain.advanceClock(1);
    chain.pyth?.publishNow();
    await prices.refresh();
  }
}

const rfq = (svc: TestService, body: Record<string, unknown>) =>
  svc.app.inject({
    method: 'POST',
    url: '/v1/rfq',
    payload: { input_asset: 'SOL', output_asset: 'USDC', amount: '1', taker_wallet: WALLET, ...body },
  });

/** σ per √second of a walk whose steps are uniform in ±bps of the price, one a second: bps/√3, as a share. */
const walkSigma = (bps: number) => bps / Math.sqrt(3) / 10_000;
const ANNUAL = Math.sqrt(31_557_600);

describe('the option term', () => {
  test('moves with the embedded publisher’s volatility: a wilder SOL walk, a wider SOL leg', async () => {
    const { svc, chain, prices } = await start();
    chain.pyth.volatility('SOL', 2);
    await walk(chain, prices, 150);
    const calm = (await rfq(svc, {})).json();
    expect(calm.status).toBe('accepted');
    const calmLeg = calm.spread_breakdown.option.input;
    expect(calm.spread_breakdown.option.window_seconds).toBe(420); // lock window 120 + maker timelock 300
    expect(calmLeg.asset).toBe('SOL');
    // The estimate is the walk's own σ, within sampling error.
    expect(calmLeg.volatility_annual).toBeGreaterThan(0.7 * walkSigma(2) * ANNUAL);
    expect(calmLeg.volatility_annual).toBeLessThan(1.3 * walkSigma(2) * ANNUAL);
    // ⌈0.4 · σ · √420 · 10⁴⌉ with σ = the quote's own estimate.
    const term = (annual: number) => Math.ceil(0.4 * (annual / ANNUAL) * Math.sqrt(420) * 10_000);
    expect(Math.abs(calmLeg.bps - term(calmLeg.volatility_annual))).toBeLessThanOrEqual(1);

    chain.pyth.volatility('SOL', 8);
    await walk(chain, prices, 150);
    const stormy = (await rfq(svc, {})).json();
    const stormyLeg = stormy.spread_breakdown.option.input;
    expect(stormyLeg.volatility_annual).toBeGreaterThan(0.7 * walkSigma(8) * ANNUAL);
    expect(stormyLeg.volatility_annual).toBeLessThan(1.3 * walkSigma(8) * ANNUAL);
    expect(stormyLeg.bps).toBeGreaterThan(2.5 * calmLeg.bps);
    // USDC's walk did not change: its leg stays where it was, and the spread grows by SOL's difference.
    const { output: calmUsdc } = calm.spread_breakdown.option;
    const { output: stormyUsdc } = stormy.spread_breakdown.option;
    expect(Math.abs(stormyUsdc.bps - calmUsdc.bps)).toBeLessThanOrEqual(1);
    for (const quote of [calm, stormy]) {
      const b = quote.spread_breakdown;
      expect(b.option_bps).toBe(b.option.input.bps + b.option.output.bps);
      expect(b.base_bps + b.confidence_bps + b.option_bps + b.size_and_skew_bps).toBe(quote.spread_bps);
    }
    expect(stormy.spread_bps - calm.spread_bps).toBeGreaterThanOrEqual(stormyLeg.bps - calmLeg.bps - 2);
  });

  test('is off at k = 0: no term, no volatility read', async () => {
    const { svc, chain, prices } = await start((doc) => {
      doc.pricing = { ...(doc.pricing as object), option: { k: 0 } };
    });
    await walk(chain, prices, 5);
    const quote = (await rfq(svc, {})).json();
    expect(quote.spread_breakdown.option_bps).toBe(0);
    expect(quote.spread_breakdown.option).toBeNull();
  });
});

describe('shorter options where the maker chooses', () => {
  test('a pair’s own quote lifetime bounds expiry_seconds and its default; its maker timelock sets T', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    service = await startService(
      (doc) => {
        doc.quotes.default_expiry_seconds = 60;
        const jup = doc.pairs.find((p) => p.input === 'JUP' && p.output === 'USDC') as Record<
          string,
          unknown
        >;
        jup.max_expiry_seconds = 45;
        jup.maker_timelock_seconds = 200;
      },
      { nowMs: () => now },
    );
    const jup = { input_asset: 'JUP', output_asset: 'USDC', amount: '100' };
    const tooLong = await rfq(service, { ...jup, expiry_seconds: 46 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.details).toEqual([
      'body.expiry_seconds: must be an integer 1..45 for JUP→USDC',
    ]);
    const byDefault = (await rfq(service, jup)).json();
    expect(byDefault.expires_at).toBe('2026-11-22T10:00:45.000Z');
    expect(byDefault.spread_breakdown.option.window_seconds).toBe(120 + 200);
    // Other pairs keep the global bounds.
    expect((await rfq(service, { expiry_seconds: 300 })).json().expires_at).toBe('2026-11-22T10:05:00.000Z');
  });

  test('the settlement start gives the trade its pair’s maker timelock, which plans the maker expiry', async () => {
    service = await startService((doc) => {
      const pair = doc.pairs.find((p) => p.input === 'USDC' && p.output === 'JUP') as Record<string, unknown>;
      pair.maker_timelock_seconds = 200;
    });
    const svc = service;
    const start = async (input: string, output: string) => {
      const quote = (await rfq(svc, { input_asset: input, output_asset: output, amount: '10' })).json();
      const settled = await svc.app.inject({
        method: 'POST',
        url: `/v1/quotes/${quote.quote_id}/wallet-settlement`,
        payload: { taker_wallet: WALLET, secret_hash: newSecret().secretHash },
      });
      expect(settled.statusCode).toBe(201);
      const trade = await svc.store.getTrade(settled.json().trade_id);
      return JSON.parse(trade?.snapshot ?? '{}').context.makerTimelock;
    };
    expect(await start('USDC', 'JUP')).toBe(200);
    expect(await start('USDC', 'SOL')).toBe(300);
  });
});
