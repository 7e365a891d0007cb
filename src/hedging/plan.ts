// The hedger's arithmetic, pure and exact (bigint raw units): whether a balance is outside its band and the
// next clip back toward the target (the slippage of any swap: src/aggregator/slippage.ts). Every rule the
// hedger follows about amounts is here, and tested with properties (test/hedging/plan.test.ts).
import type { Ratio } from '../money/ratio.ts';

/** One hedged asset's settings, raw units of the asset (config hedging.assets). */
export interface Band {
  targetRaw: bigint;
  bandRaw: bigint;
  maxClipRaw: bigint;
  minClipRaw: bigint;
}

/** balance − target: positive when the maker is long the asset, negative when short. */
export const deviation = (balanceRaw: bigint, band: Pick<Band, 'targetRaw'>): bigint =>
  balanceRaw - band.targetRaw;

/** Strictly further than the band from the target (a balance exactly at the band's edge is inside). */
export function outsideBand(balanceRaw: bigint, band: Pick<Band, 'targetRaw' | 'bandRaw'>): boolean {
  const d = deviation(balanceRaw, band);
  return (d < 0n ? -d : d) > band.bandRaw;
}

export type HedgeSide = 'sell' | 'buy';

/** What the maker holds of the asset and of the quote asset, and what open quotes and trades reserve of each. */
export interface Holdings {
  assetBalanceRaw: bigint;
  assetReservedRaw: bigint;
  quoteBalanceRaw: bigint;
  quoteReservedRaw: bigint;
}

export type ClipPlan =
  | {
      kind: 'clip';
      /** sell: the asset for the quote asset (the maker is long); buy: the asset with the quote asset. */
      side: HedgeSide;
      /** Exact in, raw units of what is sold (the asset for a sell, the quote asset for a buy). */
      amountInRaw: bigint;
      /** The asset this clip moves at the mid, raw units of the asset (a sell: amountInRaw). */
      assetRaw: bigint;
    }
  | {
      kind: 'none';
      /**
       * inside_band: nothing to do; at_target: closer to the target than the smallest clip; reserved: what
       * open quotes and trades hold leaves less than the smallest clip to sell.
       */
      reason: 'inside_band' | 'at_target' | 'reserved';
    };

/**
 * The next clip toward the target. A hedge starts only outside the band; once started (`continuing`) it
 * goes on clip after clip until the balance is within one smallest clip of the target, so a balance that
 * just crossed the band is brought home rather than parked at the edge. A clip is at most max_clip of the
 * asset, at least min_clip, never more than the distance to the target (a hedge never overshoots), and never
 * sells what open quotes and trades reserve: a sell of the asset at most its free balance, a buy at most the
 * quote asset's. `mid` is quote raw units per asset raw unit (the live Pyth mid); a buy's exact input is the
 * asset it wants at the mid, floored, so it never receives more than it asked for.
 */
export function planClip(holdings: Holdings, band: Band, mid: Ratio, continuing: boolean): ClipPlan {
  if (mid.num <= 0n || mid.den <= 0n) throw new RangeError('the mid must be positive');
  const d = deviation(holdings.assetBalanceRaw, band);
  // Stryker disable next-line EqualityOperator: at d = 0 both branches are 0 (-0n is 0n).
  const distance = d < 0n ? -d : d;
  if (!continuing && distance <= band.bandRaw) return { kind: 'none', reason: 'inside_band' };
  if (distance < band.minClipRaw) return { kind: 'none', reason: 'at_target' };
  const wanted = least(distance, band.maxClipRaw);
  if (d > 0n) {
    const free = positive(holdings.assetBalanceRaw - holdings.assetReservedRaw);
    const amount = least(wanted, free);
    if (amount < band.minClipRaw) return { kind: 'none', reason: 'reserved' };
    return { kind: 'clip', side: 'sell', amountInRaw: amount, assetRaw: amount };
  }
  const free = positive(holdings.quoteBalanceRaw - holdings.quoteReservedRaw);
  const cost = (wanted * mid.num) / mid.den;
  const amountIn = least(cost, free);
  // What that input buys at the mid: the clip's size in the asset, which the minimum applies to.
  const assetRaw = (amountIn * mid.den) / mid.num;
  if (amountIn <= 0n || assetRaw < band.minClipRaw) return { kind: 'none', reason: 'reserved' };
  return { kind: 'clip', side: 'buy', amountInRaw: amountIn, assetRaw };
}

// Stryker disable next-line EqualityOperator: at x = 0 both branches are 0.
const positive = (x: bigint) => (x > 0n ? x : 0n);
/** The smaller of two bigints (Math.min takes numbers only). */
// Stryker disable next-line EqualityOperator: when a = b either branch is the same value.
const least = (a: bigint, b: bigint) => (a < b ? a : b);
