// How each configured price stands right now — fresh, stale, wide or deviating — judged by the same bounds
// the RFQ's price checks use: what GET /v1/prices shows, readiness reports and the metrics export.
import type { Asset, Config } from '../config/index.ts';
import {
  type FeedReading,
  type FeedView,
  isDeviating,
  isWide,
  type PriceSource,
  readingOfPrice,
} from './prices.ts';

/** The bounds one asset's price must keep; a source given in code without a feed: the risk section's age only. */
export interface PriceLimits {
  maxAgeMs: number;
  maxConfidenceBps: number | null;
  maxDeviationBps: number | null;
}

export function limitsOf(config: Pick<Config, 'priceSource' | 'risk'>, mint: string): PriceLimits {
  const feed =
    config.priceSource.kind === 'pyth'
      ? config.priceSource.feeds.find((f) => f.asset.mint === mint)
      : undefined;
  return {
    maxAgeMs: (feed?.maxAgeSeconds ?? config.risk.maxPriceAgeSeconds) * 1000,
    maxConfidenceBps: feed?.maxConfidenceBps ?? null,
    maxDeviationBps: feed?.maxDeviationBps ?? null,
  };
}

/**
 * fresh: quotable; stale: older than its max age, or no usable price at all (price_freshness); wide: its
 * confidence interval is beyond the bound (price_confidence); deviating: too far from its EMA
 * (price_deviation). The first that applies, in that order of severity.
 */
export const FEED_STATUSES = ['fresh', 'stale', 'wide', 'deviating'] as const;
export type FeedStatus = (typeof FEED_STATUSES)[number];

export interface FeedState {
  asset: Asset;
  reading: FeedReading | null;
  /** The configured feed (account, feed id), also when nothing could be read from it. */
  account: string | null;
  feedId: string | null;
  /** Age on the desk's clock (chain time for Pyth); null without a reading. */
  ageMs: number | null;
  limits: PriceLimits;
  status: FeedStatus;
  problem: string | null;
}

/** Every configured asset's price as the source holds it now. */
export function feedStates(
  config: Pick<Config, 'priceSource' | 'risk' | 'assets'>,
  source: PriceSource,
  nowMs: number,
): FeedState[] {
  const views = new Map<string, FeedView>();
  if (isObservable(source)) for (const view of source.feeds()) views.set(view.mint, view);
  const assets =
    config.priceSource.kind === 'pyth' && views.size > 0
      ? config.priceSource.feeds.map((feed) => feed.asset)
      : config.assets.list;
  return assets.map((asset) => {
    const view = views.get(asset.mint) ?? viewOf(source, asset.mint);
    const configured =
      config.priceSource.kind === 'pyth'
        ? config.priceSource.feeds.find((feed) => feed.asset === asset)
        : undefined;
    const limits = limitsOf(config, asset.mint);
    const ageMs = view.asOfMs === null ? null : Math.max(0, nowMs - view.asOfMs);
    return {
      asset,
      reading: view.reading,
      account: view.reading?.account ?? configured?.account ?? null,
      feedId: view.reading?.feedId ?? configured?.feedId ?? null,
      ageMs,
      limits,
      status: statusOf(view, ageMs, limits),
      problem: view.problem,
    };
  });
}

function statusOf(view: FeedView, ageMs: number | null, limits: PriceLimits): FeedStatus {
  const { reading } = view;
  if (reading === null || ageMs === null) return 'stale';
  if (!view.alwaysFresh && ageMs > limits.maxAgeMs) return 'stale';
  if (limits.maxConfidenceBps !== null && isWide(reading, limits.maxConfidenceBps)) return 'wide';
  if (limits.maxDeviationBps !== null && isDeviating(reading, limits.maxDeviationBps)) return 'deviating';
  return 'fresh';
}

const isObservable = (source: PriceSource): source is PriceSource & { feeds(): FeedView[] } =>
  typeof (source as { feeds?: unknown }).feeds === 'function';

/** A source that keeps no feed list (one given in code): its latest price as a view. */
function viewOf(source: PriceSource, mint: string): FeedView {
  const price = source.latest(mint);
  if (!price)
    return {
      mint,
      reading: null,
      asOfMs: null,
      alwaysFresh: false,
      problem: source.problem?.(mint) ?? 'no price',
    };
  return {
    mint,
    reading: price.reading ?? readingOfPrice(price.usd, price.asOf.getTime()),
    asOfMs: price.asOf.getTime(),
    alwaysFresh: price.alwaysFresh,
    problem: null,
  };
}
