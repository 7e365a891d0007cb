import type { CheckInventoryInput, CheckInventoryOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type CheckInventoryHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'reprice' | 'mintableUsdc'>;

/**
 * The Gateway's USDC the trade needs on Solana: its output (less what its sourcing swap buys of it) and what
 * its sourcing swap sells of it.
 */
export function usdcNeeded(input: CheckInventoryInput, usdc: string): bigint {
  const { sourcing } = input;
  let need = 0n;
  if (input.outputMint === usdc) {
    need += BigInt(input.outputAmountRaw);
    if (sourcing && sourcing.buyMint === usdc) need -= BigInt(sourcing.minBuyRaw);
  }
  if (sourcing && sourcing.sellMint === usdc) need += BigInt(sourcing.sellRaw);
  return need > 0n ? need : 0n;
}

// Can the maker serve: its output balance, the chain time of the decision, the quote re-priced (last look),
// and — where a Gateway runs — the USDC it lacks on Solana, which it may mint before it locks.
export const checkInventory = (
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet' | 'now'>,
  hooks: CheckInventoryHooks,
) =>
  effect<CheckInventoryOutput, CheckInventoryInput>(hooks, async (input) => {
    const usdc = hooks.mintableUsdc ?? null;
    const need = usdc === null ? 0n : usdcNeeded(input, usdc);
    const [balance, usdcBalance, now, price] = await Promise.all([
      chain.tokenBalance(chain.makerWallet, key(input.outputMint)),
      need > 0n && usdc !== null ? chain.tokenBalance(chain.makerWallet, key(usdc)) : Promise.resolve(0n),
      chain.now(),
      hooks.reprice(input.quoteId),
    ]);
    const mintRaw = need > usdcBalance ? (need - usdcBalance).toString() : null;
    return { available: balance >= BigInt(input.outputAmountRaw), now: Number(now), price, mintRaw };
  });
