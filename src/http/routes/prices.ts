// Prices group (/v1/prices): every configured feed as the price source holds it now, judged by the bounds
// the RFQ's price checks use — what a taker's front end or an operator checks before blaming a rejection.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Config } from '../../config/index.ts';
import { formatScaled } from '../../money/index.ts';
import { type FeedReading, feedStates, type PriceSource } from '../../quotes/index.ts';
import { errorResponses } from '../errors.ts';
import { PUBLIC_SECURITY } from './operator.ts';
import { PriceListSchema, type PriceReadingSchema, type QuotePricesSchema } from './prices.schema.ts';

export interface PriceRoutesOptions {
  config: Pick<Config, 'priceSource' | 'risk' | 'assets'>;
  prices: PriceSource;
  nowMs: () => number;
}

export function renderReading(asset: string, reading: FeedReading): Static<typeof PriceReadingSchema> {
  return {
    asset,
    source: reading.source,
    feed_account: reading.account,
    feed_id: reading.feedId,
    price: formatScaled(reading.price, reading.exponent),
    confidence: formatScaled(reading.conf, reading.exponent),
    ema_price: formatScaled(reading.emaPrice, reading.exponent),
    price_raw: reading.price.toString(),
    conf_raw: reading.conf.toString(),
    exponent: reading.exponent,
    publish_time: new Date(reading.publishTime * 1000).toISOString(),
  };
}

/** The two prices a quote was priced from, each named by its asset; null where none was recorded. */
export function renderQuotePrices(
  symbols: { input: string; output: string },
  prices: { input: FeedReading | null; output: FeedReading | null },
): Static<typeof QuotePricesSchema> {
  return {
    input: prices.input && renderReading(symbols.input, prices.input),
    output: prices.output && renderReading(symbols.output, prices.output),
  };
}

export const priceRoutes: FastifyPluginAsyncTypebox<PriceRoutesOptions> = async (app, opts) => {
  const { config, prices, nowMs } = opts;

  app.get(
    '/',
    {
      schema: {
        operationId: 'listPrices',
        tags: ['Prices'],
        summary: 'Every configured price feed, its age and whether it can be quoted from',
        description:
          'Each feed with its latest price, confidence, EMA and exponent, its publish time and age on the ' +
          'chain’s clock, and its status: fresh, stale, wide or deviating — the statuses the RFQ’s ' +
          'price_freshness, price_confidence and price_deviation checks refuse. With the static source, the ' +
          'config’s prices, always fresh.',
        security: PUBLIC_SECURITY,
        response: { 200: PriceListSchema, ...errorResponses() },
      },
    },
    async function listPrices() {
      return {
        source: (prices as { kind?: unknown }).kind === 'pyth' ? ('pyth' as const) : ('static' as const),
        feeds: feedStates(config, prices, nowMs()).map((state) => ({
          asset: state.asset.symbol,
          mint: state.asset.mint,
          feed_account: state.account,
          feed_id: state.feedId,
          status: state.status,
          reading: state.reading && renderReading(state.asset.symbol, state.reading),
          age_seconds: state.ageMs === null ? null : state.ageMs / 1000,
          max_age_seconds: state.limits.maxAgeMs / 1000,
          max_confidence_bps: state.limits.maxConfidenceBps,
          max_deviation_bps: state.limits.maxDeviationBps,
          problem: state.problem,
        })),
      };
    },
  );
};
