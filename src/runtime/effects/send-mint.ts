import type { SendMintInput, SendMintOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { landMint, sentMintOutput } from '../minting.ts';
import { effect, NotYet } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type SendMintHooks = Pick<
  EffectHooks,
  'barrier' | 'chainTime' | 'recordIntent' | 'minting' | 'postMint' | 'landTimeoutMs'
>;

// The stored gatewayMint landed (its bytes rebroadcast until final, or proved lapsed) and booked.
export const sendMint = (
  chain: Pick<ChainPort, 'land' | 'signatureState' | 'blockHeight' | 'now'>,
  hooks: SendMintHooks,
) =>
  effect<SendMintOutput, SendMintInput>(hooks, async (input) => {
    const tx = input.intent.transaction;
    const { minting, postMint } = hooks;
    if (tx === null) throw new Error('no signed gatewayMint to send');
    if (!minting || !postMint) throw new Error('no Gateway and ledger to mint with on this instance');
    await hooks.recordIntent(input.tradeId, 'gateway_mint', tx.signature, tx.lastValidBlockHeight);
    const sent = await landMint(chain, minting, postMint, input, hooks.landTimeoutMs);
    if (sent.status === 'pending')
      throw new NotYet(`gatewayMint ${tx.signature} not final yet (${sent.detail})`);
    return sentMintOutput(sent, Number(await chain.now()));
  });
