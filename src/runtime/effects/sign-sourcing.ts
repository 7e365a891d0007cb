import type { SignSourcingInput, SignSourcingOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { signSourcingSwap } from '../sourcing.ts';
import { effect } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SignSourcingHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'sourcing'>;

// The sourcing swap quoted within the plan's bounds and signed (nothing sent); a refusal is an answer
// (the maker declines and releases the taker), a chain that does not answer an error (retried).
export const signSourcing = (
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet'>,
  hooks: SignSourcingHooks,
) =>
  effect<SignSourcingOutput, SignSourcingInput>(hooks, (input) =>
    signSourcingSwap(chain, hooks.sourcing ?? null, input),
  );
