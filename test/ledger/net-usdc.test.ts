// net_usdc_estimate (docs/quotes-and-ledger.md#ledger): the maker's result in USDC at the quote's prices, six fraction digits,
// exact in bigint and rounded toward −∞ (a fraction of a micro-USDC is always counted as a loss).
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { makerNet, netUsdcEstimate, postMovement, postNetworkFee } from '../../src/ledger/index.ts';
import { formatDecimal, INT64_MAX, parsePrice } from '../../src/money/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import {
  microToText,
  pricing,
  redeemedSwap,
  referenceMicroUsdc,
  refundedSwap,
  SOL_USDC_PRICING,
  USD_1,
  WIDE_MINT,
} from './fixtures.ts';

/** The maker receives `raw` of `mint` (maker_redeem) or, when negative, gives it (maker_lock). */
const makerMoves = (mint: string, raw: bigint) =>
  raw >= 0n
    ? postMovement('maker_redeem', 'sig-in', mint, raw)
    : postMovement('maker_lock', 'sig-out', mint, -raw);

const priceArb = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 12 }))
  .map(([digits, scale]) => parsePrice(formatDecimal(digits, scale)));
const signedInt64Arb = fc.bigInt({ min: -INT64_MAX, max: INT64_MAX });

describe('netUsdcEstimate: worked examples', () => {
  test('maker receives 1 SOL at $187.42 and pays 187 USDC: it made 0.42 USDC', () => {
    const entries = redeemedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 187_000_000n,
      fees: [],
    });
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe('0.420000');
  });

  test('the same swap with a 5,000-lamport fee costs 0.0009371 USDC more, floored to the micro', () => {
    const entries = redeemedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 187_000_000n,
      fees: [5_000n],
    });
    // 0.42 − 5000 × 187.42 / 10^9 = 0.42 − 0.0009371 = 0.4190629
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe('0.419062');
  });

  test('a loss is written with a leading minus: paying 188 USDC for 1 SOL at $187.42', () => {
    const entries = redeemedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 188_000_000n,
      fees: [],
    });
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe('-0.580000');
  });

  test('half a micro-USDC lost rounds toward −∞: −0.0000005 → "-0.000001"', () => {
    // One lamport at $500 is 0.0000005 USD.
    const prices = pricing([[SOL_MINT, '500', 9]]);
    expect(netUsdcEstimate(postNetworkFee('sig-fee', 1n), prices, USD_1)).toBe('-0.000001');
  });

  test('half a micro-USDC gained rounds toward −∞ too: +0.0000005 → "0.000000"', () => {
    const prices = pricing([[SOL_MINT, '500', 9]]);
    expect(netUsdcEstimate(makerMoves(SOL_MINT, 1n), prices, USD_1)).toBe('0.000000');
  });

  test('a fee alone, with SOL priced, is a loss in USDC', () => {
    // 5,000 lamports at $100/SOL = $0.0005
    const prices = pricing([
      [SOL_MINT, '100', 9],
      [USDC_MINT, '1', 6],
    ]);
    expect(netUsdcEstimate(postNetworkFee('sig-fee', 5_000n), prices, USD_1)).toBe('-0.000500');
  });

  test('an exact loss of one micro-USDC is not rounded further: "-0.000001"', () => {
    expect(netUsdcEstimate(makerMoves(USDC_MINT, -1n), SOL_USDC_PRICING, USD_1)).toBe('-0.000001');
  });

  test('a loss of a whole number of USDC keeps its integer part: "-12.000000"', () => {
    expect(netUsdcEstimate(makerMoves(USDC_MINT, -12_000_000n), SOL_USDC_PRICING, USD_1)).toBe('-12.000000');
  });

  test('nothing moved: "0.000000", never "-0.000000"', () => {
    expect(netUsdcEstimate([], SOL_USDC_PRICING, USD_1)).toBe('0.000000');
  });

  test('the estimate is in USDC, not USD: with USDC at $0.5, one USD is two USDC', () => {
    const prices = pricing([[SOL_MINT, '187.42', 9]]);
    expect(netUsdcEstimate(makerMoves(SOL_MINT, 1_000_000_000n), prices, parsePrice('0.5'))).toBe(
      '374.840000',
    );
  });

  test('a USDC slightly off its peg: 1 USD at $0.9999 per USDC is 1.0001000100… USDC, floored', () => {
    const prices = pricing([[USDC_MINT, '1', 6]]);
    expect(netUsdcEstimate(makerMoves(USDC_MINT, 1_000_000n), prices, parsePrice('0.9999'))).toBe('1.000100');
  });

  test('a mint without a price counts as zero', () => {
    const entries = [
      ...makerMoves(USDC_MINT, 2_000_000n),
      ...makerMoves('UnpricedMint1111111111111111111111111', -5n),
    ];
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe('2.000000');
  });

  test('a refunded swap nets only its fees: two 5,000-lamport fees at $187.42 lose 0.0018742 USDC', () => {
    const entries = refundedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 187_000_000n,
      fees: [5_000n, 5_000n],
    });
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe('-0.001875');
  });
});

describe('netUsdcEstimate: exact at every scale', () => {
  test('int64 lamports at $187.42: 9223372036854775807 × 187.42 / 10^9 exactly', () => {
    // 9223372036.854775807 × 187.42 = 1728644387147.32208174794 → floored to the micro.
    expect(netUsdcEstimate(makerMoves(SOL_MINT, INT64_MAX), SOL_USDC_PRICING, USD_1)).toBe(
      '1728644387147.322081',
    );
    expect(netUsdcEstimate(makerMoves(SOL_MINT, -INT64_MAX), SOL_USDC_PRICING, USD_1)).toBe(
      '-1728644387147.322082',
    );
  });

  test('an 18-decimal asset at $1: the estimate is its display amount cut to six digits', () => {
    const prices = pricing([[WIDE_MINT, '1', 18]]);
    expect(netUsdcEstimate(makerMoves(WIDE_MINT, INT64_MAX), prices, USD_1)).toBe('9.223372');
    expect(netUsdcEstimate(makerMoves(WIDE_MINT, 999_999_999_999n), prices, USD_1)).toBe('0.000000');
    expect(netUsdcEstimate(makerMoves(WIDE_MINT, -999_999_999_999n), prices, USD_1)).toBe('-0.000001');
    expect(netUsdcEstimate(makerMoves(WIDE_MINT, -1_000_000_000_000n), prices, USD_1)).toBe('-0.000001');
  });

  test.prop([fc.bigInt({ min: 0n, max: INT64_MAX }), fc.boolean()])(
    'an 18-decimal asset at $1 agrees with plain string truncation of its display amount',
    (raw, gives) => {
      const prices = pricing([[WIDE_MINT, '1', 18]]);
      const display = formatDecimal(raw, 18); // "I.FFFFFFFFFFFFFFFFFF"
      const [int = '', frac = ''] = display.split('.');
      const cut = `${int}.${frac.slice(0, 6)}`;
      const exact = /^0*$/.test(frac.slice(6));
      let expected: string;
      if (!gives || raw === 0n) expected = cut;
      else if (exact) expected = `-${cut}`;
      else expected = microToText(-(BigInt(int + frac.slice(0, 6)) + 1n));
      expect(netUsdcEstimate(makerMoves(WIDE_MINT, gives ? -raw : raw), prices, USD_1)).toBe(expected);
    },
  );

  test.prop([
    signedInt64Arb,
    signedInt64Arb,
    signedInt64Arb,
    priceArb,
    priceArb,
    priceArb,
    priceArb,
    fc.integer({ min: 0, max: 18 }),
  ])(
    'any net of three assets, at any prices and decimals, matches an independent rational reference',
    (solRaw, usdcRaw, wideRaw, solUsd, usdcPrice, wideUsd, usdcUsd, wideDecimals) => {
      const prices = new Map([
        [SOL_MINT, { usd: solUsd, decimals: 9 }],
        [USDC_MINT, { usd: usdcPrice, decimals: 6 }],
        [WIDE_MINT, { usd: wideUsd, decimals: wideDecimals }],
      ]);
      const entries = [
        ...makerMoves(SOL_MINT, solRaw),
        ...makerMoves(USDC_MINT, usdcRaw),
        ...makerMoves(WIDE_MINT, wideRaw),
      ];
      const expected = microToText(referenceMicroUsdc(makerNet(entries), prices, usdcUsd));
      expect(netUsdcEstimate(entries, prices, usdcUsd)).toBe(expected);
    },
  );

  test.prop([signedInt64Arb, priceArb])(
    'the estimate always has exactly six fraction digits and a minus only when below zero',
    (raw, usd) => {
      const prices = new Map([[SOL_MINT, { usd, decimals: 9 }]]);
      const text = netUsdcEstimate(makerMoves(SOL_MINT, raw), prices, USD_1);
      expect(text).toMatch(/^-?(0|[1-9][0-9]*)\.[0-9]{6}$/);
      expect(text.startsWith('-')).toBe(raw < 0n);
    },
  );

  test.prop([fc.array(fc.bigInt({ min: 1n, max: 10_000_000n }), { minLength: 1, maxLength: 8 })])(
    'a refunded SOL/USDC swap estimates exactly −fees at the SOL price, floored',
    (fees) => {
      const entries = refundedSwap({
        inputMint: USDC_MINT,
        inputRaw: 187_000_000n,
        outputMint: SOL_MINT,
        outputRaw: 1_000_000_000n,
        fees,
      });
      const totalFees = fees.reduce((sum, fee) => sum + fee, 0n);
      // −fees × 18742 / 100 / 10^9 USD in micro-USDC = −fees × 18742 / 10^5, floored.
      const num = -totalFees * 18_742n;
      const micro = num % 100_000n === 0n ? num / 100_000n : num / 100_000n - 1n;
      expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1)).toBe(microToText(micro));
    },
  );
});
