// Deadlines read from declared state meta: each named deadline maps to its own context field, and the
// earliest of several declared ones wins (the statechart declares one at a time; the helper must not
// rely on that to wake a trade in time).
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { deadlineTime, earliestDeadline, type TradeContext, tradeMachine } from '../../machines/index.ts';
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
