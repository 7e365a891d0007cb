// The option term in the price, as the desk composes it (src/quotes/desk.ts): each leg adds
// optionTermBps(σ_leg, T) to the constant part of the spread, beside the base and confidence terms, and
// priceQuote floors the output. For any order, mid, size and skew terms: a more volatile market or a longer
// option never pays the taker more, and the spread never falls below the base spread.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { optionTermBps, perSqrtSecond } from '../../src/quotes/index.ts';
import { midOutputRaw, priceQuote, type QuotePricingInput } from '../../src/quotes/pricing.ts';
import { runs } from './support.ts';

const INT64_MAX = 2n ** 63n - 1n;
const K = 0.4;
const MAX_BPS = 100;

/** An annual volatility from 0 to 2000 %, and a window from 1 s to a day. */
const sigmaArb = fc.double({ min: 0, max: 20, noNaN: true }).map(perSqrtSecond);
const windowArb = fc.integer({ min: 1, max: 86_400 });

const orderArb = fc.record({
  inputRaw: fc.bigInt({ min: 0n, max: 10n ** 15n }),
  inputDecimals: fc.integer({ min: 0, max: 12 }),
  outputDecimals: fc.integer({ min: 0, max: 12 }),
  mid: fc.record({
    num: fc.bigInt({ min: 1n, max: 10n ** 9n }),
    den: fc.bigInt({ min: 1n, max: 10n ** 9n }),
  }),
  baseSpreadBps: fc.integer({ min: 0, max: 1_000 }),
  confidenceSpreadBps: fc.integer({ min: 0, max: 200 }),
  sizeMaxBps: fc.integer({ min: 0, max: 500 }),
  halfSizeRaw: fc.bigInt({ min: 1n, max: 10n ** 15n }),
  skewMaxBps: fc.integer({ min: 0, max: 500 }),
  freeShareBps: fc.integer({ min: 0, max: 10_000 }),
  availableOutputRaw: fc.bigInt({ min: 0n, max: 10n ** 15n }),
});
type Order = typeof orderArb extends fc.Arbitrary<infer T> ? T : never;

/** An order whose value at mid fits int64 (a larger one is a 400 before any spread applies). */
const fits = (o: Order) => midOutputRaw(o.inputRaw, o.inputDecimals, o.outputDecimals, o.mid) <= INT64_MAX;

/** The desk's price of the order with both legs' volatilities over a window of T seconds. */
function price(order: Order, sigmas: readonly [number, number], windowSeconds: number) {
  const optionSpreadBps = sigmas
    .map((sigma) => optionTermBps({ sigmaPerSqrtSecond: sigma, windowSeconds, k: K, maxBps: MAX_BPS }))
    .reduce((a, b) => a + b, 0);
  const input: QuotePricingInput = {
    inputRaw: order.inputRaw,
    inputDecimals: order.inputDecimals,
    outputDecimals: order.outputDecimals,
    mid: order.mid,
    baseSpreadBps: order.baseSpreadBps,
    confidenceSpreadBps: order.confidenceSpreadBps,
    optionSpreadBps,
    sizeSpread: { maxBps: order.sizeMaxBps, halfSizeRaw: order.halfSizeRaw },
    inventorySkew: {
      maxBps: order.skewMaxBps,
      freeShareBps: order.freeShareBps,
      availableOutputRaw: order.availableOutputRaw,
    },
  };
  return { ...priceQuote(input), optionSpreadBps };
}

/** Two values of an arbitrary, the smaller first. */
const ordered = <T extends number>(arb: fc.Arbitrary<T>): fc.Arbitrary<[T, T]> =>
  fc.tuple(arb, arb).map(([a, b]): [T, T] => (a <= b ? [a, b] : [b, a]));

describe('the option term in the price', () => {
  test.prop([orderArb, ordered(sigmaArb), sigmaArb, windowArb], { numRuns: runs(500) })(
    'a higher volatility on either leg never pays more, and the spread never falls below the base',
    (order, [low, high], other, windowSeconds) => {
      fc.pre(fits(order));
      const calm = price(order, [low, other], windowSeconds);
      const stormy = price(order, [high, other], windowSeconds);
      expect(stormy.optionSpreadBps).toBeGreaterThanOrEqual(calm.optionSpreadBps);
      expect(stormy.outputRaw).toBeLessThanOrEqual(calm.outputRaw);
      // Each bps of option term is one bps of spread, exactly (the term is whole bps, added to the base).
      expect(stormy.spreadBps - calm.spreadBps).toBe(stormy.optionSpreadBps - calm.optionSpreadBps);
      // The other leg's side too: the term is symmetric in the legs.
      expect(price(order, [other, high], windowSeconds).outputRaw).toBeLessThanOrEqual(
        price(order, [other, low], windowSeconds).outputRaw,
      );
      for (const quote of [calm, stormy]) {
        expect(quote.spreadBps).toBeGreaterThanOrEqual(order.baseSpreadBps);
        expect(quote.outputRaw).toBeLessThanOrEqual(INT64_MAX);
        expect(quote.optionSpreadBps).toBeLessThanOrEqual(2 * MAX_BPS);
      }
    },
  );

  test.prop([orderArb, fc.tuple(sigmaArb, sigmaArb), ordered(windowArb)], { numRuns: runs(500) })(
    'a longer option never pays more',
    (order, sigmas, [short, long]) => {
      fc.pre(fits(order));
      const brief = price(order, sigmas, short);
      const lasting = price(order, sigmas, long);
      expect(lasting.optionSpreadBps).toBeGreaterThanOrEqual(brief.optionSpreadBps);
      expect(lasting.outputRaw).toBeLessThanOrEqual(brief.outputRaw);
      expect(lasting.spreadBps).toBeGreaterThanOrEqual(order.baseSpreadBps);
    },
  );

  test.prop([orderArb, windowArb], { numRuns: runs(200) })(
    'without volatility the option term is nothing: the price is the price without it',
    (order, windowSeconds) => {
      fc.pre(fits(order));
      const { optionSpreadBps: _none, ...withTerm } = price(order, [0, 0], windowSeconds);
      const { optionSpreadBps: _also, ...without } = price(order, [0, 0], 0);
      expect(withTerm).toEqual(without);
    },
  );
});
