// The lifecycle's safety rules (docs/lifecycle.md), one test each, plus the command answers the runtime derives from snapshots.

import { describe, expect, it } from 'vitest';
import { createActor, initialTransition } from 'xstate';
import {
  type CheckInventoryOutput,
  type CommandRefusal,
  commandOutcome,
  type TakerLockTerms,
  type TradeEvent,
  tradeMachine,
} from '../../machines/index.ts';
import { ERROR_CODES } from '../../src/http/errors.ts';
import {
  type AnyTradeEvent,
  chainTime,
  DECIDED_AT,
  deferred,
  done,
  drive,
  fakeMachine,
  finalizedLock,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  OTHER_HASH,
  PREIMAGE,
  paid,
  persistAndRestore,
  REDEEM_BY,
  reach,
  redeemRequest,
  returned,
  SECRET_HASH,
  SIG,
  startTrade,
  step,
  T0,
  TAKER_EXPIRY,
  TO_MAKER_LOCKED,
  type TradeSnapshot,
  tradeInput,
} from './trade.fixtures.ts';

function expectUnchanged(before: TradeSnapshot, event: AnyTradeEvent) {
  expect(before.can(event as TradeEvent)).toBe(false);
  const after = step(before, event);
  expect(after.value).toEqual(before.value);
  expect(after.context).toEqual(before.context);
}

describe('safety rules', () => {
  it('no maker lock before a final matching taker lock', async () => {
    const { actor, calls } = startTrade();
    actor.send({
      type: 'LOCK_SUBMITTED',
      signature: SIG.takerLock,
      lastValidBlockHeight: 500,
      transactionBase64: null,
    });
    actor.send({ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock });
    actor.send(chainTime(LOCK_DEADLINE - 1));
    await new Promise((r) => setTimeout(r, 20));
    expect(actor.getSnapshot().value).toEqual({ pending: 'lockSeen' });
    expect(calls.checkInventory).toEqual([]);
    expect(calls.signMakerLock).toEqual([]);
    expect(calls.makerLock).toEqual([]);
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.makerLock).toHaveLength(1);
  });

  // Defence in depth: the decision re-checks the recorded lock instead of trusting how it got there, so
  // a stored snapshot that lost or altered it (a bad migration, a hand edit) still cannot lock funds.
  it.each([
    ['no taker_lock signature', (c: TradeSnapshot['context']) => ({ ...c, signatures: [] })],
    ['no lock terms', (c: TradeSnapshot['context']) => ({ ...c, takerLockTerms: null })],
    [
      'lock terms of another amount',
      (c: TradeSnapshot['context']) => ({ ...c, takerLockTerms: { ...c.takerLockTerms, amountRaw: '1' } }),
    ],
  ])('a snapshot restored in assessing with %s never signs a maker lock', async (_what, alter) => {
    const inventory = deferred<CheckInventoryOutput>();
    const first = startTrade({ checkInventory: () => inventory.promise });
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.locking.assessing');
    const persisted = JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot()));
    first.actor.stop();
    persisted.context = alter(persisted.context);

    const { machine, calls } = fakeMachine();
    const restored = createActor(machine, { snapshot: persisted, input: persisted.context }).start();
    await reach(restored, 'refunded.closed');
    expect(calls.signMakerLock).toEqual([]);
    expect(calls.makerLock).toEqual([]);
    expect(calls.makerCancel).toHaveLength(1);
  });

  const mismatches: [string, Partial<TakerLockTerms>][] = [
    ['escrow', { escrow: 'OtherEscrow11111111111111111111111111111' }],
    ['initializer', { initializer: 'OtherTaker111111111111111111111111111111' }],
    ['recipient', { recipient: 'OtherMaker111111111111111111111111111111' }],
    ['mint', { mint: 'OtherMint1111111111111111111111111111111' }],
    ['amount', { amountRaw: '999999' }],
    ['hashlock', { hashlock: OTHER_HASH }],
    ['expiry', { expiry: TAKER_EXPIRY + 1 }],
    ['lock deadline', { lockDeadline: LOCK_DEADLINE + 1 }],
  ];
  it.each(mismatches)('a lock with another %s never initiates the trade', (_field, terms) => {
    const s = drive([finalizedLock(undefined, terms)]);
    expect(s.matches('initiated')).toBe(false);
    expect(s.matches('failed')).toBe(true);
    expect(s.context.failureReason).toBe('lock_terms_mismatch');
    expect(s.context.makerExpiry).toBeNull();
  });

  it('the lock terms compare the amount as an integer', () => {
    const s = drive([finalizedLock(undefined, { amountRaw: '0001000000' })]);
    expect(s.matches('initiated')).toBe(true);
  });

  it('no second maker lock: a trade with an intent never signs again, even if asked to re-decide', () => {
    const sending = drive(TO_MAKER_LOCKED.slice(0, 3));
    expect(sending.value).toEqual({ initiated: { locking: 'sendingMakerLock' } });
    const intent = sending.context.makerLockIntent;
    expect(intent?.signature).toBe(SIG.makerLock);
    // Force the decision again from a state that already holds an intent (as a corrupted restore might).
    const reassessing = tradeMachine.resolveState({
      value: { initiated: { locking: 'assessing' } },
      context: sending.context,
    });
    const after = step(
      reassessing,
      done('checkInventory', { available: true, now: DECIDED_AT, price: null }),
    );
    expect(after.value).toEqual({ initiated: { locking: 'sendingMakerLock' } });
    expect(after.context.makerLockIntent).toEqual(intent);
    // A late signMakerLock result never replaces the intent.
    const resigning = tradeMachine.resolveState({
      value: { initiated: { locking: 'signingMakerLock' } },
      context: sending.context,
    });
    expectUnchanged(
      resigning,
      done('signMakerLock', {
        signature: 'sig-second',
        lastValidBlockHeight: 2_000,
        transactionBase64: 'BAUG',
      }),
    );
  });

  it('no second maker lock across a restart: the restored actor re-sends the persisted intent', async () => {
    const inFlight = deferred<never>();
    const first = startTrade({ makerLock: () => inFlight.promise });
    first.actor.send(finalizedLock());
    await reach(first.actor, 'initiated.locking.sendingMakerLock');
    const second = fakeMachine();
    const restored = persistAndRestore(first.actor, second.machine);
    await reach(restored, 'initiated.redeeming.makerLocked');
    expect(second.calls.signMakerLock).toEqual([]);
    expect(second.calls.makerLock).toEqual([
      expect.objectContaining({
        intent: expect.objectContaining({ signature: SIG.makerLock, transactionBase64: 'AQID' }),
      }),
    ]);
  });

  it('no maker lock leaving less than the minimum redeem window', () => {
    // min(now + 300, T0 + 600) − now ≥ 120 ⇔ now ≤ T0 + 480.
    const atEdge = drive([
      finalizedLock(),
      done('checkInventory', { available: true, now: T0 + 480, price: null }),
    ]);
    expect(atEdge.value).toEqual({ initiated: { locking: 'signingMakerLock' } });
    expect(atEdge.context.makerExpiry).toBe(T0 + 600);
    const tooLate = drive([
      finalizedLock(),
      done('checkInventory', { available: true, now: T0 + 481, price: null }),
    ]);
    expect(tooLate.value).toEqual({ initiated: { unwinding: 'releasingTaker' } });
    expect(tooLate.context.makerExpiry).toBeNull();
    expect(tooLate.context.makerLockIntent).toBeNull();
    expect(tooLate.context.failureReason).toBe('redeem_window_too_short');
  });

  it('the maker releases the taker only once no maker lock can still land', () => {
    const sending = drive(TO_MAKER_LOCKED.slice(0, 3));
    const lapsed = step(sending, done('makerLock', { landed: false }));
    expect(lapsed.value).toEqual({ initiated: { unwinding: 'releasingTaker' } });
    // While the intent is live, nothing but its outcome moves the trade to the cancel.
    for (const event of [chainTime(TAKER_EXPIRY - 1), { type: 'RETRY_EFFECT', now: TAKER_EXPIRY } as const]) {
      expectUnchanged(sending, event);
    }
  });

  it('a redeem request inside the landing margin is refused', () => {
    const locked = drive(TO_MAKER_LOCKED);
    expect(locked.value).toEqual({ initiated: { redeeming: 'makerLocked' } });
    expectUnchanged(locked, redeemRequest(REDEEM_BY));
    expectUnchanged(locked, redeemRequest(MAKER_EXPIRY));
    expect(commandOutcome(locked, redeemRequest(REDEEM_BY))).toEqual({
      outcome: 'refuse',
      code: 'not_redeemable',
    });
    const accepted = step(locked, redeemRequest(REDEEM_BY - 1));
    expect(accepted.value).toEqual({ initiated: { redeeming: 'redeemingForTaker' } });
    expect(accepted.context.preimage).toBe(PREIMAGE);
  });

  it('a redeem request before the maker lock is final is refused', () => {
    const sending = drive(TO_MAKER_LOCKED.slice(0, 3));
    expectUnchanged(sending, redeemRequest(T0 + 100));
    expect(commandOutcome(sending, redeemRequest(T0 + 100))).toEqual({
      outcome: 'refuse',
      code: 'not_redeemable',
    });
  });

  it('a redeem request whose preimage does not hash to the secret hash is refused', () => {
    const locked = drive(TO_MAKER_LOCKED);
    expectUnchanged(locked, redeemRequest(T0 + 100, OTHER_HASH));
    expect(commandOutcome(locked, redeemRequest(T0 + 100, OTHER_HASH))).toEqual({
      outcome: 'refuse',
      code: 'preimage_mismatch',
    });
    expect(locked.context.preimage).toBeNull();
  });

  it('the maker redeems only after the maker escrow redeem is seen on chain', () => {
    const landed = drive([
      ...TO_MAKER_LOCKED,
      redeemRequest(T0 + 100),
      done('takerRedeem', paid(SIG.takerRedeem, PREIMAGE)),
    ]);
    expect(landed.value).toEqual({ initiated: { redeeming: 'takerRedeemLanded' } });
    const seen = step(landed, {
      type: 'MAKER_ESCROW_REDEEMED',
      signature: SIG.takerRedeem,
      preimage: PREIMAGE,
    });
    expect(seen.value).toEqual({ initiated: { redeeming: 'makerRedeeming' } });
    expect(seen.context.signatures.filter((s) => s.kind === 'taker_redeem')).toHaveLength(1);
  });

  it('abandon is refused once a lock signature exists (held or seen) — snapshot unchanged', () => {
    const held = drive([
      {
        type: 'LOCK_SUBMITTED',
        signature: SIG.takerLock,
        lastValidBlockHeight: 500,
        transactionBase64: null,
      },
    ]);
    const seen = drive([{ type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock }]);
    for (const s of [held, seen]) {
      expectUnchanged(s, { type: 'ABANDON', secretHash: SECRET_HASH });
      expect(commandOutcome(s, { type: 'ABANDON', secretHash: SECRET_HASH })).toEqual({
        outcome: 'refuse',
        code: 'lock_signature_exists',
      });
    }
  });

  it('abandon with a wrong secret hash is refused — snapshot unchanged', () => {
    const s = drive([]);
    expectUnchanged(s, { type: 'ABANDON', secretHash: OTHER_HASH });
    expect(commandOutcome(s, { type: 'ABANDON', secretHash: OTHER_HASH })).toEqual({
      outcome: 'refuse',
      code: 'secret_hash_mismatch',
    });
  });
});

describe('command answers and replays', () => {
  it('the same abandon again is a replay; abandon on a trade failed by its lock window is not', () => {
    const abandon = { type: 'ABANDON', secretHash: SECRET_HASH } as const;
    expect(commandOutcome(drive([]), abandon)).toEqual({ outcome: 'accept' });
    const abandoned = drive([abandon]);
    expect(commandOutcome(abandoned, abandon)).toEqual({
      outcome: 'replay',
    });
    expect(commandOutcome(abandoned, { ...abandon, secretHash: OTHER_HASH })).toEqual({
      outcome: 'refuse',
      code: 'secret_hash_mismatch',
    });
    const expired = drive([chainTime(LOCK_DEADLINE + 1)]);
    expect(commandOutcome(expired, abandon)).toEqual({ outcome: 'refuse', code: 'not_abandonable' });
    const held = drive([
      {
        type: 'LOCK_SUBMITTED',
        signature: SIG.takerLock,
        lastValidBlockHeight: 500,
        transactionBase64: null,
      },
    ]);
    expect(commandOutcome(held, abandon)).toEqual({ outcome: 'refuse', code: 'lock_signature_exists' });
    expect(commandOutcome(drive([finalizedLock()]), abandon)).toEqual({
      outcome: 'refuse',
      code: 'not_abandonable',
    });
  });

  it('lock: a known signature is a replay; a new one after pending is refused', () => {
    const submit = {
      type: 'LOCK_SUBMITTED',
      signature: SIG.takerLock,
      lastValidBlockHeight: 500,
      transactionBase64: null,
    } as const;
    expect(commandOutcome(drive([]), submit)).toEqual({ outcome: 'accept' });
    expect(commandOutcome(drive([submit]), submit)).toEqual({ outcome: 'replay' });
    expect(commandOutcome(drive([submit, finalizedLock()]), submit)).toEqual({ outcome: 'replay' });
    // A lock the watcher saw without it passing through /lock (sent from the wallet) is known too.
    const seen = drive([{ type: 'TAKER_LOCK_SEEN', signature: 'sig-from-wallet' }]);
    expect(commandOutcome(seen, { ...submit, signature: 'sig-from-wallet' })).toEqual({ outcome: 'replay' });
    // A fresh signature replaced the held one: the earlier one is still a replay, a third is refused.
    const replaced = drive([submit, { ...submit, signature: 'sig-fresh' }]);
    expect(commandOutcome(replaced, submit)).toEqual({ outcome: 'replay' });
    expect(commandOutcome(replaced, { ...submit, signature: 'sig-third' })).toEqual({ outcome: 'accept' });
    expect(commandOutcome(seen, { ...submit, signature: 'sig-third' })).toEqual({
      outcome: 'refuse',
      code: 'lock_signature_exists',
    });
    expect(commandOutcome(drive([chainTime(LOCK_DEADLINE + 1)]), submit)).toEqual({
      outcome: 'refuse',
      code: 'lock_window_closed',
    });
  });

  it('redeem and refund: repeating the command that took effect is a replay', () => {
    const redeem = redeemRequest(T0 + 100);
    const redeeming = drive([...TO_MAKER_LOCKED, redeem]);
    expect(commandOutcome(redeeming, { ...redeem, now: T0 + 200 })).toEqual({ outcome: 'replay' });
    const redeemedByWallet = drive([
      ...TO_MAKER_LOCKED,
      { type: 'MAKER_ESCROW_REDEEMED', signature: 'sig-wallet', preimage: PREIMAGE },
    ]);
    expect(commandOutcome(redeemedByWallet, redeem)).toEqual({ outcome: 'refuse', code: 'not_redeemable' });

    const refund = { type: 'REFUND_REQUESTED', now: TAKER_EXPIRY } as const;
    const waiting = drive([
      ...TO_MAKER_LOCKED,
      chainTime(MAKER_EXPIRY),
      done('makerRefund', returned(SIG.makerRefund)),
    ]);
    expect(waiting.value).toEqual({ initiated: { unwinding: 'awaitingTakerExpiry' } });
    expect(commandOutcome(waiting, { ...refund, now: TAKER_EXPIRY - 1 })).toEqual({
      outcome: 'refuse',
      code: 'not_refundable',
    });
    expect(commandOutcome(waiting, refund)).toEqual({ outcome: 'accept' });
    expect(commandOutcome(step(waiting, refund), refund)).toEqual({ outcome: 'replay' });
  });

  it('every refusal is a code of the API error table', () => {
    const refusals: CommandRefusal[] = [
      'secret_hash_mismatch',
      'lock_signature_exists',
      'not_abandonable',
      'lock_window_closed',
      'preimage_mismatch',
      'not_redeemable',
      'not_refundable',
    ];
    for (const code of refusals) expect(ERROR_CODES).toHaveProperty(code);
  });
});

describe('guards fail closed on a context that lacks what they read (a corrupted or partial restore)', () => {
  const guards = tradeMachine.implementations.guards as unknown as Record<
    string,
    (args: { context: TradeSnapshot['context']; event: unknown }, params?: unknown) => boolean
  >;
  const fresh = initialTransition(tradeMachine, tradeInput())[0].context;
  const LATE = Number.MAX_SAFE_INTEGER;
  const ask = (guard: string, context = fresh, event: unknown = chainTime(LATE)) =>
    guards[guard]?.({ context, event });

  it('no decision recorded: inventory is not available and no redeem window is left', () => {
    expect(fresh.assessment).toBeNull();
    expect(ask('inventoryAvailable')).toBe(false);
    expect(ask('leavesMinRedeemWindow')).toBe(false);
  });

  it('no maker expiry recorded: no redeem window is open and the maker escrow never counts as expired', () => {
    expect(fresh.makerExpiry).toBeNull();
    for (const now of [0, T0, LATE]) {
      expect(ask('redeemWindowOpen', fresh, redeemRequest(now))).toBe(false);
      expect(ask('makerEscrowExpired', fresh, chainTime(now))).toBe(false);
    }
  });

  it('no lock terms recorded: a late lock is neither cancellable nor expired', () => {
    expect(fresh.takerLockTerms).toBeNull();
    expect(ask('lateLockIsCancellable')).toBe(false);
    expect(ask('lateLockExpired')).toBe(false);
  });

  it('no failure recorded, or a retry already running: no retry is due at any time', () => {
    expect(fresh.effectError).toBeNull();
    for (const now of [0, T0, LATE]) {
      expect(ask('effectRetryDue', fresh, { type: 'RETRY_EFFECT', now })).toBe(false);
    }
    const running = {
      ...fresh,
      effectError: { effect: 'makerRefund', message: 'boom', attempts: 3, retryAt: null },
    } as TradeSnapshot['context'];
    for (const now of [0, T0, LATE]) {
      expect(ask('effectRetryDue', running, { type: 'RETRY_EFFECT', now })).toBe(false);
    }
  });

  it('no maker lock recorded: the maker escrow is never taken as unsettled (nothing can come back from it)', () => {
    expect(ask('makerEscrowUnsettled')).toBe(false);
  });

  it('the taker escrow holds funds only while locked and neither refunded nor redeemed by the maker', () => {
    const withKinds = (...kinds: string[]) =>
      ({
        ...fresh,
        signatures: kinds.map((kind, i) => ({ kind, signature: `sig-${i}` })),
      }) as TradeSnapshot['context'];
    expect(ask('takerEscrowHoldsFunds', withKinds())).toBe(false);
    expect(ask('takerEscrowHoldsFunds', withKinds('taker_lock'))).toBe(true);
    expect(ask('takerEscrowHoldsFunds', withKinds('taker_lock', 'taker_refund'))).toBe(false);
    expect(ask('takerEscrowHoldsFunds', withKinds('taker_lock', 'maker_redeem'))).toBe(false);
  });
});
