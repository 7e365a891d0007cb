// The hedging metrics without a service: what a landed or failed hedge records, and the inventory gauges a
// scrape reads from each hedged asset's position against its band.
import { PublicKey } from '@solana/web3.js';
import { describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { positions } from '../../src/hedging/index.ts';
import { type MetricsSources, ServiceMetrics } from '../../src/metrics/index.ts';
import { SOL_MINT } from '../support/mints.ts';
import { defaultConfigDocument } from '../support/service.ts';
import { parseExposition, sampleValue } from './exposition.ts';

const SOL = 10n ** 9n;

function watched(balances: Map<string, bigint>) {
  const doc = defaultConfigDocument();
  doc.venue = { liquidity_usd_per_side: '2000000' };
  doc.hedging = {
    assets: { SOL: { target: '10000', band: '50', max_clip: '25', min_clip: '1' } },
  };
  const config = resolveConfig(doc);
  const metrics = new ServiceMetrics({ version: 'test', chain: 'embedded' });
  const sources: MetricsSources = {
    config,
    owned: {
      ownedTradeCounts: async () => [],
      failingEffectCounts: async () => [],
      settlingSnapshots: async () => [],
    },
    activeActors: () => 0,
    feedLive: () => true,
    leaseRemainingSeconds: () => 10,
    chainNow: () => 0,
    chainUnreachableSeconds: () => 0,
    balance: (mint) => balances.get(mint),
    reserved: () => 0n,
    chain: {
      makerWallet: new PublicKey(SOL_MINT),
      solBalance: async () => 1n,
      health: async () => ({ ok: true, detail: 'ok' }),
    },
    minFeeLamports: 0n,
    inventory: () =>
      positions({
        assets: config.assets,
        hedging: config.hedging,
        hedger: null,
        balance: (mint) => balances.get(mint),
        reserved: () => 0n,
        balancesReadAtMs: () => 0,
      }),
  };
  metrics.watch(sources);
  return metrics;
}

const scrape = async (metrics: ServiceMetrics) => parseExposition(await metrics.exposition());

describe('hedging metrics', () => {
  test('every failure reason and side of a hedged asset is there from the start, at zero', async () => {
    const families = await scrape(watched(new Map()));
    for (const reason of [
      'stale_price',
      'no_route',
      'slippage',
      'unavailable',
      'refused',
      'failed_on_chain',
      'expired',
      'store',
    ]) {
      expect(sampleValue(families, 'rfq_maker_hedge_failures_total', { asset: 'SOL', reason })).toBe(0);
    }
    expect(sampleValue(families, 'rfq_maker_hedges_landed_total', { asset: 'SOL', side: 'sell' })).toBe(0);
    // No balance read yet: outside-band and deviation are unknown, not 0.
    expect(sampleValue(families, 'rfq_maker_inventory_outside_band', { asset: 'SOL' })).toBeUndefined();
    expect(sampleValue(families, 'rfq_maker_inventory_band_raw', { asset: 'SOL' })).toBe(50e9);
  });

  test('a landed hedge counts, with its size, slippage and latency; a failure counts by reason', async () => {
    const metrics = watched(new Map([[SOL_MINT, 10_000n * SOL]]));
    metrics.hedgeLanded({ asset: 'SOL', side: 'sell', notionalUsd: 4_685.5, slippageBps: 33, seconds: 1.5 });
    metrics.hedgeLanded({ asset: 'SOL', side: 'buy', notionalUsd: 900, slippageBps: -4, seconds: 0.4 });
    metrics.hedgeFailed('SOL', 'slippage');
    const families = await scrape(metrics);
    expect(sampleValue(families, 'rfq_maker_hedges_landed_total', { asset: 'SOL', side: 'sell' })).toBe(1);
    expect(sampleValue(families, 'rfq_maker_hedges_landed_total', { asset: 'SOL', side: 'buy' })).toBe(1);
    expect(
      sampleValue(families, 'rfq_maker_hedge_failures_total', { asset: 'SOL', reason: 'slippage' }),
    ).toBe(1);
    expect(sampleValue(families, 'rfq_maker_hedge_notional_usd_sum', { asset: 'SOL' })).toBe(5_585.5);
    expect(sampleValue(families, 'rfq_maker_hedge_slippage_bps_sum', { asset: 'SOL' })).toBe(29);
    // The better-than-mid one falls at or below 0 bps.
    expect(sampleValue(families, 'rfq_maker_hedge_slippage_bps_bucket', { asset: 'SOL', le: '0' })).toBe(1);
    expect(sampleValue(families, 'rfq_maker_hedge_duration_seconds_count', { asset: 'SOL' })).toBe(2);
  });

  test('the inventory gauges follow the balance against the target and band', async () => {
    const balances = new Map([[SOL_MINT, 10_050n * SOL]]);
    const metrics = watched(balances);
    let families = await scrape(metrics);
    // Exactly at the band's edge is inside.
    expect(sampleValue(families, 'rfq_maker_inventory_outside_band', { asset: 'SOL' })).toBe(0);
    expect(sampleValue(families, 'rfq_maker_inventory_deviation_raw', { asset: 'SOL' })).toBe(50e9);
    balances.set(SOL_MINT, 9_949n * SOL);
    families = await scrape(metrics);
    expect(sampleValue(families, 'rfq_maker_inventory_outside_band', { asset: 'SOL' })).toBe(1);
    expect(sampleValue(families, 'rfq_maker_inventory_deviation_raw', { asset: 'SOL' })).toBe(-51e9);
    expect(sampleValue(families, 'rfq_maker_hedges_in_flight', { asset: 'SOL' })).toBe(0);
    // Assets without a target have none of these series.
    expect(sampleValue(families, 'rfq_maker_inventory_band_raw', { asset: 'USDC' })).toBeUndefined();
  });
});
