// A maker set up for just-in-time minting through the embedded Gateway (test/e2e/gateway-mint*.test.ts): 50 USDC
// on Solana, 1,000 in its unified balance, counted in quotes; and a taker whose quote needs more than the 50.
import { PublicKey } from '@solana/web3.js';
import { expect } from 'vitest';
import { formatDecimal } from '../../src/money/index.ts';
import { USDC_MINT } from './mints.ts';
import type { ConfigDocument, TestService } from './service.ts';
import { newSecret, Taker } from './taker.ts';

export const ONE = 1_000_000n;
export const SOLANA_USDC = 50n * ONE;
export const DEPOSIT = 1_000n * ONE;

export const mintingConfig =
  (options: { maxFeeUsdc?: string } = {}) =>
  (doc: ConfigDocument) => {
    const usdc = doc.inventory.find((entry) => entry.asset === 'USDC') as Record<string, unknown>;
    usdc.amount = formatDecimal(SOLANA_USDC, 6);
    doc.gateway = {
      mode: 'embedded',
      count_unified_in_quotes: true,
      refresh_interval_ms: 200,
      // Generous: a Gateway request that times out releases the taker (gateway_failed), and on a loaded runner
      // the dev Gateway — in the service's own process, anvil beside it — can take seconds to answer right
      // after a restart. What these tests look at is not a slow Gateway.
      timeout_ms: 15_000,
      ...(options.maxFeeUsdc ? { max_fee_usdc: options.maxFeeUsdc } : {}),
      embedded: { evm_deposit_usdc: formatDecimal(DEPOSIT, 6), settle_interval_ms: 100 },
    };
  };

export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The unified balance counted, so that a quote may pay more than the Solana USDC. */
export const unifiedCounted = (service: TestService) =>
  until('the unified balance counted', async () => {
    const gateway = (await service.app.inject('/v1/inventory')).json().gateway;
    return BigInt(gateway.usable_raw) > 0n && gateway.error === null ? gateway : undefined;
  });

export const solanaUsdc = (service: TestService) =>
  service.chain.tokenBalance(service.chain.makerWallet, new PublicKey(USDC_MINT));

/** A taker asks 0.5 SOL → USDC (~93 USDC, more than the 50 on Solana), settles and locks. */
export async function lockedTrade(service: TestService) {
  const taker = new Taker(service.app);
  await taker.airdrop('SOL', '2');
  const quote = await taker.quote('SOL', 'USDC', '0.5');
  const output = BigInt(quote.quoted_output_amount_raw);
  const secret = newSecret();
  const settled = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settled.trade_id as string;
  const locked = await taker.lock(tradeId, settled.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  return { taker, tradeId, output, secret };
}
