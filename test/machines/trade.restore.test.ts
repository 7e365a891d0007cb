// Persisted snapshots survive a JSON round trip and a new actor; deadlines are met from the snapshot alone.

import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { nextDeadline, TRADE_MACHINE_VERSION } from '../../machines/index.ts';
import {
  chainTime,
  deferred,
  fakeMachine,
  finalizedLock,
  kinds,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  persistAndRestore,
  reach,
  SIG,
  startTrade,
  TAKER_EXPIRY,
  type TradeActor,
} from './trade.fixtures.ts';

/**
 * What the runtime does with a restored or live actor: once no effect is in flight, wake it with the
 * chain time whenever its next deadline is due, until nothing more is due.
 */
async function runDeadlines(actor: TradeActor, now: number) {
  for (let i = 0; i < 10; i++) {
    const settled = await waitFor(actor, (s) => !s.hasTag('effect'), { timeout: 1_000 });
    const due = nextDeadline(settled);
    if (due === null || due > now || !settled.can(chainTime(now))) return settled;
    actor.send(chainTime(now));
  }
  throw new Error('deadlines did not settle');
}

describe('restore', () => {
  it('a version is exported to persist with snapshots', () => {
    expect(Number.isInteger(TRADE_MACHINE_VERSION)).toBe(true);
  });

  it('resumes from a JSON round trip and meets the maker and taker expiries', async () => {
    const first = startTrade();
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.makerLocked');

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    expect(restored.getSnapshot().value).toEqual({ initiated: 'makerLocked' });
    expect(nextDeadline(restored.getSnapshot())).toBe(MAKER_EXPIRY);
    expect(second.calls.checkInventory).toEqual([]);

    await runDeadlines(restored, MAKER_EXPIRY);
    expect(restored.getSnapshot().value).toEqual({ initiated: 'awaitingTakerExpiry' });

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
    await reach(first.actor, 'initiated.makerLocked');
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
    await reach(first.actor, 'initiated.makerLocked');
    first.actor.send({
      type: 'MAKER_ESCROW_REDEEMED',
      signature: SIG.takerRedeem,
      preimage: '11'.repeat(32),
    });
    await reach(first.actor, 'initiated.makerRedeeming');

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    const done = await reach(restored, 'redeemed.closed');
    expect(second.calls.makerRedeem).toEqual([expect.objectContaining({ preimage: '11'.repeat(32) })]);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  });

  it('a failed effect whose retry timer was lost is re-driven by RETRY_EFFECT', async () => {
    const first = startTrade({ makerCancel: () => Promise.reject(new Error('rpc down')) });
    first.actor.send({ type: 'ABANDON', secretHash: 'ab'.repeat(32) });
    first.actor.send(finalizedLock());
    await waitFor(first.actor, (s) => s.context.effectError !== null, { timeout: 1_000 });

    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    await new Promise((r) => setTimeout(r, 30));
    expect(restored.getSnapshot().value).toEqual({ failed: 'releasingLateLock' });
    expect(second.calls.makerCancel).toEqual([]);
    expect(restored.getSnapshot().can({ type: 'RETRY_EFFECT' })).toBe(true);
    restored.send({ type: 'RETRY_EFFECT' });
    const done = await reach(restored, 'failed.released');
    expect(done.context.effectError).toBeNull();
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
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
