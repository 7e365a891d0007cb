// machines/trade.rules.ts at the edges the statechart suites do not reach: amounts written in other
// notations, signatures recorded per movement, which escrow still holds funds given the movements recorded.
import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import {
  lockTermsMatch,
  makerEscrowUnsettled,
  noMakerLockCanLand,
  redeemBy,
  type TradeSignature,
  takerEscrowHoldsFunds,
  tradeMachine,
  withSignature,
} from '../../machines/index.ts';
import { lockTerms, tradeInput } from './trade.fixtures.ts';

const context = () => createActor(tradeMachine, { input: tradeInput() }).getSnapshot().context;

describe('lockTermsMatch: the amount must be written exactly as digits', () => {
  test.each([['0x0F4240'], [' 1000000'], ['1000000 '], ['1e6'], ['+1000000'], ['']])(
    'a lock of %j is not this trade’s lock, even where it would parse to the agreed amount',
    (amountRaw) => {
      expect(lockTermsMatch(context(), lockTerms(tradeInput(), { amountRaw }))).toBe(false);
    },
  );

  test('leading zeros are the same amount', () => {
    expect(lockTermsMatch(context(), lockTerms(tradeInput(), { amountRaw: '0001000000' }))).toBe(true);
  });
});

describe('withSignature: one entry per movement', () => {
  const landed = [{ kind: 'taker_lock' as const, signature: 'sig-a' }];

  test('the same kind with another signature is another movement, appended', () => {
    expect(withSignature(landed, 'taker_lock', 'sig-b')).toEqual([
      ...landed,
      { kind: 'taker_lock', signature: 'sig-b' },
    ]);
  });

  test('the same signature under another kind is appended too', () => {
    expect(withSignature(landed, 'maker_lock', 'sig-a')).toEqual([
      ...landed,
      { kind: 'maker_lock', signature: 'sig-a' },
    ]);
  });

  test('a repeat is kept once, and the list given is never modified', () => {
    const result = withSignature(landed, 'taker_lock', 'sig-a');
    expect(result).toEqual(landed);
    expect(result).not.toBe(landed);
  });
});

describe('redeemBy', () => {
  test('is the maker expiry less the landing margin, and null before the maker decided', () => {
    expect(redeemBy({ makerExpiry: 1_000, landingMargin: 30 })).toBe(970);
    expect(redeemBy({ makerExpiry: null, landingMargin: 30 })).toBeNull();
  });
});

describe('noMakerLockCanLand', () => {
  const intent = {
    makerExpiry: 1_000,
    signature: 'sig-maker-lock',
    lastValidBlockHeight: 10,
    transactionBase64: 'AQID',
    lapsed: false,
  };
  const withLock = (makerLockIntent: typeof intent | null, kinds: ('taker_lock' | 'maker_lock')[]) => ({
    ...context(),
    makerLockIntent,
    signatures: kinds.map((kind) => ({ kind, signature: `sig-${kind}` })),
  });

  test('before any maker lock was signed, none can land', () => {
    expect(noMakerLockCanLand(withLock(null, ['taker_lock']))).toBe(true);
  });

  test('a signed lock can land until it is proved lapsed', () => {
    expect(noMakerLockCanLand(withLock(intent, ['taker_lock']))).toBe(false);
    expect(noMakerLockCanLand(withLock({ ...intent, lapsed: true }, ['taker_lock']))).toBe(true);
  });

  test('a maker lock seen landed counts even if the intent was lost or marked lapsed', () => {
    expect(noMakerLockCanLand(withLock(null, ['taker_lock', 'maker_lock']))).toBe(false);
    expect(noMakerLockCanLand(withLock({ ...intent, lapsed: true }, ['taker_lock', 'maker_lock']))).toBe(
      false,
    );
  });
});

describe('what each escrow still holds, from the movements recorded', () => {
  const recorded = (...kinds: TradeSignature['kind'][]) => ({
    signatures: kinds.map((kind) => ({ kind, signature: `sig-${kind}` })),
  });

  test('the taker escrow holds funds once locked, until it is returned to the taker or paid to the maker', () => {
    expect(takerEscrowHoldsFunds(recorded())).toBe(false);
    expect(takerEscrowHoldsFunds(recorded('taker_lock'))).toBe(true);
    // Movements of the maker escrow say nothing about the taker escrow.
    expect(takerEscrowHoldsFunds(recorded('taker_lock', 'maker_lock', 'taker_redeem', 'maker_refund'))).toBe(
      true,
    );
    expect(takerEscrowHoldsFunds(recorded('taker_lock', 'taker_refund'))).toBe(false);
    expect(takerEscrowHoldsFunds(recorded('taker_lock', 'maker_redeem'))).toBe(false);
  });

  test('the maker escrow is unsettled once its lock landed, until it paid the taker or went back to the maker', () => {
    expect(makerEscrowUnsettled(recorded('taker_lock'))).toBe(false);
    expect(makerEscrowUnsettled(recorded('taker_lock', 'maker_lock'))).toBe(true);
    // Movements of the taker escrow say nothing about the maker escrow.
    expect(makerEscrowUnsettled(recorded('taker_lock', 'maker_lock', 'taker_refund', 'maker_redeem'))).toBe(
      true,
    );
    expect(makerEscrowUnsettled(recorded('taker_lock', 'maker_lock', 'taker_redeem'))).toBe(false);
    expect(makerEscrowUnsettled(recorded('taker_lock', 'maker_lock', 'maker_refund'))).toBe(false);
  });
});
