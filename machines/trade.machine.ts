// The trade actor's statechart: one HTLC swap from the unsigned taker lock to closed escrows. Pure and
// statically readable: no I/O here; chain effects are invoked actors the runtime provides. Its contract
// (events, effects, the rules both sides rely on) is trade.types.ts; its names are trade.setup.ts; its
// diagram is docs/trade-machine.md, generated from this config (`npm run machines:diagram`).
import { and, not, or } from 'xstate';
import type { Preimage } from '../src/vocabulary/index.ts';
import { type EffectDone, effectState, type TradeTransitions, tradeSetup } from './trade.setup.ts';
import type {
  EscrowEnding,
  EscrowTerms,
  MakerRefundOutput,
  TradeContext,
  TradeInput,
} from './trade.types.ts';

/** Persisted with every snapshot; bump whenever states, events or context change shape. */
export const TRADE_MACHINE_VERSION = 4;

/** A new trade's context: its input, nothing recorded yet. */
export function initialContext(input: TradeInput): TradeContext {
  // Spelled out, not spread: V8 builds a spread followed by more properties on a slow path (~40 µs a
  // trade, as much as the rest of a settlement start's bookkeeping together).
  return {
    tradeId: input.tradeId,
    quoteId: input.quoteId,
    runId: input.runId,
    takerWallet: input.takerWallet,
    makerWallet: input.makerWallet,
    inputMint: input.inputMint,
    inputAmountRaw: input.inputAmountRaw,
    outputMint: input.outputMint,
    outputAmountRaw: input.outputAmountRaw,
    takerExpiry: input.takerExpiry,
    lockDeadline: input.lockDeadline,
    takerEscrow: input.takerEscrow,
    makerEscrow: input.makerEscrow,
    makerTimelock: input.makerTimelock,
    safetyMargin: input.safetyMargin,
    minRedeemWindow: input.minRedeemWindow,
    landingMargin: input.landingMargin,
    sourcing: input.sourcing ?? null,
    secretHash: input.secretHash,
    currentRunId: input.runId,
    adoptedAt: null,
    signatures: [],
    lockSignature: null,
    lockSubmissions: [],
    takerLockTerms: null,
    assessment: null,
    makerExpiry: null,
    makerLockIntent: null,
    sourcingIntent: null,
    sourced: null,
    preimage: null,
    makerEscrowRedeemSeen: false,
    abandonedWith: null,
    redeemRequested: false,
    refundRequested: false,
    failureReason: null,
    alert: false,
    effectError: null,
  };
}

/**
 * The preimage a redeem state redeems with. Both redeem states are entered only once it is known (a redeem
 * request that matched the hash, or a redeem seen on chain); were one entered without, the effect would get
 * an empty preimage, fail on chain and show as a failing effect, rather than the actor stopping.
 */
const knownPreimage = (context: TradeContext): Preimage => context.preimage ?? ('' as Preimage);

/** The taker escrow's terms: the taker's input, paid to the maker by a redeem. */
export const takerEscrowTerms = (context: TradeContext): EscrowTerms => ({
  address: context.takerEscrow,
  mint: context.inputMint,
  amountRaw: context.inputAmountRaw,
  recipient: context.makerWallet,
  initializer: context.takerWallet,
});

/** The maker escrow's terms: the maker's output, paid to the taker by a redeem. */
export const makerEscrowTerms = (context: TradeContext): EscrowTerms => ({
  address: context.makerEscrow,
  mint: context.outputMint,
  amountRaw: context.outputAmountRaw,
  recipient: context.takerWallet,
  initializer: context.makerWallet,
});

/** Params of a guard or an action that reads how the effect's escrow ended (the effect's output). */
const endingOfOutput = ({ event }: { event: { output: MakerRefundOutput } }) => ({ ending: event.output });
/** Params of an action that records the signature that settled the effect's escrow. */
const signatureOfOutput = ({ event }: { event: { output: EscrowEnding } }) => ({
  signature: event.output.signature,
});
/** The same for makerRefund, whose escrow may be gone already: no signature then. */
const signatureOfOutputIfAny = ({ event }: { event: { output: MakerRefundOutput } }) => ({
  signature: event.output.kind === 'absent' ? null : event.output.signature,
});

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

/** An escrow effect's input: the trade and the escrow's terms. */
const takerEscrowInput = ({ context }: { context: TradeContext }) => ({
  tradeId: context.tradeId,
  escrow: takerEscrowTerms(context),
});
const makerEscrowInput = ({ context }: { context: TradeContext }) => ({
  tradeId: context.tradeId,
  escrow: makerEscrowTerms(context),
});

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
  CHAIN_TIME_ADVANCED: { guard: 'takerEscrowExpired', target: 'refundingTakerEscrow' },
  REFUND_REQUESTED: {
    guard: 'takerEscrowExpired',
    target: 'refundingTakerEscrow',
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
    initiated: {
      description: 'The taker lock is final with the agreed terms.',
      initial: 'assessing',
      on: {
        // Taken even while the maker lock is being sent, so the maker redeems at once. A maker escrow the taker
        // redeemed was locked, and only by the intent's transaction (its address is unique to the trade): the
        // lock is recorded here too, for a process that died between the lock landing and recording it.
        MAKER_ESCROW_REDEEMED: {
          guard: 'makerEscrowRedeemNotSeen',
          target: '.makerRedeeming',
          actions: ['recordMakerLockOfIntent', 'recordMakerEscrowRedeemed'],
        },
        // The taker (the maker escrow's recipient) cancelled it, or it was refunded after its expiry.
        MAKER_ESCROW_RETURNED: [
          {
            guard: and(['makerEscrowUnsettled', 'returnedByCancel']),
            target: '.releasingTaker',
            actions: [
              { type: 'recordMakerRefund', params: ({ event }) => ({ signature: event.signature }) },
              { type: 'recordFailure', params: { reason: 'taker_cancelled' } },
            ],
          },
          {
            guard: 'makerEscrowUnsettled',
            target: '.awaitingTakerExpiry',
            actions: [
              { type: 'recordMakerRefund', params: ({ event }) => ({ signature: event.signature }) },
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
              { type: 'recordTakerRefund', params: ({ event }) => ({ signature: event.signature }) },
              { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
            ],
          },
          {
            guard: 'takerEscrowHoldsFunds',
            target: '#trade.refunded',
            actions: { type: 'recordTakerRefund', params: ({ event }) => ({ signature: event.signature }) },
          },
        ],
        // Anyone may submit the taker escrow's redeem (it pays the maker only).
        TAKER_ESCROW_PAID: [
          {
            guard: and(['takerEscrowHoldsFunds', 'takerWasPaid']),
            target: '#trade.redeemed',
            actions: { type: 'recordMakerRedeem', params: ({ event }) => ({ signature: event.signature }) },
          },
          {
            guard: 'takerEscrowHoldsFunds',
            actions: { type: 'recordMakerRedeem', params: ({ event }) => ({ signature: event.signature }) },
          },
        ],
      },
      states: {
        assessing: effectState('assessing', {
          description:
            'Can the maker serve: inventory, a maker expiry leaving the minimum redeem window, and a price that has not moved against it beyond tolerance since the quote.',
          src: 'checkInventory',
          input: ({ context }) => ({
            tradeId: context.tradeId,
            quoteId: context.quoteId,
            outputMint: context.outputMint,
            outputAmountRaw: context.outputAmountRaw,
          }),
          onDone: {
            target: 'deciding',
            actions: { type: 'recordAssessment', params: ({ event }) => event.output },
          },
        }),
        deciding: {
          always: [
            {
              guard: and([
                'hasFinalMatchingTakerLock',
                'takerEscrowHoldsFunds',
                'hasNoMakerLockIntent',
                'inventoryAvailable',
                'leavesMinRedeemWindow',
                'priceHolds',
              ]),
              target: 'signingMakerLock',
              actions: 'planMakerLock',
            },
            // Just in time: the quote sourced part of the output through an aggregator; the maker buys it now
            // (the taker's lock is final, the price holds, there is time to lock after), then locks.
            {
              guard: and([
                'hasFinalMatchingTakerLock',
                'takerEscrowHoldsFunds',
                'hasNoMakerLockIntent',
                'needsSourcing',
                'leavesMinRedeemWindow',
                'priceHolds',
              ]),
              target: 'signingSourcing',
            },
            // The maker's last look: the market moved against it since the quote, or its prices are not
            // usable now. It declines before anything of its own moves, and releases the taker at once.
            {
              guard: and(['noMakerLockCanLand', 'priceMoved']),
              target: 'releasingTaker',
              actions: { type: 'recordFailure', params: { reason: 'price_moved' } },
            },
            {
              guard: and(['noMakerLockCanLand', not('priceHolds')]),
              target: 'releasingTaker',
              actions: { type: 'recordFailure', params: { reason: 'price_unavailable' } },
            },
            {
              guard: and(['noMakerLockCanLand', or(['inventoryAvailable', 'needsSourcing'])]),
              target: 'releasingTaker',
              actions: { type: 'recordFailure', params: { reason: 'redeem_window_too_short' } },
            },
            {
              guard: 'noMakerLockCanLand',
              target: 'releasingTaker',
              actions: { type: 'recordFailure', params: { reason: 'inventory_unavailable' } },
            },
            // Unreachable from assessing (no intent exists yet); a live intent is never re-signed.
            { target: 'sendingMakerLock' },
          ],
        },
        signingSourcing: effectState('signingSourcing', {
          description:
            'Quote and sign the swap that buys the sourced part of the output (nothing is sent); the result becomes the persisted intent.',
          src: 'signSourcing',
          input: ({ context }) => {
            if (context.sourcing === null) throw new Error('signingSourcing without a sourcing plan');
            return { tradeId: context.tradeId, ...context.sourcing };
          },
          onDone: [
            {
              guard: { type: 'sourcingSigned', params: ({ event }) => event.output },
              target: 'sendingSourcing',
              actions: { type: 'recordSourcingIntent', params: ({ event }) => event.output },
            },
            {
              // No swap within the plan (route gone, slippage beyond the limit, venue down): nothing of the
              // maker's moved, and no maker lock was signed — release the taker at once.
              target: 'releasingTaker',
              actions: { type: 'recordFailure', params: { reason: 'sourcing_failed' } },
            },
          ],
        }),
        sendingSourcing: effectState('sendingSourcing', {
          description:
            'Send the intent’s sourcing swap until final, or until proved lapsed; then assess again and lock.',
          src: 'sendSourcing',
          input: ({ context }) => {
            if (context.sourcing === null || context.sourcingIntent === null)
              throw new Error('sendingSourcing without a plan and an intent');
            return { tradeId: context.tradeId, plan: context.sourcing, intent: context.sourcingIntent };
          },
          onDone: [
            {
              guard: { type: 'sourcingLanded', params: ({ event }) => event.output },
              target: 'assessing',
              actions: { type: 'recordSourced', params: ({ event }) => event.output },
            },
            {
              guard: { type: 'sourcingMaySignAgain', params: ({ event }) => event.output },
              target: 'signingSourcing',
              actions: 'markSourcingLapsed',
            },
            {
              // Refused on chain (its minimum out not met), or lapsed too late to lock after: release.
              target: 'releasingTaker',
              actions: [
                'markSourcingLapsed',
                { type: 'recordFailure', params: { reason: 'sourcing_failed' } },
              ],
            },
          ],
        }),
        signingMakerLock: effectState('signingMakerLock', {
          description: 'Sign the maker lock (nothing is sent); the result becomes the persisted intent.',
          src: 'signMakerLock',
          input: ({ context }) => ({
            tradeId: context.tradeId,
            takerEscrow: context.takerEscrow,
            makerEscrow: context.makerEscrow,
            initializer: context.makerWallet,
            recipient: context.takerWallet,
            mint: context.outputMint,
            amountRaw: context.outputAmountRaw,
            hashlock: context.secretHash,
            expiry: context.makerExpiry ?? 0,
          }),
          onDone: {
            guard: 'hasNoLiveMakerLockIntent',
            target: 'sendingMakerLock',
            actions: { type: 'recordMakerLockIntent', params: ({ event }) => event.output },
          },
        }),
        sendingMakerLock: effectState('sendingMakerLock', {
          description:
            'Send the intent’s maker lock until final, or until proved lapsed; an expired one is signed afresh while it can still land in time.',
          src: 'makerLock',
          input: ({ context }) => {
            if (context.makerLockIntent === null) throw new Error('sendingMakerLock without an intent');
            return {
              tradeId: context.tradeId,
              makerEscrow: context.makerEscrow,
              intent: context.makerLockIntent,
            };
          },
          onDone: [
            {
              guard: { type: 'makerLockLanded', params: ({ event }) => ({ landed: event.output.landed }) },
              target: 'makerLocked',
              actions: {
                type: 'recordMakerLock',
                params: ({ event }) => ({ signature: event.output.landed ? event.output.signature : '' }),
              },
            },
            {
              // Its blockhash passed unseen (a congested cluster): the escrow's address is unique to the trade,
              // so a lock signed afresh can only land in the lapsed one's place.
              guard: { type: 'makerLockMaySignAgain', params: ({ event }) => event.output },
              target: 'signingMakerLock',
              actions: 'markMakerLockLapsed',
            },
            {
              target: 'releasingTaker',
              actions: [
                'markMakerLockLapsed',
                { type: 'recordFailure', params: { reason: 'maker_lock_lapsed' } },
              ],
            },
          ],
        }),
        makerLocked: {
          description: 'Both escrows funded; waiting for the taker to redeem before redeem_by.',
          meta: { wakeAt: 'makerExpiry' },
          on: {
            REDEEM_REQUESTED: {
              guard: and(['preimageMatchesSecretHash', 'makerLockIsFinal', 'redeemWindowOpen']),
              target: 'redeemingForTaker',
              actions: 'recordRedeemRequest',
            },
            CHAIN_TIME_ADVANCED: {
              guard: 'makerEscrowExpired',
              target: 'refundingMakerEscrow',
              actions: { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
            },
          },
        },
        redeemingForTaker: effectState('redeemingForTaker', {
          description: 'The service submits the taker’s redeem of the maker escrow until final.',
          meta: { wakeAt: 'makerExpiry' },
          src: 'takerRedeem',
          input: ({ context }) => ({ ...makerEscrowInput({ context }), preimage: knownPreimage(context) }),
          onDone: [
            {
              guard: { type: 'endedPaid', params: endingOfOutput },
              target: 'takerRedeemLanded',
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
              actions: [
                { type: 'recordMakerRefund', params: signatureOfOutput },
                { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
              ],
            },
          ],
          on: {
            CHAIN_TIME_ADVANCED: {
              guard: 'makerEscrowExpired',
              target: 'refundingMakerEscrow',
              actions: { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
            },
          },
        }),
        takerRedeemLanded: {
          description: 'Our redeem for the taker is final; the maker redeems once the watcher reports it.',
          meta: { wakeAt: 'takerExpiry' },
          on: refundTakerEscrowAtExpiry,
        },
        makerRedeeming: effectState('makerRedeeming', {
          description:
            'The preimage is on chain: the maker redeems the taker escrow before the taker expiry.',
          meta: { wakeAt: 'takerExpiry' },
          src: 'makerRedeem',
          input: ({ context }) => ({ ...takerEscrowInput({ context }), preimage: knownPreimage(context) }),
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
        refundingMakerEscrow: effectState('refundingMakerEscrow', {
          description: 'The taker did not redeem in time: the maker takes its escrow back.',
          src: 'makerRefund',
          input: makerEscrowInput,
          onDone: [
            {
              // The taker redeemed just in time: the maker redeems in turn.
              guard: { type: 'endingRevealsPreimage', params: endingOfOutput },
              target: 'makerRedeeming',
              actions: { type: 'recordMakerEscrowPaid', params: endingOfOutput },
            },
            {
              guard: { type: 'endedPaid', params: endingOfOutput },
              target: 'takerRedeemLanded',
              actions: {
                type: 'recordTakerRedeem',
                params: ({ event }) => ({
                  signature: event.output.kind === 'paid' ? event.output.signature : '',
                }),
              },
            },
            {
              guard: { type: 'endedCancelled', params: endingOfOutput },
              target: 'releasingTaker',
              actions: [
                { type: 'recordMakerRefund', params: signatureOfOutputIfAny },
                { type: 'recordFailure', params: { reason: 'taker_cancelled' } },
              ],
            },
            {
              target: 'awaitingTakerExpiry',
              actions: { type: 'recordMakerRefund', params: signatureOfOutputIfAny },
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
          description: 'The maker cannot serve and no maker lock can land: cancel releases the taker now.',
          src: 'makerCancel',
          input: takerEscrowInput,
          onDone: takerEscrowEnded({ paid: '#trade.redeemed', returned: '#trade.refunded' }),
        }),
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
                {
                  type: 'recordTakerRedeem',
                  params: ({ event }) => ({
                    signature: event.output.kind === 'paid' ? event.output.signature : '',
                  }),
                },
                { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
              ],
            },
            {
              guard: { type: 'endedReturned', params: endingOfOutput },
              target: 'closingEscrows',
              actions: [
                'recordMakerLockOfIntent',
                {
                  type: 'recordMakerRefund',
                  params: ({ event }) => ({
                    signature: event.output.kind === 'returned' ? event.output.signature : null,
                  }),
                },
              ],
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
          actions: { type: 'recordTakerRefund', params: ({ event }) => ({ signature: event.signature }) },
        },
        TAKER_ESCROW_PAID: {
          guard: 'takerEscrowHoldsFunds',
          target: '.released',
          actions: { type: 'recordMakerRedeem', params: ({ event }) => ({ signature: event.signature }) },
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
