import type { EscrowEnding, RedeemEffectInput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { bytesOf } from '../../vocabulary/index.ts';
import { deadlineOf, effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';
import { type SettleHooks, settling } from './settle.ts';

export type MakerRedeemHooks = Pick<EffectHooks, 'barrier' | 'chainTime'> & SettleHooks;

// The taker escrow, redeemed for the maker with the revealed preimage.
export function makerRedeem(chain: ChainPort, hooks: MakerRedeemHooks) {
  const settle = settling(chain, hooks);
  const untilDeadline = deadlineOf(hooks);
  return effect<EscrowEnding, RedeemEffectInput>(hooks, (input) =>
    settle(
      input,
      'maker_redeem',
      // Before the taker escrow's expiry, or the taker may refund it: the fee rises as that nears.
      (state) =>
        chain.signMakerRedeem(
          {
            takerEscrow: key(input.escrow.address),
            inputMint: state.mint,
            preimage: bytesOf(input.preimage),
          },
          untilDeadline(Number(state.expiry)),
        ),
      (signature) => ({ kind: 'paid', signature, preimage: input.preimage }),
    ),
  );
}
