// The venue's pure arithmetic, by its properties: the swap never lowers k or pays out a whole reserve and
// grows with its input; the minimum out and the price impact are what Jupiter's fields mean; and the
// keeper's search lands a pool on its target price from either side.

import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  amountAfterFee,
  amountInToReach,
  deviationBps,
  minimumOut,
  priceImpact,
  spotPrice,
  swapExactIn,
  U64_MAX,
} from '../../src/venue/index.ts';

const reserve = fc.bigInt({ min: 1n, max: 2n ** 63n });
const amount = fc.bigInt({ min: 1n, max: 2n ** 62n });
const fee = fc.integer({ min: 0, max: 9_999 });

describe('swapExactIn', () => {
  test.prop([reserve, reserve, amount, fee])(
    'keeps or raises k, pays out less than the whole reserve, and takes the fee rounded up',
    (reserveIn, reserveOut, amountIn, feeBps) => {
      const s = swapExactIn({ reserveIn, reserveOut }, amountIn, feeBps);
      if (!s.ok) {
        expect(s.error).toBe('ZeroOutput');
        return;
      }
      expect(s.reserveIn * s.reserveOut >= reserveIn * reserveOut).toBe(true);
      expect(s.amountOut < reserveOut).toBe(true);
      expect(s.feeAmount).toBe(amountIn - amountAfterFee(amountIn, feeBps));
      // The fee is at least the exact fee (rounded up, never down).
      expect(s.feeAmount * 10_000n >= amountIn * BigInt(feeBps)).toBe(true);
    },
  );

  test.prop([reserve, reserve, amount, amount, fee])(
    'gives more (or as much) for more in',
    (reserveIn, reserveOut, a, b, feeBps) => {
      const [small, large] = a < b ? [a, b] : [b, a];
      const x = swapExactIn({ reserveIn, reserveOut }, small, feeBps);
      const y = swapExactIn({ reserveIn, reserveOut }, large, feeBps);
      if (x.ok && y.ok) expect(y.amountOut >= x.amountOut).toBe(true);
      if (x.ok) expect(y.ok).toBe(true);
    },
  );

  it('refuses as the program does: nothing in, an empty side, a vault that would overflow, nothing out', () => {
    expect(swapExactIn({ reserveIn: 10n, reserveOut: 10n }, 0n, 30)).toEqual({
      ok: false,
      error: 'ZeroAmount',
    });
    expect(swapExactIn({ reserveIn: 0n, reserveOut: 10n }, 5n, 30)).toEqual({
      ok: false,
      error: 'InsufficientLiquidity',
    });
    expect(swapExactIn({ reserveIn: U64_MAX, reserveOut: 10n }, 1n, 0)).toEqual({
      ok: false,
      error: 'ArithmeticOverflow',
    });
    expect(swapExactIn({ reserveIn: 1_000_000n, reserveOut: 10n }, 1_000n, 30)).toEqual({
      ok: false,
      error: 'ZeroOutput',
    });
  });
});

describe('minimumOut and priceImpact', () => {
  it('floors the threshold and refuses a slippage outside 0..10000', () => {
    expect(minimumOut(1_000n, 50)).toBe(995n);
    expect(minimumOut(999n, 1)).toBe(998n);
    expect(minimumOut(1_000n, 0)).toBe(1_000n);
    expect(() => minimumOut(1_000n, 10_001)).toThrow(RangeError);
  });

  it('reads as a decimal fraction of the spot price', () => {
    // 100 in against 1000/1000 without fee: spot 1, executed 90/100 = 0.9 → impact 0.1 (a tenth).
    const out = swapExactIn({ reserveIn: 1_000n, reserveOut: 1_000n }, 100n, 0);
    if (!out.ok) throw new Error('expected a swap');
    expect(out.amountOut).toBe(90n);
    expect(priceImpact({ reserveIn: 1_000n, reserveOut: 1_000n }, 100n, out.amountOut, 0)).toBe('0.1');
    expect(priceImpact({ reserveIn: 1_000n, reserveOut: 1_000n }, 0n, 0n, 0)).toBe('0');
  });
});

describe('amountInToReach', () => {
  test.prop([
    fc.bigInt({ min: 1_000_000n, max: 10n ** 15n }),
    fc.bigInt({ min: 1_000_000n, max: 10n ** 15n }),
    fc.integer({ min: -3_000, max: 3_000 }),
    fc.integer({ min: 0, max: 100 }),
  ])(
    'moves the pool to its target price, from above, to within a few bps',
    (reserveIn, reserveOut, moveBps, feeBps) => {
      const spot = spotPrice({ reserveIn, reserveOut });
      // A target at most 30% below the spot price of the input mint.
      const target = { num: spot.num * BigInt(10_000 - Math.abs(moveBps)), den: spot.den * 10_000n };
      const amountIn = amountInToReach({ reserveIn, reserveOut }, target, feeBps, U64_MAX);
      if (moveBps === 0) {
        // Already there: nothing, or only amounts too small to move the price at all.
        expect(amountIn === 0n || !swapExactIn({ reserveIn, reserveOut }, amountIn, feeBps).ok).toBe(true);
        return;
      }
      const s = swapExactIn({ reserveIn, reserveOut }, amountIn, feeBps);
      if (!s.ok) return;
      const after = spotPrice({ reserveIn: s.reserveIn, reserveOut: s.reserveOut });
      // Never past the target, and within a bp of it.
      expect(after.num * target.den >= target.num * after.den).toBe(true);
      expect(deviationBps(after, target) <= 1n).toBe(true);
    },
  );

  it('does nothing when the price is already at or below the target, and stops at the budget', () => {
    const r = { reserveIn: 1_000_000n, reserveOut: 2_000_000n };
    expect(amountInToReach(r, { num: 3n, den: 1n }, 30, U64_MAX)).toBe(0n);
    expect(amountInToReach(r, { num: 1n, den: 1n }, 30, 1_000n)).toBe(1_000n);
  });
});

describe('the program’s refusals and rounding, at their edges', () => {
  it('takes the fee off the input rounded in the pool’s favour', () => {
    expect(amountAfterFee(10_000n, 30)).toBe(9_970n);
    expect(amountAfterFee(1n, 1)).toBe(0n);
    expect(amountAfterFee(1n, 0)).toBe(1n);
  });

  it('refuses in the program’s order, and only past each bound', () => {
    expect(swapExactIn({ reserveIn: 0n, reserveOut: 0n }, U64_MAX + 1n, 0)).toEqual({
      ok: false,
      error: 'ArithmeticOverflow',
    });
    expect(swapExactIn({ reserveIn: 0n, reserveOut: 10n }, U64_MAX, 0)).toEqual({
      ok: false,
      error: 'InsufficientLiquidity',
    });
    expect(swapExactIn({ reserveIn: 10n, reserveOut: 0n }, 5n, 30)).toEqual({
      ok: false,
      error: 'InsufficientLiquidity',
    });
    // The input vault may fill up to u64::MAX exactly.
    const full = swapExactIn({ reserveIn: U64_MAX - 1_000n, reserveOut: 10n ** 18n }, 1_000n, 0);
    expect(full.ok && full.reserveIn).toBe(U64_MAX);
    expect(swapExactIn({ reserveIn: U64_MAX - 999n, reserveOut: 10n ** 18n }, 1_000n, 0)).toEqual({
      ok: false,
      error: 'ArithmeticOverflow',
    });
    expect(swapExactIn({ reserveIn: 1_000n, reserveOut: 1_000n }, U64_MAX - 1_000n, 0).ok).toBe(true);
  });

  it('pays out and keeps exactly what the constant product gives', () => {
    expect(swapExactIn({ reserveIn: 1_000_000n, reserveOut: 2_000_000n }, 10_000n, 30)).toEqual({
      ok: true,
      amountIn: 10_000n,
      // 2,000,000 × 9,970 / 1,009,970 = 19,743.16…
      amountOut: 19_743n,
      feeAmount: 30n,
      reserveIn: 1_010_000n,
      reserveOut: 1_980_257n,
    });
  });
});

describe('priceImpact, as a decimal fraction', () => {
  const r = { reserveIn: 10n ** 12n, reserveOut: 10n ** 12n };

  it('keeps its significant digits and drops trailing zeros', () => {
    // 10^6 in: 999,999 out, a millionth short of the spot price.
    const out = swapExactIn(r, 1_000_000n, 0);
    expect(out.ok && out.amountOut).toBe(999_999n);
    expect(priceImpact(r, 1_000_000n, 999_999n, 0)).toBe('0.000001');
    expect(priceImpact(r, 1_000_000n, 999_999n, 0, 5)).toBe('0');
    expect(priceImpact(r, 1_000_000n, 750_000n, 0, 2)).toBe('0.25');
    expect(priceImpact(r, 1_000_000n, 0n, 0)).toBe('1');
  });

  it('measures against the input after the fee', () => {
    // 30 bps of fee: 997 of 1,000 count; 990 out of those is 7/997 short.
    expect(priceImpact(r, 1_000n, 990n, 30, 6)).toBe('0.007021');
  });

  it('is 0 when the swap paid the spot price or better, or nothing counts', () => {
    expect(priceImpact(r, 1_000n, 1_000n, 0)).toBe('0');
    expect(priceImpact(r, 1_000n, 1_001n, 0)).toBe('0');
    expect(priceImpact({ reserveIn: 1_000n, reserveOut: 0n }, 1_000n, 0n, 0)).toBe('0');
    expect(priceImpact(r, 1n, 0n, 30)).toBe('0');
  });
});

describe('deviationBps', () => {
  it('is |a / b − 1| in bps, floored, from either side', () => {
    expect(deviationBps({ num: 101n, den: 100n }, { num: 1n, den: 1n })).toBe(100n);
    // 100/101 is 99.0099… bps below 1.
    expect(deviationBps({ num: 1n, den: 1n }, { num: 101n, den: 100n })).toBe(99n);
    expect(deviationBps({ num: 3n, den: 2n }, { num: 3n, den: 2n })).toBe(0n);
  });

  it('is as far as can be from a zero price', () => {
    expect(deviationBps({ num: 1n, den: 1n }, { num: 0n, den: 1n })).toBe(U64_MAX);
  });
});

describe('amountInToReach, at its bounds', () => {
  const r = { reserveIn: 1_000_000n, reserveOut: 2_000_000n };

  it('never more than the budget, nothing without one', () => {
    expect(amountInToReach(r, { num: 1n, den: 1n }, 30, 0n)).toBe(0n);
    expect(amountInToReach(r, { num: 1n, den: 1n }, 30, 1n)).toBe(1n);
  });

  it('never more than the input vault can still take', () => {
    const nearlyFull = { reserveIn: U64_MAX - 10n, reserveOut: 10n ** 19n };
    expect(amountInToReach(nearlyFull, { num: 0n, den: 1n }, 0, U64_MAX)).toBe(10n);
  });

  it('lands exactly on a target it can reach exactly, given as any fraction', () => {
    // 3,000 in pays 3,000 of 4,000: the pool is left at 4,000 / 1,000, a quarter exactly.
    const r4 = { reserveIn: 1_000n, reserveOut: 4_000n };
    expect(amountInToReach(r4, { num: 1n, den: 4n }, 0, U64_MAX)).toBe(3_000n);
    expect(amountInToReach(r4, { num: 2n, den: 8n }, 0, U64_MAX)).toBe(3_000n);
  });

  it('already at the target: nothing to do', () => {
    expect(amountInToReach({ reserveIn: 1_000n, reserveOut: 1_000n }, { num: 1n, den: 1n }, 0, U64_MAX)).toBe(
      0n,
    );
  });

  it('an empty input vault takes nothing; amounts too small to pay anything never overshoot', () => {
    expect(amountInToReach({ reserveIn: 0n, reserveOut: 1_000n }, { num: 1n, den: 1n }, 0, 1_000n)).toBe(0n);
    // 10 out for 1,000,000 in: any swap that pays a unit lands below 9 per million, so only the
    // amounts that pay nothing (up to 111,111) keep the price where it is.
    const thin = { reserveIn: 1_000_000n, reserveOut: 10n };
    expect(amountInToReach(thin, { num: 9n, den: 1_000_000n }, 0, U64_MAX)).toBe(111_111n);
  });

  it('stops at the exact amount that lands the price on its target', () => {
    // Selling x at no fee leaves 2,000,000 · 1,000,000 / (1,000,000 + x)² per unit: 1 at x ≈ 414,214 (the payout floored).
    const x = amountInToReach(r, { num: 1n, den: 1n }, 0, U64_MAX);
    const at = (amountIn: bigint) => {
      const s = swapExactIn(r, amountIn, 0);
      if (!s.ok) throw new Error('expected a swap');
      return s.reserveOut >= s.reserveIn;
    };
    expect(at(x)).toBe(true);
    expect(at(x + 1n)).toBe(false);
    expect(x).toBe(414_214n);
  });
});
