import type { MakerLockInput, MakerLockOutput } from '../../../machines/index.ts';
import type { ChainPort, LandResult } from '../../chain/index.ts';
import { describe, effect, NotYet } from './effect.ts';
import { escrowReads } from './escrows.ts';
import type { EffectHooks } from './hooks.ts';

export type MakerLockHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'recordIntent' | 'postFee' | 'landTimeoutMs'
>;

// The intent's maker lock sent until final, or until proved unable to land; the maker escrow decides.
export function makerLock(chain: ChainPort, hooks: MakerLockHooks) {
  const { read, postFeeIfMakers } = escrowReads(chain, hooks);
  return effect<MakerLockOutput, MakerLockInput>(hooks, async (input) => {
    const { intent } = input;
    await hooks.recordIntent(input.tradeId, 'maker_lock', intent.signature, intent.lastValidBlockHeight);
    const result: LandResult = await chain.land(intent, 'finalized', hooks.landTimeoutMs);
    if (result.status === 'finalized') void hooks.postFee(input.tradeId, intent.signature, result.fee);
    if (result.status === 'finalized' && result.err === null)
      return { landed: true, signature: intent.signature };
    // Whatever happened to the transaction, the escrow decides: a maker escrow that exists came from this
    // intent (its address is unique to the trade, and a lock is signed again only once the last is proved
    // lapsed).
    if (await read(input.makerEscrow)) {
      if (result.status !== 'finalized') await postFeeIfMakers(input.tradeId, intent.signature);
      return { landed: true, signature: intent.signature };
    }
    if (result.status === 'expired' || (result.status === 'finalized' && result.err !== null)) {
      return { landed: false, expired: result.status === 'expired', now: Number(await chain.now()) };
    }
    throw new NotYet(`maker lock ${intent.signature} not final yet (${describe(result)})`);
  });
}
