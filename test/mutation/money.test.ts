// Money core behaviours the main suite leaves implicit, stated where mutation testing showed a change to
// the code would go unnoticed: error vocabulary and messages, signed decimals, argument guards.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  AMOUNT_ERROR_REASONS,
  AmountError,
  amountView,
  dividePrices,
  formatAmount,
  formatDecimal,
  INT64_MAX,
  isInt64Raw,
  mulDivCeil,
  mulDivFloor,
  notionalMicroUsd,
  parseAmount,
  parsePrice,
} from '../../src/money/index.ts';
import { formatUsd, parseUsd } from '../../src/money/usd.ts';

const errorOf = (f: () => unknown): AmountError => {
  try {
    f();
  } catch (error) {
    if (error instanceof AmountError) return error;
    throw error;
  }
  throw new Error('expected an AmountError');
};

describe('AmountError', () => {
  test('is an Error named AmountError, so logs and the HTTP layer can tell it apart', () => {
    const error = errorOf(() => parseAmount('x', 6));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AmountError');
    expect(String(error)).toMatch(/^AmountError: /);
  });

  test('AMOUNT_ERROR_REASONS is exactly the set of reasons money code throws', () => {
    const thrown = new Set([
      errorOf(() => parseAmount('1e3', 6)).reason,
      errorOf(() => parseAmount('1.5', 0)).reason,
      errorOf(() => parseAmount('9'.repeat(30), 0)).reason,
      errorOf(() => parsePrice('0')).reason,
      errorOf(() => formatAmount(1n, 19)).reason,
    ]);
    expect(new Set(AMOUNT_ERROR_REASONS)).toEqual(thrown);
    expect(AMOUNT_ERROR_REASONS).toHaveLength(thrown.size);
  });
});

describe('error messages quote client text, but never much of it', () => {
  test('text of up to 40 characters is quoted whole, as JSON', () => {
    const text = 'a'.repeat(40);
    expect(errorOf(() => parseAmount(text, 6)).message).toBe(
      `amount "${text}" is not a plain decimal number (digits, optionally a dot and more digits)`,
    );
  });

  test('longer text is cut to its first 40 characters and an ellipsis', () => {
    const message = errorOf(() => parseAmount(`${'b'.repeat(40)}${'z'.repeat(10_000)}`, 6)).message;
    expect(message).toContain(`"${'b'.repeat(40)}…"`);
    expect(message).not.toContain('z');
  });

  test('each refusal names the value and the limit it broke', () => {
    expect(errorOf(() => parseAmount('1.234', 2)).message).toBe(
      'amount "1.234" has 3 fraction digits; this asset allows at most 2',
    );
    expect(errorOf(() => parseAmount('10', 18)).message).toBe(
      'amount "10" is above the largest amount (9.223372036854775807)',
    );
    expect(errorOf(() => parsePrice('0.00')).message).toBe('price "0.00" must be above zero');
    expect(errorOf(() => parsePrice('1,5')).message).toMatch(/^price "1,5" is not a plain decimal/);
    expect(errorOf(() => formatAmount(1n, 19)).message).toBe('decimals must be an integer 0..18, got 19');
    expect(errorOf(() => formatAmount(-1n, 6)).message).toBe(`raw amount -1 is outside 0..${INT64_MAX}`);
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
    expect(formatUsd(-(INT64_MAX + 1n))).toBe('-9223372036854.775808');
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

  test('formatUsd is micro-USD with six fraction digits and parseUsd is its inverse', () => {
    expect(formatUsd(250_000_500_000n)).toBe('250000.500000');
    expect(parseUsd(formatUsd(1n))).toBe(1n);
  });
});

describe('amountView', () => {
  test('an asset without a mint renders no mint key at all', () => {
    const view = amountView(5n, { symbol: 'X', decimals: 0 });
    expect(Object.keys(view)).toEqual(['asset', 'amount', 'amount_raw', 'decimals']);
  });

  test('zero is an int64 raw amount', () => {
    expect(isInt64Raw(0n)).toBe(true);
    expect(amountView(0n, { symbol: 'USDC', decimals: 6 }).amount).toBe('0.000000');
  });
});

describe('prices stay in lowest terms', () => {
  test('a cross price is reduced', () => {
    // (3/2) / (9/4) = 12/18 = 2/3
    expect(dividePrices({ num: 3n, den: 2n }, { num: 9n, den: 4n })).toEqual({ num: 2n, den: 3n });
    expect(parsePrice('0.5')).toEqual({ num: 1n, den: 2n });
    expect(parsePrice('2.50')).toEqual({ num: 5n, den: 2n });
  });

  test.prop([fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 12n })])(
    'dividing a price by itself is exactly one',
    (num, den) => {
      expect(dividePrices({ num, den }, { num, den })).toEqual({ num: 1n, den: 1n });
    },
  );
});

describe('argument guards of the exact arithmetic', () => {
  test.each([
    [-1n, 1n, 1n],
    [1n, -1n, 1n],
    [1n, 1n, -1n],
    [0n, 0n, 0n],
  ])('mulDiv(%s, %s, %s) is refused: a, b ≥ 0 and c > 0 only', (a, b, c) => {
    expect(() => mulDivFloor(a, b, c)).toThrow(/mulDiv needs a, b >= 0 and c > 0/);
    expect(() => mulDivCeil(a, b, c)).toThrow(/mulDiv needs a, b >= 0 and c > 0/);
  });

  test('mulDiv accepts zero operands', () => {
    expect(mulDivFloor(0n, 5n, 3n)).toBe(0n);
    expect(mulDivCeil(5n, 0n, 3n)).toBe(0n);
    expect(mulDivCeil(5n, 1n, 3n)).toBe(2n);
  });

  test('a notional of a negative raw amount or of invalid decimals is a programming error', () => {
    expect(() => notionalMicroUsd(-1n, 6, parsePrice('1'))).toThrow(RangeError);
    expect(() => notionalMicroUsd(-1n, 6, parsePrice('1'))).toThrow('raw amount must be >= 0, got -1');
    expect(errorOf(() => notionalMicroUsd(1n, 19, parsePrice('1'))).reason).toBe('invalid_decimals');
    expect(notionalMicroUsd(0n, 6, parsePrice('1'))).toBe(0n);
  });

  test('notional scales by the asset decimals and six USD decimals', () => {
    // 2.5 units of a 3-decimal asset at $4 = $10
    expect(notionalMicroUsd(2_500n, 3, parsePrice('4'))).toBe(10_000_000n);
    // 1 unit of an 18-decimal asset at $0.5 = $0.5
    expect(notionalMicroUsd(10n ** 18n, 18, parsePrice('0.5'))).toBe(500_000n);
  });
});
