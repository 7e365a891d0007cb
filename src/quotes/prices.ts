// The price port: reference USD prices per asset, read synchronously from whatever the source keeps
// current, so that pricing, the risk check and the reservation happen in one uninterrupted step.
import type { ReferencePrice } from '../config/index.ts';
import type { Price } from '../money/index.ts';

export interface PriceQuote {
  /** USD per display unit. */
  readonly usd: Price;
  readonly asOf: Date;
  /** A configured static price is the desk's own reference and never stale. */
  readonly alwaysFresh: boolean;
}

export interface PriceSource {
  latest(mint: string): PriceQuote | undefined;
}

/** The default source: the config's reference prices, counted as fresh. */
export class StaticPriceSource implements PriceSource {
  constructor(private readonly prices: ReadonlyMap<string, ReferencePrice>) {}

  latest(mint: string): PriceQuote | undefined {
    const price = this.prices.get(mint);
    return price && { usd: price.usd, asOf: price.asOf, alwaysFresh: true };
  }
}
