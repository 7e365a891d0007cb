// Pricing refuses what it cannot price exactly: every argument guard at its boundary, with its message.
import { describe, expect, test } from 'vitest';
import { AmountError, INT64_MAX } from '../../src/money/index.ts';
import {
  midOutputRaw,
  outputAtSpread,
  priceQuote,
  type QuotePricingInput,
} from '../../src/quotes/pricing.ts';

const base: QuotePricingInput = {
  inputRaw: 1_000_000_000n,
  inputDecimals: 9,
  outputDecimals: 6,
  mid: { num: 18742n, den: 100n },
  baseSpreadBps: 10,
};
const quote = (change: Partial<QuotePricingInput>) => () => priceQuote({ ...base, ...change });

describe('pricing guards', () => {
  test.each([-1, 10_001, 1.5, Number.NaN])('a base spread of %s bps is refused', (bps) => {
    expect(quote({ baseSpreadBps: bps })).toThrow(
      new RangeError(`baseSpreadBps must be an integer 0..10000, got ${bps}`),
    );
  });

  test('spreads of exactly 0 and 10000 bps are accepted', () => {
    expect(priceQuote({ ...base, baseSpreadBps: 0 }).spreadBps).toBe(0);
    expect(priceQuote({ ...base, baseSpreadBps: 10_000 })).toEqual({ outputRaw: 0n, spreadBps: 10_000 });
  });

  test.each([-1, 19, 2.5])('decimals of %s are refused on either side', (d) => {
    expect(quote({ inputDecimals: d })).toThrow(new RangeError(`decimals must be 0..18, got ${d}`));
    expect(quote({ outputDecimals: d })).toThrow(new RangeError(`decimals must be 0..18, got ${d}`));
  });

  test('decimals 0 and 18 are accepted', () => {
    expect(() => priceQuote({ ...base, inputDecimals: 18, outputDecimals: 0, inputRaw: 1n })).not.toThrow();
    expect(() => priceQuote({ ...base, inputDecimals: 0, outputDecimals: 0, inputRaw: 1n })).not.toThrow();
  });

  test.each([
    [0n, 1n],
    [1n, 0n],
    [-1n, 1n],
    [1n, -1n],
  ])('a mid of %s/%s is refused', (num, den) => {
    expect(quote({ mid: { num, den } })).toThrow(
      new RangeError(`mid must be a positive rational, got ${num}/${den}`),
    );
  });

  test('inputs outside 0..int64 are refused as out of range; the bounds themselves are priced', () => {
    for (const inputRaw of [-1n, INT64_MAX + 1n]) {
      expect(quote({ inputRaw })).toThrow(AmountError);
      expect(quote({ inputRaw })).toThrow(`input ${inputRaw} is outside 0..${INT64_MAX}`);
      expect(quote({ inputRaw })).toThrow(expect.objectContaining({ reason: 'out_of_range' }));
    }
    expect(priceQuote({ ...base, inputRaw: 0n })).toEqual({ outputRaw: 0n, spreadBps: 10 });
    expect(() => priceQuote({ ...base, inputRaw: INT64_MAX, outputDecimals: 0 })).not.toThrow();
  });

  test('an output of exactly the int64 maximum is quoted; one raw unit more is out of range', () => {
    const unit = { inputDecimals: 0, outputDecimals: 0, baseSpreadBps: 0 };
    expect(priceQuote({ ...unit, inputRaw: INT64_MAX, mid: { num: 1n, den: 1n } }).outputRaw).toBe(INT64_MAX);
    const over = () =>
      priceQuote({ ...unit, inputRaw: INT64_MAX, mid: { num: INT64_MAX + 1n, den: INT64_MAX } });
    expect(over).toThrow(`quoted output ${INT64_MAX + 1n} raw exceeds the int64 maximum ${INT64_MAX}`);
    expect(over).toThrow(expect.objectContaining({ reason: 'out_of_range' }));
  });

  test('size and skew caps are checked, alone and summed with the base spread', () => {
    expect(quote({ sizeSpread: { maxBps: 10_001, halfSizeRaw: 1n } })).toThrow(
      'sizeSpread.maxBps must be an integer',
    );
    expect(quote({ inventorySkew: { maxBps: -1, freeShareBps: 0, availableOutputRaw: 1n } })).toThrow(
      'inventorySkew.maxBps must be an integer',
    );
    expect(
      quote({
        baseSpreadBps: 5_000,
        sizeSpread: { maxBps: 3_000, halfSizeRaw: 1n },
        inventorySkew: { maxBps: 2_001, freeShareBps: 0, availableOutputRaw: 1n },
      }),
    ).toThrow('base + size + skew spread caps must not exceed 10000 bps');
    expect(
      quote({
        baseSpreadBps: 5_000,
        sizeSpread: { maxBps: 3_000, halfSizeRaw: 1n },
        inventorySkew: { maxBps: 2_000, freeShareBps: 0, availableOutputRaw: 1n },
      }),
    ).not.toThrow();
  });

  test('a size term needs a positive half size; the skew term a free share within 0..10000', () => {
    expect(quote({ sizeSpread: { maxBps: 10, halfSizeRaw: 0n } })).toThrow(
      'sizeSpread.halfSizeRaw must be > 0',
    );
    expect(quote({ inventorySkew: { maxBps: 10, freeShareBps: 10_001, availableOutputRaw: 1n } })).toThrow(
      'inventorySkew.freeShareBps must be an integer 0..10000',
    );
  });

  test('the size term is zero for an empty order and grows with size', () => {
    const size = { maxBps: 100, halfSizeRaw: 1_000_000_000n };
    expect(priceQuote({ ...base, inputRaw: 0n, sizeSpread: size }).spreadBps).toBe(10);
    // An order of the half size pays half the cap: 10 + 50 bps.
    expect(priceQuote({ ...base, sizeSpread: size }).spreadBps).toBe(60);
  });

  test('the skew term is zero while the order takes at most the free share, then grows', () => {
    const output = midOutputRaw(base.inputRaw, 9, 6, base.mid); // 187.42 USDC
    const ample = { maxBps: 100, freeShareBps: 1_000, availableOutputRaw: output * 10n };
    expect(priceQuote({ ...base, inventorySkew: ample }).spreadBps).toBe(10);
    const tight = { ...ample, availableOutputRaw: output };
    expect(priceQuote({ ...base, inventorySkew: tight }).spreadBps).toBeGreaterThan(10);
    // No inventory at all: the whole order is excess and the skew takes (almost) the whole cap.
    expect(priceQuote({ ...base, inventorySkew: { ...ample, availableOutputRaw: 0n } }).spreadBps).toBe(110);
  });

  test('outputAtSpread checks its spread too', () => {
    expect(() => outputAtSpread(1n, 0, 0, { num: 1n, den: 1n }, 10_001)).toThrow(
      'spreadBps must be an integer',
    );
    expect(outputAtSpread(10_000n, 0, 0, { num: 1n, den: 1n }, 1)).toBe(9_999n);
  });
});
