// A feed's volatility from its published prices, and the option term priced from it.
import { describe, expect, test } from 'vitest';
import {
  annualised,
  logPrice,
  optionTermBps,
  perSqrtSecond,
  SECONDS_PER_YEAR,
  VolatilityEstimate,
} from '../../src/quotes/index.ts';

/** A deterministic uniform generator (mulberry32): the walks below are the same on every run. */
function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A Gaussian draw (Box–Muller). */
const gaussian = (next: () => number) => () =>
  Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());

describe('VolatilityEstimate', () => {
  test('nothing before two publishes; a price that never moves has no volatility', () => {
    const v = new VolatilityEstimate(900);
    expect(v.perSqrtSecond).toBeNull();
    v.observe(1_000, logPrice(18_742_000_000n, -8));
    expect(v.perSqrtSecond).toBeNull();
    v.observe(1_001, logPrice(18_742_000_000n, -8));
    expect(v.perSqrtSecond).toBe(0);
  });

  test('one return r over Δt seconds estimates σ² = r²/Δt; the same publish read again changes nothing', () => {
    const v = new VolatilityEstimate(900);
    v.observe(1_000, Math.log(100));
    v.observe(1_004, Math.log(102));
    const expected = Math.abs(Math.log(1.02)) / Math.sqrt(4);
    expect(v.perSqrtSecond).toBeCloseTo(expected, 12);
    v.observe(1_004, Math.log(150));
    v.observe(1_003, Math.log(150));
    expect(v.perSqrtSecond).toBeCloseTo(expected, 12);
  });

  test.each([
    ['every second', () => 1],
    [
      'irregularly, 1 to 60 s apart (a heartbeat, or a skipped publish)',
      (next: () => number) => 1 + Math.floor(next() * 60),
    ],
  ])('a random walk of known σ sampled %s is estimated within a few percent', (_name, spacing) => {
    const next = uniform(42);
    const draw = gaussian(next);
    const sigma = perSqrtSecond(0.8); // 80 % a year
    const v = new VolatilityEstimate(86_400);
    let t = 0;
    let log = Math.log(150);
    v.observe(t, log);
    for (let i = 0; i < 20_000; i++) {
      const dt = spacing(next);
      t += dt;
      log += sigma * Math.sqrt(dt) * draw();
      v.observe(t, log);
    }
    expect(annualised(v.perSqrtSecond ?? 0)).toBeGreaterThan(0.8 * 0.95);
    expect(annualised(v.perSqrtSecond ?? 0)).toBeLessThan(0.8 * 1.05);
  });

  test('older samples fade by half every half-life of time: a calm market after a storm is calm again', () => {
    const next = uniform(7);
    const draw = gaussian(next);
    const v = new VolatilityEstimate(60);
    let log = 0;
    v.observe(0, log);
    const walk = (from: number, seconds: number, annual: number) => {
      for (let t = from + 1; t <= from + seconds; t++) {
        log += perSqrtSecond(annual) * draw();
        v.observe(t, log);
      }
    };
    walk(0, 600, 2.0);
    const storm = annualised(v.perSqrtSecond ?? 0);
    expect(storm).toBeGreaterThan(1.6);
    // Ten half-lives later the storm weighs 2^-10 of the estimate: σ² ≈ 0.2² + 2²/1024.
    walk(600, 600, 0.2);
    const calm = annualised(v.perSqrtSecond ?? 0);
    expect(calm).toBeLessThan(0.3);
    expect(calm).toBeGreaterThan(0.15);
  });

  test('ln of a price scaled by its exponent', () => {
    expect(logPrice(18_742_000_000n, -8)).toBeCloseTo(Math.log(187.42), 12);
    expect(logPrice(5n, 2)).toBeCloseTo(Math.log(500), 12);
  });

  test('a price whose log is not finite (zero, or out of range) is no sample and no reference', () => {
    const v = new VolatilityEstimate(900);
    v.observe(1_000, Math.log(100));
    v.observe(1_001, logPrice(0n, -8));
    v.observe(1_002, Number.NaN);
    expect(v.perSqrtSecond).toBeNull();
    v.observe(1_004, Math.log(102));
    expect(v.perSqrtSecond).toBeCloseTo(Math.abs(Math.log(1.02)) / Math.sqrt(4), 12);
  });

  test('a half-life must be positive', () => {
    for (const halfLife of [0, -1, Number.NaN]) {
      expect(() => new VolatilityEstimate(halfLife)).toThrow(
        new RangeError(`half-life must be positive, got ${halfLife}`),
      );
    }
  });

  test('annual and per-second units convert through the seconds of a Julian year', () => {
    expect(SECONDS_PER_YEAR).toBe(365.25 * 86_400);
    expect(annualised(perSqrtSecond(0.8))).toBeCloseTo(0.8, 12);
    expect(perSqrtSecond(1) * Math.sqrt(SECONDS_PER_YEAR)).toBeCloseTo(1, 12);
  });
});

describe('optionTermBps', () => {
  test('SOL at 80 % a year over a 420 s window is worth about 12 bps at k = 0.4', () => {
    // 0.4 · 0.8/√31557600 · √420 = 0.001167… → 11.67 bps, rounded up.
    expect(
      optionTermBps({ sigmaPerSqrtSecond: perSqrtSecond(0.8), windowSeconds: 420, k: 0.4, maxBps: 100 }),
    ).toBe(12);
    // Black–Scholes' figure: a 300 s at-the-money option on 80 % volatility is worth about 10 bps.
    expect(
      optionTermBps({ sigmaPerSqrtSecond: perSqrtSecond(0.8), windowSeconds: 300, k: 0.4, maxBps: 100 }),
    ).toBe(10);
  });

  test('capped at maxBps; nothing without a volatility, a window or k', () => {
    const sigma = perSqrtSecond(0.8);
    expect(optionTermBps({ sigmaPerSqrtSecond: sigma * 100, windowSeconds: 420, k: 0.4, maxBps: 100 })).toBe(
      100,
    );
    expect(
      optionTermBps({ sigmaPerSqrtSecond: Number.POSITIVE_INFINITY, windowSeconds: 420, k: 0.4, maxBps: 7 }),
    ).toBe(7);
    for (const [s, t, k] of [
      [0, 420, 0.4],
      [Number.NaN, 420, 0.4],
      [-sigma, 420, 0.4],
      [sigma, 0, 0.4],
      [sigma, 420, 0],
    ] as const) {
      expect(optionTermBps({ sigmaPerSqrtSecond: s, windowSeconds: t, k, maxBps: 100 })).toBe(0);
    }
    expect(optionTermBps({ sigmaPerSqrtSecond: sigma, windowSeconds: 420, k: 0.4, maxBps: 0 })).toBe(0);
    // Negative inputs (a misread config) are no term either, never a cap nor a discount.
    expect(optionTermBps({ sigmaPerSqrtSecond: sigma, windowSeconds: -1, k: 0.4, maxBps: 100 })).toBe(0);
    expect(optionTermBps({ sigmaPerSqrtSecond: sigma, windowSeconds: 420, k: -0.4, maxBps: 100 })).toBe(0);
    expect(optionTermBps({ sigmaPerSqrtSecond: sigma, windowSeconds: 420, k: 0.4, maxBps: -1 })).toBe(0);
  });
});
