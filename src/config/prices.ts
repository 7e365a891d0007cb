// Where prices come from (a static table or Pyth feeds, sponsored ones found by symbol) and the option
// term's defaults.
import { SPONSORED_FEEDS } from '../vocabulary/pyth-feeds.ts';
import type { Asset } from './assets.ts';
import { ConfigError, checkAddress } from './fields.ts';
import type { ConfigFile } from './schema.ts';
import type { OptionPricing, PriceFeed, PriceSourceConfig } from './types.ts';

/** The option term's defaults (config pricing.option). */
export const OPTION_DEFAULTS: OptionPricing = { k: 0.4, maxBps: 100, volatilityHalfLifeSeconds: 900 };

export function resolvePriceSource(
  raw: ConfigFile['price_source'],
  asset: (symbol: string, field: string) => Asset,
): PriceSourceConfig {
  if (raw.kind === 'static') return { kind: 'static' };
  const seen = new Set<Asset>();
  const feeds = raw.feeds.map((feed, i): PriceFeed => {
    const field = `price_source.feeds[${i}]`;
    const of = asset(feed.asset, `${field}.asset`);
    if (seen.has(of)) throw new ConfigError(field, `second feed for ${of.symbol}`);
    seen.add(of);
    const sponsored = (SPONSORED_FEEDS as Readonly<Record<string, { account: string; feedId: string }>>)[
      of.symbol.toUpperCase()
    ];
    const account = feed.account ?? sponsored?.account;
    const feedId = feed.feed_id ?? sponsored?.feedId;
    if (account === undefined || feedId === undefined) {
      throw new ConfigError(field, `${of.symbol} has no sponsored feed: give its account and feed_id`);
    }
    return {
      asset: of,
      account: checkAddress(account, `${field}.account`) as string,
      feedId: feedId.replace(/^0x/, '').toLowerCase(),
      maxAgeSeconds: feed.max_age_seconds,
      maxConfidenceBps: feed.max_confidence_bps,
      maxDeviationBps: feed.max_deviation_bps,
    };
  });
  const accounts = new Set(feeds.map((feed) => feed.account));
  if (accounts.size !== feeds.length)
    throw new ConfigError('price_source.feeds', 'two feeds share an account');
  return {
    kind: 'pyth',
    commitment: raw.commitment ?? 'confirmed',
    refreshIntervalMs: raw.refresh_interval_ms,
    clockToleranceSeconds: raw.clock_tolerance_seconds ?? 10,
    feeds,
    embeddedPublisher: raw.embedded_publisher
      ? { seed: raw.embedded_publisher.seed, intervalMs: raw.embedded_publisher.interval_ms }
      : null,
  };
}
