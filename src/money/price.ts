// Exact prices: positive rationals of bigints, so a mid like 187.42 is 18742/100 and never a float.

import { splitDecimal } from './amounts.ts';
import { AmountError, quoteText } from './errors.ts';

/** Output display units per input display unit, as num/den with den > 0 (kept in lowest terms). */
export interface Price {
  num: bigint;
  den: bigint;
}

/** Euclid's greatest common divisor, of positive integers (every price here is positive). */
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

function reduced(num: bigint, den: bigint): Price {
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/** Parses a decimal price string ("187.42") exactly. Zero is refused: a zero price would quote nothing. */
export function parsePrice(text: string): Price {
  const { int, frac } = splitDecimal(text, 'price');
  const num = BigInt(int + frac);
  if (num === 0n) throw new AmountError('zero', `price ${quoteText(text)} must be above zero`);
  return reduced(num, 10n ** BigInt(frac.length));
}

/**
 * A price as the store keeps a quote's USD prices: an exact ratio "num/den" (how quotes record them), or a
 * plain decimal (an older record).
 */
export function parseRatio(text: string): Price {
  const [num, den] = text.split('/');
  return num && den ? reduced(BigInt(num), BigInt(den)) : parsePrice(text);
}

/** a / b, e.g. a pair's mid from two USD prices: (USD per input) / (USD per output) = output per input. */
export const dividePrices = (a: Price, b: Price): Price => reduced(a.num * b.den, a.den * b.num);

function assertMulDivArgs(a: bigint, b: bigint, c: bigint): void {
  if (a < 0n || b < 0n || c <= 0n)
    throw new RangeError(`mulDiv needs a, b >= 0 and c > 0 (got ${a}, ${b}, ${c})`);
}

/** floor(a·b / c) for a, b >= 0, c > 0: exact at any size (bigint), rounding toward the maker. */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  assertMulDivArgs(a, b, c);
  return (a * b) / c;
}

/** ceil(a·b / c) for a, b >= 0, c > 0. */
export function mulDivCeil(a: bigint, b: bigint, c: bigint): bigint {
  assertMulDivArgs(a, b, c);
  return (a * b + c - 1n) / c;
}

/**
 * value × 10^exponent as an exact decimal string ("18742000000", -8 → "187.42000000"): the fraction keeps
 * every digit the exponent gives (an oracle's integer prices at their exponent), any size, either sign.
 */
export function formatScaled(value: bigint, exponent: number): string {
  if (!Number.isInteger(exponent)) throw new RangeError(`exponent must be an integer, got ${exponent}`);
  if (exponent >= 0) return (value * 10n ** BigInt(exponent)).toString();
  const places = -exponent;
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString().padStart(places + 1, '0');
  return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}
