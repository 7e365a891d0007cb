import type { EscrowEffectInput, MakerRefundOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { escrowEnding } from '../endings.ts';
import { effect, key } from './effect.ts';
import { escrowReads } from './escrows.ts';
import type { EffectHooks } from './hooks.ts';
import { type SettleHooks, settling } from './settle.ts';

export type MakerRefundHooks = Pick<EffectHooks, 'barrier' | 'chainTime'> & SettleHooks;

// The maker escrow back to the maker after its expiry; `absent` when no maker lock ever landed.
export function makerRefund(chain: ChainPort, hooks: MakerRefundHooks) {
  const { read } = escrowReads(chain, hooks);
  const settle = settling(chain, hooks);
  return effect<MakerRefundOutput, EscrowEffectInput>(hooks, async (input) => {
    const state = await read(input.escrow.address);
    if (state === null) {
      const ending = await escrowEnding(chain, input.escrow, null, 'finalized');
      return ending ?? { kind: 'absent' };
    }
    return settle(
      input,
      'maker_refund',
      () => chain.signMakerRefund({ makerEscrow: key(input.escrow.address), outputMint: state.mint }),
      (signature) => ({ kind: 'returned', signature, how: 'refunded' }),
    );
  });
}
