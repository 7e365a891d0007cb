import type { AttestMintInput, AttestMintOutput } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { attestMintIntent } from '../minting.ts';
import { effect } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

export type AttestMintHooks = Pick<EffectHooks, 'barrier' | 'chainTime' | 'minting'>;

// The stored intent's attestation (asked for once), checked, and the gatewayMint signed from it (not sent):
// the machine persists both before sendMint sends. Gateway down or refusing, or an answer that is not the
// mint the maker asked for, is an answer: the maker declines and releases the taker.
export const attestMint = (
  chain: Pick<ChainPort, 'makerWallet' | 'signMakerInstructions' | 'commitmentSlots'>,
  hooks: AttestMintHooks,
) =>
  effect<AttestMintOutput, AttestMintInput>(hooks, (input) =>
    attestMintIntent(chain, hooks.minting ?? null, input.intent),
  );
