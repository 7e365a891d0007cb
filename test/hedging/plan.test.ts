// The hedger's arithmetic (src/hedging/plan.ts), exact in bigint: when a balance is outside its band, the
// next clip back toward the target — never larger than max_clip, never below min_clip, never past the
// target, never selling what is reserved — and the slippage asked of a route so that its on-chain minimum
// keeps to the live mid.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { routeSlippageBps, slippageFloor, slippageOf } from '../../src/aggregator/index.ts';
import { type Band, type Holdings, outsideBand, planClip } from '../../src/hedging/index.ts';
import { minimumOut, type Ratio } from '../../src/venue/math.ts';

const SOL = 10n ** 9n;
/** SOL at $187.42 against USDC: USDC raw per SOL raw (6 vs 9 decimals). */
const SOL_MID: Ratio = { num: 18_742n, den: 100_000n };
/** The shipped config's SOL band: target 10000, band 50, clips 1 to 25. */
const SHIPPED: Band = {
  targetRaw: 10_000n * SOL,
  bandRaw: 50n * SOL,
  maxClipRaw: 25n * SOL,
  minClipRaw: SOL,
};

const holding = (asset: bigint, overrides: Partial<Holdings> = {}): Holdings => ({
  assetBalanceRaw: asset,
  assetReservedRaw: 0n,
  quoteBalanceRaw: 10n ** 13n,
  quoteReservedRaw: 0n,
  ...overrides,
});

describe('worked examples on the shipped SOL band', () => {
  test('inside the band (exactly 50 SOL off included) nothing is done', () => {
    for (const balance of [10_000n, 10_050n, 9_950n, 10_020n]) {
      expect(outsideBand(balance * SOL, SHIPPED)).toBe(false);
      expect(planClip(holding(balance * SOL), SHIPPED, SOL_MID, false)).toEqual({
        kind: 'none',
        reason: 'inside_band',
      });
    }
  });

  test('60 SOL long: sell a full clip of 25, then 25, then 10, then home', () => {
    let balance = 10_060n * SOL;
    const clips: bigint[] = [];
    let continuing = false;
    for (;;) {
      const plan = planClip(holding(balance), SHIPPED, SOL_MID, continuing);
      if (plan.kind === 'none') {
        expect(plan.reason).toBe('at_target');
        break;
      }
      expect(plan.side).toBe('sell');
      clips.push(plan.amountInRaw);
      balance -= plan.assetRaw;
      continuing = true;
    }
    expect(clips).toEqual([25n * SOL, 25n * SOL, 10n * SOL]);
    expect(balance).toBe(10_000n * SOL);
  });

  test('60 SOL short: buy 25 SOL with 4685.5 USDC at the mid', () => {
    expect(planClip(holding(9_940n * SOL), SHIPPED, SOL_MID, false)).toEqual({
      kind: 'clip',
      side: 'buy',
      amountInRaw: 4_685_500_000n,
      assetRaw: 25n * SOL,
    });
  });

  test('reservations come first: a long position whose SOL is reserved sells only what is free', () => {
    const reserved = holding(10_060n * SOL, { assetReservedRaw: 10_050n * SOL });
    expect(planClip(reserved, SHIPPED, SOL_MID, false)).toMatchObject({
      side: 'sell',
      amountInRaw: 10n * SOL,
    });
    const blocked = holding(10_060n * SOL, { assetReservedRaw: 10_059n * SOL + 1n });
    expect(planClip(blocked, SHIPPED, SOL_MID, false)).toEqual({ kind: 'none', reason: 'reserved' });
    const noUsdc = holding(9_940n * SOL, { quoteBalanceRaw: 100_000_000n, quoteReservedRaw: 99_000_000n });
    // $1 free buys 0.0053 SOL: less than min_clip.
    expect(planClip(noUsdc, SHIPPED, SOL_MID, false)).toEqual({ kind: 'none', reason: 'reserved' });
  });

  test('the slippage asked keeps the route’s minimum at or above the mid less the bound', () => {
    // 25 SOL at the mid is 4685.5 USDC; less 100 bps: 4638.645.
    const floor = slippageFloor(25n * SOL, SOL_MID, 100);
    expect(floor).toBe(4_638_645_000n);
    // A route paying 4670 USDC (33 bps under the mid) may slip 67 bps more.
    expect(routeSlippageBps(4_670_000_000n, floor, 100)).toBe(67);
    expect(minimumOut(4_670_000_000n, 67)).toBeGreaterThanOrEqual(floor);
    expect(minimumOut(4_670_000_000n, 68)).toBeLessThan(floor);
    // One paying less than the floor is refused; one paying above the mid is capped by the port's bound.
    expect(routeSlippageBps(4_600_000_000n, floor, 100)).toBeNull();
    expect(routeSlippageBps(4_700_000_000n, floor, 100)).toBe(100);
  });

  test('a balance past the band’s edge, on either side, is outside', () => {
    expect(outsideBand(10_050n * SOL + 1n, SHIPPED)).toBe(true);
    expect(outsideBand(9_950n * SOL - 1n, SHIPPED)).toBe(true);
    expect(outsideBand(10_060n * SOL, SHIPPED)).toBe(true);
    expect(outsideBand(0n, SHIPPED)).toBe(true);
  });

  test('a clip is planned at a positive mid only', () => {
    for (const mid of [
      { num: 0n, den: 1n },
      { num: 1n, den: 0n },
      { num: -1n, den: 1n },
    ]) {
      expect(() => planClip(holding(9_940n * SOL), SHIPPED, mid, false)).toThrow(
        new RangeError('the mid must be positive'),
      );
    }
  });

  test('a route paying exactly the floor may slip nothing; one paying nothing is no route', () => {
    expect(routeSlippageBps(4_638_645_000n, 4_638_645_000n, 100)).toBe(0);
    expect(routeSlippageBps(0n, 0n, 100)).toBeNull();
    expect(routeSlippageBps(-1n, -5n, 100)).toBeNull();
  });

  test('a swap too small to be worth a raw unit at the mid has no slippage in bps', () => {
    expect(slippageOf(1n, 0n, SOL_MID)).toEqual({ midOutRaw: 0n, slippageRaw: 0n, slippageBps: 0 });
    expect(slippageOf(1n, 1n, SOL_MID)).toEqual({ midOutRaw: 0n, slippageRaw: -1n, slippageBps: 0 });
  });

  test('slippage of a landed swap against the mid, either way', () => {
    expect(slippageOf(25n * SOL, 4_670_000_000n, SOL_MID)).toEqual({
      midOutRaw: 4_685_500_000n,
      slippageRaw: 15_500_000n,
      slippageBps: 33,
    });
    expect(slippageOf(25n * SOL, 4_690_000_000n, SOL_MID).slippageRaw).toBe(-4_500_000n);
    expect(slippageOf(25n * SOL, 4_690_000_000n, SOL_MID).slippageBps).toBe(-9);
  });
});

const raw = (max: bigint) => fc.bigInt({ min: 0n, max });
const larger = (a: bigint, b: bigint) => (a > b ? a : b);
const smaller = (a: bigint, b: bigint) => (a < b ? a : b);
/** A band no wider than 50 full clips: a walk home takes at most a few thousand clips. */
const narrowBandArb = fc
  .tuple(raw(10n ** 18n), fc.bigInt({ min: 1n, max: 10n ** 15n }))
  .chain(([targetRaw, maxClipRaw]) =>
    fc.bigInt({ min: 1n, max: maxClipRaw }).chain((minClipRaw) =>
      fc.record({
        targetRaw: fc.constant(targetRaw),
        maxClipRaw: fc.constant(maxClipRaw),
        minClipRaw: fc.constant(minClipRaw),
        bandRaw: fc.bigInt({ min: minClipRaw, max: minClipRaw + 50n * maxClipRaw }),
      }),
    ),
  );
const bandArb = fc
  .tuple(raw(10n ** 18n), fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 15n }))
  .chain(([targetRaw, bandRaw, x]) =>
    fc.record({
      targetRaw: fc.constant(targetRaw),
      bandRaw: fc.constant(bandRaw),
      // min ≤ band, max ≥ min (what the config enforces)
      minClipRaw: fc.bigInt({ min: 1n, max: bandRaw }),
      maxClipRaw: fc.constant(x),
    }),
  )
  .map((b) => ({ ...b, maxClipRaw: larger(b.maxClipRaw, b.minClipRaw) }));
const midArb = fc.record({
  num: fc.bigInt({ min: 1n, max: 10n ** 12n }),
  den: fc.bigInt({ min: 1n, max: 10n ** 12n }),
});
const holdingsArb = (band: Band) =>
  fc.record({
    assetBalanceRaw: fc.oneof(
      raw(2n * 10n ** 18n),
      fc.bigInt({ min: -3n * band.bandRaw, max: 3n * band.bandRaw }).map((d) => {
        const b = band.targetRaw + d;
        return b < 0n ? 0n : b;
      }),
    ),
    assetReservedRaw: raw(2n * 10n ** 18n),
    quoteBalanceRaw: raw(10n ** 20n),
    quoteReservedRaw: raw(10n ** 20n),
  });
const caseArb = bandArb.chain((band) =>
  fc.record({ band: fc.constant(band), holdings: holdingsArb(band), mid: midArb, continuing: fc.boolean() }),
);

describe('planClip, for any balance, band, reservations and mid', () => {
  test.prop([caseArb], { numRuns: 2_000 })(
    'a clip is within [min_clip, max_clip], never past the target, never spends what is reserved',
    ({ band, holdings, mid, continuing }) => {
      const plan = planClip(holdings, band, mid, continuing);
      const d = holdings.assetBalanceRaw - band.targetRaw;
      const distance = d < 0n ? -d : d;
      if (plan.kind === 'none') {
        if (plan.reason === 'inside_band') expect(!continuing && distance <= band.bandRaw).toBe(true);
        if (plan.reason === 'at_target') expect(distance < band.minClipRaw).toBe(true);
        return;
      }
      expect(plan.assetRaw).toBeGreaterThanOrEqual(band.minClipRaw);
      expect(plan.assetRaw).toBeLessThanOrEqual(band.maxClipRaw);
      expect(plan.assetRaw).toBeLessThanOrEqual(distance);
      if (plan.side === 'sell') {
        expect(d > 0n).toBe(true);
        expect(plan.amountInRaw).toBe(plan.assetRaw);
        expect(plan.amountInRaw).toBeLessThanOrEqual(holdings.assetBalanceRaw - holdings.assetReservedRaw);
      } else {
        expect(d < 0n).toBe(true);
        expect(plan.amountInRaw).toBeGreaterThan(0n);
        expect(plan.amountInRaw).toBeLessThanOrEqual(holdings.quoteBalanceRaw - holdings.quoteReservedRaw);
        // What it pays buys, at the mid, exactly the clip (floored): never more than the distance.
        expect(plan.assetRaw).toBe((plan.amountInRaw * mid.den) / mid.num);
      }
      // Outside the band a hedge starts; inside it only one already going continues.
      if (!continuing) expect(distance > band.bandRaw).toBe(true);
    },
  );

  test.prop([caseArb], { numRuns: 2_000 })(
    'nothing is held back without a reason: outside the band with enough free, a clip comes',
    ({ band, holdings, mid }) => {
      const plan = planClip(holdings, band, mid, false);
      const d = holdings.assetBalanceRaw - band.targetRaw;
      if (d > band.bandRaw && holdings.assetBalanceRaw - holdings.assetReservedRaw >= band.minClipRaw) {
        expect(plan).toMatchObject({ kind: 'clip', side: 'sell' });
      }
      const freeQuote = holdings.quoteBalanceRaw - holdings.quoteReservedRaw;
      const wanted = smaller(-d, band.maxClipRaw);
      if (
        -d > band.bandRaw &&
        freeQuote >= (wanted * mid.num) / mid.den &&
        (((wanted * mid.num) / mid.den) * mid.den) / mid.num >= band.minClipRaw
      ) {
        expect(plan).toMatchObject({ kind: 'clip', side: 'buy' });
      }
    },
  );

  test.prop(
    [narrowBandArb, fc.integer({ min: 0, max: 60 }), fc.bigInt({ min: 1n, max: 10n ** 16n }), fc.boolean()],
    {
      numRuns: 500,
    },
  )(
    'clip after clip at the mid, a position outside its band comes home from one side, full clips first',
    (band, fullClips, rest, long) => {
      const excess = BigInt(fullClips) * band.maxClipRaw + (rest % band.maxClipRaw) + 1n;
      const start = long ? band.targetRaw + band.bandRaw + excess : band.targetRaw - band.bandRaw - excess;
      fc.pre(start >= 0n);
      let balance = start;
      const clips: bigint[] = [];
      let continuing = false;
      for (let i = 0; i < 10_000; i++) {
        // Plenty of everything free; a mid of 1: the clip is its own cost.
        const plan = planClip(
          holding(balance, { quoteBalanceRaw: 10n ** 30n }),
          band,
          { num: 1n, den: 1n },
          continuing,
        );
        if (plan.kind === 'none') {
          expect(plan.reason).toBe('at_target');
          break;
        }
        clips.push(plan.assetRaw);
        balance += plan.side === 'sell' ? -plan.assetRaw : plan.assetRaw;
        continuing = true;
      }
      const left = balance - band.targetRaw;
      // Home: within one smallest clip, and on the side it started (never overshot).
      expect(left < band.minClipRaw && left > -band.minClipRaw).toBe(true);
      expect(long ? left >= 0n : left <= 0n).toBe(true);
      // Every clip but the last is a full one.
      for (const clip of clips.slice(0, -1)) expect(clip).toBe(band.maxClipRaw);
    },
  );
});

describe('routeSlippageBps', () => {
  test.prop([
    fc.bigInt({ min: 1n, max: 10n ** 18n }),
    fc.bigInt({ min: 0n, max: 10n ** 18n }),
    fc.integer({ min: 0, max: 1_000 }),
  ])(
    'the most slippage whose minimum out keeps the floor, within the cap; none below the floor',
    (outAmount, floor, cap) => {
      const slippage = routeSlippageBps(outAmount, floor, cap);
      if (outAmount < floor) {
        expect(slippage).toBeNull();
        return;
      }
      expect(slippage).not.toBeNull();
      const s = slippage as number;
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(cap);
      expect(minimumOut(outAmount, s)).toBeGreaterThanOrEqual(floor);
      if (s < cap) expect(minimumOut(outAmount, s + 1)).toBeLessThan(floor + outAmount / 10_000n + 1n);
    },
  );
});
