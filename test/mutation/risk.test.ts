// Risk limits at their exact edges: the pair's size limits are inclusive, like the notional limits.
import { describe, expect, test } from 'vitest';
import { parsePrice, parseUsd } from '../../src/money/index.ts';
import { evaluateRisk, type RiskInput } from '../../src/quotes/risk.ts';

const NOW = Date.parse('2025-01-01T00:00:00Z');

/** 1 USDT -> 1 USDC, size limits 5..9 USDT, notional limits wide open, all else healthy. */
function rfq(inputRaw: bigint, overrides: Partial<RiskInput> = {}): RiskInput {
  return {
    nowMs: NOW,
    pair: {
      input: { symbol: 'USDT', decimals: 6 },
      output: { symbol: 'USDC', decimals: 6 },
      paused: false,
      minInputRaw: 5_000_000n,
      maxInputRaw: 9_000_000n,
      minNotionalMicroUsd: 0n,
      maxNotionalMicroUsd: parseUsd('1000000'),
    },
    inputRaw,
    inputUsdPrice: parsePrice('1'),
    outputRaw: inputRaw,
    price: { asOfMs: NOW, maxAgeMs: 1_000, alwaysFresh: false },
    inventory: { balanceRaw: 10n ** 12n, reservedRaw: 0n },
    wallet: { address: 'Taker1111', openQuotes: 0, liveTrades: 0, maxOpen: 1 },
    ...overrides,
  };
}

const failed = (input: RiskInput) => evaluateRisk(input).failed;

describe('pair size limits are inclusive', () => {
  test('exactly the minimum and the maximum input size pass', () => {
    expect(failed(rfq(5_000_000n))).toEqual([]);
    expect(failed(rfq(9_000_000n))).toEqual([]);
  });

  test('one raw unit below the minimum size fails min_notional, with the size in the message', () => {
    expect(failed(rfq(4_999_999n))).toEqual([
      {
        check: 'min_notional',
        message: 'input 4.999999 USDT is below the minimum size 5.000000 USDT',
      },
    ]);
  });

  test('one raw unit above the maximum size fails max_notional, with the size in the message', () => {
    expect(failed(rfq(9_000_001n))).toEqual([
      {
        check: 'max_notional',
        message: 'input 9.000001 USDT is above the maximum size 9.000000 USDT',
      },
    ]);
  });
});

describe('price freshness', () => {
  test('a price from the future is fresh however far ahead, and its age is never negative', () => {
    const ahead = rfq(5_000_000n, { price: { asOfMs: NOW + 3_600_000, maxAgeMs: 0, alwaysFresh: false } });
    expect(failed(ahead)).toEqual([]);
  });

  test('a zero maximum age accepts only a price stamped now', () => {
    const old = rfq(5_000_000n, { price: { asOfMs: NOW - 1, maxAgeMs: 0, alwaysFresh: false } });
    expect(failed(old)).toEqual([
      { check: 'price_freshness', message: 'price is 1 ms old; the maximum age is 0 ms' },
    ]);
  });
});

describe('inventory', () => {
  test('an output exactly equal to what is available passes', () => {
    const input = rfq(5_000_000n, { inventory: { balanceRaw: 7_000_000n, reservedRaw: 2_000_000n } });
    expect(failed(input)).toEqual([]);
  });

  test('with everything reserved, any positive output fails', () => {
    const input = rfq(5_000_000n, { inventory: { balanceRaw: 7_000_000n, reservedRaw: 7_000_000n } });
    expect(failed(input).map((f) => f.check)).toEqual(['inventory']);
  });
});
