// The slippage arithmetic of any aggregator swap the maker makes (a hedge, a just-in-time sourcing step), pure
// and exact (bigint raw units): the least a swap may receive against the live mid, the slippage to ask of the
// aggregator so that the route's on-chain minimum keeps to it, and what a landed swap actually paid.
import type { Ratio } from '../money/ratio.ts';
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
