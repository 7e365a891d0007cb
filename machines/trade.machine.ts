// The trade actor's statechart: one HTLC swap from the unsigned taker lock to closed escrows. Pure and
// statically readable: no I/O here; chain effects are invoked actors the runtime provides. Its contract
// (events, effects, the rules both sides rely on) is trade.types.ts; its names are trade.setup.ts; what its
// states read off the context and events is trade.context.ts; initiated's first phase, making the maker
// lock, is trade.locking.ts. Its diagram is docs/trade-machine.md, generated from this config
// (`npm run machines:diagram`).
import { and } from 'xstate';
import {
  endingOfOutput,
  initialContext,
  makerEscrowInput,
  makerRedeemInput,
  signatureOfEvent,
  signatureOfOutput,
  takerEscrowInput,
  takerRedeemInput,
} from './trade.context.ts';
import { locking } from './trade.locking.ts';
import { type EffectDone, effectState, type TradeTransitions, tradeSetup } from './trade.setup.ts';

/** Persisted with every snapshot; bump whenever states, events or context change shape. */
export const TRADE_MACHINE_VERSION = 7;

// ── Transitions and states that several states share ────────────────────────────────────────────────

/**
 * Until the taker lock is on chain: a new signed lock is held (it replaces the last) — and broadcast by the
 * service when it was handed the bytes — and a seen one watched.
 */
const takerLockArrives: TradeTransitions = {
  LOCK_SUBMITTED: [
    {
      guard: and(['isNewLockSignature', 'submittedLockHasBytes']),
      target: 'broadcastingLock',
      reenter: true,
      actions: 'recordLockSubmission',
    },
    { guard: 'isNewLockSignature', target: 'lockSubmitted', actions: 'recordLockSubmission' },
  ],
  TAKER_LOCK_SEEN: { target: 'lockSeen', actions: 'recordLockSeen' },
};

/**
 * Where a release of the taker escrow (the maker's cancel, or a refund) leads, by how it ended: paid to the
 * maker after all (someone, the taker with its preimage, redeemed it first) or back with the taker.
 */
const takerEscrowEnded = (targets: { paid: string; returned: string }): EffectDone<'makerCancel'> => [
  {
    guard: { type: 'endedPaid', params: endingOfOutput },
    target: targets.paid,
    actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
  },
  { target: targets.returned, actions: { type: 'recordTakerRefund', params: signatureOfOutput } },
];

/**
 * Past the taker expiry the maker can no longer redeem: the taker escrow goes back, and the refund's
 * outcome proves (or disproves) the loss.
 */
const refundTakerEscrowAtExpiry: TradeTransitions = {
  CHAIN_TIME_ADVANCED: {
    guard: 'takerEscrowExpired',
    target: '#trade.initiated.unwinding.refundingTakerEscrow',
  },
  REFUND_REQUESTED: {
    guard: 'takerEscrowExpired',
    target: '#trade.initiated.unwinding.refundingTakerEscrow',
    actions: 'recordRefundRequest',
  },
};

/**
 * Once redeemed or refunded: the maker escrow's rent (and any tokens donated to its vault) back to the maker,
 * and every fee the maker paid for the trade in its ledger. Retried like every effect — the rent and the
 * books are the maker's money, and a cluster that drops the close once must not keep it — and the trade is
 * closed only once the escrow is gone (or never held anything) and the fees are posted.
 */
const closingEscrows = tradeSetup.createStateConfig(
  effectState('closingEscrows', {
    description:
      'The maker escrow’s rent back to the maker (donated tokens swept with it) and every maker fee posted, retried until done.',
    src: 'closeEscrows',
    input: ({ context }) => ({ tradeId: context.tradeId, makerEscrow: context.makerEscrow }),
    onDone: 'closed',
  }),
);

export const tradeMachine = tradeSetup.createMachine({
  id: 'trade',
  context: ({ input }) => initialContext(input),
  initial: 'pending',
  on: {
    ADOPTED: { guard: 'isAnotherRun', actions: 'recordAdoption' },
  },
  states: {
    // ── pending: unsigned lock issued, lock window open ─────────────────────────────────────────
    pending: {
      description: 'Settlement started; the taker lock is not final yet.',
      initial: 'awaitingLock',
      meta: { wakeAt: 'lockWindowEnd' },
      on: {
        ABANDON: {
          guard: and(['secretHashMatches', 'hasNoLockSignature']),
          target: '#trade.failed',
          actions: 'recordAbandon',
        },
        // The commitment policy: a small trade, while finality keeps up, goes on a confirmed lock (the
        // runtime's exposure book admits it); any other waits for the lock to be final, as above the cap.
        TAKER_LOCK_CONFIRMED: {
          guard: and(['lockTermsMatch', 'confirmedLockAdmitted']),
          target: '#trade.initiated',
          actions: ['recordTakerLock', 'markTakerLockConfirmedOnly'],
        },
        TAKER_LOCK_FINALIZED: [
          { guard: 'lockTermsMatch', target: '#trade.initiated', actions: 'recordTakerLock' },
          {
            target: '#trade.failed.lateLockFinalized',
            actions: [
              'recordTakerLock',
              { type: 'recordFailure', params: { reason: 'lock_terms_mismatch' } },
            ],
          },
        ],
        CHAIN_TIME_ADVANCED: {
          guard: and(['lockWindowClosed', 'hasNoLockSignature']),
          target: '#trade.failed',
          actions: { type: 'recordFailure', params: { reason: 'lock_window_expired' } },
        },
        TAKER_LOCK_DROPPED: {
          guard: and(['lockWindowClosed', 'hasLockSignature']),
          target: '#trade.failed',
          actions: { type: 'recordFailure', params: { reason: 'lock_not_landed' } },
        },
      },
      states: {
        awaitingLock: {
          on: takerLockArrives,
        },
        broadcastingLock: effectState('broadcastingLock', {
          description:
            'The service holds the signed lock and broadcasts it until it lands or can no longer land.',
          src: 'broadcastTakerLock',
          input: ({ context }) => {
            const held = context.lockSubmissions.at(-1);
            if (held?.transactionBase64 == null) throw new Error('broadcastingLock without a held lock');
            return {
              tradeId: context.tradeId,
              takerEscrow: context.takerEscrow,
              lockDeadline: context.lockDeadline,
              submission: { ...held, transactionBase64: held.transactionBase64 },
            };
          },
          // However the broadcast ended, the escrow on chain decides: the watcher reports a lock that landed.
          onDone: 'lockSubmitted',
          on: takerLockArrives,
        }),
        lockSubmitted: {
          description:
            'The service holds a signed lock (a fresh one may replace it while the window is open).',
          on: takerLockArrives,
        },
        lockSeen: {
          description: 'A lock of the taker escrow is on chain, not final yet.',
        },
      },
    },

    // ── initiated: taker funds escrowed under the agreed terms ──────────────────────────────────
    // Three phases: locking (making the maker lock), redeeming (waiting for the taker's redeem, then
    // redeeming) and unwinding (each side's funds back). A plain target names a state of the same phase;
    // one in another phase is named from the root. Only locking is ever entered as a whole: every way into
    // the others names its state (their initial states are xstate's requirement, not a way in).
    initiated: {
      description:
        'The taker lock is final with the agreed terms (or confirmed, for a trade the commitment policy admits).',
      initial: 'locking',
      on: {
        // A lock the maker went on at confirmed becomes final: no fork can take it back now.
        TAKER_LOCK_FINALIZED: {
          guard: and(['takerLockConfirmedOnly', 'isRecordedTakerLock']),
          actions: 'markTakerLockFinal',
        },
        // A fork took back the confirmed lock the maker went on. With no maker lock signed, nothing of the
        // maker's can move: the trade fails (a lock that lands again is released as a late one). Otherwise the
        // maker's lock, landed or not, can move only against a lock at the taker escrow's address: no redeem
        // is served, and the maker escrow goes back at its expiry.
        TAKER_LOCK_ROLLED_BACK: [
          {
            guard: and(['takerLockConfirmedOnly', 'hasNoMakerLockIntent']),
            target: '#trade.failed',
            actions: [
              'forgetRolledBack',
              'leaveConfirmedLock',
              { type: 'recordFailure', params: { reason: 'taker_lock_rolled_back' } },
            ],
          },
          {
            guard: 'takerLockConfirmedOnly',
            target: '.unwinding.takerLockRolledBack',
            actions: [
              'forgetRolledBack',
              { type: 'recordFailure', params: { reason: 'taker_lock_rolled_back' } },
            ],
          },
        ],
        // Taken even while the maker lock is being sent, so the maker redeems at once. A maker escrow the taker
        // redeemed was locked, and only by the intent's transaction (its address is unique to the trade): the
        // lock is recorded here too, for a process that died between the lock landing and recording it.
        MAKER_ESCROW_REDEEMED: {
          guard: 'makerEscrowRedeemNotSeen',
          target: '.redeeming.makerRedeeming',
          actions: ['recordMakerLockOfIntent', 'recordMakerEscrowRedeemed'],
        },
        // The taker (the maker escrow's recipient) cancelled it, or it was refunded after its expiry.
        MAKER_ESCROW_RETURNED: [
          {
            guard: and(['makerEscrowUnsettled', 'returnedByCancel']),
            target: '.unwinding.releasingTaker',
            actions: [
              { type: 'recordMakerRefund', params: signatureOfEvent },
              { type: 'recordFailure', params: { reason: 'taker_cancelled' } },
            ],
          },
          {
            guard: 'makerEscrowUnsettled',
            target: '.unwinding.awaitingTakerExpiry',
            actions: [
              { type: 'recordMakerRefund', params: signatureOfEvent },
              { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
            ],
          },
        ],
        // As in failed: only while the taker escrow holds funds. Once it is recorded paid to the maker, a
        // report of it going back contradicts the chain, and must not end the trade refunded with an alert.
        TAKER_ESCROW_REFUNDED: [
          {
            guard: and(['takerEscrowHoldsFunds', 'takerWasPaid']),
            target: '#trade.refunded',
            actions: [
              { type: 'recordTakerRefund', params: signatureOfEvent },
              { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
            ],
          },
          {
            guard: 'takerEscrowHoldsFunds',
            target: '#trade.refunded',
            actions: { type: 'recordTakerRefund', params: signatureOfEvent },
          },
        ],
        // Anyone may submit the taker escrow's redeem (it pays the maker only).
        TAKER_ESCROW_PAID: [
          {
            guard: and(['takerEscrowHoldsFunds', 'takerWasPaid']),
            target: '#trade.redeemed',
            actions: { type: 'recordMakerRedeem', params: signatureOfEvent },
          },
          {
            guard: 'takerEscrowHoldsFunds',
            actions: { type: 'recordMakerRedeem', params: signatureOfEvent },
          },
        ],
      },
      states: {
        // Making the maker lock: assess, source, sign and send it (trade.locking.ts).
        locking,

        // ── redeeming: both escrows funded; the taker redeems, then the maker ────────────────────
        redeeming: {
          description:
            'Waiting for the taker’s redeem of the maker escrow (or submitting it for the taker), then redeeming the taker escrow with the preimage it reveals.',
          initial: 'makerLocked',
          states: {
            makerLocked: {
              description: 'Both escrows funded; waiting for the taker to redeem before redeem_by.',
              meta: { wakeAt: 'makerExpiry' },
              on: {
                REDEEM_REQUESTED: {
                  guard: and(['preimageMatchesSecretHash', 'makerLockOnChain', 'redeemWindowOpen']),
                  target: 'redeemingForTaker',
                  actions: 'recordRedeemRequest',
                },
                CHAIN_TIME_ADVANCED: {
                  guard: 'makerEscrowExpired',
                  target: '#trade.initiated.unwinding.refundingMakerEscrow',
                  actions: { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
                },
                // A fork took the maker's lock (landed at confirmed) back; the taker lock stands. No redeem is
                // served without it: the kept intent is sent again, the same transaction, so it lands at most
                // once and its posting stands; proved lapsed, it is reversed and signed afresh while the maker
                // expiry still leaves the taker its redeem window, or the taker is released (maker_lock_lapsed).
                MAKER_LOCK_ROLLED_BACK: {
                  guard: 'isTheMakerLockIntent',
                  target: '#trade.initiated.locking.sendingMakerLock',
                },
              },
            },
            redeemingForTaker: effectState('redeemingForTaker', {
              description: 'The service submits the taker’s redeem of the maker escrow until final.',
              meta: { wakeAt: 'makerExpiry' },
              src: 'takerRedeem',
              input: takerRedeemInput,
              onDone: [
                {
                  guard: { type: 'endedPaid', params: endingOfOutput },
                  target: 'takerRedeemLanded',
                  actions: { type: 'recordTakerRedeem', params: signatureOfOutput },
                },
                {
                  guard: { type: 'endedCancelled', params: endingOfOutput },
                  target: '#trade.initiated.unwinding.releasingTaker',
                  actions: [
                    { type: 'recordMakerRefund', params: signatureOfOutput },
                    { type: 'recordFailure', params: { reason: 'taker_cancelled' } },
                  ],
                },
                {
                  target: '#trade.initiated.unwinding.awaitingTakerExpiry',
                  actions: [
                    { type: 'recordMakerRefund', params: signatureOfOutput },
                    { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
                  ],
                },
              ],
              on: {
                CHAIN_TIME_ADVANCED: {
                  guard: 'makerEscrowExpired',
                  target: '#trade.initiated.unwinding.refundingMakerEscrow',
                  actions: { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
                },
              },
            }),
            takerRedeemLanded: {
              description:
                'Our redeem for the taker is final; the maker redeems once the watcher reports it.',
              meta: { wakeAt: 'takerExpiry' },
              on: refundTakerEscrowAtExpiry,
            },
            makerRedeeming: effectState('makerRedeeming', {
              description:
                'The preimage is on chain: the maker redeems the taker escrow before the taker expiry.',
              meta: { wakeAt: 'takerExpiry' },
              src: 'makerRedeem',
              input: makerRedeemInput,
              onDone: [
                {
                  guard: { type: 'endedPaid', params: endingOfOutput },
                  target: '#trade.redeemed',
                  actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
                },
                {
                  // The taker escrow went back to the taker although the preimage was known: proven loss.
                  target: '#trade.refunded',
                  actions: [
                    { type: 'recordTakerRefund', params: signatureOfOutput },
                    { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
                  ],
                },
              ],
              on: refundTakerEscrowAtExpiry,
            }),
          },
        },

        // ── unwinding: no swap; each side's funds go back ────────────────────────────────────────
        unwinding: {
          description:
            'No swap: the maker escrow goes back to the maker (if it was ever funded) and the taker escrow to the taker, by the maker’s cancel or at its expiry.',
          initial: 'releasingTaker',
          states: {
            refundingMakerEscrow: effectState('refundingMakerEscrow', {
              description: 'The taker did not redeem in time: the maker takes its escrow back.',
              src: 'makerRefund',
              input: makerEscrowInput,
              onDone: [
                {
                  // The taker redeemed just in time: the maker redeems in turn.
                  guard: { type: 'endingRevealsPreimage', params: endingOfOutput },
                  target: '#trade.initiated.redeeming.makerRedeeming',
                  actions: { type: 'recordMakerEscrowPaid', params: endingOfOutput },
                },
                {
                  guard: { type: 'endedPaid', params: endingOfOutput },
                  target: '#trade.initiated.redeeming.takerRedeemLanded',
                  actions: { type: 'recordTakerRedeem', params: signatureOfOutput },
                },
                {
                  guard: { type: 'endedCancelled', params: endingOfOutput },
                  target: 'releasingTaker',
                  actions: [
                    { type: 'recordMakerRefund', params: signatureOfOutput },
                    { type: 'recordFailure', params: { reason: 'taker_cancelled' } },
                  ],
                },
                {
                  target: 'awaitingTakerExpiry',
                  actions: { type: 'recordMakerRefund', params: signatureOfOutput },
                },
              ],
            }),
            awaitingTakerExpiry: {
              description: 'Maker escrow refunded; the taker escrow returns to the taker at its expiry.',
              meta: { wakeAt: 'takerExpiry' },
              on: refundTakerEscrowAtExpiry,
            },
            refundingTakerEscrow: effectState('refundingTakerEscrow', {
              description: 'The runtime refunds the expired taker escrow to the taker.',
              src: 'takerRefund',
              input: takerEscrowInput,
              onDone: [
                {
                  // The maker's redeem landed after all.
                  guard: { type: 'endedPaid', params: endingOfOutput },
                  target: '#trade.redeemed',
                  actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
                },
                {
                  guard: 'takerWasPaid',
                  target: '#trade.refunded',
                  actions: [
                    { type: 'recordTakerRefund', params: signatureOfOutput },
                    { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
                  ],
                },
                {
                  target: '#trade.refunded',
                  actions: { type: 'recordTakerRefund', params: signatureOfOutput },
                },
              ],
            }),
            releasingTaker: effectState('releasingTaker', {
              description:
                'The maker cannot serve and no maker lock can land: cancel releases the taker now.',
              src: 'makerCancel',
              input: takerEscrowInput,
              onDone: takerEscrowEnded({ paid: '#trade.redeemed', returned: '#trade.refunded' }),
            }),
            takerLockRolledBack: {
              description:
                'A fork took back the confirmed taker lock the maker went on: no redeem is served; the maker escrow, if a lock landed or lands there, goes back to the maker at its expiry.',
              meta: { wakeAt: 'makerExpiry' },
              on: {
                CHAIN_TIME_ADVANCED: { guard: 'makerEscrowExpired', target: 'reclaimingAfterRollback' },
                // The taker cancelled the maker escrow (or it was refunded): a lock standing again at the taker
                // escrow is released at once; without one the trade is over.
                MAKER_ESCROW_RETURNED: [
                  {
                    guard: and(['makerEscrowUnsettled', 'takerEscrowHoldsFunds']),
                    target: 'releasingTaker',
                    actions: { type: 'recordMakerRefund', params: signatureOfEvent },
                  },
                  {
                    guard: 'makerEscrowUnsettled',
                    target: '#trade.refunded',
                    actions: { type: 'recordMakerRefund', params: signatureOfEvent },
                  },
                ],
                // A lock at the taker escrow's address landed again and is final: it is released once the
                // maker escrow is back.
                TAKER_LOCK_FINALIZED: {
                  guard: 'hasNoTakerLock',
                  actions: ['recordTakerLock', 'markTakerLockFinal'],
                },
              },
            },
            reclaimingAfterRollback: effectState('reclaimingAfterRollback', {
              description:
                'After the rollback, at the maker expiry: the maker escrow back to the maker (absent when its lock never landed again).',
              src: 'makerRefund',
              input: makerEscrowInput,
              onDone: [
                {
                  // The taker redeemed it (a lock stood at its escrow's address): the maker redeems in turn.
                  guard: { type: 'endingRevealsPreimage', params: endingOfOutput },
                  target: '#trade.initiated.redeeming.makerRedeeming',
                  actions: [
                    'recordMakerLockOfIntent',
                    { type: 'recordMakerEscrowPaid', params: endingOfOutput },
                  ],
                },
                {
                  guard: { type: 'endedPaid', params: endingOfOutput },
                  target: '#trade.initiated.redeeming.takerRedeemLanded',
                  actions: [
                    'recordMakerLockOfIntent',
                    { type: 'recordTakerRedeem', params: signatureOfOutput },
                  ],
                },
                {
                  // A lock landed again at the taker escrow: released now that the maker's output is back.
                  guard: 'takerEscrowHoldsFunds',
                  target: 'releasingTaker',
                  actions: { type: 'recordMakerEscrowBack', params: endingOfOutput },
                },
                // Back with the maker, or its lock never landed again (none can past the maker expiry).
                {
                  target: '#trade.refunded',
                  actions: { type: 'recordMakerEscrowBack', params: endingOfOutput },
                },
              ],
            }),
          },
        },
      },
    },

    // ── redeemed: the taker escrow was paid to the maker ────────────────────────────────────────
    redeemed: {
      description:
        'The taker escrow went to the maker (normally after the maker escrow paid the taker). Final.',
      initial: 'closingEscrows',
      states: {
        closingEscrows,
        closed: { tags: 'closed', type: 'final' },
      },
    },

    // ── refunded: each side got its own funds back ──────────────────────────────────────────────
    refunded: {
      description: 'The taker escrow went back to the taker. Final.',
      initial: 'settling',
      states: {
        settling: {
          always: [
            { guard: 'makerEscrowMayHoldFunds', target: 'reclaimingMakerEscrow' },
            // Closing also settles the books (every maker transaction's fee), maker escrow or not.
            { target: 'closingEscrows' },
          ],
        },
        reclaimingMakerEscrow: effectState('reclaimingMakerEscrow', {
          description: 'Funds (or a possible lock) remain in the maker escrow: refund it.',
          src: 'makerRefund',
          input: makerEscrowInput,
          onDone: [
            {
              // The taker took the output too, after the taker escrow went back to it: proven loss.
              guard: { type: 'endedPaid', params: endingOfOutput },
              target: 'closingEscrows',
              actions: [
                'recordMakerLockOfIntent',
                { type: 'recordTakerRedeem', params: signatureOfOutput },
                { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
              ],
            },
            {
              guard: { type: 'endedReturned', params: endingOfOutput },
              target: 'closingEscrows',
              actions: ['recordMakerLockOfIntent', { type: 'recordMakerRefund', params: signatureOfOutput }],
            },
            { target: 'closingEscrows', actions: 'markMakerLockLapsed' },
          ],
        }),
        closingEscrows,
        closed: { tags: 'closed', type: 'final' },
      },
    },

    // ── failed: never initiated ─────────────────────────────────────────────────────────────────
    failed: {
      description: 'Abandoned, lock window over, or a lock with other terms. Final.',
      initial: 'lockWindowOpen',
      on: {
        TAKER_ESCROW_REFUNDED: {
          guard: 'takerEscrowHoldsFunds',
          target: '.released',
          actions: { type: 'recordTakerRefund', params: signatureOfEvent },
        },
        TAKER_ESCROW_PAID: {
          guard: 'takerEscrowHoldsFunds',
          target: '.released',
          actions: { type: 'recordMakerRedeem', params: signatureOfEvent },
        },
      },
      states: {
        lockWindowOpen: {
          description:
            'No lock yet, but one may still land until the lock window ends: keep watching the escrow.',
          meta: { wakeAt: 'lockWindowEnd' },
          on: {
            CHAIN_TIME_ADVANCED: { guard: 'lockWindowClosed', target: 'noLock' },
            TAKER_LOCK_SEEN: { target: 'lateLockSeen', actions: 'recordLockSeen' },
            TAKER_LOCK_FINALIZED: { target: 'lateLockFinalized', actions: 'recordTakerLock' },
          },
        },
        noLock: {
          description: 'The lock window is over and no lock landed: nothing is left to do.',
          tags: 'closed',
          on: {
            TAKER_LOCK_SEEN: { target: 'lateLockSeen', actions: 'recordLockSeen' },
            TAKER_LOCK_FINALIZED: { target: 'lateLockFinalized', actions: 'recordTakerLock' },
          },
        },
        lateLockSeen: {
          description: 'A lock landed after the trade failed; release it once final.',
          on: {
            TAKER_LOCK_FINALIZED: { target: 'lateLockFinalized', actions: 'recordTakerLock' },
            TAKER_LOCK_DROPPED: { target: 'noLock' },
          },
        },
        lateLockFinalized: {
          always: [
            { guard: 'lateLockIsCancellable', target: 'releasingLateLock' },
            { target: 'awaitingLateLockExpiry' },
          ],
        },
        releasingLateLock: effectState('releasingLateLock', {
          description: 'The maker, as recipient, cancels the late lock at once.',
          src: 'makerCancel',
          input: takerEscrowInput,
          onDone: takerEscrowEnded({ paid: 'released', returned: 'released' }),
        }),
        awaitingLateLockExpiry: {
          description: 'A lock the maker cannot cancel (other recipient): refund it at its own expiry.',
          meta: { wakeAt: 'lateLockExpiry' },
          on: {
            CHAIN_TIME_ADVANCED: { guard: 'lateLockExpired', target: 'refundingLateLock' },
            REFUND_REQUESTED: {
              guard: 'lateLockExpired',
              target: 'refundingLateLock',
              actions: 'recordRefundRequest',
            },
          },
        },
        refundingLateLock: effectState('refundingLateLock', {
          src: 'takerRefund',
          input: takerEscrowInput,
          onDone: takerEscrowEnded({ paid: 'released', returned: 'released' }),
        }),
        released: { tags: 'closed', type: 'final' },
      },
    },
  },
});

export type TradeMachine = typeof tradeMachine;
