// USD notionals as exact integers of micro-USD: risk limits are configured in USD decimal strings and
// compared against order values without a float in sight.

import { assertDecimals, formatDecimal, parseAmount } from './amounts.ts';
import type { Price } from './price.ts';

export const USD_DECIMALS = 6;

/** A configured USD limit ("250000.50") in micro-USD. */
export const parseUsd = (text: string): bigint => parseAmount(text, USD_DECIMALS);

/** Micro-USD as a dollar string with 6 fraction digits; any size, since notionals may exceed int64. */
export const formatUsd = (microUsd: bigint): string => formatDecimal(microUsd, USD_DECIMALS);

/**
 * Value in micro-USD of `raw` units of an asset with `decimals`, at `usdPrice` (USD per display
 * unit), floored: an order just under a limit by a fraction of a micro-dollar counts as under it.
 */
export function notionalMicroUsd(raw: bigint, decimals: number, usdPrice: Price): bigint {
  assertDecimals(decimals);
  if (raw < 0n) throw new RangeError(`raw amount must be >= 0, got ${raw}`);
  return (raw * usdPrice.num * 10n ** BigInt(USD_DECIMALS)) / (usdPrice.den * 10n ** BigInt(decimals));
}
