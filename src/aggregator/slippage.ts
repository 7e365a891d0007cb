// The slippage arithmetic of any aggregator swap the maker makes (a hedge, a just-in-time sourcing step), pure
// and exact (bigint raw units): the least a swap may receive against the live mid, the slippage to ask of the
// aggregator so that the route's on-chain minimum keeps to it, and what a landed swap actually paid.
import { minimumOut, type Ratio } from '../money/ratio.ts';
import { floorOut } from './checks.ts';

const BPS = 10_000n;
// Stryker disable next-line EqualityOperator: when a = b either branch is the same value.
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

/**
 * The least a maker swap may accept on chain: the route's quoted out less `toleranceBps` — what a sandwich
 * can take from it — never below any of `floors` (the live mid less the slippage limit; what a trade owes
 * its taker). null when the route itself pays less than a floor: no swap then.
 */
export function swapMinimum(
  routeOutRaw: bigint,
  toleranceBps: number,
  floors: readonly bigint[],
): bigint | null {
  let floor = 0n;
  for (const f of floors) if (f > floor) floor = f;
  if (routeOutRaw <= 0n || routeOutRaw < floor) return null;
  const tight = minimumOut(routeOutRaw, toleranceBps);
  if (tight < floor) return floor;
  return tight;
}

/** The custom error codes a swap program fails with when its minimum out is not met. */
const SLIPPAGE_ERRORS = [
  0x1786, // the embedded AMM's SlippageExceeded (src/venue/errors.ts)
  6001, // Jupiter v6's SlippageToleranceExceeded
];

/**
 * Whether a swap that failed on chain failed for its minimum out (the route moved, or someone moved it):
 * read from the failed instruction's custom error, as the chain port renders it (`Custom(6022)`).
 */
export function failedForSlippage(err: string): boolean {
  const custom = /Custom\((\d+)\)/.exec(err);
  return custom !== null && SLIPPAGE_ERRORS.includes(Number(custom[1]));
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
