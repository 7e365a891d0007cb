import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { parsePrice, parseUsd } from '../../src/money/index.ts';
import type { FeedReading } from '../../src/quotes/prices.ts';
import { evaluateRisk, type PriceLeg, type RiskInput } from '../../src/quotes/risk.ts';
import { RISK_CHECKS, type RiskCheck } from '../../src/vocabulary/index.ts';

const NOW = Date.parse('2025-01-01T00:00:00Z');

/** A Pyth reading at exponent -8: price 187.42 ± 0.09371 (5 bps), EMA 187.00. */
const reading = (overrides: Partial<FeedReading> = {}): FeedReading => ({
  source: 'pyth',
  account: 'So1Feed111111111111111111111111111111111111',
  feedId: 'ef'.repeat(32),
  price: 18_742_000_000n,
  conf: 9_371_000n,
  exponent: -8,
  emaPrice: 18_700_000_000n,
  publishTime: NOW / 1000 - 1,
  ...overrides,
});

const leg = (symbol: string, overrides: Partial<PriceLeg> = {}): PriceLeg => ({
  symbol,
  reading: reading(),
  asOfMs: NOW - 1_000,
  maxAgeMs: 10_000,
  alwaysFresh: false,
  maxConfidenceBps: 50,
  maxDeviationBps: 300,
  ...overrides,
});

/** The SOL leg changed, the USDC leg as healthy as the default. */
const solPrice = (overrides: Partial<PriceLeg>) => [leg('SOL', overrides), leg('USDC')];

/** 10 SOL -> 1874.2 USDC on an enabled pair, fresh prices, ample inventory, an idle wallet: passes all. */
type Overrides = {
  [K in keyof RiskInput]?: RiskInput[K] extends readonly unknown[]
    ? RiskInput[K]
    : RiskInput[K] extends object
      ? Partial<RiskInput[K]>
      : RiskInput[K];
};

function rfq(overrides: Overrides = {}): RiskInput {
  const base: RiskInput = {
    nowMs: NOW,
    pair: {
      input: { symbol: 'SOL', decimals: 9 },
      output: { symbol: 'USDC', decimals: 6 },
      paused: false,
      minInputRaw: 10_000_000n,
      maxInputRaw: 10_000_000_000_000n,
      minNotionalMicroUsd: parseUsd('1'),
      maxNotionalMicroUsd: parseUsd('250000'),
    },
    inputRaw: 10_000_000_000n,
    inputUsdPrice: parsePrice('187.42'),
    outputRaw: 1_874_200_000n,
    prices: [leg('SOL'), leg('USDC')],
    inventory: { balanceRaw: 1_000_000_000_000n, reservedRaw: 0n },
    // A quarter of the free inventory per client address, 15 % per wallet, nothing held yet.
    budget: {
      client: { address: '203.0.113.7', heldRaw: 0n, maxRaw: 250_000_000_000n },
      wallet: { heldRaw: 0n, maxRaw: 150_000_000_000n },
    },
    wallet: { address: 'Taker1111', openQuotes: 0, liveTrades: 0, maxOpen: 5 },
  };
  const merged = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    const current = base[key as keyof RiskInput];
    merged[key] =
      typeof current === 'object' && current !== null && value !== null && !Array.isArray(current)
        ? { ...current, ...(value as object) }
        : value;
  }
  return merged as unknown as RiskInput;
}

const failedChecks = (input: RiskInput) => evaluateRisk(input).failed.map((f) => f.check);
const messageOf = (input: RiskInput, check: RiskCheck) =>
  evaluateRisk(input).failed.find((f) => f.check === check)?.message;

describe('evaluateRisk', () => {
  test('a healthy RFQ passes every check, named in vocabulary order (sourcing only when it sources)', () => {
    expect(evaluateRisk(rfq())).toEqual({ passed: RISK_CHECKS.filter((c) => c !== 'sourcing'), failed: [] });
  });

  describe('sourcing', () => {
    const SOL_RAW = 10n ** 9n;
    const sourcing = (over: Partial<NonNullable<RiskInput['sourcing']>> = {}) => ({
      sellRaw: 5n * SOL_RAW,
      sellAvailableRaw: 5n * SOL_RAW,
      routeProblem: null,
      ...over,
    });

    test('a quote that sources the rest passes it, named last; one that does not never names it', () => {
      expect(evaluateRisk({ ...rfq(), sourcing: sourcing() }).passed).toEqual([...RISK_CHECKS]);
      expect(evaluateRisk(rfq()).passed).not.toContain('sourcing');
    });

    test('no route within the limit fails it with the aggregator’s reason', () => {
      const input = { ...rfq(), sourcing: sourcing({ routeProblem: 'no_route: no pool' }) };
      expect(failedChecks(input)).toEqual(['sourcing']);
      expect(messageOf(input, 'sourcing')).toBe(
        'the output beyond the free inventory cannot be sourced: no_route: no pool',
      );
    });

    test('selling more of the input than the maker has free fails it; exactly what is free passes', () => {
      expect(failedChecks({ ...rfq(), sourcing: sourcing({ sellAvailableRaw: 5n * SOL_RAW }) })).toEqual([]);
      const short = { ...rfq(), sourcing: sourcing({ sellAvailableRaw: 5n * SOL_RAW - 1n }) };
      expect(failedChecks(short)).toEqual(['sourcing']);
      expect(messageOf(short, 'sourcing')).toContain("sells 5.000000000 SOL of the maker's own");
    });
  });

  test('pair_enabled fails when the pair is paused', () => {
    const input = rfq({ pair: { paused: true } });
    expect(failedChecks(input)).toEqual(['pair_enabled']);
    expect(messageOf(input, 'pair_enabled')).toBe('pair SOL->USDC is paused');
  });

  describe('price_freshness', () => {
    test('a price exactly at the maximum age is still fresh; one millisecond older is stale', () => {
      expect(failedChecks(rfq({ prices: solPrice({ asOfMs: NOW - 10_000 }) }))).toEqual([]);
      const stale = rfq({ prices: solPrice({ asOfMs: NOW - 10_001 }) });
      expect(failedChecks(stale)).toEqual(['price_freshness']);
      expect(messageOf(stale, 'price_freshness')).toBe(
        'SOL price is 10001 ms old; the maximum age is 10000 ms',
      );
    });

    test('a source that marks itself always fresh is never stale', () => {
      expect(failedChecks(rfq({ prices: solPrice({ asOfMs: 0, alwaysFresh: true }) }))).toEqual([]);
    });

    test('a price from the future is fresh however far ahead, and its age is never negative', () => {
      expect(failedChecks(rfq({ prices: solPrice({ asOfMs: NOW + 3_600_000, maxAgeMs: 0 }) }))).toEqual([]);
    });

    test('a zero maximum age accepts only a price stamped now', () => {
      const old = rfq({ prices: solPrice({ asOfMs: NOW - 1, maxAgeMs: 0 }) });
      expect(evaluateRisk(old).failed).toEqual([
        { check: 'price_freshness', message: 'SOL price is 1 ms old; the maximum age is 0 ms' },
      ]);
    });

    test('each side is judged by its own maximum age, and both stale sides are named', () => {
      const prices = [
        leg('SOL', { asOfMs: NOW - 5_000, maxAgeMs: 4_000 }),
        leg('USDC', { asOfMs: NOW - 5_000 }),
      ];
      expect(messageOf(rfq({ prices }), 'price_freshness')).toBe(
        'SOL price is 5000 ms old; the maximum age is 4000 ms',
      );
      const both = [leg('SOL', { asOfMs: NOW - 11_000 }), leg('USDC', { asOfMs: NOW - 12_000 })];
      expect(messageOf(rfq({ prices: both }), 'price_freshness')).toBe(
        'SOL price is 11000 ms old; the maximum age is 10000 ms; ' +
          'USDC price is 12000 ms old; the maximum age is 10000 ms',
      );
    });

    test('a side without a usable price fails price_freshness, and what needs a price is not judged', () => {
      const input = rfq({
        prices: solPrice({ reading: null, missing: 'no price update account at X' }),
        inputUsdPrice: null,
        outputRaw: null,
      });
      expect(evaluateRisk(input)).toEqual({
        passed: ['pair_enabled', 'price_confidence', 'price_deviation', 'wallet_limits'],
        failed: [{ check: 'price_freshness', message: 'no usable SOL price: no price update account at X' }],
      });
    });
  });

  describe('price_confidence', () => {
    test('a confidence of exactly the bound passes; one unit wider fails, naming the side and both numbers', () => {
      // 50 bps of 187.42 at exponent -8 is 93_710_000.
      expect(failedChecks(rfq({ prices: solPrice({ reading: reading({ conf: 93_710_000n }) }) }))).toEqual(
        [],
      );
      const wide = rfq({ prices: solPrice({ reading: reading({ conf: 93_710_001n }) }) });
      expect(evaluateRisk(wide).failed).toEqual([
        {
          check: 'price_confidence',
          message: 'SOL confidence is ±51 bps of its price; the maximum is 50 bps',
        },
      ]);
    });

    test('an asset without a bound is not judged on confidence', () => {
      const prices = solPrice({ reading: reading({ conf: 18_742_000_000n }), maxConfidenceBps: null });
      expect(failedChecks(rfq({ prices }))).toEqual([]);
    });
  });

  describe('price_deviation', () => {
    test('a price exactly the bound away from its EMA passes, above or below; further fails', () => {
      // 300 bps of an EMA of 187.00 is 5.61.
      for (const price of [19_261_000_000n, 18_139_000_000n]) {
        expect(failedChecks(rfq({ prices: solPrice({ reading: reading({ price }) }) }))).toEqual([]);
      }
      const fast = rfq({ prices: solPrice({ reading: reading({ price: 19_261_000_001n }) }) });
      expect(evaluateRisk(fast).failed).toEqual([
        {
          check: 'price_deviation',
          message:
            'SOL price is 301 bps from its EMA; the maximum is 300 bps: the market moves too fast to quote',
        },
      ]);
    });

    test('an EMA that is not positive always deviates', () => {
      const input = rfq({ prices: solPrice({ reading: reading({ emaPrice: 0n }) }) });
      expect(messageOf(input, 'price_deviation')).toBe(
        'SOL price has no positive EMA; the maximum is 300 bps: the market moves too fast to quote',
      );
    });
  });

  describe('notional and size limits', () => {
    test('min_notional fails below the USD minimum and says by how much', () => {
      // 0.001 SOL = 0.18742 USD < 1 USD; size limit lowered so only the notional bites.
      const input = rfq({ inputRaw: 1_000_000n, outputRaw: 187_420n, pair: { minInputRaw: 0n } });
      expect(failedChecks(input)).toEqual(['min_notional']);
      expect(messageOf(input, 'min_notional')).toBe(
        'input notional 0.187420 USD is below the minimum 1.000000 USD',
      );
    });

    test('min_notional also fails below the pair minimum input size, with both reasons in one message', () => {
      const input = rfq({ inputRaw: 1_000_000n, outputRaw: 187_420n });
      expect(messageOf(input, 'min_notional')).toBe(
        'input notional 0.187420 USD is below the minimum 1.000000 USD; ' +
          'input 0.001000000 SOL is below the minimum size 0.010000000 SOL',
      );
    });

    test('exactly the minimum and maximum notional pass', () => {
      // 1 USD at 1 USD/unit with 6 decimals, and 250000 USD.
      const pair = { input: { symbol: 'USDT', decimals: 6 }, minInputRaw: 0n, maxInputRaw: 10n ** 18n };
      const at = (raw: bigint) => rfq({ pair, inputRaw: raw, inputUsdPrice: parsePrice('1') });
      expect(failedChecks(at(1_000_000n))).toEqual([]);
      expect(failedChecks(at(999_999n))).toEqual(['min_notional']);
      expect(failedChecks(at(250_000_000_000n))).toEqual([]);
      expect(failedChecks(at(250_000_000_001n))).toEqual(['max_notional']);
    });

    describe('the pair size limits are inclusive, like the notional limits', () => {
      /** 1 USDT -> 1 USDC with size limits 5..9 USDT and the notional limits wide open. */
      const sized = (inputRaw: bigint) =>
        rfq({
          pair: {
            input: { symbol: 'USDT', decimals: 6 },
            minInputRaw: 5_000_000n,
            maxInputRaw: 9_000_000n,
            minNotionalMicroUsd: 0n,
            maxNotionalMicroUsd: parseUsd('1000000'),
          },
          inputRaw,
          inputUsdPrice: parsePrice('1'),
          outputRaw: inputRaw,
        });

      test('exactly the minimum and the maximum input size pass', () => {
        expect(failedChecks(sized(5_000_000n))).toEqual([]);
        expect(failedChecks(sized(9_000_000n))).toEqual([]);
      });

      test('one raw unit below the minimum size fails min_notional, with the size in the message', () => {
        expect(evaluateRisk(sized(4_999_999n)).failed).toEqual([
          { check: 'min_notional', message: 'input 4.999999 USDT is below the minimum size 5.000000 USDT' },
        ]);
      });

      test('one raw unit above the maximum size fails max_notional, with the size in the message', () => {
        expect(evaluateRisk(sized(9_000_001n)).failed).toEqual([
          { check: 'max_notional', message: 'input 9.000001 USDT is above the maximum size 9.000000 USDT' },
        ]);
      });
    });

    test('max_notional fails above the USD maximum and above the pair maximum input size', () => {
      const input = rfq({ inputRaw: 20_000_000_000_000n, outputRaw: 1n });
      expect(failedChecks(input)).toEqual(['max_notional']);
      expect(messageOf(input, 'max_notional')).toBe(
        'input notional 3748400.000000 USD is above the maximum 250000.000000 USD; ' +
          'input 20000.000000000 SOL is above the maximum size 10000.000000000 SOL',
      );
    });
  });

  describe('inventory', () => {
    test('counts only what open quotes and live trades have not reserved', () => {
      const balanceRaw = 5_000_000_000n;
      expect(
        failedChecks(rfq({ inventory: { balanceRaw, reservedRaw: 5_000_000_000n - 1_874_200_000n } })),
      ).toEqual([]);
      const short = rfq({ inventory: { balanceRaw, reservedRaw: 5_000_000_000n - 1_874_199_999n } });
      expect(failedChecks(short)).toEqual(['inventory']);
      expect(messageOf(short, 'inventory')).toBe(
        'output 1874.200000 USDC exceeds available inventory 1874.199999 USDC ' +
          '(balance 5000.000000 USDC, reserved 3125.800001 USDC)',
      );
    });

    test('the message says how much of the unfunded holds counts when they hold more than their budget', () => {
      const input = rfq({
        inventory: {
          balanceRaw: 5_000_000_000n,
          reservedRaw: 4_000_000_000n,
          unfunded: { heldRaw: 9_000_000_000n, capRaw: 2_500_000_000n },
        },
      });
      expect(messageOf(input, 'inventory')).toBe(
        'output 1874.200000 USDC exceeds available inventory 1000.000000 USDC (balance 5000.000000 USDC, ' +
          'reserved 4000.000000 USDC, of which unfunded holds count 2500.000000 USDC of the 9000.000000 USDC ' +
          'they hold)',
      );
    });

    test('with everything reserved, any positive output fails', () => {
      // 5 USDC out of a balance of 7 would fit, were none of it reserved.
      const input = rfq({
        outputRaw: 5_000_000n,
        inventory: { balanceRaw: 7_000_000n, reservedRaw: 7_000_000n },
      });
      expect(failedChecks(input)).toEqual(['inventory']);
    });

    test('reservations above the balance leave nothing available rather than a negative amount', () => {
      const input = rfq({ inventory: { balanceRaw: 1n, reservedRaw: 10n } });
      expect(messageOf(input, 'inventory')).toMatch(/available inventory 0\.000000 USDC/);
    });

    test.prop([
      fc.bigInt({ min: 0n, max: 2n ** 70n }),
      fc.bigInt({ min: 0n, max: 2n ** 70n }),
      fc.bigInt({ min: 0n, max: 2n ** 63n }),
    ])(
      'passes exactly when the output fits in balance minus reserved, at any size',
      (balanceRaw, reservedRaw, outputRaw) => {
        const failed = failedChecks(rfq({ outputRaw, inventory: { balanceRaw, reservedRaw } }));
        // Over-reservation leaves nothing available (never a negative amount), so even a zero output passes.
        const available = balanceRaw > reservedRaw ? balanceRaw - reservedRaw : 0n;
        expect(failed.includes('inventory')).toBe(outputRaw > available);
      },
    );
  });

  describe('reservation_budget', () => {
    const held = (client: bigint, wallet: bigint) => ({
      client: { address: '203.0.113.7', heldRaw: client, maxRaw: 250_000_000_000n },
      wallet: { heldRaw: wallet, maxRaw: 150_000_000_000n },
    });

    test('a quote that fits its client’s and its wallet’s share passes; one unit more fails, naming the holder', () => {
      const fits = 250_000_000_000n - 1_874_200_000n;
      expect(failedChecks(rfq({ budget: held(fits, 0n) }))).toEqual([]);
      const client = rfq({ budget: held(fits + 1n, 0n) });
      expect(failedChecks(client)).toEqual(['reservation_budget']);
      expect(messageOf(client, 'reservation_budget')).toBe(
        'client 203.0.113.7 holds 248125.800001 USDC in unfunded quotes and settlements; with 1874.200000 USDC ' +
          'more it would pass its share of 250000.000000 USDC',
      );
      const wallet = rfq({ budget: held(0n, 150_000_000_000n - 1_874_199_999n) });
      expect(failedChecks(wallet)).toEqual(['reservation_budget']);
      expect(messageOf(wallet, 'reservation_budget')).toMatch(/^wallet Taker1111 holds 148125\.800001 USDC/);
    });

    test('a client and a wallet both over their shares are one failure with both reasons', () => {
      const both = rfq({ budget: held(250_000_000_000n, 150_000_000_000n) });
      expect(failedChecks(both)).toEqual(['reservation_budget']);
      expect(messageOf(both, 'reservation_budget')).toMatch(/^client .*; wallet Taker1111 /);
    });

    test('without a client address only the wallet is judged; without a price (no output) nothing is', () => {
      const noClient = { client: null, wallet: { heldRaw: 0n, maxRaw: 150_000_000_000n } };
      expect(evaluateRisk(rfq({ budget: noClient })).passed).toContain('reservation_budget');
      const unpriced = evaluateRisk(rfq({ outputRaw: null, budget: held(10n ** 15n, 10n ** 15n) }));
      expect(unpriced.passed).not.toContain('reservation_budget');
      expect(unpriced.failed.map((f) => f.check)).not.toContain('reservation_budget');
    });

    test.prop([fc.bigInt({ min: 0n, max: 10n ** 13n }), fc.bigInt({ min: 0n, max: 10n ** 13n })])(
      'it fails exactly when the output would take either holder past its share',
      (clientHeld, walletHeld) => {
        const failed = failedChecks(rfq({ budget: held(clientHeld, walletHeld) }));
        expect(failed.includes('reservation_budget')).toBe(
          clientHeld + 1_874_200_000n > 250_000_000_000n || walletHeld + 1_874_200_000n > 150_000_000_000n,
        );
      },
    );
  });

  describe('wallet_limits', () => {
    test('a wallet one below the limit may open another; at the limit it may not', () => {
      expect(failedChecks(rfq({ wallet: { openQuotes: 2, liveTrades: 2 } }))).toEqual([]);
      const full = rfq({ wallet: { openQuotes: 3, liveTrades: 2 } });
      expect(failedChecks(full)).toEqual(['wallet_limits']);
      expect(messageOf(full, 'wallet_limits')).toBe(
        'wallet Taker1111 has 3 open quotes and 2 live trades; at most 5 are allowed at once',
      );
    });

    test.prop([fc.nat(20), fc.nat(20), fc.nat(40)])(
      'open quotes and live trades count together against the limit',
      (openQuotes, liveTrades, maxOpen) => {
        const failed = failedChecks(rfq({ wallet: { openQuotes, liveTrades, maxOpen } }));
        expect(failed.includes('wallet_limits')).toBe(openQuotes + liveTrades >= maxOpen);
      },
    );
  });

  test('every failing check is reported together, and the rest still pass', () => {
    const input = rfq({
      pair: { paused: true },
      prices: solPrice({ asOfMs: NOW - 60_000 }),
      inputRaw: 20_000_000_000_000n,
      outputRaw: 3_748_400_000_000n,
      wallet: { openQuotes: 5 },
    });
    const result = evaluateRisk(input);
    expect(result.failed.map((f) => f.check)).toEqual([
      'pair_enabled',
      'price_freshness',
      'max_notional',
      'inventory',
      'reservation_budget',
      'wallet_limits',
    ]);
    expect(result.passed).toEqual(['price_confidence', 'price_deviation', 'min_notional']);
  });

  test.prop([
    fc.boolean(),
    fc.integer({ min: 0, max: 100_000 }),
    fc.bigInt({ min: 0n, max: 2n ** 63n }),
    fc.bigInt({ min: 0n, max: 2n ** 63n }),
    fc.nat(10),
  ])(
    'each check lands in exactly one of passed or failed',
    (paused, ageMs, inputRaw, outputRaw, openQuotes) => {
      const result = evaluateRisk(
        rfq({
          pair: { paused },
          prices: solPrice({ asOfMs: NOW - ageMs }),
          inputRaw,
          outputRaw,
          wallet: { openQuotes },
        }),
      );
      const all = [...result.passed, ...result.failed.map((f) => f.check)].sort();
      // sourcing is judged only for a quote that sources part of its output.
      expect(all).toEqual(RISK_CHECKS.filter((c) => c !== 'sourcing').sort());
      for (const f of result.failed) expect(f.message.length).toBeGreaterThan(0);
    },
  );
});
