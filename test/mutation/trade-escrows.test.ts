// A trade is closed only when no funds of it can be left in an escrow: when the taker escrow goes back
// to the taker, the maker reclaims its own escrow first whenever a maker lock landed or still may.
import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import type { MakerLockOutput } from '../../machines/index.ts';
import { deferred, finalizedLock, kinds, reach, SIG, startTrade } from '../machines/trade.fixtures.ts';

const refundedToTaker = { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund } as const;

describe('the taker escrow is refunded while the maker escrow may hold funds', () => {
  it('a landed maker lock is refunded to the maker before the trade closes', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.makerLocked');
    actor.send(refundedToTaker);
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toHaveLength(1);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_refund', 'maker_refund']);
  });

  it('a maker lock still in flight is reclaimed too, and the intent is marked lapsed when nothing was there', async () => {
    const inFlight = deferred<MakerLockOutput>();
    const { actor, calls } = startTrade({
      makerLock: () => inFlight.promise,
      makerRefund: () => ({ signature: null }),
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.sendingMakerLock');
    actor.send(refundedToTaker);
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toHaveLength(1);
    expect(done.context.makerLockIntent?.lapsed).toBe(true);
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('a maker escrow already redeemed for the taker is not refunded again', async () => {
    const { actor, calls } = startTrade({ makerRedeem: () => new Promise(() => {}) });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: '11'.repeat(32) });
    await reach(actor, 'initiated.makerRedeeming');
    actor.send(refundedToTaker);
    await waitFor(actor, (s) => s.hasTag('closed'), { timeout: 1_000 });
    expect(calls.makerRefund).toEqual([]);
  });
});
