import type { EscrowEffectInput, EscrowEnding } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';
import { type SettleHooks, settling } from './settle.ts';

export type TakerRefundHooks = Pick<EffectHooks, 'barrier' | 'chainTime'> & SettleHooks;

// The taker escrow's expiry refund, submitted by the maker (funds go to the taker only).
export function takerRefund(chain: ChainPort, hooks: TakerRefundHooks) {
  const settle = settling(chain, hooks);
  return effect<EscrowEnding, EscrowEffectInput>(hooks, (input) =>
    settle(
      input,
      'taker_refund',
      (state) =>
        chain.signRefundFor({
          takerEscrow: key(input.escrow.address),
          taker: key(input.escrow.initializer),
          inputMint: state.mint,
        }),
      (signature) => ({ kind: 'returned', signature, how: 'refunded' }),
    ),
  );
}
