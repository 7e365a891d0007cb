import type { MakerLockInput, MakerLockOutput } from '../../../machines/index.ts';
import type { ChainPort, LandResult } from '../../chain/index.ts';
import { describe, effect, NotYet } from './effect.ts';
import { escrowReads } from './escrows.ts';
import type { EffectHooks } from './hooks.ts';

export type MakerLockHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'recordIntent' | 'postFee' | 'landTimeoutMs'
>;

// The intent's maker lock sent until confirmed, or until proved unable to land; the maker escrow decides.
// Landed once confirmed: the taker checks the maker's escrow on chain, at the commitment it chooses, before it
// reveals; waiting for finality here would make every taker wait for it. (Its fee is posted once final, by the
// trade's closing if not here.)
export function makerLock(chain: ChainPort, hooks: MakerLockHooks) {
  const { read, postFeeIfMakers } = escrowReads(chain, hooks);
  return effect<MakerLockOutput, MakerLockInput>(hooks, async (input) => {
    const { intent } = input;
    await hooks.recordIntent(input.tradeId, 'maker_lock', intent.signature, intent.lastValidBlockHeight);
    const result: LandResult = await chain.land(intent, 'confirmed', hooks.landTimeoutMs);
    if (result.status === 'finalized') void hooks.postFee(input.tradeId, intent.signature, result.fee);
    const landed = result.status === 'confirmed' || result.status === 'finalized';
    if (landed && result.err === null) return { landed: true, signature: intent.signature };
    // Whatever happened to the transaction, the escrow decides: a maker escrow that exists came from this
    // intent (its address is unique to the trade, and a lock is signed again only once the last is proved
    // lapsed).
    if (await read(input.makerEscrow, 'confirmed')) {
      if (result.status !== 'finalized') await postFeeIfMakers(input.tradeId, intent.signature);
      return { landed: true, signature: intent.signature };
    }
    if (result.status === 'expired' || (result.status === 'finalized' && result.err !== null)) {
      return { landed: false, expired: result.status === 'expired', now: Number(await chain.now()) };
    }
    throw new NotYet(`maker lock ${intent.signature} not final yet (${describe(result)})`);
  });
}
