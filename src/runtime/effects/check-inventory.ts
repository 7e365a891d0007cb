import type { CheckInventoryInput, CheckInventoryOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type CheckInventoryHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'reprice'>;

// Can the maker serve: its output balance, the chain time of the decision, the quote re-priced (last look).
export const checkInventory = (
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet' | 'now'>,
  hooks: CheckInventoryHooks,
) =>
  effect<CheckInventoryOutput, CheckInventoryInput>(hooks, async (input) => {
    const [balance, now, price] = await Promise.all([
      chain.tokenBalance(chain.makerWallet, key(input.outputMint)),
      chain.now(),
      hooks.reprice(input.quoteId),
    ]);
    return { available: balance >= BigInt(input.outputAmountRaw), now: Number(now), price };
  });
