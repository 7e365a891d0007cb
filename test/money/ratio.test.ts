// Basis points and the ExactIn minimum out every aggregator swap and venue quote is held to: exact, rounded
// down (the least a swap may pay), and refusing a slippage that is not a whole number of bps from 0 to 10000.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { BPS, minimumOut } from '../../src/money/index.ts';

describe('BPS', () => {
  test('one is ten thousand basis points', () => {
    expect(BPS).toBe(10_000n);
  });
});

describe('minimumOut', () => {
  test('is the output less the slippage, in whole raw units rounded down', () => {
    expect(minimumOut(1_000n, 50)).toBe(995n);
    expect(minimumOut(1_000_000n, 1)).toBe(999_900n);
    // 999 × 9999 / 10000 = 998.9001: the fraction is never promised
    expect(minimumOut(999n, 1)).toBe(998n);
    expect(minimumOut(3n, 5_000)).toBe(1n);
  });

  test('takes a slippage from 0 (the whole output) to 10000 (nothing) bps', () => {
    expect(minimumOut(12_345n, 0)).toBe(12_345n);
    expect(minimumOut(12_345n, 10_000)).toBe(0n);
  });

  test.each([[-1], [10_001], [0.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'a slippage of %s bps is refused',
    (slippageBps) => {
      expect(() => minimumOut(1_000n, slippageBps)).toThrow(
        new RangeError('slippageBps must be an integer from 0 to 10000'),
      );
    },
  );

  test.prop([fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.integer({ min: 0, max: 10_000 })])(
    'is the largest amount whose shortfall from the output is at least the slippage',
    (amountOut, slippageBps) => {
      const min = minimumOut(amountOut, slippageBps);
      const kept = amountOut * (BPS - BigInt(slippageBps));
      expect(min * BPS <= kept).toBe(true);
      expect((min + 1n) * BPS > kept).toBe(true);
      expect(min <= amountOut).toBe(true);
    },
  );
});
