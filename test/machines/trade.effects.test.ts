// What the machine hands each effect, and what it keeps from each effect's answer. The runtime signs and
// sends exactly these inputs, so a wrong field here is a transaction against the wrong account.
import { describe, expect, it } from 'vitest';
import { type AnyActorLogic, createActor, SimulatedClock, toPromise, waitFor } from 'xstate';
import { TRADE_EFFECTS, tradeMachine } from '../../machines/index.ts';
import {
  chainTime,
  DECIDED_AT,
  fakeMachine,
  finalizedLock,
  LOCK_DEADLINE,
  lockTerms,
  MAKER_EXPIRY,
  PREIMAGE,
  REDEEM_BY,
  reach,
  redeemRequest,
  SECRET_HASH,
  SIG,
  startTrade,
  TAKER_EXPIRY,
  tradeInput,
} from './trade.fixtures.ts';

const input = tradeInput();
const takerEscrowRelease = {
  tradeId: input.tradeId,
  takerEscrow: input.takerEscrow,
  initializer: input.takerWallet,
};
const makerEscrowRefund = {
  tradeId: input.tradeId,
  makerEscrow: input.makerEscrow,
  initializer: input.makerWallet,
};
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
      input: { ...input, secretHash: SECRET_HASH.toUpperCase() },
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
      assessment: null,
      makerExpiry: null,
      makerLockIntent: null,
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
    const locked = await reach(actor, 'initiated.makerLocked');
    expect(calls.checkInventory).toEqual([
      { tradeId: input.tradeId, outputMint: input.outputMint, outputAmountRaw: input.outputAmountRaw },
    ]);
    expect(locked.context.assessment).toEqual({ available: true, now: DECIDED_AT });
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
      },
    ]);
    expect(locked.context.makerLockIntent).toEqual(intent);
    expect(calls.makerLock).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow, intent }]);

    actor.send({ ...redeemRequest(REDEEM_BY - 1), preimage: 'EF'.repeat(32) });
    const landed = await reach(actor, 'initiated.takerRedeemLanded');
    expect(landed.context.signatures[2]).toEqual({ kind: 'taker_redeem', signature: SIG.takerRedeem });
    expect(calls.takerRedeem).toEqual([
      {
        tradeId: input.tradeId,
        makerEscrow: input.makerEscrow,
        recipient: input.takerWallet,
        preimage: 'ef'.repeat(32),
      },
    ]);

    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const done = await reach(actor, 'redeemed.closed');
    expect(calls.makerRedeem).toEqual([
      {
        tradeId: input.tradeId,
        takerEscrow: input.takerEscrow,
        recipient: input.makerWallet,
        preimage: PREIMAGE,
      },
    ]);
    expect(calls.closeEscrows).toEqual([{ tradeId: input.tradeId, makerEscrow: input.makerEscrow }]);
    expect(done.context.signatures).toEqual([
      { kind: 'taker_lock', signature: SIG.takerLock },
      { kind: 'maker_lock', signature: SIG.makerLock },
      { kind: 'taker_redeem', signature: SIG.takerRedeem },
      { kind: 'maker_redeem', signature: SIG.makerRedeem },
    ]);
  });

  it('no redeem: the maker refunds its escrow at its expiry, the runtime refunds the taker at the taker expiry', async () => {
    const { actor, calls } = startTrade();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.makerLocked');
    actor.send(chainTime(MAKER_EXPIRY));
    await reach(actor, 'initiated.awaitingTakerExpiry');
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
    await reach(actor, 'initiated.makerLocked');
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
    const { actor, calls } = startTrade({ checkInventory: () => ({ available: false, now: DECIDED_AT }) });
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

  it('a failing effect leaves its name and message in the context until it succeeds', async () => {
    let attempts = 0;
    const { actor } = startTrade({
      checkInventory: () =>
        ++attempts < 2 ? Promise.reject(new Error('rpc down')) : { available: true, now: DECIDED_AT },
    });
    actor.send(finalizedLock());
    const failing = await waitFor(actor, (s) => s.context.effectError !== null, { timeout: 1_000 });
    expect(failing.context.effectError).toEqual({ effect: 'checkInventory', message: 'rpc down' });
    const locked = await reach(actor, 'initiated.makerLocked');
    expect(locked.context.effectError).toBeNull();
  });
});

describe('effect retries', () => {
  it('a retry still pending when a chain fact moves the trade on never fires into the next effect', async () => {
    // Backoff is 5 ms of the simulated clock: the redeem's retry falls due at 5, the refund's at 3 + 5.
    const clock = new SimulatedClock();
    let refundAttempts = 0;
    const { machine, calls } = fakeMachine({
      takerRedeem: () => Promise.reject(new Error('rpc down')),
      makerRefund: () =>
        ++refundAttempts === 1 ? Promise.reject(new Error('rpc down')) : { signature: SIG.makerRefund },
    });
    const actor = createActor(machine, { input, clock }).start();
    actor.send(finalizedLock());
    await reach(actor, 'initiated.makerLocked');
    actor.send(redeemRequest(REDEEM_BY - 1));
    await waitFor(actor, (s) => s.context.effectError?.effect === 'takerRedeem', { timeout: 1_000 });

    clock.increment(3);
    actor.send(chainTime(MAKER_EXPIRY));
    await waitFor(actor, (s) => s.context.effectError?.effect === 'makerRefund', { timeout: 1_000 });
    clock.increment(3); // past the redeem's retry, before the refund's own
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.makerRefund).toHaveLength(1);
    expect(calls.takerRedeem).toHaveLength(1);

    clock.increment(5);
    await reach(actor, 'initiated.awaitingTakerExpiry');
    expect(calls.makerRefund).toHaveLength(2);
    expect(calls.takerRedeem).toHaveLength(1);
  });

  it('the bare machine refuses to run an effect the runtime did not provide, and says which', async () => {
    const actor = createActor(tradeMachine, { input }).start();
    actor.send(finalizedLock());
    const failing = await waitFor(actor, (s) => s.context.effectError !== null, { timeout: 1_000 });
    expect(failing.context.effectError).toEqual({
      effect: 'checkInventory',
      message: 'trade effect checkInventory is not provided by the runtime',
    });
    actor.stop();
  });

  it.each(TRADE_EFFECTS)('the bare machine’s %s fails by name rather than doing nothing', async (effect) => {
    const logic = tradeMachine.implementations.actors[effect] as AnyActorLogic;
    const run = createActor(logic, { input: {} }).start();
    await expect(toPromise(run)).rejects.toThrow(`trade effect ${effect} is not provided by the runtime`);
  });
});
