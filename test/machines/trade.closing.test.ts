// A trade is closed only when no funds of it can be left in an escrow: when the taker escrow goes back
// to the taker, the maker reclaims its own escrow first whenever a maker lock landed or still may, and
// follows how that escrow really ended.
import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import type { MakerLockOutput } from '../../machines/index.ts';
import {
  ABSENT,
  deferred,
  type FakeEffects,
  finalizedLock,
  kinds,
  PREIMAGE,
  paid,
  reach,
  returned,
  SIG,
  startTrade,
} from './trade.fixtures.ts';

const refundedToTaker = { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund } as const;

/** A trade whose maker lock is still being sent when the taker escrow goes back to the taker. */
async function refundedWhileTheMakerLockIsInFlight(makerRefund: FakeEffects['makerRefund']) {
  const inFlight = deferred<MakerLockOutput>();
  const trade = startTrade({ makerLock: () => inFlight.promise, makerRefund });
  trade.actor.send(finalizedLock());
  await reach(trade.actor, 'initiated.locking.sendingMakerLock');
  trade.actor.send(refundedToTaker);
  return trade;
}

describe('the taker escrow is refunded while the maker escrow may hold funds', () => {
  it('a landed maker lock is refunded to the maker before the trade closes', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(refundedToTaker);
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toHaveLength(1);
    expect(calls.closeEscrows).toHaveLength(1);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_refund', 'maker_refund']);
    expect(done.context.alert).toBe(false);
  });

  it('a maker lock still in flight is reclaimed too, and the intent is marked lapsed when nothing was there', async () => {
    const { actor, calls } = await refundedWhileTheMakerLockIsInFlight(() => ABSENT);
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toHaveLength(1);
    // Closing still settles the books (the maker's fees), though there is no maker escrow to close.
    expect(calls.closeEscrows).toHaveLength(1);
    expect(done.context.makerLockIntent?.lapsed).toBe(true);
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('a maker lock that landed after all is recorded from the intent, refunded, and its escrow closed', async () => {
    const { actor, calls } = await refundedWhileTheMakerLockIsInFlight(() => returned(SIG.makerRefund));
    const done = await reach(actor, 'refunded.closed');
    expect(calls.closeEscrows).toHaveLength(1);
    expect(done.context.makerLockIntent?.lapsed).toBe(false);
    expect(done.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'taker_refund', signature: SIG.takerRefund },
      { kind: 'maker_lock', signature: SIG.makerLock },
      { kind: 'maker_refund', signature: SIG.makerRefund },
    ]);
    expect([done.context.failureReason, done.context.alert]).toEqual([null, false]);
  });

  it('a maker escrow the taker redeemed after taking its own escrow back is a proven loss: alert', async () => {
    const { actor, calls } = await refundedWhileTheMakerLockIsInFlight(() => paid(SIG.takerRedeem, PREIMAGE));
    const done = await reach(actor, 'refunded.closed');
    expect(calls.closeEscrows).toHaveLength(1);
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund', 'maker_lock', 'taker_redeem']);
    expect([done.context.failureReason, done.context.alert]).toEqual(['maker_missed_redeem', true]);
  });

  it('a maker escrow already redeemed for the taker is not refunded again', async () => {
    const { actor, calls } = startTrade({ makerRedeem: () => new Promise(() => {}) });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    await reach(actor, 'initiated.redeeming.makerRedeeming');
    actor.send(refundedToTaker);
    await waitFor(actor, (s) => s.hasTag('closed'), { timeout: 1_000 });
    expect(calls.makerRefund).toEqual([]);
  });

  it('a maker escrow already returned to the maker is not refunded again, only closed', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerRefund, how: 'refunded' });
    await reach(actor, 'initiated.unwinding.awaitingTakerExpiry');
    actor.send(refundedToTaker);
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toEqual([]);
    expect(calls.closeEscrows).toHaveLength(1);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
  });
});
