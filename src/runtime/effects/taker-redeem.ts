import type { PublicKey } from '@solana/web3.js';
import type { EscrowEnding, RedeemEffectInput } from '../../../machines/index.ts';
import type { ChainPort, EscrowState } from '../../chain/index.ts';
import { bytesOf } from '../../vocabulary/index.ts';
import { deadlineOf, effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';
import { type SettleHooks, settling } from './settle.ts';

export type TakerRedeemHooks = Pick<EffectHooks, 'barrier' | 'chainTime'> & SettleHooks;

// The maker escrow, redeemed for the taker with the preimage it handed over (funds go to it only); read at
// confirmed, as the maker lock was landed (a redeem of an escrow that is not there cannot land).
export function takerRedeem(chain: ChainPort, hooks: TakerRedeemHooks) {
  const settle = settling(chain, hooks);
  const untilDeadline = deadlineOf(hooks);
  return effect<EscrowEnding, RedeemEffectInput>(hooks, (input) =>
    settle(
      input,
      'taker_redeem',
      (state) =>
        chain.signRedeemFor(
          {
            takerEscrow: requireTakerEscrow(state),
            taker: key(input.escrow.recipient),
            outputMint: state.mint,
            preimage: bytesOf(input.preimage),
          },
          untilDeadline(Number(state.expiry)),
        ),
      (signature) => ({ kind: 'paid', signature, preimage: input.preimage }),
      'confirmed',
    ),
  );
}

function requireTakerEscrow(state: EscrowState): PublicKey {
  if (!state.takerEscrow) throw new Error('maker escrow names no taker escrow');
  return state.takerEscrow;
}
