// What the machine hands each effect, and what it keeps from each effect's answer. The runtime signs and
// sends exactly these inputs, so a wrong field here is a transaction against the wrong account.
import { describe, expect, it } from 'vitest';
import { type AnyActorLogic, createActor, toPromise, waitFor } from 'xstate';
import {
  effectRetryDelay,
  makerEscrowTerms,
  TRADE_EFFECTS,
  type TradeContext,
  takerEscrowTerms,
  tradeMachine,
} from '../../machines/index.ts';
import { preimageFromBytes } from '../../src/vocabulary/index.ts';
import {
  chainTime,
  DECIDED_AT,
  deferred,
  effectFailed,
  failureAt,
  finalizedLock,
  LOCK_DEADLINE,
  lockTerms,
  MAKER_EXPIRY,
  makerEscrowOf,
  PREIMAGE,
  REDEEM_BY,
  reach,
  redeemRequest,
  returned,
  SECRET_HASH,
  SIG,
  startTrade,
  step,
  TAKER_EXPIRY,
  takerEscrowOf,
  tradeInput,
} from './trade.fixtures.ts';

const input = tradeInput();
/** The taker escrow, acted on by makerCancel and takerRefund (release) and makerRedeem. */
const takerEscrowRelease = { tradeId: input.tradeId, escrow: takerEscrowOf(input) };
/** The maker escrow, acted on by makerRefund and takerRedeem. */
const makerEscrowRefund = { tradeId: input.tradeId, escrow: makerEscrowOf(input) };
const intent = {
  makerExpiry: MAKER_EXPIRY,
  signature: SIG.makerLock,
  lastValidBlockHeight: 1_000,
  transactionBase64: 'AQID',
  lapsed: false,
};

describe('a new trade', () => {
  it('starts from its input with nothing recorded', () => {
    const context = createActor(tradeMachine, {
      input,
    }).getSnapshot().context;
    expect(context).toEqual({
      ...input,
      secretHash: SECRET_HASH,
      currentRunId: input.runId,
      adoptedAt: null,
      signatures: [],
      lockSignature: null,
      lockSubmissions: [],
      takerLockTerms: null,
      takerLockConfirmedOnly: false,
      assessment: null,
      makerExpiry: null,
      makerLockIntent: null,
      sourcingIntent: null,
      mintIntent: null,
      sourced: null,
      preimage: null,
      makerEscrowRedeemSeen: false,
      abandonedWith: null,
      redeemRequested: false,
      refundRequested: false,
      failureReason: null,
      alert: false,
      effectError: null,
    });
  });
});

describe('effect inputs and the signatures kept from their answers', () => {
  it('swap: inventory, sign, send, redeem for the taker, maker redeem, close', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.checkInventory).toEqual([
      {
        tradeId: input.tradeId,
        quoteId: input.quoteId,
        outputMint: input.outputMint,
        outputAmountRaw: input.outputAmountRaw,
        sourcing: null,
      },
    ]);
    expect(locked.context.assessment).toEqual({
      available: true,
      now: DECIDED_AT,
      price: null,
      mintRaw: null,
    });
    expect(calls.signMakerLock).toEqual([
      {
        tradeId: input.tradeId,
        takerEscrow: input.takerEscrow,
        makerEscrow: input.makerEscrow,
        initializer: input.makerWallet,
        recipient: input.takerWallet,
        mint: input.outputMint,
        amountRaw: input.outputAmountRaw,
        hashlock: SECRET_HASH,
        expiry: MAKER_EXPIRY,
        // What the program holds the taker escrow to: exactly the agreed input and the agreed taker expiry.
        takerMint: input.inputMint,
        takerAmountRaw: input.inputAmountRaw,
        takerExpiry: TAKER_EXPIRY,
      },
    ]);
    expect(locked.context.makerLockIntent).toEqual(intent);
    expect(calls.makerLock).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow, intent }]);

    actor.send({ ...redeemRequest(REDEEM_BY - 1), preimage: preimageFromBytes(Buffer.alloc(32, 0xef)) });
    const landed = await reach(actor, 'initiated.redeeming.takerRedeemLanded');
    expect(landed.context.signatures[2]).toEqual({ kind: 'taker_redeem', signature: SIG.takerRedeem });
    expect(calls.takerRedeem).toEqual([{ ...makerEscrowRefund, preimage: 'ef'.repeat(32) }]);

    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const done = await reach(actor, 'redeemed.closed');
    expect(calls.makerRedeem).toEqual([{ ...takerEscrowRelease, preimage: PREIMAGE }]);
    expect(calls.closeEscrows).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow }]);
    expect(done.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'maker_lock', signature: SIG.makerLock },
      { kind: 'taker_redeem', signature: SIG.takerRedeem },
      { kind: 'maker_redeem', signature: SIG.makerRedeem },
    ]);
  });

  it('sourcing: the swap is signed from the quote’s plan and sent as signed, then the maker assesses again and locks', async () => {
    const plan = {
      sellMint: input.inputMint,
      sellRaw: '400000',
      buyMint: input.outputMint,
      minBuyRaw: '3000000',
    };
    const sourcedInput = tradeInput({ sourcing: plan });
    const { actor, calls } = startTrade({}, sourcedInput);
    actor.send(finalizedLock(sourcedInput));
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    // The first attempt: no failed swap of this trade's to re-quote after.
    expect(calls.signSourcing).toEqual([{ tradeId: input.tradeId, ...plan, failedSwaps: [] }]);
    const swapIntent = {
      signature: SIG.swap,
      lastValidBlockHeight: 900,
      transactionBase64: 'BAUG',
      lapsed: false,
    };
    expect(calls.sendSourcing).toEqual([{ tradeId: input.tradeId, plan, intent: swapIntent }]);
    expect(locked.context.sourced).toEqual({ signature: SIG.swap, soldRaw: '400000', boughtRaw: '3000000' });
    expect(calls.checkInventory).toHaveLength(2);
    expect(calls.makerLock).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow, intent }]);
  });

  it('a signed lock handed over with its bytes is broadcast, the latest one held replacing the last', async () => {
    const { actor, calls } = startTrade({ broadcastTakerLock: () => deferred<never>().promise });
    const held = [1, 2, 3].map((n) => ({
      signature: `${SIG.takerLock}-${n}`,
      lastValidBlockHeight: 500 + n,
      transactionBase64: `AQID${n}`,
    }));
    for (const submission of held) actor.send({ type: 'LOCK_SUBMITTED', ...submission });
    expect(actor.getSnapshot().value).toEqual({ pending: 'broadcastingLock' });
    expect(calls.broadcastTakerLock).toEqual(
      held.map((submission) => ({
        tradeId: input.tradeId,
        takerEscrow: input.takerEscrow,
        lockDeadline: LOCK_DEADLINE,
        submission,
      })),
    );
    actor.stop();
  });

  it('no redeem: the maker refunds its escrow at its expiry, the runtime refunds the taker at the taker expiry', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(chainTime(MAKER_EXPIRY));
    await reach(actor, 'initiated.unwinding.awaitingTakerExpiry');
    expect(calls.makerRefund).toEqual([makerEscrowRefund]);
    actor.send(chainTime(TAKER_EXPIRY));
    const done = await reach(actor, 'refunded.closed');
    expect(calls.takerRefund).toEqual([takerEscrowRelease]);
    expect(done.context.signatures.slice(2)).toEqual([
      { kind: 'maker_refund', signature: SIG.makerRefund },
      { kind: 'taker_refund', signature: SIG.takerRefund },
    ]);
  });

  it('the taker refunds itself while the maker escrow is funded: the maker reclaims, then closes', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'TAKER_ESCROW_REFUNDED', signature: 'sig-wallet-refund' });
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerRefund).toEqual([makerEscrowRefund]);
    expect(calls.closeEscrows).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow }]);
    expect(done.context.signatures.slice(2)).toEqual([
      { kind: 'taker_refund', signature: 'sig-wallet-refund' },
      { kind: 'maker_refund', signature: SIG.makerRefund },
    ]);
  });

  it('cannot serve: cancel releases the taker escrow', async () => {
    const { actor, calls } = startTrade({
      checkInventory: () => ({ available: false, now: DECIDED_AT, price: null }),
    });
    actor.send(finalizedLock());
    const done = await reach(actor, 'refunded.closed');
    expect(calls.makerCancel).toEqual([takerEscrowRelease]);
    expect(done.context.signatures[1]).toEqual({ kind: 'taker_refund', signature: SIG.cancel });
  });

  it('a late lock after abandon is cancelled; one with another recipient is refunded at its expiry', async () => {
    const cancelled = startTrade();
    cancelled.actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    cancelled.actor.send(finalizedLock());
    const released = await reach(cancelled.actor, 'failed.released');
    expect(cancelled.calls.makerCancel).toEqual([takerEscrowRelease]);
    expect(released.context.signatures[1]).toEqual({ kind: 'taker_refund', signature: SIG.cancel });

    const foreign = startTrade();
    foreign.actor.send(chainTime(LOCK_DEADLINE + 1));
    const terms = lockTerms(input, { recipient: 'SomeoneElse1111111111111111111111111111111' });
    foreign.actor.send({ type: 'TAKER_LOCK_FINALIZED', signature: SIG.takerLock, terms });
    await reach(foreign.actor, 'failed.awaitingLateLockExpiry');
    foreign.actor.send(chainTime(TAKER_EXPIRY));
    const refunded = await reach(foreign.actor, 'failed.released');
    expect(foreign.calls.makerCancel).toEqual([]);
    expect(foreign.calls.takerRefund).toEqual([takerEscrowRelease]);
    expect(refunded.context.signatures[1]).toEqual({ kind: 'taker_refund', signature: SIG.takerRefund });
  });

  it('a late lock into another escrow is not this trade’s to cancel', async () => {
    const { actor, calls } = startTrade();
    actor.send({ type: 'ABANDON', secretHash: SECRET_HASH });
    actor.send({
      type: 'TAKER_LOCK_FINALIZED',
      signature: SIG.takerLock,
      terms: lockTerms(input, { escrow: 'OtherEscrow1111111111111111111111111111111' }),
    });
    expect(actor.getSnapshot().value).toEqual({ failed: 'awaitingLateLockExpiry' });
    expect(calls.makerCancel).toEqual([]);
  });

  it('a failing effect leaves its name, message, attempts and retry time in the context until it succeeds', async () => {
    let attempts = 0;
    const { actor, calls } = startTrade({
      checkInventory: () =>
        ++attempts < 2
          ? Promise.reject(failureAt('rpc down', DECIDED_AT))
          : { available: true, now: DECIDED_AT, price: null },
    });
    actor.send(finalizedLock());
    const failing = await effectFailed(actor);
    expect(failing.context.effectError).toEqual({
      effect: 'checkInventory',
      message: 'rpc down',
      attempts: 1,
      retryAt: DECIDED_AT + effectRetryDelay(1, input.tradeId),
    });
    actor.send({ type: 'RETRY_EFFECT', now: DECIDED_AT + 1 });
    const locked = await reach(actor, 'initiated.redeeming.makerLocked');
    expect(calls.checkInventory).toHaveLength(2);
    expect(locked.context.effectError).toBeNull();
  });

  it('the escrow terms handed to effects are each escrow’s own: who is paid, who gets it back', () => {
    const context = createActor(tradeMachine, { input }).getSnapshot().context;
    expect(makerEscrowTerms(context)).toEqual({
      address: input.makerEscrow,
      mint: input.outputMint,
      amountRaw: input.outputAmountRaw,
      recipient: input.takerWallet,
      initializer: input.makerWallet,
    });
    expect(takerEscrowTerms(context)).toEqual({
      address: input.takerEscrow,
      mint: input.inputMint,
      amountRaw: input.inputAmountRaw,
      recipient: input.makerWallet,
      initializer: input.takerWallet,
    });
  });
});

describe('effect retries', () => {
  it('a failure left behind when a chain fact moves the trade on never retries into the next effect', async () => {
    const refund = deferred<never>();
    let refundAttempts = 0;
    const { actor, calls } = startTrade({
      takerRedeem: () => Promise.reject(failureAt('rpc down', MAKER_EXPIRY - 20)),
      makerRefund: () => (++refundAttempts === 1 ? refund.promise : returned(SIG.makerRefund)),
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send(redeemRequest(REDEEM_BY - 1));
    const redeemFailed = await effectFailed(actor);
    const redeemRetryAt = redeemFailed.context.effectError?.retryAt ?? 0;
    expect(redeemRetryAt).toBe(MAKER_EXPIRY - 20 + 1);

    actor.send(chainTime(MAKER_EXPIRY));
    const refunding = await reach(actor, 'initiated.unwinding.refundingMakerEscrow');
    expect(refunding.context.effectError).toBeNull();
    // The redeem's retry time has passed, but nothing is failing any more: nothing is retried.
    expect(refunding.can({ type: 'RETRY_EFFECT', now: MAKER_EXPIRY })).toBe(false);

    // The refund's own failure counts from one, and is retried at its own time only.
    refund.reject(failureAt('rpc down', MAKER_EXPIRY + 10));
    const refundFailed = await effectFailed(actor);
    expect(refundFailed.context.effectError).toEqual({
      effect: 'makerRefund',
      message: 'rpc down',
      attempts: 1,
      retryAt: MAKER_EXPIRY + 10 + 1,
    });
    actor.send({ type: 'RETRY_EFFECT', now: MAKER_EXPIRY + 10 });
    expect(calls.makerRefund).toHaveLength(1);
    actor.send({ type: 'RETRY_EFFECT', now: MAKER_EXPIRY + 11 });
    await reach(actor, 'initiated.unwinding.awaitingTakerExpiry');
    expect(calls.makerRefund).toHaveLength(2);
    expect(calls.takerRedeem).toHaveLength(1);
  });

  it('the bare machine refuses to run an effect the runtime did not provide, and says which', async () => {
    const actor = createActor(tradeMachine, { input }).start();
    actor.send(finalizedLock());
    const failing = await waitFor(actor, (s) => s.context.effectError !== null, { timeout: 1_000 });
    // A plain Error carries no chain time: its retry counts from time 0, so it is due at once.
    expect(failing.context.effectError).toEqual({
      effect: 'checkInventory',
      message: 'trade effect checkInventory is not provided by the runtime',
      attempts: 1,
      retryAt: effectRetryDelay(1, input.tradeId),
    });
    actor.stop();
  });

  it.each(TRADE_EFFECTS)('the bare machine’s %s fails by name rather than doing nothing', async (effect) => {
    const logic = tradeMachine.implementations.actors[effect] as AnyActorLogic;
    const run = createActor(logic, { input: {} }).start();
    await expect(toPromise(run)).rejects.toThrow(`trade effect ${effect} is not provided by the runtime`);
  });
});

describe('an effect state never runs its effect on an input it cannot build', () => {
  // A context without what the state acts on (a snapshot edited by hand, a bug elsewhere) stops the trade
  // with the reason named when the effect is (re)started: no transaction of nulls is signed or sent.
  const plan = {
    sellMint: input.inputMint,
    sellRaw: '400000',
    buyMint: input.outputMint,
    minBuyRaw: '3000000',
  };
  const swapIntent = {
    signature: SIG.swap,
    lastValidBlockHeight: 900,
    transactionBase64: 'BAUG',
    lapsed: false,
  };
  const submitted = { signature: SIG.takerLock, lastValidBlockHeight: 500, transactionBase64: 'AQID' };
  const fresh = () => ({ ...createActor(tradeMachine, { input }).getSnapshot().context, sourcing: plan });
  const cases: [
    phase: 'pending' | 'locking',
    state: string,
    missing: Partial<TradeContext>,
    message: string,
  ][] = [
    ['pending', 'broadcastingLock', { lockSubmissions: [] }, 'broadcastingLock without a held lock'],
    [
      'pending',
      'broadcastingLock',
      { lockSubmissions: [{ ...submitted, transactionBase64: null }] },
      'broadcastingLock without a held lock',
    ],
    ['locking', 'signingSourcing', { sourcing: null }, 'signingSourcing without a sourcing plan'],
    ['locking', 'sendingSourcing', { sourcingIntent: null }, 'sendingSourcing without a plan and an intent'],
    [
      'locking',
      'sendingSourcing',
      { sourcing: null, sourcingIntent: swapIntent },
      'sendingSourcing without a plan and an intent',
    ],
    ['locking', 'sendingMakerLock', { makerLockIntent: null }, 'sendingMakerLock without an intent'],
  ];

  it.each(cases)('%s.%s with %j: "%s"', (phase, state, missing, message) => {
    const value = phase === 'pending' ? { pending: state } : { initiated: { locking: state } };
    const failing = tradeMachine.resolveState({
      value,
      context: {
        ...fresh(),
        ...missing,
        effectError: { effect: 'checkInventory', message: 'rpc down', attempts: 1, retryAt: DECIDED_AT },
      },
    });
    expect(() => step(failing, { type: 'RETRY_EFFECT', now: DECIDED_AT })).toThrow(new Error(message));
  });

  it('with what it acts on, the same retry starts the effect again', () => {
    for (const [phase, state] of cases) {
      const value = phase === 'pending' ? { pending: state } : { initiated: { locking: state } };
      const failing = tradeMachine.resolveState({
        value,
        context: {
          ...fresh(),
          lockSubmissions: [submitted],
          sourcingIntent: swapIntent,
          makerLockIntent: intent,
          effectError: { effect: 'checkInventory', message: 'rpc down', attempts: 1, retryAt: DECIDED_AT },
        },
      });
      const retried = step(failing, { type: 'RETRY_EFFECT', now: DECIDED_AT });
      expect(retried.value, state).toEqual(value);
      expect(retried.context.effectError?.retryAt, state).toBeNull();
    }
  });
});
