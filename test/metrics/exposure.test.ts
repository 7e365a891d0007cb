// Escrowed funds and nearest deadlines, read off contexts the real trade machine reaches.
import { describe, expect, test } from 'vitest';
import { escrowExposure } from '../../src/metrics/index.ts';
import {
  done,
  drive,
  finalizedLock,
  MAKER_EXPIRY,
  PREIMAGE,
  paid,
  REDEEM_BY,
  SIG,
  T0,
  TAKER_EXPIRY,
  TO_MAKER_LOCKED,
  tradeInput,
} from '../machines/trade.fixtures.ts';

const input = tradeInput();
const contextAfter = (...events: Parameters<typeof drive>[0][]) => drive(events.flat()).context;
const TAKER_REDEEMED = {
  type: 'MAKER_ESCROW_REDEEMED',
  signature: SIG.takerRedeem,
  preimage: PREIMAGE,
} as const;
const NO_DEADLINES = { maker_expiry: null, redeem_by: null, taker_expiry: null };

describe('escrowExposure', () => {
  test('a pending trade holds nothing and has no deadline', () => {
    const exposure = escrowExposure([contextAfter([])]);
    expect([...exposure.escrowed.taker, ...exposure.escrowed.maker]).toEqual([]);
    expect(exposure.nearest).toEqual(NO_DEADLINES);
  });

  test('once the taker lock is final the taker escrow holds the input', () => {
    const exposure = escrowExposure([contextAfter([finalizedLock()])]);
    expect([...exposure.escrowed.taker]).toEqual([[input.inputMint, BigInt(input.inputAmountRaw)]]);
    expect([...exposure.escrowed.maker]).toEqual([]);
    expect(exposure.nearest).toEqual(NO_DEADLINES);
  });

  test('with both locks: both escrows hold, exactly above 2^53, and the maker escrow’s deadlines count', () => {
    const exposure = escrowExposure([contextAfter(TO_MAKER_LOCKED)]);
    expect(exposure.escrowed.maker.get(input.outputMint)).toBe(9223372036854775807n);
    expect(exposure.escrowed.taker.get(input.inputMint)).toBe(BigInt(input.inputAmountRaw));
    expect(exposure.nearest).toEqual({
      maker_expiry: MAKER_EXPIRY,
      redeem_by: REDEEM_BY,
      taker_expiry: null,
    });
  });

  test('after the taker’s redeem only the taker escrow holds, and the maker’s own deadline is the taker expiry', () => {
    const exposure = escrowExposure([contextAfter(TO_MAKER_LOCKED, [TAKER_REDEEMED])]);
    expect([...exposure.escrowed.maker]).toEqual([]);
    expect([...exposure.escrowed.taker]).toEqual([[input.inputMint, BigInt(input.inputAmountRaw)]]);
    expect(exposure.nearest).toEqual({ maker_expiry: null, redeem_by: null, taker_expiry: TAKER_EXPIRY });
  });

  test('a redeemed trade holds nothing', () => {
    const redeemed = drive([...TO_MAKER_LOCKED, TAKER_REDEEMED, done('makerRedeem', paid(SIG.makerRedeem))]);
    expect(redeemed.value).toHaveProperty('redeemed');
    const exposure = escrowExposure([redeemed.context]);
    expect([...exposure.escrowed.taker, ...exposure.escrowed.maker]).toEqual([]);
    expect(exposure.nearest).toEqual(NO_DEADLINES);
  });

  test('a maker escrow refunded after its expiry no longer counts; the taker escrow does until its refund', () => {
    const refunded = contextAfter(TO_MAKER_LOCKED, [
      { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerRefund, how: 'refunded' },
    ]);
    const exposure = escrowExposure([refunded]);
    expect([...exposure.escrowed.maker]).toEqual([]);
    expect([...exposure.escrowed.taker]).toEqual([[input.inputMint, BigInt(input.inputAmountRaw)]]);
    expect(exposure.nearest).toEqual(NO_DEADLINES);
    const both = contextAfter(TO_MAKER_LOCKED, [
      { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerRefund, how: 'refunded' },
      { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
    ]);
    expect([...escrowExposure([both]).escrowed.taker]).toEqual([]);
  });

  test('a lock with other terms counts what it put in escrow, as the ledger does', () => {
    const other = contextAfter([
      finalizedLock(input, { mint: 'SomeOtherMint1111111111111111111111111111', amountRaw: '7' }),
    ]);
    expect(other.failureReason).toBe('lock_terms_mismatch');
    expect([...escrowExposure([other]).escrowed.taker]).toEqual([
      ['SomeOtherMint1111111111111111111111111111', 7n],
    ]);
  });

  test('amounts add up per mint across trades, and each deadline is the earliest of its trades', () => {
    const later = tradeInput({ takerExpiry: T0 + 1_200, outputAmountRaw: '5' });
    /** Both locks, the maker deciding at `now` (its expiry is now + the maker timelock here). */
    const makerLockedAt = (now: number, trade = input) => [
      finalizedLock(trade),
      done('checkInventory', { available: true, now }),
      ...TO_MAKER_LOCKED.slice(2),
    ];
    const a = drive(makerLockedAt(T0 + 100, later), later).context;
    const b = drive(makerLockedAt(T0 + 60)).context;
    const c = drive([...makerLockedAt(T0 + 60, later), TAKER_REDEEMED], later).context;
    expect([a.makerExpiry, b.makerExpiry]).toEqual([T0 + 400, T0 + 360]);
    const exposure = escrowExposure([a, b, c]);
    expect(exposure.escrowed.maker.get(input.outputMint)).toBe(9223372036854775807n + 5n);
    expect(exposure.escrowed.taker.get(input.inputMint)).toBe(3n * BigInt(input.inputAmountRaw));
    expect(exposure.nearest).toEqual({
      maker_expiry: T0 + 360,
      redeem_by: T0 + 360 - input.landingMargin,
      taker_expiry: T0 + 1_200,
    });
  });
});
