// What a trade holds in the reservation book (restColumns' hold): a settlement start without a landed lock
// holds its output for the lock-landing window only and counts as unfunded; once a lock is on chain the
// trade holds until its lock window ends, then until the taker expiry once final, funded; nothing once the
// maker locked or the trade ended.
import { describe, expect, test } from 'vitest';
import { initialSnapshot, type TradeSnapshotLike } from '../../machines/index.ts';
import { restColumns } from '../../src/runtime/trade-record.ts';
import { LOCK_DEADLINE, TAKER_EXPIRY, tradeInput } from '../support/trade-context.ts';

/** The default timings: a 120 s lock window, a 30 s landing window. */
const HOLDS = { lockWindowSeconds: 120, lockLandingSeconds: 30 };
const START = LOCK_DEADLINE - 120;

const at = (value: TradeSnapshotLike['value'], context: Partial<TradeSnapshotLike['context']> = {}) => {
  const snapshot = initialSnapshot(tradeInput());
  return { ...snapshot, value, context: { ...snapshot.context, ...context } } as TradeSnapshotLike;
};

describe('a trade’s hold', () => {
  test('a settlement start without a landed lock holds its output for the landing window, unfunded', () => {
    for (const value of [
      { pending: 'awaitingLock' },
      { pending: 'lockSubmitted' },
      { pending: 'broadcastingLock' },
    ]) {
      expect(restColumns(at(value), HOLDS).hold, JSON.stringify(value)).toEqual({
        mint: tradeInput().outputMint,
        raw: 187_420_000n,
        untilMs: (START + 30) * 1000,
        unfunded: true,
      });
    }
  });

  test('a landing window as long as the lock window changes nothing; without timings, the lock window', () => {
    expect(
      restColumns(at({ pending: 'awaitingLock' }), { ...HOLDS, lockLandingSeconds: 120 }).hold?.untilMs,
    ).toBe(LOCK_DEADLINE * 1000);
    expect(restColumns(at({ pending: 'awaitingLock' })).hold).toMatchObject({
      untilMs: LOCK_DEADLINE * 1000,
      unfunded: true,
    });
  });

  test('a lock on chain holds until the lock window ends, then the final lock until the taker expiry, funded', () => {
    const seen = restColumns(at({ pending: 'lockSeen' }), HOLDS).hold;
    expect(seen).toEqual({ mint: tradeInput().outputMint, raw: 187_420_000n, untilMs: LOCK_DEADLINE * 1000 });
    const initiated = restColumns(at({ initiated: { locking: 'assessing' } }), HOLDS).hold;
    expect(initiated).toEqual({
      mint: tradeInput().outputMint,
      raw: 187_420_000n,
      untilMs: TAKER_EXPIRY * 1000,
    });
  });

  test('nothing once the maker locked, nor once the trade failed', () => {
    const locked = at(
      { initiated: { redeeming: 'makerLocked' } },
      { signatures: [{ kind: 'maker_lock', signature: 'sig' }] },
    );
    expect(restColumns(locked, HOLDS).hold).toBeNull();
    expect(restColumns(at('failed'), HOLDS).hold).toBeNull();
  });
});
