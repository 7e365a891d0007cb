// What the store suites share: quote records (a quote needs only its run in the store).
import { randomBytes } from 'node:crypto';
import { type QuoteRecord, timeOrderedUuid } from '../../src/store/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { SOL_PYTH_PRICE } from '../support/prices.ts';

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
    inputPrice: SOL_PYTH_PRICE,
    outputPrice: null,
    createdAt: new Date().toISOString(),
    expiresAtMs: Date.now() + 30_000,
    htlcExpiresAtMs: Date.now() + 930_000,
    riskChecks: ['inventory'],
    usedByTradeId: null,
    ...overrides,
  };
}
