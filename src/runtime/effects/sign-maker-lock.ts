import type { SignMakerLockInput, SignMakerLockOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { bytesOf } from '../../vocabulary/index.ts';
import { deadlineOf, effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SignMakerLockHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'minRedeemWindowSeconds'>;

// The maker lock signed, not sent: the machine persists it as the intent before makerLock sends it.
export function signMakerLock(chain: Pick<ChainPort, 'signMakerLock'>, hooks: SignMakerLockHooks) {
  const untilDeadline = deadlineOf(hooks);
  return effect<SignMakerLockOutput, SignMakerLockInput>(hooks, async (input) => {
    // The maker lock may land no later than the moment that still leaves the taker its redeem window.
    const lockDeadline = input.expiry - hooks.minRedeemWindowSeconds;
    return chain.signMakerLock(
      {
        takerEscrow: key(input.takerEscrow),
        taker: key(input.recipient),
        outputMint: key(input.mint),
        amount: BigInt(input.amountRaw),
        hashlock: bytesOf(input.hashlock),
        expiry: BigInt(input.expiry),
        lockDeadline: BigInt(lockDeadline),
      },
      untilDeadline(lockDeadline),
    );
  });
}
