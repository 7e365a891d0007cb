// USD notionals as exact micro-USD: limits configured as dollar strings, order values floored, never a float.
import { describe, expect, test } from 'vitest';
import { formatUsd, INT64_MAX, notionalMicroUsd, parsePrice, parseUsd } from '../../src/money/index.ts';
import { reasonOf } from './fixtures.ts';

describe('parseUsd and formatUsd', () => {
  test('formatUsd is micro-USD with six fraction digits and parseUsd is its inverse', () => {
    expect(parseUsd('250000.5')).toBe(250_000_500_000n);
    expect(formatUsd(250_000_500_000n)).toBe('250000.500000');
    expect(parseUsd(formatUsd(1n))).toBe(1n);
  });

  test('formatUsd writes any sum, negative and beyond int64, exactly', () => {
    expect(formatUsd(-(INT64_MAX + 1n))).toBe('-9223372036854.775808');
  });
});

describe('notionalMicroUsd', () => {
  test('is floored micro-USD of the display value', () => {
    expect(notionalMicroUsd(1_500_000_000n, 9, parsePrice('187.42'))).toBe(281_130_000n);
    expect(notionalMicroUsd(1n, 18, parsePrice('1'))).toBe(0n);
  });

  test('scales by the asset decimals and six USD decimals', () => {
    // 2.5 units of a 3-decimal asset at $4 = $10
    expect(notionalMicroUsd(2_500n, 3, parsePrice('4'))).toBe(10_000_000n);
    // 1 unit of an 18-decimal asset at $0.5 = $0.5
    expect(notionalMicroUsd(10n ** 18n, 18, parsePrice('0.5'))).toBe(500_000n);
  });

  test('a notional of a negative raw amount or of invalid decimals is a programming error', () => {
    expect(() => notionalMicroUsd(-1n, 6, parsePrice('1'))).toThrow(RangeError);
    expect(() => notionalMicroUsd(-1n, 6, parsePrice('1'))).toThrow('raw amount must be >= 0, got -1');
    expect(reasonOf(() => notionalMicroUsd(1n, 19, parsePrice('1')))).toBe('invalid_decimals');
    expect(notionalMicroUsd(0n, 6, parsePrice('1'))).toBe(0n);
  });
});
