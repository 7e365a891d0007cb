import type { EscrowEffectInput, EscrowEnding } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';
import { type SettleHooks, settling } from './settle.ts';

export type MakerCancelHooks = Pick<EffectHooks, 'barrier' | 'chainTime'> & SettleHooks;

// The taker escrow released at once by the maker, its recipient.
export function makerCancel(chain: ChainPort, hooks: MakerCancelHooks) {
  const settle = settling(chain, hooks);
  return effect<EscrowEnding, EscrowEffectInput>(hooks, (input) =>
    settle(
      input,
      'maker_cancel',
      (state) =>
        chain.signMakerCancel({
          takerEscrow: key(input.escrow.address),
          taker: key(input.escrow.initializer),
          inputMint: state.mint,
        }),
      (signature) => ({ kind: 'returned', signature, how: 'cancelled' }),
    ),
  );
}
