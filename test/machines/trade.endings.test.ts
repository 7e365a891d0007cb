// Every way an escrow can end on chain leads the trade to the right state: effects answer how the
// escrow ended — paid to its recipient, returned to its initializer (refunded or cancelled), or for the maker
// escrow never there — and chain facts report endings others caused. The maker is alerted only on proven
// loss: the taker escrow back with the taker after the maker escrow paid the taker.
import { describe, expect, it } from 'vitest';
import { substateOf, type TradeEvent } from '../../machines/index.ts';
import {
  ABSENT,
  type AnyTradeEvent,
  chainTime,
  DECIDED_AT,
  done,
  drive,
  finalizedLock,
  kinds,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  PREIMAGE,
  paid,
  REDEEM_BY,
  redeemRequest,
  returned,
  SECRET_HASH,
  SIG,
  step,
  TAKER_EXPIRY,
  TO_MAKER_LOCKED,
} from './trade.fixtures.ts';

const makerEscrowRedeemed = {
  type: 'MAKER_ESCROW_REDEEMED',
  signature: SIG.takerRedeem,
  preimage: PREIMAGE,
} as const;
const takerEscrowPaid = { type: 'TAKER_ESCROW_PAID', signature: SIG.makerRedeem } as const;

/** Paths to each state that runs an effect settling an escrow (or waits for one to be settled). */
const AT = {
  makerLocked: TO_MAKER_LOCKED,
  redeemingForTaker: [...TO_MAKER_LOCKED, redeemRequest(REDEEM_BY - 1)],
  takerRedeemLanded: [
    ...TO_MAKER_LOCKED,
    redeemRequest(REDEEM_BY - 1),
    done('takerRedeem', paid(SIG.takerRedeem)),
  ],
  makerRedeeming: [...TO_MAKER_LOCKED, makerEscrowRedeemed],
  refundingMakerEscrow: [...TO_MAKER_LOCKED, chainTime(MAKER_EXPIRY)],
  awaitingTakerExpiry: [
    ...TO_MAKER_LOCKED,
    chainTime(MAKER_EXPIRY),
    done('makerRefund', returned(SIG.makerRefund)),
  ],
  /** The taker escrow refunded at its expiry, the maker escrow having gone back to the maker. */
  refundingTakerEscrow: [
    ...TO_MAKER_LOCKED,
    chainTime(MAKER_EXPIRY),
    done('makerRefund', returned(SIG.makerRefund)),
    chainTime(TAKER_EXPIRY),
  ],
  /** The taker escrow refunded at its expiry although the taker was paid from the maker escrow. */
  refundingTakerEscrowAfterTheTakerWasPaid: [
    ...TO_MAKER_LOCKED,
    redeemRequest(REDEEM_BY - 1),
    done('takerRedeem', paid(SIG.takerRedeem)),
    chainTime(TAKER_EXPIRY),
  ],
  releasingTaker: [
    finalizedLock(),
    done('checkInventory', { available: false, now: DECIDED_AT, price: null }),
  ],
  releasingLateLock: [{ type: 'ABANDON', secretHash: SECRET_HASH }, finalizedLock()],
  refundingLateLock: [
    chainTime(LOCK_DEADLINE + 1),
    finalizedLock(undefined, { recipient: 'SomeoneElse1111111111111111111111111111111' }),
    chainTime(TAKER_EXPIRY),
  ],
  /** The taker escrow went back while the maker lock was still being sent. */
  reclaimingMakerEscrow: [
    finalizedLock(),
    done('checkInventory', { available: true, now: DECIDED_AT, price: null }),
    done('signMakerLock', {
      signature: SIG.makerLock,
      lastValidBlockHeight: 1_000,
      transactionBase64: 'AQID',
    }),
    { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
  ],
} satisfies Record<string, AnyTradeEvent[]>;

interface Route {
  from: keyof typeof AT;
  event: AnyTradeEvent;
  to: string;
  failureReason: string | null;
  alert: boolean;
  /** The movements recorded by the ending (appended in this order). */
  records: [string, string][];
}
const route = (
  from: Route['from'],
  event: AnyTradeEvent,
  to: string,
  outcome: Partial<Pick<Route, 'failureReason' | 'alert' | 'records'>> = {},
): Route => ({ from, event, to, failureReason: null, alert: false, records: [], ...outcome });
const LOSS = { failureReason: 'maker_missed_redeem', alert: true } as const;

const EFFECT_ENDINGS: [string, Route][] = [
  // The taker's redeem of the maker escrow, submitted by the service.
  [
    'redeemingForTaker: the maker escrow paid the taker → takerRedeemLanded',
    route(
      'redeemingForTaker',
      done('takerRedeem', paid(SIG.takerRedeem, PREIMAGE)),
      'initiated.redeeming.takerRedeemLanded',
      {
        records: [['taker_redeem', SIG.takerRedeem]],
      },
    ),
  ],
  [
    'redeemingForTaker: the taker cancelled the maker escrow → the maker releases the taker escrow',
    route(
      'redeemingForTaker',
      done('takerRedeem', returned(SIG.makerEscrowCancel, 'cancelled')),
      'initiated.unwinding.releasingTaker',
      { failureReason: 'taker_cancelled', records: [['maker_refund', SIG.makerEscrowCancel]] },
    ),
  ],
  [
    'redeemingForTaker: the maker escrow was refunded → the taker escrow goes back at its expiry',
    route(
      'redeemingForTaker',
      done('takerRedeem', returned(SIG.makerRefund)),
      'initiated.unwinding.awaitingTakerExpiry',
      {
        failureReason: 'maker_escrow_expired',
        records: [['maker_refund', SIG.makerRefund]],
      },
    ),
  ],
  // The maker's redeem of the taker escrow, with the preimage seen on chain.
  [
    'makerRedeeming: the taker escrow paid the maker → redeemed',
    route('makerRedeeming', done('makerRedeem', paid(SIG.makerRedeem, PREIMAGE)), 'redeemed.closingEscrows', {
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'makerRedeeming: the taker escrow went back to the taker after it was paid → refunded, proven loss',
    route('makerRedeeming', done('makerRedeem', returned(SIG.takerRefund)), 'refunded.closingEscrows', {
      ...LOSS,
      records: [['taker_refund', SIG.takerRefund]],
    }),
  ],
  // The maker escrow's refund at its expiry.
  [
    'refundingMakerEscrow: the taker redeemed just in time, preimage shown → the maker redeems in turn',
    route(
      'refundingMakerEscrow',
      done('makerRefund', paid(SIG.takerRedeem, PREIMAGE)),
      'initiated.redeeming.makerRedeeming',
      {
        failureReason: 'maker_escrow_expired',
        records: [['taker_redeem', SIG.takerRedeem]],
      },
    ),
  ],
  [
    'refundingMakerEscrow: the taker redeemed, the preimage no longer shown → wait for it as after our redeem',
    route(
      'refundingMakerEscrow',
      done('makerRefund', paid(SIG.takerRedeem)),
      'initiated.redeeming.takerRedeemLanded',
      {
        failureReason: 'maker_escrow_expired',
        records: [['taker_redeem', SIG.takerRedeem]],
      },
    ),
  ],
  [
    'refundingMakerEscrow: the taker cancelled it first → the maker releases the taker escrow',
    route(
      'refundingMakerEscrow',
      done('makerRefund', returned(SIG.makerEscrowCancel, 'cancelled')),
      'initiated.unwinding.releasingTaker',
      { failureReason: 'taker_cancelled', records: [['maker_refund', SIG.makerEscrowCancel]] },
    ),
  ],
  [
    'refundingMakerEscrow: refunded → the taker escrow goes back at its expiry',
    route(
      'refundingMakerEscrow',
      done('makerRefund', returned(SIG.makerRefund)),
      'initiated.unwinding.awaitingTakerExpiry',
      {
        failureReason: 'maker_escrow_expired',
        records: [['maker_refund', SIG.makerRefund]],
      },
    ),
  ],
  // The taker escrow's refund at its expiry.
  [
    'refundingTakerEscrow: the maker’s redeem landed after all → redeemed',
    route('refundingTakerEscrow', done('takerRefund', paid(SIG.makerRedeem)), 'redeemed.closingEscrows', {
      failureReason: 'maker_escrow_expired',
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'refundingTakerEscrow: back to a taker never paid → refunded, no loss',
    route('refundingTakerEscrow', done('takerRefund', returned(SIG.takerRefund)), 'refunded.closingEscrows', {
      failureReason: 'maker_escrow_expired',
      records: [['taker_refund', SIG.takerRefund]],
    }),
  ],
  [
    'refundingTakerEscrow: back to a taker paid from the maker escrow → refunded, proven loss',
    route(
      'refundingTakerEscrowAfterTheTakerWasPaid',
      done('takerRefund', returned(SIG.takerRefund)),
      'refunded.closingEscrows',
      { ...LOSS, records: [['taker_refund', SIG.takerRefund]] },
    ),
  ],
  [
    'refundingTakerEscrow after the taker was paid: the maker’s redeem landed after all → redeemed, no loss',
    route(
      'refundingTakerEscrowAfterTheTakerWasPaid',
      done('takerRefund', paid(SIG.makerRedeem, PREIMAGE)),
      'redeemed.closingEscrows',
      { records: [['maker_redeem', SIG.makerRedeem]] },
    ),
  ],
  // The maker's cancel of the taker escrow (it is its recipient).
  [
    'releasingTaker: someone paid the taker escrow to the maker first → redeemed',
    route('releasingTaker', done('makerCancel', paid(SIG.makerRedeem, PREIMAGE)), 'redeemed.closingEscrows', {
      failureReason: 'inventory_unavailable',
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'releasingTaker: cancelled back to the taker → refunded, closing its books',
    route(
      'releasingTaker',
      done('makerCancel', returned(SIG.cancel, 'cancelled')),
      'refunded.closingEscrows',
      {
        failureReason: 'inventory_unavailable',
        records: [['taker_refund', SIG.cancel]],
      },
    ),
  ],
  [
    'releasingTaker: the taker refunded it at its expiry first → refunded, closing its books',
    route('releasingTaker', done('makerCancel', returned(SIG.takerRefund)), 'refunded.closingEscrows', {
      failureReason: 'inventory_unavailable',
      records: [['taker_refund', SIG.takerRefund]],
    }),
  ],
  // Late locks of a failed trade.
  [
    'releasingLateLock: paid to the maker → released, the payment recorded',
    route('releasingLateLock', done('makerCancel', paid(SIG.makerRedeem)), 'failed.released', {
      failureReason: 'abandoned',
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'releasingLateLock: back to the taker → released',
    route('releasingLateLock', done('makerCancel', returned(SIG.cancel, 'cancelled')), 'failed.released', {
      failureReason: 'abandoned',
      records: [['taker_refund', SIG.cancel]],
    }),
  ],
  [
    'refundingLateLock: paid to the maker → released, the payment recorded',
    route('refundingLateLock', done('takerRefund', paid(SIG.makerRedeem)), 'failed.released', {
      failureReason: 'lock_window_expired',
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'refundingLateLock: back to the taker → released',
    route('refundingLateLock', done('takerRefund', returned(SIG.takerRefund)), 'failed.released', {
      failureReason: 'lock_window_expired',
      records: [['taker_refund', SIG.takerRefund]],
    }),
  ],
  // The maker escrow's reclaim once the taker escrow went back (the maker lock was still in flight).
  [
    'reclaimingMakerEscrow: the taker took the output too → proven loss, the lock recorded from the intent',
    route(
      'reclaimingMakerEscrow',
      done('makerRefund', paid(SIG.takerRedeem, PREIMAGE)),
      'refunded.closingEscrows',
      {
        ...LOSS,
        records: [
          ['maker_lock', SIG.makerLock],
          ['taker_redeem', SIG.takerRedeem],
        ],
      },
    ),
  ],
  [
    'reclaimingMakerEscrow: back to the maker → its escrow is closed, the lock recorded from the intent',
    route(
      'reclaimingMakerEscrow',
      done('makerRefund', returned(SIG.makerRefund)),
      'refunded.closingEscrows',
      {
        records: [
          ['maker_lock', SIG.makerLock],
          ['maker_refund', SIG.makerRefund],
        ],
      },
    ),
  ],
  [
    'reclaimingMakerEscrow: the maker lock never landed → closing (the books), nothing recorded',
    route('reclaimingMakerEscrow', done('makerRefund', ABSENT), 'refunded.closingEscrows'),
  ],
];

const CHAIN_FACTS: [string, Route][] = [
  [
    'the taker cancelled the maker escrow → the maker releases the taker escrow at once',
    route(
      'makerLocked',
      { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerEscrowCancel, how: 'cancelled' },
      'initiated.unwinding.releasingTaker',
      { failureReason: 'taker_cancelled', records: [['maker_refund', SIG.makerEscrowCancel]] },
    ),
  ],
  [
    'the maker escrow was refunded → the taker escrow goes back at its expiry',
    route(
      'redeemingForTaker',
      { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerRefund, how: 'refunded' },
      'initiated.unwinding.awaitingTakerExpiry',
      { failureReason: 'maker_escrow_expired', records: [['maker_refund', SIG.makerRefund]] },
    ),
  ],
  [
    'the taker escrow paid the maker after the taker was paid → redeemed',
    route('takerRedeemLanded', takerEscrowPaid, 'redeemed.closingEscrows', {
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'the taker escrow paid the maker before the taker was paid → recorded, the trade carries on',
    route('makerLocked', takerEscrowPaid, 'initiated.redeeming.makerLocked', {
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'a late lock paid to the maker → released',
    route('releasingLateLock', takerEscrowPaid, 'failed.released', {
      failureReason: 'abandoned',
      records: [['maker_redeem', SIG.makerRedeem]],
    }),
  ],
  [
    'the taker escrow went back to a taker paid from the maker escrow → refunded, proven loss',
    route(
      'makerRedeeming',
      { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
      'refunded.closingEscrows',
      {
        ...LOSS,
        records: [['taker_refund', SIG.takerRefund]],
      },
    ),
  ],
  [
    'the taker escrow went back to a taker never paid → refunded, the maker reclaims its escrow',
    route(
      'makerLocked',
      { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
      'refunded.reclaimingMakerEscrow',
      { records: [['taker_refund', SIG.takerRefund]] },
    ),
  ],
];

describe.each([
  ['effect endings', EFFECT_ENDINGS],
  ['chain facts', CHAIN_FACTS],
])('%s', (_kind, routes) => {
  it.each(routes)('%s', (_name, r) => {
    const before = drive(AT[r.from]);
    expect(before.can(r.event as TradeEvent)).toBe(true);
    const after = step(before, r.event);
    expect(substateOf(after)).toBe(r.to);
    expect([after.context.failureReason, after.context.alert]).toEqual([r.failureReason, r.alert]);
    expect(after.context.signatures).toEqual([
      ...before.context.signatures,
      ...r.records.map(([kind, signature]) => ({ kind, signature })),
    ]);
  });
});

describe('alerts only on proven loss', () => {
  it('the taker escrow refund past its expiry raises no alert by itself, after our redeem or the maker’s', () => {
    for (const [from, to] of [
      [AT.takerRedeemLanded, chainTime(TAKER_EXPIRY)],
      [AT.takerRedeemLanded, { type: 'REFUND_REQUESTED', now: TAKER_EXPIRY }],
      [AT.makerRedeeming, chainTime(TAKER_EXPIRY)],
      [AT.makerRedeeming, { type: 'REFUND_REQUESTED', now: TAKER_EXPIRY }],
    ] as const) {
      const refunding = step(drive(from), to);
      expect(substateOf(refunding)).toBe('initiated.unwinding.refundingTakerEscrow');
      expect([refunding.context.failureReason, refunding.context.alert]).toEqual([null, false]);
    }
  });

  it('the alert is raised on exactly the routes where the taker got both sides', () => {
    const alerting = [...EFFECT_ENDINGS, ...CHAIN_FACTS].filter(([, r]) => r.alert).map(([name]) => name);
    expect(alerting).toEqual([
      'makerRedeeming: the taker escrow went back to the taker after it was paid → refunded, proven loss',
      'refundingTakerEscrow: back to a taker paid from the maker escrow → refunded, proven loss',
      'reclaimingMakerEscrow: the taker took the output too → proven loss, the lock recorded from the intent',
      'the taker escrow went back to a taker paid from the maker escrow → refunded, proven loss',
    ]);
  });

  it('a refund reported after the taker escrow was recorded paid to the maker is refused, so no false alert', () => {
    const paidFirst = step(drive(AT.makerLocked), takerEscrowPaid);
    const seen = step(paidFirst, makerEscrowRedeemed);
    expect(substateOf(seen)).toBe('initiated.redeeming.makerRedeeming');
    const refund = { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund } as const;
    expect(seen.can(refund)).toBe(false);
    expect(step(seen, refund).context).toEqual(seen.context);
    // The maker's redeem then finds the escrow paid to it: redeemed, no alert.
    const redeemed = step(seen, done('makerRedeem', paid(SIG.makerRedeem, PREIMAGE)));
    expect(substateOf(redeemed)).toBe('redeemed.closingEscrows');
    expect(redeemed.context.alert).toBe(false);
    expect(kinds(redeemed)).toEqual(['taker_lock', 'maker_lock', 'maker_redeem', 'taker_redeem']);
  });
});

describe('chain facts are taken only while the escrow they report on holds funds', () => {
  it('a maker escrow comes back only once its lock landed, and only once', () => {
    const cancelled = {
      type: 'MAKER_ESCROW_RETURNED',
      signature: SIG.makerEscrowCancel,
      how: 'cancelled',
    } as const;
    const sending = drive(TO_MAKER_LOCKED.slice(0, 3));
    expect(substateOf(sending)).toBe('initiated.locking.sendingMakerLock');
    for (const s of [sending, drive(AT.takerRedeemLanded), drive(AT.awaitingTakerExpiry)]) {
      expect(s.can(cancelled), substateOf(s)).toBe(false);
    }
    expect(drive(AT.refundingMakerEscrow).can(cancelled)).toBe(true);
  });

  it('the taker’s redeem of the maker escrow, seen while the maker lock is being sent, records that lock too', () => {
    // A process killed after the lock landed and before recording it: the new one sees the escrow redeemed.
    const sending = drive(TO_MAKER_LOCKED.slice(0, 3));
    expect(substateOf(sending)).toBe('initiated.locking.sendingMakerLock');
    const redeeming = step(sending, makerEscrowRedeemed);
    expect(substateOf(redeeming)).toBe('initiated.redeeming.makerRedeeming');
    expect(redeeming.context.signatures).toContainEqual({ kind: 'maker_lock', signature: SIG.makerLock });
    expect(kinds(redeeming)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem']);
    // Once recorded by the lock's own effect, it is not recorded twice.
    const locked = step(drive(AT.makerLocked), makerEscrowRedeemed);
    expect(kinds(locked)).toEqual(['taker_lock', 'maker_lock', 'taker_redeem']);
  });

  it('a taker escrow paid to the maker is not paid or refunded again', () => {
    const paidFirst = step(drive(AT.makerLocked), takerEscrowPaid);
    expect(paidFirst.can(takerEscrowPaid)).toBe(false);
    expect(paidFirst.can({ type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund })).toBe(false);
  });

  it('the maker never locks against a taker escrow already paid out: it releases, and the release finds it paid', () => {
    const assessing = drive([finalizedLock()]);
    const paidFirst = step(assessing, takerEscrowPaid);
    expect(substateOf(paidFirst)).toBe('initiated.locking.assessing');
    const decided = step(
      paidFirst,
      done('checkInventory', { available: true, now: DECIDED_AT, price: null }),
    );
    expect(substateOf(decided)).toBe('initiated.unwinding.releasingTaker');
    expect(decided.context.makerLockIntent).toBeNull();
    const redeemed = step(decided, done('makerCancel', paid(SIG.makerRedeem, PREIMAGE)));
    expect(substateOf(redeemed)).toBe('redeemed.closingEscrows');
    expect(kinds(redeemed)).toEqual(['taker_lock', 'maker_redeem']);
  });

  it('after the taker cancelled the maker escrow, the maker’s cancel ends the trade refunded and its escrow closed', () => {
    const releasing = step(drive(AT.makerLocked), {
      type: 'MAKER_ESCROW_RETURNED',
      signature: SIG.makerEscrowCancel,
      how: 'cancelled',
    });
    const refunded = step(releasing, done('makerCancel', returned(SIG.cancel, 'cancelled')));
    expect(substateOf(refunded)).toBe('refunded.closingEscrows');
    expect([refunded.context.failureReason, refunded.context.alert]).toEqual(['taker_cancelled', false]);
    expect(kinds(refunded)).toEqual(['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund']);
    expect(substateOf(step(refunded, done('closeEscrows', {})))).toBe('refunded.closed');
  });
});
