// Every path of the lifecycle (docs/lifecycle.md), driven through a live actor with fake chain effects.
import { describe, expect, it } from 'vitest';
import {
  type EscrowEnding,
  isClosed,
  type MakerLockOutput,
  nextDeadline,
  settlementStatusOf,
} from '../../machines/index.ts';
import {
  ABSENT,
  chainTime,
  confirmedLock,
  DECIDED_AT,
  deferred,
  effectFailed,
  failureAt,
  finalizedLock,
  kinds,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  PREIMAGE,
  REDEEM_BY,
  reach,
  redeemRequest,
  retryWhenDue,
  returned,
  rolledBack,
  SECRET_HASH,
  SIG,
  startTrade,
  T0,
  TAKER_EXPIRY,
} from './trade.fixtures.ts';

describe('trade lifecycle (docs/lifecycle.md)', () => {
  it('happy path: lock, maker lock, redeem for the taker, maker redeem → redeemed', async () => {
    const { actor, calls } = startTrade();
    actor.send({
      type: 'LOCK_SUBMITTED',
      signature: SIG.takerLock,
      lastValidBlockHeight: 500,
      transactionBase64: null,
    });
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock });
    expect(settlementStatusOf(actor.getSnapshot())).toBe('pending');
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(locked.context.makerExpiry).toBe(MAKER_EXPIRY);
    expect(calls.signMakerLock).toEqual([
      expect.objectContaining({ expiry: MAKER_EXPIRY, hashlock: SECRET_HASH }),
    ]);

    actor.send(redeemRequest(REDEEM_BY - 1));
    await reach(actor, 'initiated.redeeming.takerRedeemLanded');
    expect(calls.takerRedeem).toEqual([expect.objectContaining({ preimage: PREIMAGE })]);
    expect(calls.makerRedeem).toEqual([]);

    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const done = await reach(actor, 'redeemed.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
    expect(done.context.signatures.map((s) => s.signature)).toEqual([
      SIG.takerLock,
      SIG.makerLock,
      SIG.takerRedeem,
      SIG.makerRedeem,
    ]);
    expect(done.context.failureReason).toBeNull();
    expect(isClosed(done)).toBe(true);
  });

  it('happy path with the taker redeeming from its own wallet', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: 'sig-wallet-redeem', preimage: PREIMAGE });
    const done = await reach(actor, 'redeemed.closed');
    expect(calls.takerRedeem).toEqual([]);
    expect(calls.makerRedeem).toEqual([expect.objectContaining({ preimage: PREIMAGE })]);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  });

  it('the taker never redeems: maker_refund at the maker expiry, taker_refund at the taker expiry → refunded', async () => {
    const { actor } = startTrade();
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(nextDeadline(locked)).toBe(MAKER_EXPIRY);

    actor.send(chainTime(MAKER_EXPIRY - 1));
    expect(actor.getSnapshot().matches({ initiated: { redeeming: 'makerLocked' } })).toBe(true);
    actor.send(chainTime(MAKER_EXPIRY));
    const waiting = await reach(actor, 'initiated.unwinding.awaitingTakerExpiry');
    expect(nextDeadline(waiting)).toBe(TAKER_EXPIRY);

    actor.send(chainTime(TAKER_EXPIRY));
    const done = await reach(actor, 'refunded.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
    expect(done.context.failureReason).toBe('maker_escrow_expired');
    expect(done.context.alert).toBe(false);
    expect(isClosed(done)).toBe(true);
  });

  it('the maker cannot serve (no inventory): cancel releases the taker → refunded', async () => {
    const { actor, calls } = startTrade({
      checkInventory: () => ({ available: false, now: T0 + 60, price: null }),
    });
    actor.send(finalizedLock());
    const done = await reach(actor, 'refunded.closed');
    expect(calls.signMakerLock).toEqual([]);
    expect(calls.makerCancel).toHaveLength(1);
    expect(done.context.failureReason).toBe('inventory_unavailable');
    expect(done.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'taker_refund', signature: SIG.cancel },
    ]);
  });

  it('the maker lock lapses (never lands) past its lock deadline: cancel only then, → refunded', async () => {
    const landing = deferred<MakerLockOutput>();
    const { actor, calls } = startTrade({ makerLock: () => landing.promise });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.locking.sendingMakerLock');
    expect(calls.makerCancel).toEqual([]);
    // The program refuses a maker lock after maker expiry − minimum redeem window: no fresh one can land.
    landing.resolve({ landed: false, expired: true, now: MAKER_EXPIRY - 120 });
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerCancel).toHaveLength(1);
    expect(done.context.makerLockIntent?.lapsed).toBe(true);
    expect(done.context.failureReason).toBe('maker_lock_lapsed');
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('a maker lock whose blockhash expired unseen is signed afresh while it can still land, and lands', async () => {
    const answers: MakerLockOutput[] = [
      { landed: false, expired: true, now: DECIDED_AT + 90 },
      { landed: true, signature: 'sig-maker-lock-2' },
    ];
    let signed = 0;
    const { actor, calls } = startTrade({
      signMakerLock: () => ({
        signature: ++signed === 1 ? SIG.makerLock : 'sig-maker-lock-2',
        lastValidBlockHeight: 1_000 * signed,
        transactionBase64: 'AQID',
      }),
      makerLock: () => answers.shift() as MakerLockOutput,
    });
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.signMakerLock).toHaveLength(2);
    // Both signatures carry the same terms: the maker expiry planned once, never moved by the re-signing.
    expect(calls.signMakerLock.map((c) => (c as { expiry: number }).expiry)).toEqual([
      MAKER_EXPIRY,
      MAKER_EXPIRY,
    ]);
    expect(calls.makerCancel).toEqual([]);
    expect(locked.context.makerLockIntent).toMatchObject({ signature: 'sig-maker-lock-2', lapsed: false });
    expect(kinds(locked)).toEqual(['taker_lock', 'maker_lock']);
    expect(locked.context.signatures[1]?.signature).toBe('sig-maker-lock-2');
  });

  it('a fork takes the maker lock back: the same lock is sent again and lands under its signature, which stays', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    // Another signature than the intent's is no lock of this trade's: ignored.
    actor.send({ type: 'MAKER_LOCK_ROLLED_BACK', signature: 'sig-someone-else' });
    expect(actor.getSnapshot().value).toEqual({ initiated: { redeeming: 'makerLocked' } });
    actor.send({ type: 'MAKER_LOCK_ROLLED_BACK', signature: SIG.makerLock });
    const again = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.makerLock).toHaveLength(2);
    expect(calls.signMakerLock).toHaveLength(1);
    expect(again.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'maker_lock', signature: SIG.makerLock },
    ]);
  });

  it('a fork takes the maker lock back and it lapses: its movement goes, a lock signed afresh lands', async () => {
    const answers: MakerLockOutput[] = [
      { landed: true, signature: SIG.makerLock },
      { landed: false, expired: true, now: DECIDED_AT + 90 },
      { landed: true, signature: 'sig-maker-lock-2' },
    ];
    let signed = 0;
    const { actor, calls } = startTrade({
      signMakerLock: () => ({
        signature: ++signed === 1 ? SIG.makerLock : 'sig-maker-lock-2',
        lastValidBlockHeight: 1_000 * signed,
        transactionBase64: 'AQID',
      }),
      makerLock: () => answers.shift() as MakerLockOutput,
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_LOCK_ROLLED_BACK', signature: SIG.makerLock });
    await reach(actor, 'initiated.locking.signingMakerLock');
    // Proved lapsed, the lost lock is no movement of the trade's any more (the ledger reverses it).
    expect(kinds(actor.getSnapshot())).toEqual(['taker_lock']);
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.signMakerLock).toHaveLength(2);
    expect(locked.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'maker_lock', signature: 'sig-maker-lock-2' },
    ]);
  });

  it('a fork takes the maker lock back and it lapses too late to lock again: the taker is released', async () => {
    const answers: MakerLockOutput[] = [
      { landed: true, signature: SIG.makerLock },
      { landed: false, expired: true, now: MAKER_EXPIRY - 120 },
    ];
    const { actor, calls } = startTrade({ makerLock: () => answers.shift() as MakerLockOutput });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_LOCK_ROLLED_BACK', signature: SIG.makerLock });
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerCancel).toHaveLength(1);
    expect(done.context.failureReason).toBe('maker_lock_lapsed');
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('a maker lock the chain refused is not signed again: the taker is released', async () => {
    const { actor, calls } = startTrade({
      makerLock: () => ({ landed: false, expired: false, now: DECIDED_AT + 5 }),
    });
    actor.send(finalizedLock());
    const done = await reach(actor, 'refunded.closed');
    expect(calls.signMakerLock).toHaveLength(1);
    expect(done.context.failureReason).toBe('maker_lock_lapsed');
  });

  it('abandon before any lock signature → failed (abandoned)', () => {
    const { actor } = startTrade();
    actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    const s = actor.getSnapshot();
    // A lock may still land until the window ends: the trade is failed but still watched.
    expect(s.value).toEqual({ failed: 'lockWindowOpen' });
    expect(s.context.failureReason).toBe('abandoned');
    expect(s.context.abandonedWith).toBe(SECRET_HASH);
    expect(isClosed(s)).toBe(false);
    expect(nextDeadline(s)).toBe(LOCK_DEADLINE + 1);
    actor.send(chainTime(LOCK_DEADLINE + 1));
    expect(actor.getSnapshot().value).toEqual({ failed: 'noLock' });
    expect(isClosed(actor.getSnapshot())).toBe(true);
  });

  it('lock window over with no lock → failed (lock_window_expired)', () => {
    const { actor } = startTrade();
    expect(nextDeadline(actor.getSnapshot())).toBe(LOCK_DEADLINE + 1);
    actor.send(chainTime(LOCK_DEADLINE));
    expect(settlementStatusOf(actor.getSnapshot())).toBe('pending');
    actor.send(chainTime(LOCK_DEADLINE + 1));
    expect(actor.getSnapshot().value).toEqual({ failed: 'lockWindowOpen' });
    expect(actor.getSnapshot().context.failureReason).toBe('lock_window_expired');
    // The deadline is already due, so the runtime's next wake closes it.
    expect(nextDeadline(actor.getSnapshot())).toBe(LOCK_DEADLINE + 1);
    actor.send(chainTime(LOCK_DEADLINE + 1));
    expect(actor.getSnapshot().value).toEqual({ failed: 'noLock' });
  });

  it('a held lock that never lands → failed (lock_not_landed) once the window is over and it is dropped', () => {
    const { actor } = startTrade();
    actor.send({
      type: 'LOCK_SUBMITTED',
      signature: SIG.takerLock,
      lastValidBlockHeight: 500,
      transactionBase64: null,
    });
    actor.send(chainTime(LOCK_DEADLINE + 50));
    expect(settlementStatusOf(actor.getSnapshot())).toBe('pending');
    actor.send({ type: 'TAKER_LOCK_DROPPED', now: LOCK_DEADLINE });
    expect(settlementStatusOf(actor.getSnapshot())).toBe('pending');
    actor.send({ type: 'TAKER_LOCK_DROPPED', now: LOCK_DEADLINE + 50 });
    expect(actor.getSnapshot().value).toEqual({ failed: 'lockWindowOpen' });
    actor.send(chainTime(LOCK_DEADLINE + 50));
    expect(actor.getSnapshot().value).toEqual({ failed: 'noLock' });
    expect(actor.getSnapshot().context.failureReason).toBe('lock_not_landed');
  });

  it('a late lock after abandon is released at once with cancel; the trade stays failed', async () => {
    const { actor, calls } = startTrade();
    actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock });
    expect(actor.getSnapshot().value).toEqual({ failed: 'lateLockSeen' });
    actor.send(finalizedLock());
    const done = await reach(actor, 'failed.released');
    expect(calls.makerCancel).toHaveLength(1);
    expect(calls.checkInventory).toEqual([]);
    expect(done.context.failureReason).toBe('abandoned');
    expect(done.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'taker_refund', signature: SIG.cancel },
    ]);
    expect(isClosed(done)).toBe(true);
  });

  it('a late lock the maker cannot cancel (other recipient) is refunded at its expiry', async () => {
    const { actor, calls } = startTrade();
    actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    actor.send(finalizedLock(undefined, { recipient: 'SomeoneElse1111111111111111111111111111111' }));
    const waiting = actor.getSnapshot();
    expect(waiting.value).toEqual({ failed: 'awaitingLateLockExpiry' });
    expect(nextDeadline(waiting)).toBe(TAKER_EXPIRY);
    actor.send(chainTime(TAKER_EXPIRY));
    const done = await reach(actor, 'failed.released');
    expect(calls.makerCancel).toEqual([]);
    expect(kinds(done)).toEqual(['taker_lock', 'taker_refund']);
  });

  it('the maker misses its redeem and the taker refunds → refunded with the reason and an alert', async () => {
    const { actor } = startTrade({ makerRedeem: () => Promise.reject(new Error('rpc down')) });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    await effectFailed(actor);
    actor.send({ type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund });
    const done = await reach(actor, 'refunded');
    expect(done.context.failureReason).toBe('maker_missed_redeem');
    expect(done.context.alert).toBe(true);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'taker_refund']);
    expect((await reach(actor, 'refunded.closed')).value).toEqual({ refunded: 'closed' });
  });

  it('the maker misses its redeem until the taker expiry: the runtime refunds the taker, and the refund proves the loss', async () => {
    const refund = deferred<EscrowEnding>();
    const { actor } = startTrade({
      makerRedeem: () => Promise.reject(failureAt('rpc down', TAKER_EXPIRY)),
      takerRefund: () => refund.promise,
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const redeeming = await effectFailed(actor);
    // The retry would come after the taker expiry: the expiry wakes the trade first.
    expect(redeeming.context.effectError?.retryAt).toBe(TAKER_EXPIRY + 1);
    expect(nextDeadline(redeeming)).toBe(TAKER_EXPIRY);
    actor.send(chainTime(TAKER_EXPIRY));
    // Past the taker expiry nothing is proved yet: no reason, no alert until the refund's ending.
    const refunding = await reach(actor, 'initiated.unwinding.refundingTakerEscrow');
    expect([refunding.context.failureReason, refunding.context.alert]).toEqual([null, false]);
    refund.resolve(returned(SIG.takerRefund));
    const done = await reach(actor, 'refunded.closed');
    expect(done.context.failureReason).toBe('maker_missed_redeem');
    expect(done.context.alert).toBe(true);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'taker_refund']);
  });

  it('a failing effect is retried once its backoff is due, until it succeeds', async () => {
    let attempts = 0;
    const { actor, calls } = startTrade({
      makerRefund: () =>
        ++attempts < 3
          ? Promise.reject(failureAt('blockhash not found', MAKER_EXPIRY + attempts))
          : returned(SIG.makerRefund),
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(chainTime(MAKER_EXPIRY));
    const first = await effectFailed(actor);
    expect(first.context.effectError).toMatchObject({ attempts: 1, retryAt: MAKER_EXPIRY + 1 + 1 });
    expect(nextDeadline(first)).toBe(MAKER_EXPIRY + 2);
    await retryWhenDue(actor);
    const second = await effectFailed(actor);
    expect(second.context.effectError).toMatchObject({ attempts: 2, retryAt: MAKER_EXPIRY + 2 + 2 });
    await retryWhenDue(actor);
    const waiting = await reach(actor, 'initiated.unwinding.awaitingTakerExpiry');
    expect(calls.makerRefund).toHaveLength(3);
    expect(waiting.context.effectError).toBeNull();
    expect(nextDeadline(waiting)).toBe(TAKER_EXPIRY);
  });
});

describe('the commitment policy: a trade gone on a confirmed taker lock (docs/operations.md#the-commitment-policy)', () => {
  const admitted = (overrides: Parameters<typeof startTrade>[0] = {}) =>
    startTrade(overrides, undefined, true);

  it('a trade the policy admits goes on the confirmed lock; the lock turns final on the way; redeemed as usual', async () => {
    const { actor, calls } = admitted();
    actor.send(confirmedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.signMakerLock).toHaveLength(1);
    expect(locked.context.takerLockConfirmedOnly).toBe(true);
    actor.send(finalizedLock());
    expect(actor.getSnapshot().context.takerLockConfirmedOnly).toBe(false);
    actor.send(redeemRequest(REDEEM_BY - 1));
    await reach(actor, 'initiated.redeeming.takerRedeemLanded');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const done = await reach(actor, 'redeemed.closed');
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
  });

  it('one it does not admit (above the cap, finality stalling) only sees the lock, and waits for it to be final', async () => {
    const { actor, calls } = startTrade();
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock });
    actor.send(confirmedLock());
    expect(actor.getSnapshot().matches({ pending: 'lockSeen' })).toBe(true);
    expect(calls.checkInventory).toEqual([]);
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(locked.context.takerLockConfirmedOnly).toBe(false);
  });

  it('a confirmed lock with other terms than agreed is never gone on, admitted or not', () => {
    const { actor, calls } = admitted();
    actor.send(confirmedLock(undefined, { amountRaw: '1' }));
    expect(settlementStatusOf(actor.getSnapshot())).toBe('pending');
    expect(calls.checkInventory).toEqual([]);
  });

  it('a fork takes the lock back before any maker lock is signed: failed (taker_lock_rolled_back); a lock landing again is released as a late one', async () => {
    const assessing = deferred<never>();
    const { actor, calls } = admitted({ checkInventory: () => assessing.promise });
    actor.send(confirmedLock());
    await reach(actor, 'initiated.locking.assessing');
    actor.send(rolledBack(false));
    const failed = await reach(actor, 'failed.lockWindowOpen');
    expect(failed.context.failureReason).toBe('taker_lock_rolled_back');
    expect(failed.context.signatures).toEqual([]);
    expect([failed.context.takerLockTerms, failed.context.takerLockConfirmedOnly]).toEqual([null, false]);
    // The same lock lands again (its blockhash still valid): the maker, its recipient, releases it at once.
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock });
    actor.send(finalizedLock());
    const released = await reach(actor, 'failed.released');
    expect(calls.makerCancel).toHaveLength(1);
    expect(kinds(released)).toEqual(['taker_lock', 'taker_refund']);
    expect(calls.signMakerLock).toEqual([]);
  });

  it('a fork takes back the lock and the maker lock built on it: no redeem is served, and at the maker expiry the maker escrow is found never refilled → refunded', async () => {
    const { actor, calls } = admitted({ makerRefund: () => ABSENT });
    actor.send(confirmedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(rolledBack(true));
    const forked = await reach(actor, 'initiated.unwinding.takerLockRolledBack');
    expect(forked.context.signatures).toEqual([]);
    expect(nextDeadline(forked)).toBe(MAKER_EXPIRY);
    // The taker knows its preimage: the service must not pay it the maker's output with no taker escrow.
    actor.send(redeemRequest(REDEEM_BY - 1));
    expect(actor.getSnapshot().matches({ initiated: { unwinding: 'takerLockRolledBack' } })).toBe(true);
    expect(calls.takerRedeem).toEqual([]);
    actor.send(chainTime(MAKER_EXPIRY - 1));
    expect(calls.makerRefund).toEqual([]);
    actor.send(chainTime(MAKER_EXPIRY));
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toHaveLength(1);
    expect(done.context.failureReason).toBe('taker_lock_rolled_back');
    expect(done.context.makerLockIntent?.lapsed).toBe(true);
    expect(kinds(done)).toEqual([]);
    expect(done.context.alert).toBe(false);
  });

  it('after the fork a lock lands again at the escrow: once the maker escrow is refunded it is released at once', async () => {
    const sending = deferred<MakerLockOutput>();
    const { actor, calls } = admitted({ makerLock: () => sending.promise });
    actor.send(confirmedLock());
    await reach(actor, 'initiated.locking.sendingMakerLock');
    actor.send(rolledBack(false));
    await reach(actor, 'initiated.unwinding.takerLockRolledBack');
    actor.send(finalizedLock());
    expect(kinds(actor.getSnapshot())).toEqual(['taker_lock']);
    actor.send(chainTime(MAKER_EXPIRY));
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerCancel).toHaveLength(1);
    expect(kinds(done)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
    expect(done.context.failureReason).toBe('taker_lock_rolled_back');
  });

  it('a lock that was final is never taken back by a report of a fork', async () => {
    const { actor } = startTrade();
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(rolledBack(true));
    expect(actor.getSnapshot().context).toEqual(locked.context);
  });
});
