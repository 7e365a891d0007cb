// Settling a locked escrow with a maker transaction, the shared step of the redeem, refund and cancel effects.
import type { EscrowEffectInput, EscrowEnding } from '../../../machines/index.ts';
import type { ChainPort, Commitment, EscrowState, SignedMakerTransaction } from '../../chain/index.ts';
import { escrowReads, landing } from './escrows.ts';
import type { EffectHooks } from './hooks.ts';

/** What settling reads: landing a transaction and posting fees. */
export type SettleHooks = Pick<EffectHooks, 'recordIntent' | 'postFee' | 'landTimeoutMs'>;

export function settling(chain: ChainPort, hooks: SettleHooks) {
  const { read, ended, postFeeIfMakers } = escrowReads(chain, hooks);
  const land = landing(chain, hooks);

  /**
   * Settles a locked escrow with the maker's transaction, or answers how it already ended. A transaction
   * that fails on chain because someone settled the escrow first is not an error: the ending says how.
   */
  return async function settle(
    input: EscrowEffectInput,
    kind: string,
    sign: (state: EscrowState) => Promise<SignedMakerTransaction>,
    outcome: (signature: string) => EscrowEnding,
    /** What the escrow is read at before acting: finalized, or confirmed for the maker's own fresh lock. */
    commitment: Commitment = 'finalized',
  ): Promise<EscrowEnding> {
    const { escrow } = input;
    const endedBefore = async (state: EscrowState | null) => {
      const ending = await ended(escrow, state);
      await postFeeIfMakers(input.tradeId, ending.signature);
      return ending;
    };
    const state = await read(escrow.address, commitment);
    if (state === null || state.status !== 'locked') return endedBefore(state);
    try {
      return outcome(await land(input.tradeId, kind, await sign(state)));
    } catch (error) {
      const after = await read(escrow.address, commitment);
      if (after === null || after.status !== 'locked') return endedBefore(after);
      throw error;
    }
  };
}
