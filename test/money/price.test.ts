// Exact prices: positive rationals in lowest terms, and the mulDiv arithmetic that rounds toward the maker.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { dividePrices, formatScaled, mulDivCeil, mulDivFloor, parsePrice } from '../../src/money/index.ts';
import { amountErrorOf, reasonOf } from './fixtures.ts';

describe('parsePrice', () => {
  test('a decimal price is an exact rational in lowest terms', () => {
    expect(parsePrice('187.42')).toEqual({ num: 9371n, den: 50n });
    expect(parsePrice('0.000001')).toEqual({ num: 1n, den: 1_000_000n });
    expect(parsePrice('00100')).toEqual({ num: 100n, den: 1n });
    expect(parsePrice('0.5')).toEqual({ num: 1n, den: 2n });
    expect(parsePrice('2.50')).toEqual({ num: 5n, den: 2n });
  });

  test.each([['0'], ['0.000'], ['-1'], ['1e2'], ['1.'], ['.5'], [' 1'], ['NaN'], ['']])(
    'price %j is refused',
    (text) => {
      expect(reasonOf(() => parsePrice(text))).toMatch(/^(format|zero)$/);
    },
  );

  test('a refused price is named in the message, with why', () => {
    expect(amountErrorOf(() => parsePrice('0.00'))?.message).toBe('price "0.00" must be above zero');
    expect(amountErrorOf(() => parsePrice('1,5'))?.message).toMatch(/^price "1,5" is not a plain decimal/);
  });

  test.prop([fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 30 })])(
    'parsePrice equals digits / 10^fractionDigits',
    (digits, scale) => {
      const s = digits.toString().padStart(scale + 1, '0');
      const text = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
      const p = parsePrice(text);
      expect(p.num * 10n ** BigInt(scale)).toBe(digits * p.den);
    },
  );
});

describe('dividePrices', () => {
  test('dividing USD prices gives the cross mid', () => {
    expect(dividePrices(parsePrice('187.42'), parsePrice('1'))).toEqual(parsePrice('187.42'));
    expect(dividePrices(parsePrice('1'), parsePrice('4'))).toEqual({ num: 1n, den: 4n });
  });

  test('a cross price is reduced to lowest terms', () => {
    // (3/2) / (9/4) = 12/18 = 2/3
    expect(dividePrices({ num: 3n, den: 2n }, { num: 9n, den: 4n })).toEqual({ num: 2n, den: 3n });
  });

  test.prop([fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 12n })])(
    'dividing a price by itself is exactly one',
    (num, den) => {
      expect(dividePrices({ num, den }, { num, den })).toEqual({ num: 1n, den: 1n });
    },
  );
});

describe('mulDivFloor and mulDivCeil', () => {
  test.prop([
    fc.bigInt({ min: 0n, max: 2n ** 128n }),
    fc.bigInt({ min: 0n, max: 2n ** 128n }),
    fc.bigInt({ min: 1n, max: 2n ** 64n }),
  ])('bracket the exact quotient within one unit', (a, b, c) => {
    const lo = mulDivFloor(a, b, c);
    const hi = mulDivCeil(a, b, c);
    expect(lo * c <= a * b && a * b < (lo + 1n) * c).toBe(true);
    expect(hi - lo).toBe((a * b) % c === 0n ? 0n : 1n);
  });

  test.each([
    [-1n, 1n, 1n],
    [1n, -1n, 1n],
    [1n, 1n, -1n],
    [1n, 1n, 0n],
    [0n, 0n, 0n],
  ])('mulDiv(%s, %s, %s) is refused: a, b ≥ 0 and c > 0 only', (a, b, c) => {
    for (const mulDiv of [mulDivFloor, mulDivCeil]) {
      expect(() => mulDiv(a, b, c)).toThrow(RangeError);
      expect(() => mulDiv(a, b, c)).toThrow(/mulDiv needs a, b >= 0 and c > 0/);
    }
  });

  test('zero operands are accepted', () => {
    expect(mulDivFloor(0n, 5n, 3n)).toBe(0n);
    expect(mulDivCeil(5n, 0n, 3n)).toBe(0n);
    expect(mulDivCeil(5n, 1n, 3n)).toBe(2n);
  });
});

describe('formatScaled', () => {
  test.each<[bigint, number, string]>([
    [18_742_000_000n, -8, '187.42000000'],
    [234_100n, -10, '0.0000234100'],
    [-5n, -2, '-0.05'],
    [0n, -3, '0.000'],
    [42n, 0, '42'],
    [42n, 3, '42000'],
  ])('%s at exponent %s is %s', (value, exponent, text) => {
    expect(formatScaled(value, exponent)).toBe(text);
  });

  test.prop([fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.integer({ min: -30, max: 0 })])(
    'its decimal parses back to the same rational',
    (value, exponent) => {
      fc.pre(value > 0n);
      expect(parsePrice(formatScaled(value, exponent))).toEqual(
        dividePrices({ num: value, den: 10n ** BigInt(-exponent) }, { num: 1n, den: 1n }),
      );
    },
  );
});
