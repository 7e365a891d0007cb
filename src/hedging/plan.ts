// The hedger's arithmetic, pure and exact (bigint raw units): whether a balance is outside its band, the next
// clip back toward the target, the slippage to ask of the aggregator so that the swap's on-chain minimum
// keeps to the live mid, and the slippage a landed swap actually paid. Every rule the hedger follows about
// amounts is here, and tested with properties (test/hedging/plan.test.ts).
import { floorOut } from '../aggregator/checks.ts';
import type { Ratio } from '../venue/math.ts';

const BPS = 10_000n;

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

const positive = (x: bigint) => (x > 0n ? x : 0n);
/** The smaller of two bigints (Math.min takes numbers only). */
const least = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The least a swap of amountIn may receive: amountIn at the mid (output raw per input raw) less maxSlippageBps,
 * floored — the bound the swap's on-chain minimum out must keep.
 */
export const slippageFloor = (amountInRaw: bigint, mid: Ratio, maxSlippageBps: number): bigint =>
  floorOut(amountInRaw, mid, maxSlippageBps);

/**
 * The slippage to ask of the aggregator for a route that pays `outAmount`, so that its minimum out
 * (outAmount less the slippage, floored) is still at least `floor`; null when the route already pays less
 * than the floor. Capped at `capBps` (what the aggregator port accepts).
 */
export function routeSlippageBps(outAmount: bigint, floor: bigint, capBps: number): number | null {
  if (outAmount <= 0n || outAmount < floor) return null;
  const room = ((outAmount - floor) * BPS) / outAmount;
  const cap = BigInt(capBps);
  return Number(least(room, cap));
}

/** What a landed swap paid against the mid: in output raw units (positive: less than the mid) and in bps. */
export interface Slippage {
  /** amountIn at the mid, floored: what the swap would have paid at the live Pyth mid. */
  midOutRaw: bigint;
  /** midOut − amountOut: positive when the swap paid less than the mid, negative for a better price. */
  slippageRaw: bigint;
  /** slippageRaw / midOut in basis points, rounded toward zero (for metrics and display). */
  slippageBps: number;
}

export function slippageOf(amountInRaw: bigint, amountOutRaw: bigint, mid: Ratio): Slippage {
  const midOutRaw = (amountInRaw * mid.num) / mid.den;
  const slippageRaw = midOutRaw - amountOutRaw;
  const slippageBps = midOutRaw === 0n ? 0 : Number((slippageRaw * BPS) / midOutRaw);
  return { midOutRaw, slippageRaw, slippageBps };
}
