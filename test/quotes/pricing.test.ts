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

  test('an output above int64 is refused, not wrapped', () => {
    expect(() =>
      priceQuote({
        inputRaw: INT64_MAX,
        inputDecimals: 0,
        outputDecimals: 0,
        mid: { num: 2n, den: 1n },
        baseSpreadBps: 0,
      }),
    ).toThrow(AmountError);
  });

  test('spread caps adding up past 10000 bps are a configuration error', () => {
    expect(() =>
      priceQuote({
        ...sol,
        inputRaw: 1n,
        baseSpreadBps: 5000,
        sizeSpread: { maxBps: 3000, halfSizeRaw: 1n },
        inventorySkew: { maxBps: 2001, freeShareBps: 0, availableOutputRaw: 1n },
      }),
    ).toThrow(RangeError);
  });

  test('an input outside 0..int64 is refused', () => {
    expect(() => priceQuote({ ...sol, inputRaw: INT64_MAX + 1n, baseSpreadBps: 0 })).toThrow(AmountError);
    expect(() => priceQuote({ ...sol, inputRaw: -1n, baseSpreadBps: 0 })).toThrow(AmountError);
  });
});
