// The trade actor's statechart: one HTLC swap from the unsigned taker lock to closed escrows. Pure and
// statically readable: no I/O here; chain effects are invoked actors the runtime provides. Its contract
// (events, effects, the rules both sides rely on) is trade.types.ts; its diagram is docs/trade-machine.md,
// generated from this config (`npm run machines:diagram`).
import { and, assertEvent, assign, enqueueActions, fromPromise, setup } from 'xstate';
import {
  effectRetryDelay,
  hasSignature,
  leavesMinRedeemWindow,
  lockTermsMatch,
  makerEscrowMayHoldFunds,
  makerEscrowUnsettled,
  noMakerLockCanLand,
  plannedMakerExpiry,
  takerEscrowHoldsFunds,
  timingSafeEqualHex,
  withSignature,
} from './trade.rules.ts';
import type {
  CheckInventoryInput,
  CheckInventoryOutput,
  CloseEscrowsInput,
  EscrowEnding,
  EscrowTerms,
  FailureReason,
  MakerLockInput,
  MakerLockOutput,
  MakerRedeemInput,
  MakerRefundInput,
  MakerRefundOutput,
  SignMakerLockInput,
  SignMakerLockOutput,
  TakerEscrowReleaseInput,
  TakerRedeemInput,
  TradeContext,
  TradeEffect,
  TradeEvent,
  TradeInput,
  TradeSignature,
  TradeStateMeta,
  TradeTag,
} from './trade.types.ts';

/** Persisted with every snapshot; bump whenever states, events or context change shape. */
export const TRADE_MACHINE_VERSION = 3;

const notProvided =
  <TOutput, TInput>(effect: TradeEffect) =>
  async (_: { input: TInput }): Promise<TOutput> => {
    throw new Error(`trade effect ${effect} is not provided by the runtime`);
  };

const nowOf = (event: TradeEvent): number => ('now' in event ? event.now : Number.NaN);
const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;

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
    secretHash: input.secretHash.toLowerCase(),
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
  };
}

/** Why an effect rejected, and when (chain time); see EffectFailure in trade.types.ts. */
function describeFailure(error: unknown): { message: string; at: number } {
  const shaped = (error ?? {}) as { message?: unknown; at?: unknown };
  const message =
    error instanceof Error
      ? error.message
      : typeof shaped.message === 'string'
        ? shaped.message
        : String(error);
  const at = typeof shaped.at === 'number' && Number.isFinite(shaped.at) ? shaped.at : 0;
  return { message, at };
}

/** A movement's signature added to the list (once), for actions that take it from an effect's ending. */
const signed = (
  context: TradeContext,
  kind: TradeSignature['kind'],
  signature: string,
): Pick<TradeContext, 'signatures'> => ({ signatures: withSignature(context.signatures, kind, signature) });

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

/**
 * An effect state's failure: recorded with its retry time (recordEffectError). The runtime sends
 * RETRY_EFFECT { now }, which re-runs the state's effect once that time has come (retryWhenDue).
 */
const failedAttempt = (effect: TradeEffect) =>
  ({ actions: { type: 'recordEffectError', params: { effect } } }) as const;
const retryWhenDue = <State extends string>(state: State) =>
  ({
    RETRY_EFFECT: { guard: 'effectRetryDue', target: state, reenter: true, actions: 'markRetryRunning' },
  }) as const;

export const tradeMachine = setup({
  types: {
    input: {} as TradeInput,
    context: {} as TradeContext,
    events: {} as TradeEvent,
    meta: {} as TradeStateMeta,
    tags: {} as TradeTag,
  },
  actors: {
    checkInventory: fromPromise(notProvided<CheckInventoryOutput, CheckInventoryInput>('checkInventory')),
    signMakerLock: fromPromise(notProvided<SignMakerLockOutput, SignMakerLockInput>('signMakerLock')),
    makerLock: fromPromise(notProvided<MakerLockOutput, MakerLockInput>('makerLock')),
    takerRedeem: fromPromise(notProvided<EscrowEnding, TakerRedeemInput>('takerRedeem')),
    makerRedeem: fromPromise(notProvided<EscrowEnding, MakerRedeemInput>('makerRedeem')),
    makerRefund: fromPromise(notProvided<MakerRefundOutput, MakerRefundInput>('makerRefund')),
    makerCancel: fromPromise(notProvided<EscrowEnding, TakerEscrowReleaseInput>('makerCancel')),
    takerRefund: fromPromise(notProvided<EscrowEnding, TakerEscrowReleaseInput>('takerRefund')),
    closeEscrows: fromPromise(notProvided<unknown, CloseEscrowsInput>('closeEscrows')),
  },
  guards: {
    // pending
    secretHashMatches: ({ context, event }) => {
      assertEvent(event, 'ABANDON');
      return timingSafeEqualHex(context.secretHash, event.secretHash);
    },
    hasNoLockSignature: ({ context }) => context.lockSignature === null,
    hasLockSignature: ({ context }) => context.lockSignature !== null,
    isNewLockSignature: ({ context, event }) => {
      assertEvent(event, 'LOCK_SUBMITTED');
      return !context.lockSubmissions.some((s) => s.signature === event.signature);
    },
    lockWindowClosed: ({ context, event }) => nowOf(event) > context.lockDeadline,
    lockTermsMatch: ({ context, event }) => {
      assertEvent(event, 'TAKER_LOCK_FINALIZED');
      return lockTermsMatch(context, event.terms);
    },
    // the maker's decision to lock
    hasFinalMatchingTakerLock: ({ context }) =>
      hasSignature(context, 'taker_lock') &&
      context.takerLockTerms !== null &&
      lockTermsMatch(context, context.takerLockTerms),
    hasNoMakerLockIntent: ({ context }) => context.makerLockIntent === null,
    inventoryAvailable: ({ context }) => context.assessment?.available === true,
    leavesMinRedeemWindow: ({ context }) =>
      context.assessment !== null && leavesMinRedeemWindow(context, context.assessment.now),
    noMakerLockCanLand: ({ context }) => noMakerLockCanLand(context),
    makerLockLanded: (_, params: { landed: boolean }) => params.landed,
    // redeem
    preimageMatchesSecretHash: ({ context, event }) => {
      assertEvent(event, 'REDEEM_REQUESTED');
      return HEX_32_BYTES.test(event.preimage) && timingSafeEqualHex(event.preimageHash, context.secretHash);
    },
    makerLockIsFinal: ({ context }) => hasSignature(context, 'maker_lock'),
    redeemWindowOpen: ({ context, event }) =>
      context.makerExpiry !== null && nowOf(event) < context.makerExpiry - context.landingMargin,
    makerEscrowRedeemNotSeen: ({ context }) => !context.makerEscrowRedeemSeen,
    takerWasPaid: ({ context }) => context.makerEscrowRedeemSeen || hasSignature(context, 'taker_redeem'),
    // how an escrow ended (effect outputs and chain facts)
    endedPaid: (_, params: { ending: EscrowEnding | { kind: 'absent' } }) => params.ending.kind === 'paid',
    endedCancelled: (_, params: { ending: EscrowEnding | { kind: 'absent' } }) =>
      params.ending.kind === 'returned' && params.ending.how === 'cancelled',
    endedReturned: (_, params: { ending: EscrowEnding | { kind: 'absent' } }) =>
      params.ending.kind === 'returned',
    endingRevealsPreimage: (_, params: { ending: EscrowEnding | { kind: 'absent' } }) =>
      params.ending.kind === 'paid' &&
      params.ending.preimage !== null &&
      HEX_32_BYTES.test(params.ending.preimage),
    makerEscrowUnsettled: ({ context }) => makerEscrowUnsettled(context),
    returnedByCancel: ({ event }) => {
      assertEvent(event, 'MAKER_ESCROW_RETURNED');
      return event.how === 'cancelled';
    },
    // expiries
    makerEscrowExpired: ({ context, event }) =>
      context.makerExpiry !== null && nowOf(event) >= context.makerExpiry,
    takerEscrowExpired: ({ context, event }) => nowOf(event) >= context.takerExpiry,
    // after the outcome
    makerEscrowMayHoldFunds: ({ context }) => makerEscrowMayHoldFunds(context),
    makerEscrowExists: ({ context }) => hasSignature(context, 'maker_lock'),
    lateLockIsCancellable: ({ context }) =>
      context.takerLockTerms !== null &&
      context.takerLockTerms.escrow === context.takerEscrow &&
      context.takerLockTerms.recipient === context.makerWallet,
    lateLockExpired: ({ context, event }) =>
      context.takerLockTerms !== null && nowOf(event) >= context.takerLockTerms.expiry,
    takerEscrowHoldsFunds: ({ context }) => takerEscrowHoldsFunds(context),
    // bookkeeping
    isAnotherRun: ({ context, event }) => {
      assertEvent(event, 'ADOPTED');
      return event.runId !== context.currentRunId;
    },
    effectRetryDue: ({ context, event }) => {
      assertEvent(event, 'RETRY_EFFECT');
      return (
        context.effectError !== null &&
        context.effectError.retryAt !== null &&
        event.now >= context.effectError.retryAt
      );
    },
  },
  actions: {
    recordAdoption: assign(({ event }) => {
      assertEvent(event, 'ADOPTED');
      return { currentRunId: event.runId, adoptedAt: event.now };
    }),
    recordAbandon: assign(({ event }) => {
      assertEvent(event, 'ABANDON');
      return { abandonedWith: event.secretHash.toLowerCase(), failureReason: 'abandoned' as const };
    }),
    recordFailure: assign((_, params: { reason: FailureReason; alert?: boolean }) =>
      params.alert ? { failureReason: params.reason, alert: true } : { failureReason: params.reason },
    ),
    recordLockSubmission: assign(({ context, event }) => {
      assertEvent(event, 'LOCK_SUBMITTED');
      return {
        lockSignature: event.signature,
        lockSubmissions: [
          ...context.lockSubmissions,
          { signature: event.signature, lastValidBlockHeight: event.lastValidBlockHeight },
        ],
      };
    }),
    recordLockSeen: assign(({ event }) => {
      assertEvent(event, 'TAKER_LOCK_SEEN');
      return { lockSignature: event.signature };
    }),
    recordTakerLock: assign(({ context, event }) => {
      assertEvent(event, 'TAKER_LOCK_FINALIZED');
      return {
        lockSignature: event.signature,
        takerLockTerms: event.terms,
        ...signed(context, 'taker_lock', event.signature),
      };
    }),
    recordAssessment: assign((_, params: CheckInventoryOutput) => ({
      assessment: { available: params.available, now: params.now },
    })),
    planMakerLock: assign(({ context }) => ({
      makerExpiry: context.assessment === null ? null : plannedMakerExpiry(context, context.assessment.now),
    })),
    recordMakerLockIntent: assign(({ context }, params: SignMakerLockOutput) => ({
      makerLockIntent: {
        makerExpiry: context.makerExpiry ?? 0,
        signature: params.signature,
        lastValidBlockHeight: params.lastValidBlockHeight,
        transactionBase64: params.transactionBase64,
        lapsed: false,
      },
    })),
    markMakerLockLapsed: assign(({ context }) => ({
      makerLockIntent: context.makerLockIntent && { ...context.makerLockIntent, lapsed: true },
    })),
    recordMakerLock: assign(({ context }, params: { signature: string }) =>
      signed(context, 'maker_lock', params.signature),
    ),
    /** A maker escrow found on chain can only come from the intent (its address is unique to the trade). */
    recordMakerLockOfIntent: assign(({ context }) =>
      context.makerLockIntent === null
        ? {}
        : signed(context, 'maker_lock', context.makerLockIntent.signature),
    ),
    recordRedeemRequest: assign(({ event }) => {
      assertEvent(event, 'REDEEM_REQUESTED');
      return { preimage: event.preimage.toLowerCase(), redeemRequested: true };
    }),
    recordTakerRedeem: assign(({ context }, params: { signature: string }) =>
      signed(context, 'taker_redeem', params.signature),
    ),
    recordMakerEscrowRedeemed: assign(({ context, event }) => {
      assertEvent(event, 'MAKER_ESCROW_REDEEMED');
      return {
        preimage: event.preimage.toLowerCase(),
        makerEscrowRedeemSeen: true,
        ...signed(context, 'taker_redeem', event.signature),
      };
    }),
    /** The same as MAKER_ESCROW_REDEEMED, learnt from an effect that found the maker escrow paid. */
    recordMakerEscrowPaid: assign(({ context }, params: { ending: EscrowEnding | { kind: 'absent' } }) =>
      params.ending.kind === 'paid' && params.ending.preimage !== null
        ? {
            preimage: params.ending.preimage.toLowerCase(),
            makerEscrowRedeemSeen: true,
            ...signed(context, 'taker_redeem', params.ending.signature),
          }
        : {},
    ),
    recordMakerRedeem: assign(({ context }, params: { signature: string }) =>
      signed(context, 'maker_redeem', params.signature),
    ),
    recordMakerRefund: assign(({ context }, params: { signature: string | null }) =>
      params.signature === null ? {} : signed(context, 'maker_refund', params.signature),
    ),
    recordTakerRefund: assign(({ context }, params: { signature: string }) =>
      signed(context, 'taker_refund', params.signature),
    ),
    recordRefundRequest: assign({ refundRequested: true }),
    // Effect failures. The action sees the error event, which the declared event union does not name.
    recordEffectError: assign(({ context, event }, params: { effect: TradeEffect }) => {
      const { message, at } = describeFailure((event as unknown as { error?: unknown }).error);
      const previous = context.effectError?.effect === params.effect ? context.effectError.attempts : 0;
      const attempts = previous + 1;
      return {
        effectError: {
          effect: params.effect,
          message,
          attempts,
          retryAt: at + effectRetryDelay(attempts, context.tradeId),
        },
      };
    }),
    /** The retry is running: no second one is due until it fails again. */
    markRetryRunning: assign(({ context }) => ({
      effectError: context.effectError && { ...context.effectError, retryAt: null },
    })),
    // On leaving an effect's state, however it is left, its failures go with it — but not when the state
    // is re-entered by its own retry, which counts on.
    forgetEffectFailure: enqueueActions(({ enqueue, event }) => {
      if (event.type !== 'RETRY_EFFECT') enqueue.assign({ effectError: null });
    }),
  },
}).createMachine({
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
          on: {
            LOCK_SUBMITTED: {
              guard: 'isNewLockSignature',
              target: 'lockSubmitted',
              actions: 'recordLockSubmission',
            },
            TAKER_LOCK_SEEN: { target: 'lockSeen', actions: 'recordLockSeen' },
          },
        },
        lockSubmitted: {
          description:
            'The service holds a signed lock (a fresh one may replace it while the window is open).',
          on: {
            LOCK_SUBMITTED: {
              guard: 'isNewLockSignature',
              target: 'lockSubmitted',
              actions: 'recordLockSubmission',
            },
            TAKER_LOCK_SEEN: { target: 'lockSeen', actions: 'recordLockSeen' },
          },
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
        MAKER_ESCROW_REDEEMED: {
          guard: 'makerEscrowRedeemNotSeen',
          target: '.makerRedeeming',
          actions: 'recordMakerEscrowRedeemed',
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
        assessing: {
          description:
            'Can the maker serve: inventory, and a maker expiry leaving the minimum redeem window.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'checkInventory',
            src: 'checkInventory',
            input: ({ context }) => ({
              tradeId: context.tradeId,
              outputMint: context.outputMint,
              outputAmountRaw: context.outputAmountRaw,
            }),
            onDone: {
              target: 'deciding',
              actions: { type: 'recordAssessment', params: ({ event }) => event.output },
            },
            onError: failedAttempt('checkInventory'),
          },
          on: {
            ...retryWhenDue('assessing'),
          },
        },
        deciding: {
          always: [
            {
              guard: and([
                'hasFinalMatchingTakerLock',
                'takerEscrowHoldsFunds',
                'hasNoMakerLockIntent',
                'inventoryAvailable',
                'leavesMinRedeemWindow',
              ]),
              target: 'signingMakerLock',
              actions: 'planMakerLock',
            },
            {
              guard: and(['noMakerLockCanLand', 'inventoryAvailable']),
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
        signingMakerLock: {
          description: 'Sign the maker lock (nothing is sent); the result becomes the persisted intent.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'signMakerLock',
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
              guard: 'hasNoMakerLockIntent',
              target: 'sendingMakerLock',
              actions: { type: 'recordMakerLockIntent', params: ({ event }) => event.output },
            },
            onError: failedAttempt('signMakerLock'),
          },
          on: {
            ...retryWhenDue('signingMakerLock'),
          },
        },
        sendingMakerLock: {
          description: 'Send the intent’s maker lock until final, or until proved lapsed.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerLock',
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
                target: 'releasingTaker',
                actions: [
                  'markMakerLockLapsed',
                  { type: 'recordFailure', params: { reason: 'maker_lock_lapsed' } },
                ],
              },
            ],
            onError: failedAttempt('makerLock'),
          },
          on: {
            ...retryWhenDue('sendingMakerLock'),
          },
        },
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
        redeemingForTaker: {
          description: 'The service submits the taker’s redeem of the maker escrow until final.',
          tags: 'effect',
          meta: { wakeAt: 'makerExpiry' },
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'takerRedeem',
            src: 'takerRedeem',
            input: ({ context }) => ({
              tradeId: context.tradeId,
              escrow: makerEscrowTerms(context),
              preimage: context.preimage ?? '',
            }),
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
            onError: failedAttempt('takerRedeem'),
          },
          on: {
            ...retryWhenDue('redeemingForTaker'),
            CHAIN_TIME_ADVANCED: {
              guard: 'makerEscrowExpired',
              target: 'refundingMakerEscrow',
              actions: { type: 'recordFailure', params: { reason: 'maker_escrow_expired' } },
            },
          },
        },
        takerRedeemLanded: {
          description: 'Our redeem for the taker is final; the maker redeems once the watcher reports it.',
          meta: { wakeAt: 'takerExpiry' },
          on: {
            // Past the taker expiry the maker can no longer redeem: the taker escrow goes back, and the
            // refund's outcome proves (or disproves) the loss.
            CHAIN_TIME_ADVANCED: { guard: 'takerEscrowExpired', target: 'refundingTakerEscrow' },
            REFUND_REQUESTED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: 'recordRefundRequest',
            },
          },
        },
        makerRedeeming: {
          description:
            'The preimage is on chain: the maker redeems the taker escrow before the taker expiry.',
          tags: 'effect',
          meta: { wakeAt: 'takerExpiry' },
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerRedeem',
            src: 'makerRedeem',
            input: ({ context }) => ({
              tradeId: context.tradeId,
              escrow: takerEscrowTerms(context),
              preimage: context.preimage ?? '',
            }),
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
            onError: failedAttempt('makerRedeem'),
          },
          on: {
            ...retryWhenDue('makerRedeeming'),
            CHAIN_TIME_ADVANCED: { guard: 'takerEscrowExpired', target: 'refundingTakerEscrow' },
            REFUND_REQUESTED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: 'recordRefundRequest',
            },
          },
        },
        refundingMakerEscrow: {
          description: 'The taker did not redeem in time: the maker takes its escrow back.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerRefund',
            src: 'makerRefund',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: makerEscrowTerms(context) }),
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
            onError: failedAttempt('makerRefund'),
          },
          on: {
            ...retryWhenDue('refundingMakerEscrow'),
          },
        },
        awaitingTakerExpiry: {
          description: 'Maker escrow refunded; the taker escrow returns to the taker at its expiry.',
          meta: { wakeAt: 'takerExpiry' },
          on: {
            CHAIN_TIME_ADVANCED: { guard: 'takerEscrowExpired', target: 'refundingTakerEscrow' },
            REFUND_REQUESTED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: 'recordRefundRequest',
            },
          },
        },
        refundingTakerEscrow: {
          description: 'The runtime refunds the expired taker escrow to the taker.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'takerRefund',
            src: 'takerRefund',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: takerEscrowTerms(context) }),
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
            onError: failedAttempt('takerRefund'),
          },
          on: {
            ...retryWhenDue('refundingTakerEscrow'),
          },
        },
        releasingTaker: {
          description: 'The maker cannot serve and no maker lock can land: cancel releases the taker now.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerCancel',
            src: 'makerCancel',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: takerEscrowTerms(context) }),
            onDone: [
              {
                // Someone (the taker, with its preimage) paid the taker escrow to the maker first.
                guard: { type: 'endedPaid', params: endingOfOutput },
                target: '#trade.redeemed',
                actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
              },
              {
                target: '#trade.refunded',
                actions: { type: 'recordTakerRefund', params: signatureOfOutput },
              },
            ],
            onError: failedAttempt('makerCancel'),
          },
          on: {
            ...retryWhenDue('releasingTaker'),
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
        closingEscrows: {
          description: 'Best-effort rent reclaim of the maker escrow (donated tokens swept to the maker).',
          tags: 'effect',
          invoke: {
            id: 'closeEscrows',
            src: 'closeEscrows',
            input: ({ context }) => ({ tradeId: context.tradeId, makerEscrow: context.makerEscrow }),
            onDone: 'closed',
            onError: 'closed',
          },
        },
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
            { guard: 'makerEscrowExists', target: 'closingEscrows' },
            { target: 'closed' },
          ],
        },
        reclaimingMakerEscrow: {
          description: 'Funds (or a possible lock) remain in the maker escrow: refund it.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerRefund',
            src: 'makerRefund',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: makerEscrowTerms(context) }),
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
              { target: 'closed', actions: 'markMakerLockLapsed' },
            ],
            onError: failedAttempt('makerRefund'),
          },
          on: {
            ...retryWhenDue('reclaimingMakerEscrow'),
          },
        },
        closingEscrows: {
          description: 'Best-effort rent reclaim of the maker escrow (donated tokens swept to the maker).',
          tags: 'effect',
          invoke: {
            id: 'closeEscrows',
            src: 'closeEscrows',
            input: ({ context }) => ({ tradeId: context.tradeId, makerEscrow: context.makerEscrow }),
            onDone: 'closed',
            onError: 'closed',
          },
        },
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
        releasingLateLock: {
          description: 'The maker, as recipient, cancels the late lock at once.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerCancel',
            src: 'makerCancel',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: takerEscrowTerms(context) }),
            onDone: [
              {
                guard: { type: 'endedPaid', params: endingOfOutput },
                target: 'released',
                actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
              },
              {
                target: 'released',
                actions: { type: 'recordTakerRefund', params: signatureOfOutput },
              },
            ],
            onError: failedAttempt('makerCancel'),
          },
          on: {
            ...retryWhenDue('releasingLateLock'),
          },
        },
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
        refundingLateLock: {
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'takerRefund',
            src: 'takerRefund',
            input: ({ context }) => ({ tradeId: context.tradeId, escrow: takerEscrowTerms(context) }),
            onDone: [
              {
                guard: { type: 'endedPaid', params: endingOfOutput },
                target: 'released',
                actions: { type: 'recordMakerRedeem', params: signatureOfOutput },
              },
              {
                target: 'released',
                actions: { type: 'recordTakerRefund', params: signatureOfOutput },
              },
            ],
            onError: failedAttempt('takerRefund'),
          },
          on: {
            ...retryWhenDue('refundingLateLock'),
          },
        },
        released: { tags: 'closed', type: 'final' },
      },
    },
  },
});

export type TradeMachine = typeof tradeMachine;
