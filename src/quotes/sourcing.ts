// Just-in-time sourcing's arithmetic, pure and exact (bigint raw units): how an RFQ whose output the free
// inventory does not cover is split into a free part, priced as every quote is, and a sourced part, bought
// through the aggregator after the taker's lock is final and priced from the route's minimum out less the
// spread; and the spread the whole quote then shows.
//
// The sourced part sells the taker's input amount for it out of the maker's own inventory of the input
// asset (exact in): once the taker's escrow is redeemed the maker has that input back, so its input
// inventory ends where it started and only the output the free inventory covered leaves it.

const BPS = 10_000n;

/** output raw per input raw = num / den (the mid, or a route's price). */
export interface RawRatio {
  num: bigint;
  den: bigint;
}

/**
 * The largest input in [0, inputRaw] whose priced output fits in `room`: the free part. `price` is the
 * quote's pricing of an input alone (its output never falls as the input grows: pricing.ts proves it), so a
 * binary search finds it exactly.
 */
export function freeInput(inputRaw: bigint, room: bigint, price: (inputRaw: bigint) => bigint): bigint {
  if (room <= 0n) return 0n;
  if (price(inputRaw) <= room) return inputRaw;
  let lo = 0n; // price(lo) ≤ room
  let hi = inputRaw; // price(hi) > room
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (price(mid) <= room) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * What the taker is owed for the sourced part: the route's minimum out — never more than the input is worth
 * at the mid — less the spread, floored. It is also the least the sourcing swap must buy (the plan's
 * minBuyRaw), so the maker keeps the spread and the route's margin above its minimum.
 */
export function sourcedOutput(routeMinOutRaw: bigint, midOutRaw: bigint, spreadBps: number): bigint {
  if (!Number.isInteger(spreadBps) || spreadBps < 0 || spreadBps > 10_000) {
    throw new RangeError(`spreadBps must be an integer 0..10000, got ${spreadBps}`);
  }
  // Stryker disable next-line EqualityOperator: when the two are equal either branch is the same value.
  const basis = routeMinOutRaw < midOutRaw ? routeMinOutRaw : midOutRaw;
  if (basis <= 0n) return 0n;
  return (basis * (BPS - BigInt(spreadBps))) / BPS;
}

/**
 * The whole quote's spread against the mid, rounded UP to whole bps (as every quote reports it): the taker's
 * output is never below what the reported spread implies. 0 when the output is at or above the mid.
 */
export function spreadAgainstMid(inputRaw: bigint, outputRaw: bigint, mid: RawRatio): number {
  // σ = 1 − output / (input × mid) = (input·num − output·den) / (input·num)
  const value = inputRaw * mid.num;
  if (value === 0n) return 0;
  const short = value - outputRaw * mid.den;
  if (short <= 0n) return 0;
  const bps = (short * BPS + value - 1n) / value;
  return Number(bps > BPS ? BPS : bps);
}

/**
 * The bps of the whole quote's mid value the route costs beyond the spread (the sourced part's mid value
 * less what the route's minimum pays, after the spread), floored: spread_breakdown's sourcing_bps.
 */
export function sourcingCostBps(
  wholeMidOutRaw: bigint,
  sourcedMidOutRaw: bigint,
  routeMinOutRaw: bigint,
  spreadBps: number,
): number {
  if (wholeMidOutRaw <= 0n || routeMinOutRaw >= sourcedMidOutRaw) return 0;
  const shortfall = ((sourcedMidOutRaw - routeMinOutRaw) * (BPS - BigInt(spreadBps))) / BPS;
  return Number((shortfall * BPS) / wholeMidOutRaw);
}
