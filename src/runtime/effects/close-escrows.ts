import { setTimeout as sleep } from 'node:timers/promises';
import type { CloseEscrowsInput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { effect, key, NotYet } from './effect.ts';
import { escrowReads, landing } from './escrows.ts';
import type { EffectHooks } from './hooks.ts';

export type CloseEscrowsHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'recordIntent' | 'postFee' | 'unpostedFees' | 'landTimeoutMs'
>;

/** How often a fee still pending on chain (not final, or its transaction may still land) is asked again. */
const FEE_WAIT_POLL_MS = 1_000;

// Rent of the settled maker escrow back to the maker; tokens donated to its vault swept with it.
// The trade's last effect: the maker escrow's rent back, then the books — every maker transaction of
// the trade that reached the chain has its fee in the ledger (one whose landing no attempt saw, after a
// crash, is found here), before the trade closes.
export function closeEscrows(chain: ChainPort, hooks: CloseEscrowsHooks) {
  const { read } = escrowReads(chain, hooks);
  const land = landing(chain, hooks);
  const settleFees = feeSettling(chain, hooks);
  return effect<unknown, CloseEscrowsInput>(hooks, async (input, signal) => {
    const state = await read(input.makerEscrow);
    const closed =
      state && state.status !== 'locked'
        ? await land(
            input.tradeId,
            'close_maker_escrow',
            await chain.signClose({ escrow: key(input.makerEscrow), mint: state.mint }),
          )
        : null;
    await settleFees(input.tradeId, signal);
    return closed;
  });
}

function feeSettling(
  chain: Pick<ChainPort, 'blockHeight' | 'signatureState'>,
  hooks: Pick<EffectHooks, 'unpostedFees' | 'postFee' | 'landTimeoutMs'>,
) {
  /**
   * Posts the fee of every intent of the trade the chain shows final and the ledger does not yet. An intent
   * still unknown to the chain never landed once the chain is past its last valid block height (read before
   * its status, so a landing between the two reads is not missed). Until then it could still land: a
   * transaction a killed run recorded and perhaps sent, which the next run signed again — up to a
   * blockhash's life (150 blocks: a minute) after it was signed. That wait, like a transaction's
   * finalization, is one the chain ends as its blocks go by, so the effect waits for it as long as the
   * block height moves (asking every second), whatever a landing's timeout is; it fails and retries only
   * when the height stood still for landTimeoutMs (a stalled chain) or a read failed. Failing every few
   * seconds instead counted and logged each attempt as a failure and backed off past the moment it could
   * close.
   */
  return async function settleFees(tradeId: string, signal: AbortSignal): Promise<void> {
    let progress = { height: Number.NEGATIVE_INFINITY, at: Date.now() };
    for (const { signature, lastValidBlockHeight } of await hooks.unpostedFees(tradeId)) {
      for (;;) {
        const height = await chain.blockHeight();
        if (height > progress.height) progress = { height, at: Date.now() };
        const state = await chain.signatureState(signature);
        if (state.status === 'finalized') {
          await hooks.postFee(tradeId, signature, state.fee);
          break;
        }
        const pending =
          state.status !== 'unknown'
            ? `${signature} not final yet`
            : lastValidBlockHeight !== null && height <= lastValidBlockHeight
              ? `${signature} may still land (block height ${height} ≤ ${lastValidBlockHeight})`
              : null;
        if (pending === null) break;
        if (signal.aborted) throw new NotYet(pending);
        if (Date.now() - progress.at >= hooks.landTimeoutMs)
          throw new NotYet(
            `${pending}; the chain stayed at block height ${height} for ${hooks.landTimeoutMs} ms`,
          );
        await sleep(FEE_WAIT_POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  };
}
