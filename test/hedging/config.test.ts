// The config's hedging section: the shipped targets, bands and clips, their defaults, and every refusal,
// each naming its field.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG_PATH, resolveConfig } from '../../src/config/index.ts';

const doc = () => JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
const withHedging = (hedging: unknown, change: (d: Record<string, unknown>) => void = () => {}) => {
  const d = { ...doc(), hedging };
  change(d);
  return d;
};
const SOL_ENTRY = { target: '10000', band: '50', max_clip: '25', min_clip: '1' };

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof ConfigError) return `${e.field}: ${e.message}`;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('hedging config', () => {
  it('ships SOL, BONK and JUP hedged against USDC through the embedded venue, within 100 bps of the mid', () => {
    const { hedging } = resolveConfig(doc());
    expect(hedging).toMatchObject({
      enabled: true,
      maxSlippageBps: 100,
      retrySeconds: 30,
      clipIntervalMs: 2000,
    });
    expect(hedging?.quoteAsset.symbol).toBe('USDC');
    expect(
      hedging?.assets.map((a) => [a.asset.symbol, a.targetRaw, a.bandRaw, a.maxClipRaw, a.minClipRaw]),
    ).toEqual([
      ['SOL', 10_000n * 10n ** 9n, 50n * 10n ** 9n, 25n * 10n ** 9n, 10n ** 9n],
      // band_bps 50 of the target: 0.5%.
      ['BONK', 10n ** 16n, 5n * 10n ** 13n, 2n * 10n ** 13n, 5n * 10n ** 11n],
      ['JUP', 2n * 10n ** 12n, 10n ** 10n, 6n * 10n ** 9n, 2n * 10n ** 8n],
    ]);
    // The targets are the inventory the embedded chain funds: a fresh start is home.
    const config = resolveConfig(doc());
    for (const hedged of config.hedging?.assets ?? []) {
      expect(config.inventory.get(hedged.asset.mint)).toBe(hedged.targetRaw);
    }
  });

  it('is absent without the section; defaults to USDC, the aggregator’s slippage bound and 30 s', () => {
    const d = doc();
    delete d.hedging;
    expect(resolveConfig(d).hedging).toBeNull();
    const hedging = resolveConfig(withHedging({ assets: { SOL: SOL_ENTRY } })).hedging;
    expect(hedging).toMatchObject({
      enabled: true,
      maxSlippageBps: 100,
      retrySeconds: 30,
      clipIntervalMs: 2000,
    });
    expect(hedging?.quoteAsset.symbol).toBe('USDC');
    expect(resolveConfig(withHedging({ enabled: false, assets: {} })).hedging?.enabled).toBe(false);
  });

  it('refuses what cannot be meant, naming the field', () => {
    const refused = (hedging: unknown, change?: (d: Record<string, unknown>) => void) =>
      fieldOf(() => resolveConfig(withHedging(hedging, change)));
    expect(refused({ assets: { DOGE: SOL_ENTRY } })).toMatch(/^hedging\.assets\.DOGE: .*unknown asset/);
    expect(refused({ quote_asset: 'SOL', assets: { SOL: SOL_ENTRY } })).toMatch(
      /^hedging\.assets\.SOL: .*quote asset/,
    );
    expect(refused({ quote_asset: 'EUR', assets: {} })).toMatch(/^hedging\.quote_asset/);
    expect(refused({ assets: { SOL: SOL_ENTRY, sol: SOL_ENTRY } })).toMatch(/listed twice/);
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, band_bps: 10 } } })).toMatch(
      /exactly one of band and band_bps/,
    );
    const { band: _band, ...noBand } = SOL_ENTRY;
    expect(refused({ assets: { SOL: noBand } })).toMatch(/exactly one of band and band_bps/);
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, band: '0' } } })).toMatch(/band must be above zero/);
    // 1 bps of a target of 1 raw unit floors to zero.
    expect(refused({ assets: { SOL: { ...noBand, target: '0.000000001', band_bps: 1 } } })).toMatch(
      /above zero/,
    );
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, min_clip: '0' } } })).toMatch(/min_clip: .*above zero/);
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, max_clip: '0.5' } } })).toMatch(
      /max_clip: .*not be below min_clip/,
    );
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, min_clip: '60', max_clip: '80' } } })).toMatch(
      /min_clip: .*not exceed the band/,
    );
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, band: '0.0000000001' } } })).toMatch(
      /^hedging\.assets\.SOL\.band/,
    );
    expect(refused({ max_slippage_bps: 150, assets: {} })).toMatch(/not exceed aggregator\.max_slippage_bps/);
    expect(refused({ assets: { SOL: { ...SOL_ENTRY, clip: '1' } } })).toMatch(/not a known setting/);
    expect(refused({ retry_seconds: 0, assets: {} })).toMatch(/^hedging\.retry_seconds/);
    // On the embedded chain hedges need the venue (or an aggregator elsewhere).
    expect(refused({ assets: {} }, (d) => delete d.venue)).toMatch(/^hedging: .*configure `venue`/);
    expect(
      resolveConfig(
        withHedging({ assets: {} }, (d) => {
          delete d.venue;
          d.aggregator = { kind: 'jupiter', base_url: 'http://127.0.0.1:8899/jupiter/swap/v1' };
        }),
      ).hedging,
    ).not.toBeNull();
    expect(
      resolveConfig(withHedging({ enabled: false, assets: {} }, (d) => delete d.venue)).hedging?.enabled,
    ).toBe(false);
  });
});
