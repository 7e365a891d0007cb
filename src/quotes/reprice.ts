// The maker's last look before it commits: the trade re-priced from the current price snapshot just before
// the maker lock. A quote is firm for the taker; the maker's output leaves only if the market has not moved
// against it by more than a tolerance since the quote (or the prices are no longer usable) — otherwise it
// declines, and the taker's escrow goes back at once instead of at its expiry. Pure: prices come in.
import type { PriceCheck } from '../../machines/index.ts';
import { dividePrices, formatDecimal, type Price, parseRatio } from '../money/index.ts';

export interface RepriceInput {
  /** USD per display unit of each side at quote time, as the quote record keeps them ("num/den"). */
  quotedUsd: { input: string; output: string };
  /** USD per display unit now, when each side's price is usable (fresh, not wide, not deviating); else null. */
  currentUsd: { input: Price | null; output: Price | null };
  toleranceBps: number;
}

const BPS = 10_000n;
/** Mids are shown with this many decimals in the trade's events (exact values stay rationals). */
const SHOWN_DECIMALS = 12;

/** A positive rational as a decimal string, floored at SHOWN_DECIMALS. */
const shown = (p: Price) => formatDecimal((p.num * 10n ** BigInt(SHOWN_DECIMALS)) / p.den, SHOWN_DECIMALS);

/**
 * mid = input USD / output USD (output per input). The market moved against the maker when the mid fell:
 * its output buys more input than at quote time. moved_bps = ceil((mid_q − mid_n) / mid_q × 10,000), negative
 * when the mid rose; the check holds while moved_bps ≤ tolerance.
 */
export function repriceCheck(input: RepriceInput): PriceCheck {
  const quoted = dividePrices(parseRatio(input.quotedUsd.input), parseRatio(input.quotedUsd.output));
  const quotedMid = shown(quoted);
  const { input: nowIn, output: nowOut } = input.currentUsd;
  if (nowIn === null || nowOut === null) {
    return {
      holds: false,
      reason: 'price_unavailable',
      quotedMid,
      currentMid: null,
      movedBps: null,
      toleranceBps: input.toleranceBps,
    };
  }
  const current = dividePrices(nowIn, nowOut);
  // (q − n) / q = 1 − n/q, as num/den: (q.num·n.den − n.num·q.den) / (q.num·n.den).
  const diff = quoted.num * current.den - current.num * quoted.den;
  const base = quoted.num * current.den;
  const scaled = diff * BPS;
  // Stryker disable next-line EqualityOperator: at scaled = 0 both roundings are 0 (base > 0).
  const movedBps = Number(scaled >= 0n ? (scaled + base - 1n) / base : scaled / base);
  const holds = movedBps <= input.toleranceBps;
  return {
    holds,
    reason: holds ? null : 'price_moved',
    quotedMid,
    currentMid: shown(current),
    movedBps,
    toleranceBps: input.toleranceBps,
  };
}
