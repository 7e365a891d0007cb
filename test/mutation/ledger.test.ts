// The ledger's vocabulary lists are the contract with storage and reports: each names exactly what
// postings can produce, no more and no less.
import { describe, expect, test } from 'vitest';
import {
  FEE_MINT,
  LEDGER_ACCOUNTS,
  LEDGER_MOVEMENTS,
  type LedgerMovement,
  netUsdcEstimate,
  postMovement,
  postNetworkFee,
} from '../../src/ledger/index.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

const everyPosting = () => [
  ...LEDGER_MOVEMENTS.filter((m): m is Exclude<LedgerMovement, 'network_fee'> => m !== 'network_fee').flatMap(
    (movement) => postMovement(movement, `sig-${movement}`, USDC, 1n),
  ),
  ...postNetworkFee('sig-fee', 5_000n),
];

describe('ledger vocabulary', () => {
  test('LEDGER_MOVEMENTS is exactly the movements postings record', () => {
    expect(new Set(everyPosting().map((e) => e.movement))).toEqual(new Set(LEDGER_MOVEMENTS));
    expect(new Set(LEDGER_MOVEMENTS).size).toBe(7);
  });

  test('LEDGER_ACCOUNTS is exactly the accounts postings touch', () => {
    expect(new Set(everyPosting().map((e) => e.account))).toEqual(new Set(LEDGER_ACCOUNTS));
    expect(new Set(LEDGER_ACCOUNTS).size).toBe(5);
  });
});

describe('netUsdcEstimate', () => {
  test('a fee alone, with SOL priced, is a loss in USDC', () => {
    const pricing = new Map([
      [FEE_MINT, { usd: { num: 100n, den: 1n }, decimals: 9 }],
      [USDC, { usd: { num: 1n, den: 1n }, decimals: 6 }],
    ]);
    // 5,000 lamports at $100/SOL = $0.0005
    expect(netUsdcEstimate(postNetworkFee('sig-fee', 5_000n), pricing, { num: 1n, den: 1n })).toBe(
      '-0.000500',
    );
  });
});
