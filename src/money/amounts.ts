// Token amounts: decimal display strings <-> raw integer units (bigint), exact and int64-bounded, as
// the interface's AmountView and TokenAmount fields require (docs/interface.md).

import { AmountError, quoteText } from './errors.ts';

/** Largest raw amount the interface can carry (int64 fields). */
export const INT64_MAX = 9_223_372_036_854_775_807n;
export const MAX_DECIMALS = 18;

// ASCII digits only: `\d` would be ASCII too without the `u` flag, but spelling it out makes it plain
// that fullwidth or Arabic-Indic digits never parse. No sign, exponent, whitespace, separators, and
// no bare leading or trailing dot ("1." and ".5" are refused: one canonical shape, easy to explain).
const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

export const isInt64Raw = (raw: bigint): boolean => raw >= 0n && raw <= INT64_MAX;

export function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new AmountError(
      'invalid_decimals',
      `decimals must be an integer 0..${MAX_DECIMALS}, got ${decimals}`,
    );
  }
}

/** Splits a strict decimal string into integer and fraction digits, or throws a 'format' AmountError. */
export function splitDecimal(text: string, what: string): { int: string; frac: string } {
  const match = DECIMAL.exec(text);
  if (match === null) {
    throw new AmountError(
      'format',
      `${what} ${quoteText(text)} is not a plain decimal number (digits, optionally a dot and more digits)`,
    );
  }
  // Leading zeros are harmless ("007.5"); stripping them also keeps BigInt() from chewing on a huge
  // all-zero string.
  return { int: (match[1] ?? '').replace(/^0+(?=.)/, ''), frac: match[2] ?? '' };
}

/**
 * Parses a client amount in display units into raw units. Never rounds: more fraction digits than
 * the asset has is an error, even trailing zeros, so what the taker typed is exactly what is quoted.
 * Zero parses; whether zero is acceptable is the caller's rule.
 */
export function parseAmount(text: string, decimals: number): bigint {
  assertDecimals(decimals);
  const { int, frac } = splitDecimal(text, 'amount');
  if (frac.length > decimals) {
    throw new AmountError(
      'too_many_decimals',
      `amount ${quoteText(text)} has ${frac.length} fraction digits; this asset allows at most ${decimals}`,
    );
  }
  const raw = BigInt(int + frac.padEnd(decimals, '0'));
  if (raw > INT64_MAX) {
    throw new AmountError(
      'out_of_range',
      `amount ${quoteText(text)} is above the largest amount (${formatAmount(INT64_MAX, decimals)})`,
    );
  }
  return raw;
}

/**
 * Renders any integer as a decimal with exactly `decimals` fraction digits (no dot when 0). For
 * messages and sums that may leave int64; API amount fields use formatAmount.
 */
export function formatDecimal(value: bigint, decimals: number): string {
  assertDecimals(decimals);
  const negative = value < 0n;
  const sign = negative ? '-' : '';
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  if (decimals === 0) return sign + digits;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** The canonical display form of a raw amount: parseAmount(formatAmount(r, d), d) === r. */
export function formatAmount(raw: bigint, decimals: number): string {
  if (!isInt64Raw(raw)) {
    throw new AmountError('out_of_range', `raw amount ${raw} is outside 0..${INT64_MAX}`);
  }
  return formatDecimal(raw, decimals);
}

export interface AssetRef {
  symbol: string;
  decimals: number;
  mint?: string;
}

/** The interface's AmountView (docs/interface.md): amount_raw is a string so int64 values survive JSON exactly. */
export interface AmountView {
  asset: string;
  amount: string;
  amount_raw: string;
  decimals: number;
  mint?: string;
}

export function amountView(raw: bigint, asset: AssetRef): AmountView {
  const view: AmountView = {
    asset: asset.symbol,
    amount: formatAmount(raw, asset.decimals),
    amount_raw: raw.toString(),
    decimals: asset.decimals,
  };
  if (asset.mint !== undefined) view.mint = asset.mint;
  return view;
}
