// A hedge in the ledger: its two legs against the venue (what went out, what came in, to the raw unit), its
// fee, and its slippage against the mid it was bounded by as the trade's P&L — the hedge is valued at that
// mid, not at the trade's quote, so net_usdc_estimate moves by the slippage and the fee only.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  isBalanced,
  makerNet,
  netUsdcEstimate,
  postNetworkFee,
  postSwap,
  summarize,
  type Valuations,
} from '../../src/ledger/index.ts';
import { INT64_MAX } from '../../src/money/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { pricing, redeemedSwap, SOL_USDC_PRICING, USD_1 } from './fixtures.ts';

const swap = (amountInRaw: bigint, amountOutRaw: bigint) =>
  postSwap('sig-hedge', { inputMint: SOL_MINT, amountInRaw, outputMint: USDC_MINT, amountOutRaw });

/** The hedge's own prices: SOL at `solUsd`, USDC at $1, under its signature. */
const hedgeAt = (solUsd: string): Valuations =>
  new Map([
    [
      'sig-hedge',
      pricing([
        [SOL_MINT, solUsd, 9],
        [USDC_MINT, '1', 6],
      ]),
    ],
  ]);

describe('postSwap', () => {
  test('the maker gives the input to the venue and receives the output from it', () => {
    expect(swap(2_000_000_000n, 380_000_000n)).toEqual([
      {
        movement: 'aggregator_swap',
        signature: 'sig-hedge',
        mint: SOL_MINT,
        account: 'venue',
        side: 'debit',
        amountRaw: 2_000_000_000n,
      },
      {
        movement: 'aggregator_swap',
        signature: 'sig-hedge',
        mint: SOL_MINT,
        account: 'maker',
        side: 'credit',
        amountRaw: 2_000_000_000n,
      },
      {
        movement: 'aggregator_swap',
        signature: 'sig-hedge',
        mint: USDC_MINT,
        account: 'maker',
        side: 'debit',
        amountRaw: 380_000_000n,
      },
      {
        movement: 'aggregator_swap',
        signature: 'sig-hedge',
        mint: USDC_MINT,
        account: 'venue',
        side: 'credit',
        amountRaw: 380_000_000n,
      },
    ]);
  });

  test.prop([fc.bigInt({ min: 0n, max: INT64_MAX }), fc.bigInt({ min: 0n, max: INT64_MAX })])(
    'balances per asset and moves the maker by exactly what the chain moved',
    (amountIn, amountOut) => {
      const entries = swap(amountIn, amountOut);
      expect(isBalanced(entries)).toBe(true);
      const net = makerNet(entries);
      expect(net.get(SOL_MINT) ?? 0n).toBe(-amountIn);
      expect(net.get(USDC_MINT) ?? 0n).toBe(amountOut);
    },
  );
});

describe('a hedge in net_usdc_estimate', () => {
  // The trade: the maker bought 1 SOL at $187.42 for 187 USDC (+0.42). Later SOL is at $190 and the hedge
  // sells that SOL for 189.5 USDC: 0.5 USDC less than the mid, its slippage.
  const trade = redeemedSwap({
    inputMint: SOL_MINT,
    inputRaw: 1_000_000_000n,
    outputMint: USDC_MINT,
    outputRaw: 187_000_000n,
    fees: [],
  });
  const hedge = swap(1_000_000_000n, 189_500_000n);

  test('valued at its own mid, the hedge adds its slippage against that mid (−0.5), not the market move', () => {
    expect(netUsdcEstimate([...trade, ...hedge], SOL_USDC_PRICING, USD_1, hedgeAt('190'))).toBe('-0.080000');
  });

  test('its fee counts at the hedge’s SOL price: 5,000 lamports at $190 is 0.00095 USDC', () => {
    const withFee = [...trade, ...hedge, ...postNetworkFee('sig-hedge', 5_000n)];
    expect(netUsdcEstimate(withFee, SOL_USDC_PRICING, USD_1, hedgeAt('190'))).toBe('-0.080950');
  });

  test('a hedge that paid exactly the mid leaves the trade’s result as it was', () => {
    const fair = swap(1_000_000_000n, 190_000_000n);
    expect(netUsdcEstimate([...trade, ...fair], SOL_USDC_PRICING, USD_1, hedgeAt('190'))).toBe(
      netUsdcEstimate(trade, SOL_USDC_PRICING, USD_1),
    );
  });

  test('without its valuation it would count the market move as the trade’s (what valuations prevent)', () => {
    expect(netUsdcEstimate([...trade, ...hedge], SOL_USDC_PRICING, USD_1)).toBe('2.500000');
  });

  test.prop([
    fc.bigInt({ min: 1n, max: 10n ** 15n }),
    fc.bigInt({ min: 0n, max: 10n ** 12n }),
    fc.integer({ min: 1, max: 1_000_000 }),
  ])('adds exactly out − in × mid, in USDC, floored', (amountIn, amountOut, solCents) => {
    const solUsd = (solCents / 100).toFixed(2);
    const entries = swap(amountIn, amountOut);
    // in micro-USDC: out − in × solCents / 100 / 1000 (SOL raw → micro-USDC), floored toward −∞.
    const num = amountOut * 100_000n - amountIn * BigInt(solCents);
    const micro = num >= 0n ? num / 100_000n : -((-num + 99_999n) / 100_000n);
    const sign = micro < 0n ? '-' : '';
    const abs = micro < 0n ? -micro : micro;
    const text = `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
    expect(netUsdcEstimate(entries, SOL_USDC_PRICING, USD_1, hedgeAt(solUsd))).toBe(text);
  });

  test('the summary stays balanced with the hedge and counts its entries', () => {
    const entries = [...trade, ...hedge, ...postNetworkFee('sig-hedge', 5_000n)];
    expect(summarize(entries, SOL_USDC_PRICING, USD_1, hedgeAt('190'))).toEqual({
      balanced: true,
      entry_count: trade.length + 6,
      net_usdc_estimate: '-0.080950',
    });
  });
});
