// Schemas of the Prices group: every configured feed as the price source holds it now (GET /v1/prices),
// and the shape of one price as a quote records it (the quote's `prices` extension).
import Type from 'typebox';
import { FEED_STATUSES } from '../../quotes/index.ts';
import { DateTime, ext, Nullable } from '../schemas.ts';

const IntegerText = Type.String({ pattern: '^-?[0-9]+$', description: 'an integer, as a string' });
const ScaledDecimal = Type.String({
  pattern: '^-?[0-9]+(\\.[0-9]+)?$',
  description: 'the integer at its exponent as an exact decimal (USD per display unit)',
});

/** One price as its source published it: integers at one exponent, and their exact decimals. */
export const PriceReadingSchema = Type.Object(
  {
    asset: Type.String({ description: 'asset symbol' }),
    source: Type.Union([Type.Literal('pyth'), Type.Literal('static')]),
    feed_account: Nullable(
      Type.String({ description: 'the Pyth price update account (PriceUpdateV2); null for a static price' }),
    ),
    feed_id: Nullable(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'the Pyth feed id, hex' })),
    price: ScaledDecimal,
    confidence: ScaledDecimal,
    ema_price: ScaledDecimal,
    price_raw: IntegerText,
    conf_raw: IntegerText,
    exponent: Type.Integer({ description: 'price = price_raw × 10^exponent' }),
    publish_time: { ...DateTime, description: 'when the price was published, on the chain’s clock' },
  },
  { title: 'PriceReading' },
);

/** The two prices a quote was priced from (the quote's and its trade's extension). */
export const QuotePricesSchema = Type.Object(
  { input: Nullable(PriceReadingSchema), output: Nullable(PriceReadingSchema) },
  ext(
    'the USD price of each side the quote was priced from (mid = input price / output price), as its ' +
      'source published it: feed, price, confidence, exponent, publish time; null for a quote stored ' +
      'before quotes recorded them',
  ),
);

export const PriceFeedSchema = Type.Object(
  {
    asset: Type.String({ description: 'asset symbol' }),
    mint: Type.String(),
    feed_account: Nullable(Type.String()),
    feed_id: Nullable(Type.String()),
    status: Type.Enum(FEED_STATUSES, {
      description:
        'fresh: quotable; stale: older than max_age_seconds, or no usable price (see problem) — RFQs fail ' +
        'price_freshness; wide: confidence beyond max_confidence_bps — price_confidence; deviating (an ' +
        'extension of the three statuses): further from its EMA than max_deviation_bps — price_deviation',
    }),
    reading: Nullable(PriceReadingSchema),
    age_seconds: Nullable(
      Type.Number({
        minimum: 0,
        description: 'chain clock now (estimated) minus publish time, ms precision',
      }),
    ),
    max_age_seconds: Type.Number(),
    max_confidence_bps: Nullable(Type.Integer()),
    max_deviation_bps: Nullable(Type.Integer()),
    problem: Nullable(Type.String({ description: 'why there is no usable price, when there is none' })),
  },
  { title: 'PriceFeed' },
);

export const PriceListSchema = Type.Object(
  {
    source: Type.Union([Type.Literal('pyth'), Type.Literal('static')], {
      description: 'pyth: price update accounts read through the chain; static: the config’s prices',
    }),
    feeds: Type.Array(PriceFeedSchema),
  },
  { title: 'PriceList' },
);
