// Just-in-time sourcing's arithmetic (src/quotes/sourcing.ts): the free part is the largest that fits, the
// sourced part is never priced above the mid nor above the route's minimum, and the reported spread never
// promises the taker more than it gets.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { freeInput, sourcedOutput, sourcingCostBps, spreadAgainstMid } from '../../src/quotes/sourcing.ts';

const BPS = 10_000n;

describe('freeInput', () => {
  test.prop([
    fc.bigInt({ min: 0n, max: 10n ** 15n }),
    fc.bigInt({ min: -10n, max: 10n ** 15n }),
    fc.bigInt({ min: 1n, max: 10n ** 6n }),
    fc.bigInt({ min: 1n, max: 10n ** 6n }),
  ])('is the largest input whose (monotone) price fits the room', (input, room, num, den) => {
    const price = (x: bigint) => (x * num) / den;
    const free = freeInput(input, room, price);
    expect(free).toBeGreaterThanOrEqual(0n);
    expect(free).toBeLessThanOrEqual(input);
    if (room <= 0n) {
      expect(free).toBe(0n);
      return;
    }
    expect(price(free)).toBeLessThanOrEqual(room);
    if (free < input) expect(price(free + 1n)).toBeGreaterThan(room);
  });
});

describe('freeInput at its edges', () => {
  test('all of it when its price fills the room exactly; nothing without room', () => {
    const price = (x: bigint) => x * 2n;
    expect(freeInput(100n, 200n, price)).toBe(100n);
    expect(freeInput(100n, 199n, price)).toBe(99n);
    expect(freeInput(100n, 0n, price)).toBe(0n);
  });
});

describe('sourcedOutput', () => {
  test('the route’s minimum less the spread, floored; never above the mid value', () => {
    expect(sourcedOutput(1_000_000n, 2_000_000n, 10)).toBe(999_000n);
    expect(sourcedOutput(3_000_000n, 2_000_000n, 10)).toBe(1_998_000n);
    expect(sourcedOutput(0n, 2_000_000n, 10)).toBe(0n);
    expect(() => sourcedOutput(1n, 1n, 10_001)).toThrow(RangeError);
  });

  test('takes a spread of 0 to 10000 whole bps, and names a refused one', () => {
    expect(sourcedOutput(1_000_000n, 2_000_000n, 0)).toBe(1_000_000n);
    expect(sourcedOutput(1_000_000n, 2_000_000n, 10_000)).toBe(0n);
    for (const spread of [-1, 0.5, 10_001, Number.NaN]) {
      expect(() => sourcedOutput(1n, 1n, spread)).toThrow(
        new RangeError(`spreadBps must be an integer 0..10000, got ${spread}`),
      );
    }
  });

  test('nothing is owed on a basis below zero', () => {
    expect(sourcedOutput(1_000n, -1n, 0)).toBe(0n);
  });

  test.prop([
    fc.bigInt({ min: 0n, max: 10n ** 15n }),
    fc.bigInt({ min: 0n, max: 10n ** 15n }),
    fc.integer({ min: 0, max: 10_000 }),
  ])('is at most both the route’s minimum and the mid value', (minOut, midOut, spread) => {
    const out = sourcedOutput(minOut, midOut, spread);
    expect(out).toBeLessThanOrEqual(minOut);
    expect(out).toBeLessThanOrEqual(midOut < 0n ? 0n : midOut);
  });
});

describe('spreadAgainstMid', () => {
  test.prop([
    fc.bigInt({ min: 1n, max: 10n ** 12n }),
    fc.bigInt({ min: 1n, max: 10n ** 9n }),
    fc.bigInt({ min: 1n, max: 10n ** 9n }),
    fc.integer({ min: 0, max: 10_000 }),
  ])('rounded up: the output is never below what the reported spread implies', (input, num, den, cut) => {
    const midValue = (input * num) / den;
    const output = (midValue * (BPS - BigInt(cut))) / BPS;
    const spread = spreadAgainstMid(input, output, { num, den });
    expect(spread).toBeGreaterThanOrEqual(0);
    expect(spread).toBeLessThanOrEqual(10_000);
    expect(output).toBeGreaterThanOrEqual((input * num * (BPS - BigInt(spread))) / (den * BPS));
  });

  test('0 at or above the mid', () => {
    expect(spreadAgainstMid(100n, 200n, { num: 2n, den: 1n })).toBe(0);
    expect(spreadAgainstMid(100n, 199n, { num: 2n, den: 1n })).toBe(50);
    expect(spreadAgainstMid(100n, 300n, { num: 2n, den: 1n })).toBe(0);
  });

  test('against a mid of any denominator, never more than the whole output', () => {
    // 100 input at 4/2 is worth 200; 199 out is 50 bps short.
    expect(spreadAgainstMid(100n, 199n, { num: 4n, den: 2n })).toBe(50);
    expect(spreadAgainstMid(100n, 0n, { num: 4n, den: 2n })).toBe(10_000);
    expect(spreadAgainstMid(100n, -1n, { num: 4n, den: 2n })).toBe(10_000);
  });
});

describe('sourcingCostBps', () => {
  test('what the route’s minimum costs beyond the spread, in bps of the whole mid value, floored', () => {
    // Sourced part worth 1,000,000 at the mid; the route's minimum 990,000; no spread; whole 2,000,000.
    expect(sourcingCostBps(2_000_000n, 1_000_000n, 990_000n, 0)).toBe(50);
    expect(sourcingCostBps(2_000_000n, 1_000_000n, 1_000_000n, 0)).toBe(0);
    expect(sourcingCostBps(0n, 1_000_000n, 990_000n, 0)).toBe(0);
    // The spread is the taker's cost, not the route's: 10,000 short less 1 % is 9,900, i.e. 49.5 bps.
    expect(sourcingCostBps(2_000_000n, 1_000_000n, 990_000n, 100)).toBe(49);
    // A route whose minimum pays above the mid costs nothing.
    expect(sourcingCostBps(2_000_000n, 1_000_000n, 1_100_000n, 0)).toBe(0);
  });
});
