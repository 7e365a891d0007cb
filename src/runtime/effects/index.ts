// The trade machine's effects, made real: each invoked actor of machines/trade.machine.ts on the chain
// port, one file each (named after the effect), put together here as the map the machine is provided with.
// Every one
// - waits for the durability barrier first: the transition that started it is on disk before anything
//   is sent (and a maker-signed transaction's intent before it is sent); if that transition could not be
//   stored, the effect fails without acting (the trade is taken up again from what was stored);
// - is idempotent: a re-run after a restart finds the movement done and answers it;
// - answers what the chain proves (escrow endings), so a taker who settled an escrow first, in either
//   direction, moves the trade to where the funds really went;
// - rejects with an EffectFailure { message, at } — `at` the chain time, from which the machine backs off.
import type { PromiseActorLogic } from 'xstate';
import type { EffectInput, EffectOutput, TradeEffect } from '../../../machines/index.ts';
import type { ChainPort } from '../../chain/index.ts';
import { attestMint } from './attest-mint.ts';
import { broadcastTakerLock } from './broadcast-taker-lock.ts';
import { checkInventory } from './check-inventory.ts';
import { closeEscrows } from './close-escrows.ts';
import type { EffectHooks } from './hooks.ts';
import { makerCancel } from './maker-cancel.ts';
import { makerLock } from './maker-lock.ts';
import { makerRedeem } from './maker-redeem.ts';
import { makerRefund } from './maker-refund.ts';
import { sendMint } from './send-mint.ts';
import { sendSourcing } from './send-sourcing.ts';
import { signMakerLock } from './sign-maker-lock.ts';
import { signMint } from './sign-mint.ts';
import { signSourcing } from './sign-sourcing.ts';
import { takerRedeem } from './taker-redeem.ts';
import { takerRefund } from './taker-refund.ts';

export { EffectError } from './effect.ts';
export type { EffectHooks } from './hooks.ts';

/**
 * One actor per effect the machine names, typed by its input and output: a name missing here, or one the
 * machine does not know, does not typecheck.
 */
export type EffectActors = {
  readonly [E in TradeEffect]: PromiseActorLogic<EffectOutput<E>, EffectInput<E>>;
};

/** Every effect on `chain`, each handed the hooks it reads. */
export function chainEffects(chain: ChainPort, hooks: EffectHooks): EffectActors {
  return {
    broadcastTakerLock: broadcastTakerLock(chain, hooks),
    checkInventory: checkInventory(chain, hooks),
    signSourcing: signSourcing(chain, hooks),
    sendSourcing: sendSourcing(chain, hooks),
    signMint: signMint(chain, hooks),
    attestMint: attestMint(chain, hooks),
    sendMint: sendMint(chain, hooks),
    signMakerLock: signMakerLock(chain, hooks),
    makerLock: makerLock(chain, hooks),
    takerRedeem: takerRedeem(chain, hooks),
    makerRedeem: makerRedeem(chain, hooks),
    makerRefund: makerRefund(chain, hooks),
    makerCancel: makerCancel(chain, hooks),
    takerRefund: takerRefund(chain, hooks),
    closeEscrows: closeEscrows(chain, hooks),
  };
}
