// Deadlines read from declared state meta: each named deadline maps to its own context field, and the
// earliest of several declared ones wins (the statechart declares one at a time; the helper must not
// rely on that to wake a trade in time). A failed effect's retry time is a deadline too.
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  deadlineTime,
  type EffectErrorInfo,
  earliestDeadline,
  nextDeadline,
  type TradeContext,
  tradeMachine,
} from '../../machines/index.ts';
import { lockTerms, tradeInput } from './trade.fixtures.ts';

// Every deadline field distinct, so a deadline read from the wrong field shows.
const context = (overrides: Partial<TradeContext> = {}): TradeContext => ({
  ...createActor(tradeMachine, { input: tradeInput() }).getSnapshot().context,
  lockDeadline: 1_000,
  makerExpiry: 2_000,
  takerExpiry: 3_000,
  takerLockTerms: lockTerms(tradeInput(), { expiry: 4_000 }),
  ...overrides,
});

describe('deadlineTime', () => {
  it('reads each deadline from its own field (the lock window closes one second after its deadline)', () => {
    expect(deadlineTime('lockWindowEnd', context())).toBe(1_001);
    expect(deadlineTime('makerExpiry', context())).toBe(2_000);
    expect(deadlineTime('takerExpiry', context())).toBe(3_000);
    expect(deadlineTime('lateLockExpiry', context())).toBe(4_000);
  });

  it('has no time for a deadline whose field is not known yet', () => {
    expect(deadlineTime('makerExpiry', context({ makerExpiry: null }))).toBeNull();
    expect(deadlineTime('lateLockExpiry', context({ takerLockTerms: null }))).toBeNull();
  });
});

describe('earliestDeadline', () => {
  it('is null when no active state declares a deadline', () => {
    expect(earliestDeadline([], context())).toBeNull();
    expect(earliestDeadline([undefined, {}], context())).toBeNull();
  });

  it('takes the earliest of several declared deadlines, in any order', () => {
    const declared = [
      { wakeAt: 'takerExpiry' },
      { wakeAt: 'makerExpiry' },
      { wakeAt: 'lateLockExpiry' },
    ] as const;
    expect(earliestDeadline(declared, context())).toBe(2_000);
    expect(earliestDeadline([...declared].reverse(), context())).toBe(2_000);
    expect(earliestDeadline([{}, ...declared], context())).toBe(2_000);
  });

  it('skips a declared deadline with no time yet instead of waking at it', () => {
    const declared = [{ wakeAt: 'makerExpiry' }, { wakeAt: 'takerExpiry' }] as const;
    expect(earliestDeadline(declared, context({ makerExpiry: null }))).toBe(3_000);
    expect(earliestDeadline([...declared].reverse(), context({ makerExpiry: null }))).toBe(3_000);
    expect(earliestDeadline([{ wakeAt: 'makerExpiry' }], context({ makerExpiry: null }))).toBeNull();
  });
});

describe('nextDeadline', () => {
  const failing = (retryAt: number | null): EffectErrorInfo => ({
    effect: 'takerRedeem',
    message: 'rpc down',
    attempts: 2,
    retryAt,
  });
  const redeeming = (effectError: EffectErrorInfo | null) => ({
    value: { initiated: { redeeming: 'redeemingForTaker' } },
    context: context({ effectError }),
  });

  it('is the state’s own deadline while no effect waits for a retry', () => {
    expect(nextDeadline(redeeming(null))).toBe(2_000);
    // A retry running has no retry time: only its outcome or the deadline moves the trade.
    expect(nextDeadline(redeeming(failing(null)))).toBe(2_000);
  });

  it('is a failed effect’s retry time when it comes first, and the state’s deadline otherwise', () => {
    expect(nextDeadline(redeeming(failing(1_500)))).toBe(1_500);
    expect(nextDeadline(redeeming(failing(2_500)))).toBe(2_000);
    expect(nextDeadline(redeeming(failing(2_000)))).toBe(2_000);
  });

  it('is the retry time in a state that declares no deadline, and null without one', () => {
    const releasing = (effectError: EffectErrorInfo | null) => ({
      value: { initiated: { unwinding: 'releasingTaker' } },
      context: context({ effectError: effectError && { ...effectError, effect: 'makerCancel' } }),
    });
    expect(nextDeadline(releasing(null))).toBeNull();
    expect(nextDeadline(releasing(failing(null)))).toBeNull();
    expect(nextDeadline(releasing(failing(1_500)))).toBe(1_500);
    // Retries due at time 0 (a rejection without a chain time) are due at once, not forgotten.
    expect(nextDeadline(releasing(failing(0)))).toBe(0);
  });
});
