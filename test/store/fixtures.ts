// What the store suites share: quote records (a quote needs only its run in the store).
import { randomBytes } from 'node:crypto';
import { type QuoteRecord, timeOrderedUuid } from '../../src/store/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';

/** A base58-looking wallet, different each time. */
export const wallet = () => randomBytes(32).toString('base64url').slice(0, 43);

/** 1 SOL for 187 USDC, open for 30 s, for a fresh wallet. */
export function quoteRecord(runId: string, overrides: Partial<QuoteRecord> = {}): QuoteRecord {
  return {
    quoteId: timeOrderedUuid(),
    runId,
    takerWallet: wallet(),
    inputMint: SOL_MINT,
    outputMint: USDC_MINT,
    inputRaw: 1_000_000_000n,
    outputRaw: 187_000_000n,
    spreadBps: 10,
    inputUsd: '18742/100',
    outputUsd: '1/1',
    inputPrice: {
      source: 'pyth',
      account: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
      feedId: 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
      price: 18_742_000_000n,
      conf: 9_371_000n,
      exponent: -8,
      emaPrice: 18_700_000_000n,
      publishTime: 1_795_000_000,
    },
    outputPrice: null,
    createdAt: new Date().toISOString(),
    expiresAtMs: Date.now() + 30_000,
    htlcExpiresAtMs: Date.now() + 930_000,
    riskChecks: ['inventory'],
    usedByTradeId: null,
    ...overrides,
  };
}
