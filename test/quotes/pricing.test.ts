import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { AmountError, INT64_MAX, type Price, parsePrice } from '../../src/money/index.ts';
import {
  midOutputRaw,
  outputAtSpread,
  priceQuote,
  type QuotePricingInput,
} from '../../src/quotes/pricing.ts';

// --- a slow reference: normalised rationals, display units, a different order of operations ---------

type Q = { n: bigint; d: bigint };
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
const q = (n: bigint, d = 1n): Q => {
  const g = gcd(n, d) || 1n;
  return d < 0n ? { n: -n / g, d: -d / g } : { n: n / g, d: d / g };
};
const add = (a: Q, b: Q) => q(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Q, b: Q) => q(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Q, b: Q) => q(a.n * b.n, a.d * b.d);
const div = (a: Q, b: Q) => q(a.n * b.d, a.d * b.n);
const floorQ = (a: Q) => {
  // Floor by halving search rather than by bigint division, so the reference shares no rounding code.
  let lo = 0n;
  let hi = 1n;
  while (hi * a.d <= a.n) hi *= 2n;
  while (hi - lo > 1n) {
    const m = (lo + hi) / 2n;
    if (m * a.d <= a.n) lo = m;
    else hi = m;
  }
  return lo;
};
const pow10 = (k: number) => q(10n ** BigInt(k));

function referenceOutput(p: QuotePricingInput): bigint {
  const inputDisplay = div(q(p.inputRaw), pow10(p.inputDecimals));
  const grossDisplay = mul(inputDisplay, q(p.mid.num, p.mid.den));
  let sigma = q(BigInt(p.baseSpreadBps));
  if (p.sizeSpread && p.inputRaw > 0n) {
    const share = div(q(p.inputRaw), q(p.inputRaw + p.sizeSpread.halfSizeRaw));
    sigma = add(sigma, mul(q(BigInt(p.sizeSpread.maxBps)), share));
  }
  if (p.inventorySkew) {
    const availableRaw = p.inventorySkew.availableOutputRaw;
    const available = div(q(availableRaw > 0n ? availableRaw : 0n), pow10(p.outputDecimals));
    const free = mul(available, q(BigInt(p.inventorySkew.freeShareBps), 10_000n));
    const excess = sub(grossDisplay, free);
    if (excess.n > 0n) {
      sigma = add(sigma, mul(q(BigInt(p.inventorySkew.maxBps)), div(excess, add(excess, available))));
    }
  }
  const keep = sub(q(1n), div(sigma, q(10_000n)));
  return floorQ(mul(mul(grossDisplay, keep), pow10(p.outputDecimals)));
}

// --- generators ----------------------------------------------------------------------------------

const inputRawArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 1n << 20n }),
  fc.bigInt({ min: 0n, max: 1n << 53n }),
  fc.bigInt({ min: 0n, max: INT64_MAX }),
);
const midArb: fc.Arbitrary<Price> = fc.record({
  num: fc.bigInt({ min: 1n, max: 10n ** 15n }),
  den: fc.bigInt({ min: 1n, max: 10n ** 15n }),
});
// Spread caps that together never exceed 100%.
const capsArb = fc
  .integer({ min: 0, max: 10_000 })
  .chain((base) =>
    fc
      .integer({ min: 0, max: 10_000 - base })
      .chain((size) =>
        fc.tuple(fc.constant(base), fc.constant(size), fc.integer({ min: 0, max: 10_000 - base - size })),
      ),
  );
const pricingArb = fc
  .record({
    inputRaw: inputRawArb,
    inputDecimals: fc.integer({ min: 0, max: 18 }),
    outputDecimals: fc.integer({ min: 0, max: 18 }),
    mid: midArb,
    caps: capsArb,
    halfSizeRaw: fc.bigInt({ min: 1n, max: INT64_MAX }),
    freeShareBps: fc.integer({ min: 0, max: 10_000 }),
    availableOutputRaw: fc.bigInt({ min: -10n, max: INT64_MAX }),
    withSize: fc.boolean(),
    withSkew: fc.boolean(),
  })
  .map(
    (r): QuotePricingInput => ({
      inputRaw: r.inputRaw,
      inputDecimals: r.inputDecimals,
      outputDecimals: r.outputDecimals,
      mid: r.mid,
      baseSpreadBps: r.caps[0],
      ...(r.withSize ? { sizeSpread: { maxBps: r.caps[1], halfSizeRaw: r.halfSizeRaw } } : {}),
      ...(r.withSkew
        ? {
            inventorySkew: {
              maxBps: r.caps[2],
              freeShareBps: r.freeShareBps,
              availableOutputRaw: r.availableOutputRaw,
            },
          }
        : {}),
    }),
  );

/** priceQuote, or null when the output would not fit int64 (the only refusal valid input may get). */
function priceOrNull(p: QuotePricingInput) {
  try {
    return priceQuote(p);
  } catch (error) {
    expect(error).toBeInstanceOf(AmountError);
    expect((error as AmountError).reason).toBe('out_of_range');
    expect(referenceOutput(p)).toBeGreaterThan(INT64_MAX);
    return null;
  }
}

const capsOf = (p: QuotePricingInput) =>
  p.baseSpreadBps + (p.sizeSpread?.maxBps ?? 0) + (p.inventorySkew?.maxBps ?? 0);

// --- properties ----------------------------------------------------------------------------------

describe('priceQuote', () => {
  test.prop([pricingArb, inputRawArb])(
    'a larger input never gets a smaller output, size and skew terms included',
    (p, other) => {
      const [small, large] = p.inputRaw <= other ? [p.inputRaw, other] : [other, p.inputRaw];
      const a = priceOrNull({ ...p, inputRaw: small });
      const b = priceOrNull({ ...p, inputRaw: large });
      fc.pre(a !== null && b !== null);
      expect(a?.outputRaw).toBeLessThanOrEqual(b?.outputRaw ?? 0n);
    },
  );

  test.prop([pricingArb, fc.bigInt({ min: 1n, max: 1000n })])(
    'one more raw unit of input never lowers the output (no cliffs between neighbours)',
    (p, step) => {
      fc.pre(p.inputRaw + step <= INT64_MAX);
      const a = priceOrNull(p);
      const b = priceOrNull({ ...p, inputRaw: p.inputRaw + step });
      fc.pre(a !== null && b !== null);
      expect(a?.outputRaw).toBeLessThanOrEqual(b?.outputRaw ?? 0n);
    },
  );

  test.prop([
    capsArb,
    fc.bigInt({ min: 1n, max: 300n }),
    fc.integer({ min: 0, max: 10_000 }),
    fc.bigInt({ min: 0n, max: 10n ** 9n }),
    fc.bigInt({ min: 10n ** 3n, max: 10n ** 12n }),
  ])(
    'scanning every input across many spread steps, the output never drops (steep schedules, full caps)',
    ([base, size], halfSizeRaw, freeShareBps, availableOutputRaw, midNum) => {
      const p = {
        inputDecimals: 0,
        outputDecimals: 0,
        mid: { num: midNum, den: 1n },
        baseSpreadBps: base,
        sizeSpread: { maxBps: size, halfSizeRaw },
        inventorySkew: { maxBps: 10_000 - base - size, freeShareBps, availableOutputRaw },
      };
      let previous = -1n;
      for (let x = 0n; x <= 400n; x++) {
        const { outputRaw } = priceQuote({ ...p, inputRaw: x });
        expect(outputRaw).toBeGreaterThanOrEqual(previous);
        previous = outputRaw;
      }
    },
  );

  test.prop([pricingArb])('the output is never above the value at mid', (p) => {
    const priced = priceOrNull(p);
    fc.pre(priced !== null);
    expect(priced?.outputRaw).toBeLessThanOrEqual(
      midOutputRaw(p.inputRaw, p.inputDecimals, p.outputDecimals, p.mid),
    );
  });

  test.prop([pricingArb])(
    'spread_bps is a whole number between the base spread and the caps (≤ 10000)',
    (p) => {
      const priced = priceOrNull(p);
      fc.pre(priced !== null);
      const spread = priced?.spreadBps ?? -1;
      expect(Number.isInteger(spread)).toBe(true);
      expect(spread).toBeGreaterThanOrEqual(p.baseSpreadBps);
      expect(spread).toBeLessThanOrEqual(capsOf(p));
      expect(spread).toBeLessThanOrEqual(10_000);
    },
  );

  test.prop([pricingArb])(
    'the output is never below what the reported spread implies, and within one bps of it',
    (p) => {
      const priced = priceOrNull(p);
      fc.pre(priced !== null);
      if (priced === null) return;
      const at = (bps: number) => outputAtSpread(p.inputRaw, p.inputDecimals, p.outputDecimals, p.mid, bps);
      expect(priced.outputRaw).toBeGreaterThanOrEqual(at(priced.spreadBps));
      expect(priced.outputRaw).toBeLessThanOrEqual(at(Math.max(0, priced.spreadBps - 1)));
    },
  );

  test.prop([pricingArb])('equals a slow rational reference exactly, at every size', (p) => {
    const priced = priceOrNull(p);
    fc.pre(priced !== null);
    expect(priced?.outputRaw).toBe(referenceOutput(p));
  });

  test.prop([pricingArb])('zero input quotes zero output at the base spread', (p) => {
    expect(priceQuote({ ...p, inputRaw: 0n })).toEqual({ outputRaw: 0n, spreadBps: p.baseSpreadBps });
  });

  test.prop([pricingArb])(
    'without size or skew terms it is exactly the documented formula at the base spread',
    (p) => {
      const { sizeSpread: _s, inventorySkew: _k, ...plain } = p;
      const priced = priceOrNull(plain);
      fc.pre(priced !== null);
      expect(priced).toEqual({
        outputRaw: outputAtSpread(p.inputRaw, p.inputDecimals, p.outputDecimals, p.mid, p.baseSpreadBps),
        spreadBps: p.baseSpreadBps,
      });
    },
  );

  test.prop([pricingArb, fc.bigInt({ min: 0n, max: INT64_MAX })])(
    'less available inventory never means a tighter spread or more output',
    (p, otherAvailable) => {
      fc.pre(p.inventorySkew !== undefined);
      const skew = p.inventorySkew ?? { maxBps: 0, freeShareBps: 0, availableOutputRaw: 0n };
      const [low, high] =
        skew.availableOutputRaw <= otherAvailable
          ? [skew.availableOutputRaw, otherAvailable]
          : [otherAvailable, skew.availableOutputRaw];
      const scarce = priceOrNull({ ...p, inventorySkew: { ...skew, availableOutputRaw: low } });
      const ample = priceOrNull({ ...p, inventorySkew: { ...skew, availableOutputRaw: high } });
      fc.pre(scarce !== null && ample !== null);
      expect(scarce?.spreadBps).toBeGreaterThanOrEqual(ample?.spreadBps ?? 0);
      expect(scarce?.outputRaw).toBeLessThanOrEqual(ample?.outputRaw ?? 0n);
    },
  );

  test.prop([pricingArb, fc.integer({ min: 1, max: 10_000 })])(
    'the skew term is exactly zero while the order takes no more than the free share of inventory',
    (p, freeShareBps) => {
      const { sizeSpread: _s, ...noSize } = p;
      const gross = midOutputRaw(p.inputRaw, p.inputDecimals, p.outputDecimals, p.mid);
      // Inventory large enough that the unfloored gross stays within freeShareBps of it.
      const available = ((gross + 1n) * 10_000n) / BigInt(freeShareBps) + 1n;
      const priced = priceOrNull({
        ...noSize,
        inventorySkew: { maxBps: 10_000 - p.baseSpreadBps, freeShareBps, availableOutputRaw: available },
      });
      fc.pre(priced !== null);
      expect(priced?.spreadBps).toBe(p.baseSpreadBps);
    },
  );
});

describe('priceQuote examples', () => {
  const sol = { inputDecimals: 9, outputDecimals: 6, mid: parsePrice('187.42') };

  test('1234.567891234 SOL at 187.42 with 30 bps is 230688.566032 USDC, floored', () => {
    expect(priceQuote({ ...sol, inputRaw: 1_234_567_891_234n, baseSpreadBps: 30 })).toEqual({
      outputRaw: 230_688_566_032n,
      spreadBps: 30,
    });
  });

  test('results above 2^53 are exact: int64 max input at mid 1 and 1 bps', () => {
    const priced = priceQuote({
      inputRaw: INT64_MAX,
      inputDecimals: 0,
      outputDecimals: 0,
      mid: { num: 1n, den: 1n },
      baseSpreadBps: 1,
    });
    expect(priced.outputRaw).toBe(9_222_449_699_651_090_329n);
  });

  test('an order of the half size pays half the size term, rounded up', () => {
    const priced = priceQuote({
      ...sol,
      inputRaw: 100_000_000_000n,
      baseSpreadBps: 10,
      sizeSpread: { maxBps: 21, halfSizeRaw: 100_000_000_000n },
    });
    expect(priced.spreadBps).toBe(10 + 11);
  });

  test('an order taking all of an empty inventory pays the whole skew cap', () => {
    const priced = priceQuote({
      ...sol,
      inputRaw: 1_000_000_000n,
      baseSpreadBps: 10,
      inventorySkew: { maxBps: 40, freeShareBps: 1000, availableOutputRaw: 0n },
    });
    expect(priced.spreadBps).toBe(50);
  });
});

// Pricing refuses what it cannot price exactly: every argument guard at its boundary, with its message.
describe('priceQuote guards', () => {
  const base: QuotePricingInput = {
    inputRaw: 1_000_000_000n,
    inputDecimals: 9,
    outputDecimals: 6,
    mid: { num: 18742n, den: 100n },
    baseSpreadBps: 10,
  };
  const quote = (change: Partial<QuotePricingInput>) => () => priceQuote({ ...base, ...change });

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
    expect(over).toThrow(AmountError);
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
    ).toThrow(
      new RangeError('base + confidence + option + size + skew spread caps must not exceed 10000 bps'),
    );
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
