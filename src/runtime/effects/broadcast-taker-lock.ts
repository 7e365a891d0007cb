import { setTimeout as sleep } from 'node:timers/promises';
import type { BroadcastTakerLockInput, BroadcastTakerLockOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { isChainError } from '../../chain/index.ts';
import { effect } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type BroadcastTakerLockHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'landTimeoutMs' | 'rebroadcastPauseMs'
>;

// The taker's signed lock, broadcast round after round (each round rebroadcasts until the bytes land, or
// for landTimeoutMs) while they can still land: a cluster that drops a send must not lose the swap. An
// unreachable chain only pauses it. Past the lock window the program refuses the lock anyway.
export const broadcastTakerLock = (chain: Pick<ChainPort, 'now' | 'land'>, hooks: BroadcastTakerLockHooks) =>
  effect<BroadcastTakerLockOutput, BroadcastTakerLockInput>(hooks, async (input, signal) => {
    const { signature, transactionBase64, lastValidBlockHeight } = input.submission;
    // Unknown blockhash lifetime: bounded by the lock window below instead.
    const tx = {
      signature,
      transactionBase64,
      lastValidBlockHeight: lastValidBlockHeight ?? Number.MAX_SAFE_INTEGER,
    };
    while (!signal.aborted) {
      try {
        // The estimate says when to ask; only the chain's own clock says the window is over.
        if (hooks.chainTime() > input.lockDeadline && Number(await chain.now()) > input.lockDeadline) {
          return { outcome: 'lapsed' };
        }
        const result = await chain.land(tx, 'confirmed', hooks.landTimeoutMs);
        if (result.status === 'expired') return { outcome: 'lapsed' };
        if (result.status !== 'unknown') return { outcome: result.err === null ? 'landed' : 'refused' };
      } catch (error) {
        if (!isChainError(error, 'unavailable')) {
          return { outcome: isChainError(error, 'blockhash_expired') ? 'lapsed' : 'refused' };
        }
        await sleep(hooks.rebroadcastPauseMs ?? 1_000, undefined, { signal }).catch(() => undefined);
      }
    }
    return { outcome: 'lapsed' };
  });
