// Effect retries: a failed effect is retried with exponential backoff in chain seconds, jittered
// per trade and capped, at a time kept in the trade's context (it survives restarts and feeds the runtime's
// deadline index). The runtime sends RETRY_EFFECT once it is due; the machine runs no timer of its own.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { EFFECT_RETRY, type EscrowEnding, effectRetryDelay, nextDeadline } from '../../machines/index.ts';
import {
  DECIDED_AT,
  deferred,
  effectFailed,
  failureAt,
  finalizedLock,
  PREIMAGE,
  paid,
  reach,
  retryWhenDue,
  SIG,
  startTrade,
  TAKER_EXPIRY,
  tradeInput,
} from './trade.fixtures.ts';

const input = tradeInput();
const retry = (now: number) => ({ type: 'RETRY_EFFECT', now }) as const;
/** The delay before jitter: 1, 2, 4 … seconds, capped at a minute. */
const baseDelay = (attempts: number) =>
  Math.min(EFFECT_RETRY.maxDelaySeconds, EFFECT_RETRY.firstDelaySeconds * 2 ** (attempts - 1));

describe('effectRetryDelay', () => {
  it('backs off from one second, doubling up to a minute; operators see a trade after five failures', () => {
    expect(EFFECT_RETRY).toEqual({ firstDelaySeconds: 1, maxDelaySeconds: 60, visibleAfterAttempts: 5 });
    // The first two delays are too short for a quarter of jitter to show.
    expect([1, 2].map((n) => effectRetryDelay(n, input.tradeId))).toEqual([1, 2]);
  });

  const attempts = fc.integer({ min: 1, max: 10_000 });
  const tradeId = fc.oneof(fc.uuid(), fc.string());

  test.prop([attempts, tradeId])(
    'adds at most a quarter of jitter to the capped exponential delay',
    (n, id) => {
      const delay = effectRetryDelay(n, id);
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(baseDelay(n));
      expect(delay).toBeLessThanOrEqual(baseDelay(n) * 1.25);
      expect(delay).toBeLessThanOrEqual(EFFECT_RETRY.maxDelaySeconds * 1.25);
    },
  );

  test.prop([fc.integer({ min: 1, max: 5 }), tradeId])(
    'never shortens from one attempt to the next while below the cap',
    (n, id) => {
      expect(effectRetryDelay(n + 1, id)).toBeGreaterThanOrEqual(effectRetryDelay(n, id));
    },
  );

  it('stays capped however long an effect keeps failing', () => {
    for (const n of [31, 32, 1_000, Number.MAX_SAFE_INTEGER]) {
      const delay = effectRetryDelay(n, input.tradeId);
      expect(delay).toBeGreaterThanOrEqual(EFFECT_RETRY.maxDelaySeconds);
      expect(delay).toBeLessThanOrEqual(EFFECT_RETRY.maxDelaySeconds * 1.25);
    }
  });

  it('spreads trades failing together: at the cap their delays differ', () => {
    const ids = Array.from(
      { length: 20 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    for (const n of [4, 8, 20]) {
      const delays = new Set(ids.map((id) => effectRetryDelay(n, id)));
      expect(delays.size, `attempt ${n}`).toBeGreaterThan(1);
    }
  });
});

describe('a failing effect in a live trade', () => {
  /** A trade releasing its taker (no inventory): makerCancel answers as `answers` says, in turn. */
  function releasing(answers: [() => Promise<EscrowEnding>, ...(() => Promise<EscrowEnding>)[]]) {
    let call = 0;
    return startTrade({
      checkInventory: () => ({ available: false, now: DECIDED_AT, price: null }),
      makerCancel: () => (answers[call++] ?? answers[0])(),
    });
  }
  const failAt = (at: number) => () => Promise.reject(failureAt('rpc down', at));

  it('counts consecutive failures across retries, and schedules each retry from the failure’s chain time', async () => {
    // As many failures as make the runtime show the trade to operators.
    const times = [DECIDED_AT + 5, DECIDED_AT + 50, DECIDED_AT + 500, DECIDED_AT + 900, DECIDED_AT + 901];
    expect(times).toHaveLength(EFFECT_RETRY.visibleAfterAttempts);
    const { actor, calls } = releasing([failAt(times[0] ?? 0), ...times.slice(1).map(failAt)]);
    actor.send(finalizedLock());
    for (const [i, at] of times.entries()) {
      const failing = await effectFailed(actor);
      expect(failing.value).toEqual({ initiated: { unwinding: 'releasingTaker' } });
      expect(failing.context.effectError).toEqual({
        effect: 'makerCancel',
        message: 'rpc down',
        attempts: i + 1,
        retryAt: at + effectRetryDelay(i + 1, input.tradeId),
      });
      // No deadline of its own in this state: the retry time is what wakes the trade.
      expect(nextDeadline(failing)).toBe(failing.context.effectError?.retryAt);
      if (i < times.length - 1) await retryWhenDue(actor);
    }
    expect(calls.makerCancel).toHaveLength(times.length);
    expect(actor.getSnapshot().context.effectError?.attempts).toBe(EFFECT_RETRY.visibleAfterAttempts);
  });

  it('is not retried before its retry time, nor a second time while the retry runs', async () => {
    const retried = deferred<EscrowEnding>();
    const { actor, calls } = releasing([failAt(DECIDED_AT), () => retried.promise]);
    actor.send(finalizedLock());
    const failing = await effectFailed(actor);
    const retryAt = failing.context.effectError?.retryAt ?? 0;

    expect(failing.can(retry(retryAt - 1))).toBe(false);
    actor.send(retry(retryAt - 1));
    expect(calls.makerCancel).toHaveLength(1);

    actor.send(retry(retryAt));
    const running = actor.getSnapshot();
    expect(running.context.effectError).toEqual({ ...failing.context.effectError, retryAt: null });
    expect(nextDeadline(running)).toBeNull();
    for (const now of [retryAt, retryAt + 1_000]) {
      expect(running.can(retry(now))).toBe(false);
      actor.send(retry(now));
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(calls.makerCancel).toHaveLength(2);

    retried.resolve(paid(SIG.makerRedeem, PREIMAGE));
    const done = await reach(actor, 'redeemed.closed');
    expect(done.context.effectError).toBeNull();
  });

  it('keeps its failures through a chain fact that leaves it in place, and drops them when the state is left', async () => {
    const { actor } = startTrade({
      makerRedeem: () => Promise.reject(failureAt('rpc down', DECIDED_AT)),
      takerRefund: () => new Promise(() => {}),
    });
    actor.send(finalizedLock());
    await reach(actor, 'initiated.redeeming.makerLocked');
    actor.send({ type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE });
    const failing = await effectFailed(actor);
    actor.send({ type: 'ADOPTED', runId: 'run-2', now: DECIDED_AT + 10 });
    expect(actor.getSnapshot().context.effectError).toEqual(failing.context.effectError);
    actor.send({ type: 'CHAIN_TIME_ADVANCED', now: TAKER_EXPIRY });
    const refunding = await reach(actor, 'initiated.unwinding.refundingTakerEscrow');
    expect(refunding.context.effectError).toBeNull();
    expect(nextDeadline(refunding)).toBeNull();
  });
});
