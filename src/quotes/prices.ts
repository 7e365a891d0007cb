// The price port: reference USD prices per asset, read synchronously from whatever the source keeps
// current, so that pricing, the risk check and the reservation happen in one uninterrupted step. A price
// comes with the reading it was taken from (integer price, confidence and EMA at one exponent, as Pyth
// publishes them), which the price checks judge and the quote records.
import type { ReferencePrice } from '../config/index.ts';
import type { Price } from '../money/index.ts';

/** One price as its source published it: every number an integer scaled by 10^exponent (USD per display unit). */
export interface FeedReading {
  readonly source: 'pyth' | 'static';
  /** The price update account and the feed id it carries; null for a static price. */
  readonly account: string | null;
  readonly feedId: string | null;
  readonly price: bigint;
  /** The confidence interval (one standard deviation), same exponent as the price. */
  readonly conf: bigint;
  readonly exponent: number;
  /** The exponentially-weighted moving average price, same exponent; a static price is its own EMA. */
  readonly emaPrice: bigint;
  /** Unix seconds on the chain's clock (a static price: its configured as_of). */
  readonly publishTime: number;
}

export interface PriceQuote {
  /** USD per display unit, exact. */
  readonly usd: Price;
  /** When the price was published, on the desk's clock (the age a quote sees is now − asOf). */
  readonly asOf: Date;
  /** A configured static price is the desk's own reference and never stale. */
  readonly alwaysFresh: boolean;
  /** The reading behind usd; a source that gives none counts as conf 0 and EMA = price. */
  readonly reading?: FeedReading;
}

export interface PriceSource {
  /** The latest usable price; undefined when there is none (never read, account missing, price ≤ 0). */
  latest(mint: string): PriceQuote | undefined;
  /** Why latest(mint) has nothing, for the rejection's message. */
  problem?(mint: string): string | undefined;
  /**
   * The asset's recent volatility, σ per √second (volatility.ts), for the spread's option term; undefined
   * when the source has no series to estimate it from (a static source: its prices never move).
   */
  volatility?(mint: string): number | undefined;
  /** A live source: its first read (awaited before the first RFQ), then its refreshes until stop(). */
  start?(): Promise<void>;
  stop?(): void;
}

/** The source's view of every feed it follows, for GET /v1/prices, readiness and metrics. */
export interface FeedView {
  readonly mint: string;
  readonly reading: FeedReading | null;
  /** Publish time on the desk's clock; null without a reading. */
  readonly asOfMs: number | null;
  readonly alwaysFresh: boolean;
  /** Why there is no usable reading, when there is none. */
  readonly problem: string | null;
}

export interface ObservablePriceSource extends PriceSource {
  readonly kind: 'pyth' | 'static';
  feeds(): FeedView[];
}

const BPS = 10_000n;

/** The integer USD price of a reading as an exact rational: price × 10^exponent. */
export function usdOf(price: bigint, exponent: number): Price {
  if (price <= 0n) throw new RangeError(`price must be positive, got ${price}`);
  const scaled =
    exponent >= 0
      ? { num: price * 10n ** BigInt(exponent), den: 1n }
      : { num: price, den: 10n ** BigInt(-exponent) };
  const g = gcd(scaled.num, scaled.den);
  return { num: scaled.num / g, den: scaled.den / g };
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** conf / price in bps, rounded up (the spread's confidence term); the price must be positive. */
export const confidenceBps = (reading: FeedReading): bigint => ceilDiv(reading.conf * BPS, reading.price);

/** |price − EMA| / EMA in bps, rounded up; an EMA that is not positive counts as infinitely far. */
export function deviationBps(reading: FeedReading): bigint | null {
  if (reading.emaPrice <= 0n) return null;
  const diff =
    reading.price > reading.emaPrice ? reading.price - reading.emaPrice : reading.emaPrice - reading.price;
  return ceilDiv(diff * BPS, reading.emaPrice);
}

/** conf / price above maxBps, compared exactly (conf·10000 > maxBps·price). */
export const isWide = (reading: FeedReading, maxBps: number): boolean =>
  reading.conf * BPS > BigInt(maxBps) * reading.price;

/** |price − EMA| / EMA above maxBps, compared exactly. */
export function isDeviating(reading: FeedReading, maxBps: number): boolean {
  if (reading.emaPrice <= 0n) return true;
  const diff =
    reading.price > reading.emaPrice ? reading.price - reading.emaPrice : reading.emaPrice - reading.price;
  return diff * BPS > BigInt(maxBps) * reading.emaPrice;
}

/**
 * A rational USD price as an integer and exponent, for the record: exact when the denominator divides a
 * power of ten (every decimal does), else 18 fraction digits floored (the exact rational is kept beside it).
 */
export function readingOfPrice(usd: Price, publishedAtMs: number): FeedReading {
  let exponent = 0;
  let den = usd.den;
  let scale = 1n;
  while (den !== 1n && exponent > -36) {
    const g = gcd(den, 10n);
    if (g === 1n) break;
    den /= g;
    scale *= 10n / g;
    exponent -= 1;
  }
  const price = den === 1n ? usd.num * scale : (usd.num * 10n ** 18n) / usd.den;
  if (den !== 1n) exponent = -18;
  return {
    source: 'static',
    account: null,
    feedId: null,
    price,
    conf: 0n,
    exponent,
    emaPrice: price,
    publishTime: Math.floor(publishedAtMs / 1000),
  };
}

/** The config's reference prices, counted as fresh: for tests that need fixed numbers. */
export class StaticPriceSource implements ObservablePriceSource {
  readonly kind = 'static' as const;

  constructor(private readonly prices: ReadonlyMap<string, ReferencePrice>) {}

  latest(mint: string): PriceQuote | undefined {
    const price = this.prices.get(mint);
    return (
      price && {
        usd: price.usd,
        asOf: price.asOf,
        alwaysFresh: true,
        reading: readingOfPrice(price.usd, price.asOf.getTime()),
      }
    );
  }

  feeds(): FeedView[] {
    return [...this.prices].map(([mint, price]) => ({
      mint,
      reading: readingOfPrice(price.usd, price.asOf.getTime()),
      asOfMs: price.asOf.getTime(),
      alwaysFresh: true,
      problem: null,
    }));
  }
}
