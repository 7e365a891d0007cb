// Persisted snapshots survive a JSON round trip and a new actor; deadlines are met from the snapshot alone.

import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import {
  effectRetryDelay,
  nextDeadline,
  PHASE_OF_V4_INITIATED,
  TRADE_MACHINE_VERSION,
  type TradeInput,
  type TradeSnapshotLike,
  tradeMachine,
  upgradeSnapshot,
} from '../../machines/index.ts';
import {
  chainTime,
  deferred,
  drive,
  effectFailed,
  failureAt,
  fakeMachine,
  finalizedLock,
  kinds,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  PREIMAGE,
  persistAndRestore,
  REDEEM_BY,
  reach,
  redeemRequest,
  retryWhenDue,
  SECRET_HASH,
  SIG,
  startTrade,
  TAKER_EXPIRY,
  type TradeActor,
} from './trade.fixtures.ts';

/**
 * What the runtime does with a restored or live actor: once no effect is running, wake it whenever its
 * next deadline is due — with the chain time for a state's deadline, or RETRY_EFFECT for a failed effect's
 * retry — until nothing more is due.
 */
async function runDeadlines(actor: TradeActor, now: number) {
  for (let i = 0; i < 10; i++) {
    const settled = await waitFor(
      actor,
      (s) =>
        !s.hasTag('effect') || (s.context.effectError !== null && s.context.effectError.retryAt !== null),
      { timeout: 1_000 },
    );
    const due = nextDeadline(settled);
    if (due === null || due > now) return settled;
    const retry = { type: 'RETRY_EFFECT', now } as const;
    const event = settled.can(retry) ? retry : chainTime(now);
    if (!settled.can(event)) return settled;
    actor.send(event);
  }
  throw new Error('deadlines did not settle');
}

describe('restore', () => {
  it('the version persisted with snapshots is 7: part of the output may be minted through Gateway first', () => {
    expect(TRADE_MACHINE_VERSION).toBe(7);
  });

  it('a version 5 snapshot went on a final taker lock, whatever state it is in', () => {
    const { context } = drive([]);
    const { takerLockConfirmedOnly: _, ...v5Context } = context;
    const v5 = { value: { initiated: { redeeming: 'makerLocked' } }, context: v5Context };
    const upgraded = upgradeSnapshot(5, v5 as unknown as TradeSnapshotLike);
    expect(upgraded).toEqual({ ...v5, context: { ...v5Context, takerLockConfirmedOnly: false } });
  });

  it('upgrades snapshots of earlier versions step by step, and refuses one from a later build', () => {
    const held = { signature: 'sig-held', lastValidBlockHeight: 9 };
    const v2 = {
      value: { pending: 'lockSubmitted' },
      context: {
        ...drive([]).context,
        lockSubmissions: [held],
        effectError: { effect: 'makerCancel', message: 'boom' },
      },
    } as unknown as TradeSnapshotLike;
    const upgraded = upgradeSnapshot(2, v2);
    expect(upgraded.value).toEqual(v2.value);
    expect(upgraded.context.lockSubmissions).toEqual([{ ...held, transactionBase64: null }]);
    expect(upgraded.context.effectError).toEqual({
      effect: 'makerCancel',
      message: 'boom',
      attempts: 1,
      retryAt: 0,
    });
    expect(
      upgradeSnapshot(3, { ...v2, context: { ...v2.context, effectError: null } }).context.lockSubmissions,
    ).toEqual([{ ...held, transactionBase64: null }]);
    const current = drive([]);
    expect(upgradeSnapshot(TRADE_MACHINE_VERSION, current)).toBe(current);
    expect(() => upgradeSnapshot(TRADE_MACHINE_VERSION + 1, current)).toThrow(/machine version 8/);
    expect(() => upgradeSnapshot(1, current)).toThrow(/no upgrade from 1/);
  });

  it('a version 4 snapshot finds each flat initiated state in its phase, and only the path changes', () => {
    const { context } = drive([]);
    for (const [leaf, phase] of Object.entries(PHASE_OF_V4_INITIATED)) {
      const v4 = { value: { initiated: leaf }, context } as unknown as TradeSnapshotLike;
      const upgraded = upgradeSnapshot(4, v4);
      expect(upgraded).toEqual({ value: { initiated: { [phase]: leaf } }, context });
      expect(tradeMachine.resolveState(upgraded).matches({ initiated: { [phase]: leaf } } as never)).toBe(
        true,
      );
    }
    expect(Object.keys(PHASE_OF_V4_INITIATED)).toHaveLength(14);
    // Outside initiated nothing moved.
    for (const value of [{ pending: 'lockSubmitted' }, { refunded: 'closed' }, { failed: 'noLock' }]) {
      const v4 = { value, context } as unknown as TradeSnapshotLike;
      expect(upgradeSnapshot(4, v4)).toEqual(v4);
    }
    expect(() =>
      upgradeSnapshot(4, { value: { initiated: 'elsewhere' }, context } as unknown as TradeSnapshotLike),
    ).toThrow(/unknown initiated.elsewhere/);
  });

  it('a version 4 snapshot stored while the maker lock was sent resumes: the intent is re-sent, then redeemed', async () => {
    const inFlight = deferred<never>();
    const first = startTrade({ makerLock: () => inFlight.promise });
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.locking.sendingMakerLock');
    // What version 4 stored for the same trade: the same snapshot, its state named flat under initiated.
    const persisted = JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot()));
    first.actor.stop();
    const v4 = { ...persisted, value: { initiated: 'sendingMakerLock' } };

    const second = fakeMachine();
    const upgraded = upgradeSnapshot(4, v4);
    const restored = createActor(second.machine, {
      snapshot: upgraded as never,
      input: upgraded.context as TradeInput,
    }).start();
    await reach(restored, 'initiated.redeeming.makerLocked');
    expect(second.calls.signMakerLock).toEqual([]);
    expect(second.calls.makerLock).toEqual([
      expect.objectContaining({ intent: expect.objectContaining({ signature: SIG.makerLock }) }),
    ]);
    restored.send(redeemRequest(REDEEM_BY - 1));
    await reach(restored, 'initiated.redeeming.takerRedeemLanded');
    restored.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const done = await reach(restored, 'redeemed.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  });

  it('resumes from a JSON round trip and meets the maker and taker expiries', async () => {
    const first = startTrade();
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.redeeming.makerLocked');

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    expect(restored.getSnapshot().value).toEqual({ initiated: { redeeming: 'makerLocked' } });
    expect(nextDeadline(restored.getSnapshot())).toBe(MAKER_EXPIRY);
    expect(second.calls.checkInventory).toEqual([]);

    await runDeadlines(restored, MAKER_EXPIRY);
    expect(restored.getSnapshot().value).toEqual({ initiated: { unwinding: 'awaitingTakerExpiry' } });

    const third = fakeMachine();
    const again = persistAndRestore(restored, third.machine);
    expect(nextDeadline(again.getSnapshot())).toBe(TAKER_EXPIRY);
    await runDeadlines(again, TAKER_EXPIRY);
    const done = await reach(again, 'refunded.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
  });

  it('after a long downtime every overdue deadline is met in order', async () => {
    const first = startTrade();
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.redeeming.makerLocked');
    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    const settled = await runDeadlines(restored, TAKER_EXPIRY + 3_600);
    expect(settled.value).toEqual({ refunded: 'closed' });
    expect(second.calls.makerRefund).toHaveLength(1);
    expect(second.calls.takerRefund).toHaveLength(1);
  });

  it('a pending trade restored after its lock window fails on the first chain time', async () => {
    const first = startTrade();
    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    expect(nextDeadline(restored.getSnapshot())).toBe(LOCK_DEADLINE + 1);
    await runDeadlines(restored, LOCK_DEADLINE + 1);
    expect(restored.getSnapshot().value).toEqual({ failed: 'noLock' });
    expect(restored.getSnapshot().context.failureReason).toBe('lock_window_expired');
  });

  it('an effect in flight is re-run with its persisted input', async () => {
    const inFlight = deferred<never>();
    const first = startTrade({ makerRedeem: () => inFlight.promise });
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.redeeming.makerLocked');
    first.actor.send({
      type: 'MAKER_ESCROW_REDEEMED',
      signature: SIG.takerRedeem,
      preimage: PREIMAGE,
    });
    await reach(first.actor, 'initiated.redeeming.makerRedeeming');

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    const done = await reach(restored, 'redeemed.closed');
    expect(second.calls.makerRedeem).toEqual([expect.objectContaining({ preimage: PREIMAGE })]);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  });

  it('a failed effect’s retry time survives the restore: it is woken by RETRY_EFFECT then, not before', async () => {
    const first = startTrade({ makerCancel: () => Promise.reject(failureAt('rpc down', LOCK_DEADLINE)) });
    first.actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    first.actor.send(finalizedLock());
    const failed = await effectFailed(first.actor);
    const retryAt = LOCK_DEADLINE + effectRetryDelay(1, failed.context.tradeId);
    expect(failed.context.effectError).toEqual({
      effect: 'makerCancel',
      message: 'rpc down',
      attempts: 1,
      retryAt,
    });

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    await new Promise((r) => setTimeout(r, 30));
    // The failed effect is not re-run by the restore itself: it waits for its retry time.
    expect(restored.getSnapshot().value).toEqual({ failed: 'releasingLateLock' });
    expect(second.calls.makerCancel).toEqual([]);
    expect(nextDeadline(restored.getSnapshot())).toBe(retryAt);
    expect(restored.getSnapshot().can({ type: 'RETRY_EFFECT', now: retryAt - 1 })).toBe(false);
    await runDeadlines(restored, retryAt);
    const done = await reach(restored, 'failed.released');
    expect(second.calls.makerCancel).toHaveLength(1);
    expect(done.context.effectError).toBeNull();
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('a retry running when the snapshot was taken is re-run on restore, its failures still counted', async () => {
    const running = deferred<never>();
    let attempts = 0;
    const first = startTrade({
      makerRefund: () =>
        ++attempts === 1 ? Promise.reject(failureAt('rpc down', MAKER_EXPIRY)) : running.promise,
    });
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.redeeming.makerLocked');
    first.actor.send(chainTime(MAKER_EXPIRY));
    await retryWhenDue(first.actor);
    expect(first.actor.getSnapshot().context.effectError).toMatchObject({ attempts: 1, retryAt: null });
    expect(nextDeadline(first.actor.getSnapshot())).toBeNull();

    const second = fakeMachine({
      makerRefund: () => Promise.reject(failureAt('still down', MAKER_EXPIRY + 5)),
    });
    const restored = persistAndRestore(first.actor, second.machine);
    const again = await effectFailed(restored);
    expect(second.calls.makerRefund).toHaveLength(1);
    expect(again.context.effectError).toEqual({
      effect: 'makerRefund',
      message: 'still down',
      attempts: 2,
      retryAt: MAKER_EXPIRY + 5 + effectRetryDelay(2, again.context.tradeId),
    });
  });

  it('adoption by a new run is recorded once', () => {
    const { actor } = startTrade();
    actor.send({ type: 'ADOPTED', runId: 'run-2', now: LOCK_DEADLINE - 10 });
    const adopted = actor.getSnapshot();
    expect(adopted.context.currentRunId).toBe('run-2');
    expect(adopted.context.adoptedAt).toBe(LOCK_DEADLINE - 10);
    expect(adopted.context.runId).not.toBe('run-2');
    expect(adopted.can({ type: 'ADOPTED', runId: 'run-2', now: LOCK_DEADLINE })).toBe(false);
  });
});
