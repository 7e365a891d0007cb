// Token amounts: display strings <-> raw units, exact, int64-bounded, one canonical shape.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  AmountError,
  amountView,
  formatAmount,
  formatDecimal,
  INT64_MAX,
  isInt64Raw,
  parseAmount,
} from '../../src/money/index.ts';
import { amountErrorOf, reasonOf } from './fixtures.ts';

const decimalsArb = fc.integer({ min: 0, max: 18 });
const rawArb = fc.bigInt({ min: 0n, max: INT64_MAX });

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

  test('raw amounts are 0..int64 max, both ends included: formatAmount refuses the rest', () => {
    expect(reasonOf(() => formatAmount(-1n, 6))).toBe('out_of_range');
    expect(reasonOf(() => formatAmount(INT64_MAX + 1n, 6))).toBe('out_of_range');
    expect(isInt64Raw(0n)).toBe(true);
    expect(isInt64Raw(INT64_MAX)).toBe(true);
    expect(isInt64Raw(INT64_MAX + 1n)).toBe(false);
    expect(isInt64Raw(-1n)).toBe(false);
  });

  test('each refusal names the value and the limit it broke', () => {
    expect(amountErrorOf(() => parseAmount('1.234', 2))?.message).toBe(
      'amount "1.234" has 3 fraction digits; this asset allows at most 2',
    );
    expect(amountErrorOf(() => parseAmount('10', 18))?.message).toBe(
      'amount "10" is above the largest amount (9.223372036854775807)',
    );
    expect(amountErrorOf(() => formatAmount(1n, 19))?.message).toBe(
      'decimals must be an integer 0..18, got 19',
    );
    expect(amountErrorOf(() => formatAmount(-1n, 6))?.message).toBe(
      `raw amount -1 is outside 0..${INT64_MAX}`,
    );
  });
});

describe('formatDecimal: any integer, signed, for sums and messages', () => {
  test('negative values keep their digits and carry one leading minus', () => {
    expect(formatDecimal(-1n, 6)).toBe('-0.000001');
    expect(formatDecimal(-1_500_000n, 6)).toBe('-1.500000');
    expect(formatDecimal(-42n, 0)).toBe('-42');
    expect(formatDecimal(0n, 2)).toBe('0.00');
  });

  test('values beyond int64 are written exactly', () => {
    expect(formatDecimal(INT64_MAX * 10n + 3n, 1)).toBe(`${INT64_MAX}.3`);
  });

  test.prop([fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), fc.integer({ min: 0, max: 18 })])(
    'the minus sign is the only difference between v and −v',
    (value, decimals) => {
      const abs = value < 0n ? -value : value;
      const expected = (value < 0n ? '-' : '') + formatDecimal(abs, decimals);
      expect(formatDecimal(value, decimals)).toBe(expected);
      expect(
        formatDecimal(abs, decimals)
          .replace('.', '')
          .replace(/^0+(?=.)/, ''),
      ).toBe(abs.toString());
    },
  );
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

  test('an asset without a mint renders no mint key at all', () => {
    const view = amountView(5n, { symbol: 'X', decimals: 0 });
    expect(Object.keys(view)).toEqual(['asset', 'amount', 'amount_raw', 'decimals']);
  });

  test('zero renders like any other amount', () => {
    expect(amountView(0n, { symbol: 'USDC', decimals: 6 }).amount).toBe('0.000000');
  });
});
