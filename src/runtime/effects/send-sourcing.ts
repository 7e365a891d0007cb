import type { SendSourcingInput, SendSourcingOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { landSourcingSwap } from '../sourcing.ts';
import { effect, NotYet } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SendSourcingHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'recordIntent' | 'postSwap' | 'landTimeoutMs'
>;

// The intent's sourcing swap landed (its bytes rebroadcast until final, or proved lapsed) and booked.
export const sendSourcing = (
  chain: Pick<ChainPort, 'land' | 'getTransaction' | 'makerWallet' | 'now'>,
  hooks: SendSourcingHooks,
) =>
  effect<SendSourcingOutput, SendSourcingInput>(hooks, async (input) => {
    const { intent } = input;
    await hooks.recordIntent(input.tradeId, 'aggregator_swap', intent.signature, intent.lastValidBlockHeight);
    const postSwap = hooks.postSwap;
    if (postSwap === undefined) throw new Error('no ledger to book a sourcing swap on');
    const sent = await landSourcingSwap(chain, postSwap, input, hooks.landTimeoutMs);
    switch (sent.status) {
      case 'pending':
        throw new NotYet(`sourcing swap ${intent.signature} not final yet (${sent.detail})`);
      case 'landed':
        return {
          landed: true,
          signature: sent.signature,
          soldRaw: sent.soldRaw,
          boughtRaw: sent.boughtRaw,
        };
      case 'expired':
        return { landed: false, expired: true, now: Number(await chain.now()) };
      case 'failed':
        return {
          landed: false,
          expired: false,
          now: Number(await chain.now()),
          failed: { signature: sent.signature, slippage: sent.slippage },
        };
    }
  });
