import type { SignMintInput, SignMintOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { signMintIntent } from '../minting.ts';
import { effect } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SignMintHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'minting'>;

// A burn intent of the trade's shortfall signed (nothing sent): the machine persists it before attestMint
// hands it to Gateway. A refusal is an answer (the maker declines and releases the taker).
export const signMint = (chain: Pick<ChainPort, 'makerWallet'>, hooks: SignMintHooks) =>
  effect<SignMintOutput, SignMintInput>(hooks, (input) =>
    signMintIntent(chain, hooks.minting ?? null, input.valueRaw),
  );
