// The pure companions: snapshot readings, deadlines on persisted JSON, and the timing rules.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  isClosed,
  knowsPreimageToRedeem,
  leavesMinRedeemWindow,
  nextDeadline,
  plannedMakerExpiry,
  redeemBy,
  settlementStatusOf,
  substateOf,
  tradeMachine,
} from '../../machines/index.ts';
import {
  deferred,
  finalizedLock,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  PREIMAGE,
  REDEEM_BY,
  reach,
  redeemRequest,
  SECRET_HASH,
  SIG,
  startTrade,
  tradeInput,
} from './trade.fixtures.ts';

describe('snapshot readings', () => {
  it('the states that redeem with a known preimage are told apart, also by a record version 4 stored', async () => {
    const inFlight = deferred<never>();
    const { actor } = startTrade({
      takerRedeem: () => inFlight.promise,
      makerRedeem: () => inFlight.promise,
    });
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(knowsPreimageToRedeem(substateOf(locked))).toBe(false);
    actor.send(redeemRequest(REDEEM_BY - 1));
    const forTaker = await reach(actor, 'initiated.redeeming.redeemingForTaker');
    expect(knowsPreimageToRedeem(substateOf(forTaker))).toBe(true);
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const forMaker = await reach(actor, 'initiated.redeeming.makerRedeeming');
    expect(knowsPreimageToRedeem(substateOf(forMaker))).toBe(true);
    expect(knowsPreimageToRedeem('initiated.redeemingForTaker')).toBe(true);
    expect(knowsPreimageToRedeem('initiated.makerRedeeming')).toBe(true);
    for (const other of [
      'initiated.makerLocked',
      'initiated.unwinding.refundingTakerEscrow',
      'pending.lockSeen',
    ])
      expect(knowsPreimageToRedeem(other)).toBe(false);
  });

  it('read status, substate, closedness and the next deadline from persisted JSON alone', async () => {
    const { actor } = startTrade();
    const pending = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    expect(settlementStatusOf(pending)).toBe('pending');
    expect(substateOf(pending)).toBe('pending.awaitingLock');
    expect(isClosed(pending)).toBe(false);
    expect(nextDeadline(pending)).toBe(LOCK_DEADLINE + 1);

    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    const locked = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    expect(substateOf(locked)).toBe('initiated.redeeming.makerLocked');
    expect(nextDeadline(locked)).toBe(MAKER_EXPIRY);
    expect(redeemBy(locked.context)).toBe(MAKER_EXPIRY - 30);
  });

  it('a failed trade holding a late lock is final but not closed', () => {
    const actor = createActor(tradeMachine, { input: tradeInput() }).start();
    actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    // Failed, but the lock window is still open: a lock may land, so the trade is not closed yet.
    expect(isClosed(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: 'sig' });
    expect(settlementStatusOf(actor.getSnapshot())).toBe('failed');
    expect(isClosed(actor.getSnapshot())).toBe(false);
    actor.stop();
  });

  it('the definition serializes to JSON for visualisers', () => {
    const json = JSON.parse(JSON.stringify(tradeMachine.root.definition));
    expect(Object.keys(json.states)).toEqual(['pending', 'initiated', 'redeemed', 'refunded', 'failed']);
  });
});

describe('timing rules', () => {
  const timing = fc.record({
    now: fc.integer({ min: 0, max: 2 ** 40 }),
    makerTimelock: fc.integer({ min: 1, max: 100_000 }),
    safetyMargin: fc.integer({ min: 1, max: 100_000 }),
    minRedeemWindow: fc.integer({ min: 1, max: 100_000 }),
    takerTimelock: fc.integer({ min: 1, max: 400_000 }),
  });

  test.prop([timing])(
    'the maker expiry is never later than the taker expiry minus the safety margin',
    (t) => {
      const context = { ...t, takerExpiry: t.now + t.takerTimelock };
      const expiry = plannedMakerExpiry(context, t.now);
      expect(expiry).toBeLessThanOrEqual(context.takerExpiry - t.safetyMargin);
      expect(expiry).toBeLessThanOrEqual(t.now + t.makerTimelock);
      expect(leavesMinRedeemWindow(context, t.now)).toBe(expiry - t.now >= t.minRedeemWindow);
    },
  );
});
