import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  AmountError,
  amountView,
  dividePrices,
  formatAmount,
  INT64_MAX,
  isInt64Raw,
  mulDivCeil,
  mulDivFloor,
  notionalMicroUsd,
  parseAmount,
  parsePrice,
  parseUsd,
} from '../../src/money/index.ts';

const decimalsArb = fc.integer({ min: 0, max: 18 });
const rawArb = fc.bigInt({ min: 0n, max: INT64_MAX });

const reasonOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (error) {
    if (error instanceof AmountError) return error.reason;
    throw error;
  }
  return undefined;
};

describe('parseAmount and formatAmount', () => {
  test.prop([rawArb, decimalsArb])('every int64 raw amount survives format then parse', (raw, decimals) => {
    expect(parseAmount(formatAmount(raw, decimals), decimals)).toBe(raw);
  });

  test.prop([fc.stringMatching(/^[0-9]{1,19}(\.[0-9]{1,18})?$/), decimalsArb])(
    'a parsed amount formats to its canonical form: no leading zeros, fraction padded to the decimals',
    (text, decimals) => {
      let raw: bigint;
      try {
        raw = parseAmount(text, decimals);
      } catch (error) {
        expect(error).toBeInstanceOf(AmountError);
        return;
      }
      const [int = '', frac = ''] = text.split('.');
      const canonicalInt = int.replace(/^0+(?=.)/, '');
      const expected = decimals === 0 ? canonicalInt : `${canonicalInt}.${frac.padEnd(decimals, '0')}`;
      expect(formatAmount(raw, decimals)).toBe(expected);
    },
  );

  test('formats with exactly `decimals` fraction digits and no dot at 0 decimals', () => {
    expect(formatAmount(1_500_000n, 6)).toBe('1.500000');
    expect(formatAmount(1n, 9)).toBe('0.000000001');
    expect(formatAmount(0n, 6)).toBe('0.000000');
    expect(formatAmount(42n, 0)).toBe('42');
    expect(formatAmount(0n, 0)).toBe('0');
  });

  test('leading zeros and zero itself parse', () => {
    expect(parseAmount('007.5', 2)).toBe(750n);
    expect(parseAmount('0', 6)).toBe(0n);
    expect(parseAmount('0.000', 3)).toBe(0n);
    expect(parseAmount(`${'0'.repeat(10_000)}1`, 0)).toBe(1n);
  });

  test('int64 max parses at every decimals and one raw unit more is out of range', () => {
    for (let d = 0; d <= 18; d++) {
      const max = formatAmount(INT64_MAX, d);
      expect(parseAmount(max, d)).toBe(INT64_MAX);
      const plusOne = (INT64_MAX + 1n).toString().padStart(d + 1, '0');
      const text = d === 0 ? plusOne : `${plusOne.slice(0, -d)}.${plusOne.slice(-d)}`;
      expect(reasonOf(() => parseAmount(text, d))).toBe('out_of_range');
    }
    expect(reasonOf(() => parseAmount('9'.repeat(500), 6))).toBe('out_of_range');
  });

  test('18-decimal edges: one raw unit, and the largest whole amount that fits', () => {
    expect(parseAmount('0.000000000000000001', 18)).toBe(1n);
    expect(formatAmount(1n, 18)).toBe('0.000000000000000001');
    expect(parseAmount('9.223372036854775807', 18)).toBe(INT64_MAX);
    expect(reasonOf(() => parseAmount('10', 18))).toBe('out_of_range');
  });

  test.prop([decimalsArb, fc.integer({ min: 1, max: 5 }), fc.constantFrom('0', '5', '9')])(
    'more fraction digits than the asset has are refused, even zeros: never rounded',
    (decimals, extra, digit) => {
      const text = `1.${digit.repeat(decimals + extra)}`;
      expect(reasonOf(() => parseAmount(text, decimals))).toBe('too_many_decimals');
    },
  );

  test.each([
    [''],
    ['.'],
    ['1.'],
    ['.5'],
    ['+1'],
    ['-1'],
    ['-0'],
    ['1e3'],
    ['1E3'],
    ['1.5e2'],
    ['0x10'],
    ['1_000'],
    ['1,000'],
    ['1,5'],
    [' 1'],
    ['1 '],
    ['1 000'],
    ['\t1'],
    ['1\n'],
    ['1\u00a0'],
    ['\u20031'],
    ['1\u200b0'],
    ['１'],
    ['١٢'],
    ['Infinity'],
    ['NaN'],
    ['1..2'],
    ['1.2.3'],
  ])('%j is not an amount', (text) => {
    expect(reasonOf(() => parseAmount(text, 6))).toBe('format');
  });

  test.prop([
    fc.stringMatching(/^[0-9]{1,6}\.[0-9]{1,3}$/),
    fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2009', '\ufeff'),
    fc.nat(),
  ])('whitespace anywhere in an amount is refused', (text, space, at) => {
    const i = at % (text.length + 1);
    expect(reasonOf(() => parseAmount(text.slice(0, i) + space + text.slice(i), 6))).toBe('format');
  });

  test('decimals outside 0..18 are a programming error, reported as such', () => {
    expect(reasonOf(() => parseAmount('1', 19))).toBe('invalid_decimals');
    expect(reasonOf(() => formatAmount(1n, -1))).toBe('invalid_decimals');
    expect(reasonOf(() => formatAmount(1n, 1.5))).toBe('invalid_decimals');
  });

  test('formatAmount refuses raw amounts outside 0..int64 max', () => {
    expect(reasonOf(() => formatAmount(-1n, 6))).toBe('out_of_range');
    expect(reasonOf(() => formatAmount(INT64_MAX + 1n, 6))).toBe('out_of_range');
    expect(isInt64Raw(INT64_MAX)).toBe(true);
    expect(isInt64Raw(INT64_MAX + 1n)).toBe(false);
    expect(isInt64Raw(-1n)).toBe(false);
  });

  test('error messages are human and name the limit', () => {
    expect(() => parseAmount('1.234', 2)).toThrow(/3 fraction digits; this asset allows at most 2/);
  });
});

describe('amountView', () => {
  test('matches the interface AmountView with amount_raw as an exact string above 2^53', () => {
    expect(amountView(INT64_MAX, { symbol: 'USDC', decimals: 6, mint: 'Mint111' })).toEqual({
      asset: 'USDC',
      amount: '9223372036854.775807',
      amount_raw: '9223372036854775807',
      decimals: 6,
      mint: 'Mint111',
    });
    expect(amountView(5n, { symbol: 'X', decimals: 0 })).toEqual({
      asset: 'X',
      amount: '5',
      amount_raw: '5',
      decimals: 0,
    });
  });
});

describe('prices', () => {
  test('a decimal price is an exact rational in lowest terms', () => {
    expect(parsePrice('187.42')).toEqual({ num: 9371n, den: 50n });
    expect(parsePrice('0.000001')).toEqual({ num: 1n, den: 1_000_000n });
    expect(parsePrice('00100')).toEqual({ num: 100n, den: 1n });
  });

  test.each([['0'], ['0.000'], ['-1'], ['1e2'], ['1.'], ['.5'], [' 1'], ['NaN'], ['']])(
    'price %j is refused',
    (text) => {
      expect(reasonOf(() => parsePrice(text))).toMatch(/^(format|zero)$/);
    },
  );

  test.prop([fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 30 })])(
    'parsePrice equals digits / 10^fractionDigits',
    (digits, scale) => {
      const s = digits.toString().padStart(scale + 1, '0');
      const text = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
      const p = parsePrice(text);
      expect(p.num * 10n ** BigInt(scale)).toBe(digits * p.den);
    },
  );

  test('dividing USD prices gives the cross mid', () => {
    expect(dividePrices(parsePrice('187.42'), parsePrice('1'))).toEqual(parsePrice('187.42'));
    expect(dividePrices(parsePrice('1'), parsePrice('4'))).toEqual({ num: 1n, den: 4n });
  });

  test.prop([
    fc.bigInt({ min: 0n, max: 2n ** 128n }),
    fc.bigInt({ min: 0n, max: 2n ** 128n }),
    fc.bigInt({ min: 1n, max: 2n ** 64n }),
  ])('mulDivFloor and mulDivCeil bracket the exact quotient within one unit', (a, b, c) => {
    const lo = mulDivFloor(a, b, c);
    const hi = mulDivCeil(a, b, c);
    expect(lo * c <= a * b && a * b < (lo + 1n) * c).toBe(true);
    expect(hi - lo).toBe((a * b) % c === 0n ? 0n : 1n);
  });

  test('mulDiv refuses a zero divisor', () => {
    expect(() => mulDivFloor(1n, 1n, 0n)).toThrow(RangeError);
  });
});

describe('USD notional', () => {
  test('is floored micro-USD of the display value', () => {
    expect(notionalMicroUsd(1_500_000_000n, 9, parsePrice('187.42'))).toBe(281_130_000n);
    expect(notionalMicroUsd(1n, 18, parsePrice('1'))).toBe(0n);
    expect(parseUsd('250000.5')).toBe(250_000_500_000n);
  });
});
