import type { SignMakerLockInput, SignMakerLockOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { bytesOf } from '../../vocabulary/index.ts';
import { makerLockDifferences } from '../lock-check.ts';
import { deadlineOf, effect, key } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SignMakerLockHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'minRedeemWindowSeconds'>;

// The maker lock signed, not sent: the machine persists it as the intent before makerLock sends it. Its bytes
// are decoded and held to the trade's terms first: a lock that says anything else is never kept or sent.
export function signMakerLock(
  chain: Pick<ChainPort, 'signMakerLock' | 'programId'>,
  hooks: SignMakerLockHooks,
) {
  const untilDeadline = deadlineOf(hooks);
  return effect<SignMakerLockOutput, SignMakerLockInput>(hooks, async (input) => {
    // The maker lock may land no later than the moment that still leaves the taker its redeem window.
    const lockDeadline = input.expiry - hooks.minRedeemWindowSeconds;
    const signed = await chain.signMakerLock(
      {
        takerEscrow: key(input.takerEscrow),
        taker: key(input.recipient),
        inputMint: key(input.takerMint),
        inputAmount: BigInt(input.takerAmountRaw),
        takerExpiry: BigInt(input.takerExpiry),
        outputMint: key(input.mint),
        amount: BigInt(input.amountRaw),
        hashlock: bytesOf(input.hashlock),
        expiry: BigInt(input.expiry),
        lockDeadline: BigInt(lockDeadline),
      },
      untilDeadline(lockDeadline),
    );
    const differences = makerLockDifferences(input, signed.transactionBase64, chain.programId);
    if (differences.length > 0) {
      throw new Error(`the signed maker lock is not the trade's: ${differences.join('; ')}`);
    }
    return signed;
  });
}
