// The pool's arithmetic as pure bigint functions: the swap the program computes (bit for bit: the tests
// hold this file and programs/amm/amm.c to each other), the quote derived from it, and the swap that moves
// a pool's price to a target (the keeper's arbitrage). Raw units throughout; no floats.

import { BPS, type Ratio } from '../money/ratio.ts';
import type { AmmErrorName } from './errors.ts';

export { BPS, minimumOut, type Ratio } from '../money/ratio.ts';

export const U64_MAX = 2n ** 64n - 1n;

export interface Reserves {
  /** The input vault's balance. */
  reserveIn: bigint;
  /** The output vault's balance. */
  reserveOut: bigint;
}

export type SwapOutcome =
  | {
      ok: true;
      amountIn: bigint;
      amountOut: bigint;
      /** amountIn − what prices the swap; stays in the pool. */
      feeAmount: bigint;
      /** The vaults after the swap. */
      reserveIn: bigint;
      reserveOut: bigint;
    }
  | { ok: false; error: AmmErrorName };

/** floor(amountIn × (10000 − feeBps) / 10000): the fee is rounded up, in the pool's favour. */
export function amountAfterFee(amountIn: bigint, feeBps: number): bigint {
  return (amountIn * (BPS - BigInt(feeBps))) / BPS;
}

/**
 * The program's exact-in swap, with its refusals in its own order for the amount checks (ZeroAmount,
 * InsufficientLiquidity, ArithmeticOverflow, ZeroOutput); min_out is the caller's (see minimumOut).
 */
export function swapExactIn(r: Reserves, amountIn: bigint, feeBps: number): SwapOutcome {
  if (amountIn <= 0n) return { ok: false, error: 'ZeroAmount' };
  if (amountIn > U64_MAX) return { ok: false, error: 'ArithmeticOverflow' };
  if (r.reserveIn === 0n || r.reserveOut === 0n) return { ok: false, error: 'InsufficientLiquidity' };
  if (r.reserveIn > U64_MAX - amountIn) return { ok: false, error: 'ArithmeticOverflow' };
  const effective = amountAfterFee(amountIn, feeBps);
  const amountOut = (r.reserveOut * effective) / (r.reserveIn + effective);
  if (amountOut === 0n) return { ok: false, error: 'ZeroOutput' };
  return {
    ok: true,
    amountIn,
    amountOut,
    feeAmount: amountIn - effective,
    reserveIn: r.reserveIn + amountIn,
    reserveOut: r.reserveOut - amountOut,
  };
}

/**
 * How far the execution price falls short of the pool's spot price, fee excluded, as a decimal fraction
 * with `digits` decimals (Jupiter's priceImpactPct): 1 − (out / effectiveIn) / (reserveOut / reserveIn).
 */
export function priceImpact(
  r: Reserves,
  amountIn: bigint,
  amountOut: bigint,
  feeBps: number,
  digits = 8,
): string {
  const effective = amountAfterFee(amountIn, feeBps);
  if (effective === 0n || r.reserveOut === 0n) return '0';
  const scale = 10n ** BigInt(digits);
  // (effective·reserveOut − out·reserveIn) / (effective·reserveOut), scaled, floored.
  const den = effective * r.reserveOut;
  const num = den - amountOut * r.reserveIn;
  const scaled = num <= 0n ? 0n : (num * scale) / den;
  return fraction(scaled, digits);
}

function fraction(scaled: bigint, digits: number): string {
  const text = scaled.toString().padStart(digits + 1, '0');
  const whole = text.slice(0, -digits);
  const decimals = text.slice(-digits).replace(/0+$/, '');
  return decimals === '' ? whole : `${whole}.${decimals}`;
}

/** The pool's spot price of its input mint, in output raw units per input raw unit. */
export const spotPrice = (r: Reserves): Ratio => ({ num: r.reserveOut, den: r.reserveIn });

/** |a / b − 1| in bps, rounded down. */
export function deviationBps(a: Ratio, b: Ratio): bigint {
  const x = a.num * b.den;
  const y = b.num * a.den;
  if (y === 0n) return U64_MAX;
  // Stryker disable next-line EqualityOperator: at x = y both branches are 0.
  const diff = x > y ? x - y : y - x;
  return (diff * BPS) / y;
}

/**
 * The largest exact-in amount (at most `maxIn`) whose swap leaves the pool's price of the input mint at or
 * above `target` (output raw units per input raw unit), found by bisection over the exact swap; 0n when
 * the price is already at or below it. Selling the input mint lowers its price, so the search is monotone;
 * the result lands the pool within one raw unit of the target, fee included.
 */
export function amountInToReach(r: Reserves, target: Ratio, feeBps: number, maxIn: bigint): bigint {
  const stillAbove = (amountIn: bigint): boolean => {
    const s = swapExactIn(r, amountIn, feeBps);
    // A swap the program would refuse never overshoots; ZeroOutput leaves the price where it was.
    if (!s.ok) return s.error === 'ZeroOutput';
    return s.reserveOut * target.den >= target.num * s.reserveIn;
  };
  if (r.reserveOut * target.den <= target.num * r.reserveIn) return 0n;
  let limit = maxIn;
  if (limit > U64_MAX - r.reserveIn) limit = U64_MAX - r.reserveIn;
  let lo = 0n;
  let hi = limit;
  if (hi <= 0n) return 0n;
  if (stillAbove(hi)) return hi;
  // Invariant: stillAbove(lo) and not stillAbove(hi).
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (stillAbove(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
