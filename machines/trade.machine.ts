// The trade actor's statechart (SPEC §3): one HTLC swap from the unsigned taker lock to closed escrows.
// Pure and statically readable: no I/O here; chain effects are invoked actors the runtime provides.
//
// ── Contract with the runtime ─────────────────────────────────────────────────────────────────────
//
// Top-level states are exactly the seed's settlement_status values: pending, initiated, redeemed,
// refunded, failed. Once redeemed, refunded or failed, no transition leaves that state (substates
// still move while funds are released or rent reclaimed).
//
//   pending      awaitingLock → lockSubmitted → lockSeen          (wakes at lockDeadline + 1)
//   initiated    assessing → deciding → signingMakerLock → sendingMakerLock → makerLocked
//                  makerLocked → redeemingForTaker → takerRedeemLanded ┐
//                  (any) ── MAKER_ESCROW_REDEEMED ──────────────────────┴→ makerRedeeming → redeemed
//                  makerLocked ── maker expiry → refundingMakerEscrow → awaitingTakerExpiry
//                    ── taker expiry → refundingTakerEscrow → refunded
//                  deciding / lapsed maker lock → releasingTaker (cancel) → refunded
//   redeemed     closingEscrows → closed
//   refunded     settling → reclaimingMakerEscrow? → closingEscrows? → closed
//   failed       noLock → lateLockSeen → lateLockFinalized → releasingLateLock → released
//                                                          └→ awaitingLateLockExpiry → refundingLateLock ┘
//
// pending → failed, exactly: (a) CHAIN_TIME_ADVANCED with now > lockDeadline while no lock signature
// exists (lock_window_expired); (b) TAKER_LOCK_DROPPED with now > lockDeadline while one exists
// (lock_not_landed) — the runtime sends it once every lock transaction it holds is past its last valid
// block height and the taker escrow is absent at finalized; (c) ABANDON (abandoned); (d) a final lock
// with other terms (lock_terms_mismatch: it occupies this trade's escrow, so it is released like a
// late lock). A dropped lock while the window is still open changes nothing: the taker may sign a
// fresh one (the settlement retry) and LOCK_SUBMITTED records it.
//
// Time is the chain's clock. Every expiry is an absolute chain time (unix seconds) in context:
// takerExpiry, lockDeadline, makerExpiry (fixed when the maker decides to lock), redeem_by =
// makerExpiry − landingMargin. No XState timers guard expiries (they do not survive a persisted
// snapshot): the runtime sends CHAIN_TIME_ADVANCED { now } whenever `nextDeadline(snapshot)` is due
// and after every restore, and guards compare `now` with context. `now` is the finalized chain clock
// on real clusters, and before sending it the runtime reports what it sees of the trade's escrows at
// that commitment (TAKER_LOCK_SEEN/FINALIZED, MAKER_ESCROW_REDEEMED, TAKER_ESCROW_REFUNDED), so a
// deadline is never judged on a stale view of the escrows.
//
// Commands (sent by HTTP handlers; see `commandOutcome` for answers and replays):
//   ABANDON { secretHash }                 pending, secretHashMatches (constant time, any case) and
//                                          hasNoLockSignature → failed (abandoned). The runtime reads the
//                                          chain first and sends TAKER_LOCK_SEEN before it if a lock exists.
//   LOCK_SUBMITTED { signature, lastValidBlockHeight|null }
//                                          the service holds a signed taker lock: a lock signature exists.
//   REDEEM_REQUESTED { preimage, preimageHash, now }
//                                          the runtime computes preimageHash = sha256(preimage) as hex (the
//                                          machine stays free of crypto) and the guard compares it with
//                                          secretHash in constant time; also the maker lock is final and
//                                          now < makerExpiry − landingMargin. The preimage is stored then.
//   REFUND_REQUESTED { now }               the taker escrow has expired (now ≥ its expiry).
//   ADOPTED { runId, now }                 a new run owns the actor (recorded once per run).
//   RETRY_EFFECT                           re-run the current state's effect after it failed. The machine
//                                          raises it itself after EFFECT_RETRY_BACKOFF; that timer is not
//                                          persisted, so after a restore the runtime sends it when
//                                          `context.effectError` is set.
// Chain facts (finalized on real clusters):
//   TAKER_LOCK_SEEN { signature }          a lock of this trade's taker escrow exists (any commitment).
//   TAKER_LOCK_FINALIZED { signature, terms }
//                                          the lock is final; terms as read from the escrow account.
//   TAKER_LOCK_DROPPED { now }             every held lock transaction is past its last valid block height
//                                          and the taker escrow is absent at finalized.
//   MAKER_ESCROW_REDEEMED { signature, preimage }
//                                          the maker escrow was redeemed (preimage read on chain): the one
//                                          and only trigger of the maker's redeem.
//   TAKER_ESCROW_REFUNDED { signature }    the taker escrow went back to the taker (refund or cancel).
//   CHAIN_TIME_ADVANCED { now }            the chain clock reached a deadline.
//
// Effects (fromPromise placeholders here; the runtime supplies them with `tradeMachine.provide`):
//   checkInventory → { available, now }    can the maker serve, at chain time `now`.
//   signMakerLock → { signature, lastValidBlockHeight, transactionBase64 }
//                                          builds and signs the maker lock, sends nothing. Its result is
//                                          written to context (the intent) before makerLock runs.
//   makerLock { intent } → { landed: true, signature } | { landed: false }
//                                          sends the intent's transaction (and only it) until final, or
//                                          until proved lapsed (last valid block height passed and the
//                                          maker escrow absent at finalized).
//   takerRedeem { preimage } → { signature }   redeems the maker escrow for the taker, until final.
//   makerRedeem { preimage } → { signature }   redeems the taker escrow for the maker, until final.
//   makerRefund → { signature | null }     refunds the expired maker escrow (null: nothing was there).
//   makerCancel → { signature }            cancels the taker escrow as its recipient (releases the taker).
//   takerRefund → { signature }            refunds the expired taker escrow to the taker.
//   closeEscrows → unknown                 optional rent reclaim of the maker escrow; best effort.
// Each resolves once its transaction is FINAL and must be idempotent (re-run after a restart finds
// the movement done and resolves with its signature). A rejection means "try again later": the
// state records `effectError` and re-invokes after EFFECT_RETRY_BACKOFF.
//
// Restore: persisted snapshots hold the invoked children with their input; restoring the actor
// restarts an in-flight effect with the same input (the maker lock re-sends the persisted intent, it
// never signs anew). Effects must `await` before their first send: the runtime's snapshot observer
// runs synchronously after the transition that started them and persists the intent first.
import { and, assertEvent, assign, cancel, enqueueActions, fromPromise, raise, setup } from 'xstate';
import {
  hasSignature,
  leavesMinRedeemWindow,
  lockTermsMatch,
  makerEscrowMayHoldFunds,
  noMakerLockCanLand,
  plannedMakerExpiry,
  timingSafeEqualHex,
  withSignature,
} from './trade.rules.ts';
import type {
  CheckInventoryInput,
  CheckInventoryOutput,
  CloseEscrowsInput,
  FailureReason,
  MakerLockInput,
  MakerLockOutput,
  MakerRedeemInput,
  MakerRefundInput,
  MakerRefundOutput,
  SignatureOutput,
  SignMakerLockInput,
  SignMakerLockOutput,
  TakerEscrowReleaseInput,
  TakerRedeemInput,
  TradeContext,
  TradeEffect,
  TradeEvent,
  TradeInput,
} from './trade.types.ts';

/** Persisted with every snapshot; bump whenever states, events or context change shape. */
export const TRADE_MACHINE_VERSION = 2;

/** Which context deadline a state waits for (read by `nextDeadline`). */
export type TradeDeadline = 'lockWindowEnd' | 'makerExpiry' | 'takerExpiry' | 'lateLockExpiry';
export interface TradeStateMeta {
  wakeAt?: TradeDeadline;
}
/** `closed`: no funds of the trade left in any escrow and nothing left to do. */
export type TradeTag = 'closed' | 'effect';

const notProvided =
  <TOutput, TInput>(effect: TradeEffect) =>
  async (_: { input: TInput }): Promise<TOutput> => {
    throw new Error(`trade effect ${effect} is not provided by the runtime`);
  };

const nowOf = (event: TradeEvent): number => ('now' in event ? event.now : Number.NaN);
const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;

function initialContext(input: TradeInput): TradeContext {
  return {
    ...input,
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
    takerRedeem: fromPromise(notProvided<SignatureOutput, TakerRedeemInput>('takerRedeem')),
    makerRedeem: fromPromise(notProvided<SignatureOutput, MakerRedeemInput>('makerRedeem')),
    makerRefund: fromPromise(notProvided<MakerRefundOutput, MakerRefundInput>('makerRefund')),
    makerCancel: fromPromise(notProvided<SignatureOutput, TakerEscrowReleaseInput>('makerCancel')),
    takerRefund: fromPromise(notProvided<SignatureOutput, TakerEscrowReleaseInput>('takerRefund')),
    closeEscrows: fromPromise(notProvided<unknown, CloseEscrowsInput>('closeEscrows')),
  },
  delays: {
    EFFECT_RETRY_BACKOFF: 5_000,
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
    takerEscrowHoldsFunds: ({ context }) =>
      hasSignature(context, 'taker_lock') &&
      !hasSignature(context, 'taker_refund') &&
      !hasSignature(context, 'maker_redeem'),
    // bookkeeping
    isAnotherRun: ({ context, event }) => {
      assertEvent(event, 'ADOPTED');
      return event.runId !== context.currentRunId;
    },
    effectFailed: ({ context }) => context.effectError !== null,
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
        signatures: withSignature(context.signatures, 'taker_lock', event.signature),
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
    recordMakerLock: assign(({ context }, params: { signature: string }) => ({
      signatures: withSignature(context.signatures, 'maker_lock', params.signature),
    })),
    recordRedeemRequest: assign(({ event }) => {
      assertEvent(event, 'REDEEM_REQUESTED');
      return { preimage: event.preimage.toLowerCase(), redeemRequested: true };
    }),
    recordTakerRedeem: assign(({ context }, params: { signature: string }) => ({
      signatures: withSignature(context.signatures, 'taker_redeem', params.signature),
    })),
    recordMakerEscrowRedeemed: assign(({ context, event }) => {
      assertEvent(event, 'MAKER_ESCROW_REDEEMED');
      return {
        preimage: event.preimage.toLowerCase(),
        makerEscrowRedeemSeen: true,
        signatures: withSignature(context.signatures, 'taker_redeem', event.signature),
      };
    }),
    recordMakerRedeem: assign(({ context }, params: { signature: string }) => ({
      signatures: withSignature(context.signatures, 'maker_redeem', params.signature),
    })),
    recordMakerRefund: assign(({ context }, params: { signature: string | null }) => ({
      signatures:
        params.signature === null
          ? context.signatures
          : withSignature(context.signatures, 'maker_refund', params.signature),
    })),
    recordTakerRefund: assign(({ context }, params: { signature: string }) => ({
      signatures: withSignature(context.signatures, 'taker_refund', params.signature),
    })),
    recordRefundRequest: assign({ refundRequested: true }),
    // Effect failures. The action sees the error event, which the declared event union does not name.
    recordEffectError: assign(({ event }, params: { effect: TradeEffect }) => {
      const error = (event as unknown as { error?: unknown }).error;
      return {
        effectError: {
          effect: params.effect,
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }),
    scheduleEffectRetry: raise(
      { type: 'RETRY_EFFECT' },
      { delay: 'EFFECT_RETRY_BACKOFF', id: 'effectRetry' },
    ),
    // On leaving an effect's state, however it is left: its pending retry must not fire into the next one.
    forgetEffectFailure: enqueueActions(({ enqueue }) => {
      enqueue.assign({ effectError: null });
      enqueue(cancel('effectRetry'));
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
        TAKER_ESCROW_REFUNDED: [
          {
            guard: 'takerWasPaid',
            target: '#trade.refunded',
            actions: [
              { type: 'recordTakerRefund', params: ({ event }) => ({ signature: event.signature }) },
              { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
            ],
          },
          {
            target: '#trade.refunded',
            actions: { type: 'recordTakerRefund', params: ({ event }) => ({ signature: event.signature }) },
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
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'checkInventory' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'assessing', reenter: true } },
        },
        deciding: {
          always: [
            {
              guard: and([
                'hasFinalMatchingTakerLock',
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
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'signMakerLock' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'signingMakerLock', reenter: true } },
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
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerLock' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'sendingMakerLock', reenter: true } },
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
              makerEscrow: context.makerEscrow,
              recipient: context.takerWallet,
              preimage: context.preimage ?? '',
            }),
            onDone: {
              target: 'takerRedeemLanded',
              actions: {
                type: 'recordTakerRedeem',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'takerRedeem' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: {
            RETRY_EFFECT: { guard: 'effectFailed', target: 'redeemingForTaker', reenter: true },
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
            CHAIN_TIME_ADVANCED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
            },
            REFUND_REQUESTED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: [
                'recordRefundRequest',
                { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
              ],
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
              takerEscrow: context.takerEscrow,
              recipient: context.makerWallet,
              preimage: context.preimage ?? '',
            }),
            onDone: {
              target: '#trade.redeemed',
              actions: {
                type: 'recordMakerRedeem',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerRedeem' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: {
            RETRY_EFFECT: { guard: 'effectFailed', target: 'makerRedeeming', reenter: true },
            CHAIN_TIME_ADVANCED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
            },
            REFUND_REQUESTED: {
              guard: 'takerEscrowExpired',
              target: 'refundingTakerEscrow',
              actions: [
                'recordRefundRequest',
                { type: 'recordFailure', params: { reason: 'maker_missed_redeem', alert: true } },
              ],
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
            input: ({ context }) => ({
              tradeId: context.tradeId,
              makerEscrow: context.makerEscrow,
              initializer: context.makerWallet,
            }),
            onDone: {
              target: 'awaitingTakerExpiry',
              actions: {
                type: 'recordMakerRefund',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerRefund' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'refundingMakerEscrow', reenter: true } },
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
            input: ({ context }) => ({
              tradeId: context.tradeId,
              takerEscrow: context.takerEscrow,
              initializer: context.takerWallet,
            }),
            onDone: {
              target: '#trade.refunded',
              actions: {
                type: 'recordTakerRefund',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'takerRefund' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'refundingTakerEscrow', reenter: true } },
        },
        releasingTaker: {
          description: 'The maker cannot serve and no maker lock can land: cancel releases the taker now.',
          tags: 'effect',
          exit: 'forgetEffectFailure',
          invoke: {
            id: 'makerCancel',
            src: 'makerCancel',
            input: ({ context }) => ({
              tradeId: context.tradeId,
              takerEscrow: context.takerEscrow,
              initializer: context.takerWallet,
            }),
            onDone: {
              target: '#trade.refunded',
              actions: {
                type: 'recordTakerRefund',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerCancel' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'releasingTaker', reenter: true } },
        },
      },
    },

    // ── redeemed: the swap happened ─────────────────────────────────────────────────────────────
    redeemed: {
      description: 'Both escrows redeemed. Final.',
      initial: 'closingEscrows',
      states: {
        closingEscrows: {
          description: 'Best-effort rent reclaim of the maker escrow.',
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
            input: ({ context }) => ({
              tradeId: context.tradeId,
              makerEscrow: context.makerEscrow,
              initializer: context.makerWallet,
            }),
            onDone: [
              {
                guard: 'makerEscrowExists',
                target: 'closingEscrows',
                actions: {
                  type: 'recordMakerRefund',
                  params: ({ event }) => ({ signature: event.output.signature }),
                },
              },
              {
                target: 'closed',
                actions: [
                  'markMakerLockLapsed',
                  {
                    type: 'recordMakerRefund',
                    params: ({ event }) => ({ signature: event.output.signature }),
                  },
                ],
              },
            ],
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerRefund' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'reclaimingMakerEscrow', reenter: true } },
        },
        closingEscrows: {
          description: 'Best-effort rent reclaim of the maker escrow.',
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
            input: ({ context }) => ({
              tradeId: context.tradeId,
              takerEscrow: context.takerEscrow,
              initializer: context.takerWallet,
            }),
            onDone: {
              target: 'released',
              actions: {
                type: 'recordTakerRefund',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'makerCancel' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'releasingLateLock', reenter: true } },
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
            input: ({ context }) => ({
              tradeId: context.tradeId,
              takerEscrow: context.takerEscrow,
              initializer: context.takerWallet,
            }),
            onDone: {
              target: 'released',
              actions: {
                type: 'recordTakerRefund',
                params: ({ event }) => ({ signature: event.output.signature }),
              },
            },
            onError: {
              actions: [
                { type: 'recordEffectError', params: { effect: 'takerRefund' } },
                'scheduleEffectRetry',
              ],
            },
          },
          on: { RETRY_EFFECT: { guard: 'effectFailed', target: 'refundingLateLock', reenter: true } },
        },
        released: { tags: 'closed', type: 'final' },
      },
    },
  },
});

export type TradeMachine = typeof tradeMachine;
