// The trade machine's vocabulary for xstate: its types, every named guard and action, and placeholders for
// the effects the runtime provides; `effectState` builds the states that run one. trade.machine.ts arranges
// them into the statechart.
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { isPreimage, sameHash32 } from '../src/vocabulary/index.ts';
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
  withSignature,
} from './trade.rules.ts';
import type {
  AttestMintOutput,
  CheckInventoryOutput,
  EffectInput,
  EffectOutput,
  EscrowEnding,
  FailureReason,
  MakerLockOutput,
  SendMintOutput,
  SendSourcingOutput,
  SignMakerLockOutput,
  SignMintOutput,
  SignSourcingOutput,
  TradeContext,
  TradeEffect,
  TradeEvent,
  TradeInput,
  TradeSignature,
  TradeStateMeta,
  TradeTag,
} from './trade.types.ts';

/** The bare machine's effect: the runtime provides the real one (`tradeMachine.provide({ actors })`). */
const notProvided = <E extends TradeEffect>(effect: E) =>
  fromPromise(async (_: { input: EffectInput<E> }): Promise<EffectOutput<E>> => {
    throw new Error(`trade effect ${effect} is not provided by the runtime`);
  });

const nowOf = (event: TradeEvent): number => ('now' in event ? event.now : Number.NaN);

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

/**
 * A movement's signature added to the list (once); nothing when there is none (an effect that found its
 * escrow never funded).
 */
/** A failed swap of the maker's, appended once. */
const withFailedSwap = (signatures: readonly TradeSignature[], signature: string): TradeSignature[] =>
  signatures.some((s) => s.signature === signature)
    ? [...signatures]
    : [...signatures, { kind: 'aggregator_swap', signature, outcome: 'failed' }];

const signed = (
  context: TradeContext,
  kind: TradeSignature['kind'],
  signature: string | null,
): Partial<Pick<TradeContext, 'signatures'>> =>
  signature === null ? {} : { signatures: withSignature(context.signatures, kind, signature) };

export const tradeSetup = setup({
  types: {
    input: {} as TradeInput,
    context: {} as TradeContext,
    events: {} as TradeEvent,
    meta: {} as TradeStateMeta,
    tags: {} as TradeTag,
  },
  actors: {
    broadcastTakerLock: notProvided('broadcastTakerLock'),
    checkInventory: notProvided('checkInventory'),
    signSourcing: notProvided('signSourcing'),
    sendSourcing: notProvided('sendSourcing'),
    signMint: notProvided('signMint'),
    attestMint: notProvided('attestMint'),
    sendMint: notProvided('sendMint'),
    signMakerLock: notProvided('signMakerLock'),
    makerLock: notProvided('makerLock'),
    takerRedeem: notProvided('takerRedeem'),
    makerRedeem: notProvided('makerRedeem'),
    makerRefund: notProvided('makerRefund'),
    makerCancel: notProvided('makerCancel'),
    takerRefund: notProvided('takerRefund'),
    closeEscrows: notProvided('closeEscrows'),
  },
  guards: {
    // pending
    secretHashMatches: ({ context, event }) => {
      assertEvent(event, 'ABANDON');
      return sameHash32(context.secretHash, event.secretHash);
    },
    hasNoLockSignature: ({ context }) => context.lockSignature === null,
    hasLockSignature: ({ context }) => context.lockSignature !== null,
    isNewLockSignature: ({ context, event }) => {
      assertEvent(event, 'LOCK_SUBMITTED');
      return !context.lockSubmissions.some((s) => s.signature === event.signature);
    },
    /** The service was handed the lock's bytes (not only the signature of a lock the wallet sent itself). */
    submittedLockHasBytes: ({ event }) => {
      assertEvent(event, 'LOCK_SUBMITTED');
      return event.transactionBase64 !== null;
    },
    lockWindowClosed: ({ context, event }) => nowOf(event) > context.lockDeadline,
    lockTermsMatch: ({ context, event }) => {
      assertEvent(event, ['TAKER_LOCK_FINALIZED', 'TAKER_LOCK_CONFIRMED']);
      return lockTermsMatch(context, event.terms);
    },
    /**
     * The commitment policy admits the trade on a confirmed taker lock: its notional under the per-trade cap,
     * the notional locked against locks not final yet under the total cap, finality keeping up. The runtime
     * provides it (its exposure book, which counts the trade once it says yes); the bare machine always waits
     * for finality.
     */
    confirmedLockAdmitted: () => false,
    /** The maker went on the taker lock at confirmed and it is not final yet: a fork may still take it back. */
    takerLockConfirmedOnly: ({ context }) => context.takerLockConfirmedOnly,
    /** The lock now final is the one the maker went on at confirmed. */
    isRecordedTakerLock: ({ context, event }) => {
      assertEvent(event, 'TAKER_LOCK_FINALIZED');
      return context.signatures.some((s) => s.kind === 'taker_lock' && s.signature === event.signature);
    },
    /** No taker lock is recorded (a fork took the one the maker went on back). */
    hasNoTakerLock: ({ context }) => !hasSignature(context, 'taker_lock'),

    // the maker's decision to lock
    hasFinalMatchingTakerLock: ({ context }) =>
      hasSignature(context, 'taker_lock') &&
      context.takerLockTerms !== null &&
      lockTermsMatch(context, context.takerLockTerms),
    hasNoMakerLockIntent: ({ context }) => context.makerLockIntent === null,
    /** The maker lock a fork took back is the one the kept intent signed (the only one that could land). */
    isTheMakerLockIntent: ({ context, event }) => {
      assertEvent(event, 'MAKER_LOCK_ROLLED_BACK');
      return context.makerLockIntent !== null && context.makerLockIntent.signature === event.signature;
    },
    /** No maker lock could still land from an earlier signature: none was signed, or it is proved lapsed. */
    hasNoLiveMakerLockIntent: ({ context }) =>
      context.makerLockIntent === null || context.makerLockIntent.lapsed,
    /**
     * The maker lock expired unseen (never refused), and chain time is still before the lock deadline the
     * program enforces on a maker lock (maker expiry − minimum redeem window): a lock signed afresh with the
     * same terms may still land, and still leaves the taker its redeem window.
     */
    makerLockMaySignAgain: ({ context }, params: MakerLockOutput) =>
      !params.landed &&
      params.expired &&
      context.makerExpiry !== null &&
      params.now < context.makerExpiry - context.minRedeemWindow,
    inventoryAvailable: ({ context }) => context.assessment?.available === true,
    /**
     * The quote sourced part of the output through an aggregator, and that swap has not landed nor is one
     * signed that could still land.
     */
    needsSourcing: ({ context }) =>
      context.sourcing !== null &&
      context.sourced === null &&
      (context.sourcingIntent === null || context.sourcingIntent.lapsed),
    sourcingSigned: (_, params: SignSourcingOutput) => params.ok,
    sourcingLanded: (_, params: SendSourcingOutput) => params.landed,
    /**
     * The sourcing swap expired unseen, and a swap signed afresh would still leave time for a maker lock that
     * leaves the taker its redeem window.
     */
    sourcingMaySignAgain: ({ context }, params: SendSourcingOutput) =>
      !params.landed && params.expired && leavesMinRedeemWindow(context, params.now),
    /**
     * The sourcing swap landed and failed for its minimum out (the route moved, or was moved against it),
     * no swap of the trade failed before, and a swap quoted afresh would still leave time for a maker lock
     * that leaves the taker its redeem window: quote it once more.
     */
    sourcingMayRequote: ({ context }, params: SendSourcingOutput) =>
      !params.landed &&
      params.failed?.slippage === true &&
      !context.signatures.some((s) => s.kind === 'aggregator_swap' && s.outcome === 'failed') &&
      leavesMinRedeemWindow(context, params.now),
    /**
     * The maker's Solana USDC falls short of what the trade needs and its Gateway can mint the rest, and the
     * trade has signed no mint yet: one mint a trade, whatever comes of it. Only before any sourcing swap is
     * signed (the mint comes first): after one, the USDC it sold is no shortfall to mint.
     */
    needsMinting: ({ context }) =>
      context.mintIntent === null &&
      context.sourcingIntent === null &&
      context.assessment?.mintRaw !== undefined &&
      context.assessment.mintRaw !== null &&
      BigInt(context.assessment.mintRaw) > 0n,
    mintSigned: (_, params: SignMintOutput) => params.ok,
    mintAttested: (_, params: AttestMintOutput) => params.ok,
    mintLanded: (_, params: SendMintOutput) => params.landed,
    /**
     * The gatewayMint expired unseen (its blockhash passed, the attestation still mintable), and one signed
     * afresh from the same attestation would still leave time for a maker lock within the redeem window. The
     * attestation's transfer spec hash lets only one of them mint.
     */
    mintMaySignAgain: ({ context }, params: SendMintOutput) =>
      !params.landed && params.expired && leavesMinRedeemWindow(context, params.now),
    /** The trade re-priced now is within tolerance of its quote (or no re-pricing applies). */
    priceHolds: ({ context }) => context.assessment !== null && (context.assessment.price?.holds ?? true),
    priceMoved: ({ context }) => context.assessment?.price?.reason === 'price_moved',
    leavesMinRedeemWindow: ({ context }) =>
      context.assessment !== null && leavesMinRedeemWindow(context, context.assessment.now),
    noMakerLockCanLand: ({ context }) => noMakerLockCanLand(context),
    makerLockLanded: (_, params: { landed: boolean }) => params.landed,
    // redeem
    preimageMatchesSecretHash: ({ context, event }) => {
      assertEvent(event, 'REDEEM_REQUESTED');
      return isPreimage(event.preimage) && sameHash32(event.preimageHash, context.secretHash);
    },
    makerLockOnChain: ({ context }) => hasSignature(context, 'maker_lock'),
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
      params.ending.kind === 'paid' && params.ending.preimage !== null && isPreimage(params.ending.preimage),
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
    /** A failed effect waits for its retry (none is running). */
    effectRetryPending: ({ context }) => context.effectError !== null && context.effectError.retryAt !== null,
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
      return { abandonedWith: event.secretHash, failureReason: 'abandoned' as const };
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
          {
            signature: event.signature,
            lastValidBlockHeight: event.lastValidBlockHeight,
            transactionBase64: event.transactionBase64,
          },
        ],
      };
    }),
    recordLockSeen: assign(({ event }) => {
      assertEvent(event, 'TAKER_LOCK_SEEN');
      return { lockSignature: event.signature };
    }),
    recordTakerLock: assign(({ context, event }) => {
      assertEvent(event, ['TAKER_LOCK_FINALIZED', 'TAKER_LOCK_CONFIRMED']);
      return {
        lockSignature: event.signature,
        takerLockTerms: event.terms,
        ...signed(context, 'taker_lock', event.signature),
      };
    }),
    /** The maker goes on this lock at confirmed: a fork may take it back until it is final. */
    markTakerLockConfirmedOnly: assign({ takerLockConfirmedOnly: true }),
    markTakerLockFinal: assign({ takerLockConfirmedOnly: false }),
    /** Nothing of the maker's rides on the lock a fork took back (no maker lock was signed): the trade fails. */
    leaveConfirmedLock: assign({ takerLockConfirmedOnly: false }),
    /**
     * A fork took these movements back: they leave the trade's signatures (the ledger reverses them), and the
     * taker lock's terms go with the lock; the lock held or seen may land again, and is looked for afresh.
     */
    forgetRolledBack: assign(({ context, event }) => {
      assertEvent(event, 'TAKER_LOCK_ROLLED_BACK');
      const dropped = (s: TradeSignature) =>
        event.dropped.some((d) => d.kind === s.kind && d.signature === s.signature);
      const signatures = context.signatures.filter((s) => !dropped(s));
      const lockGone = !signatures.some((s) => s.kind === 'taker_lock');
      return {
        signatures,
        ...(lockGone ? { takerLockTerms: null, lockSignature: null } : {}),
      };
    }),
    recordAssessment: assign((_, params: CheckInventoryOutput) => ({
      assessment: {
        available: params.available,
        now: params.now,
        price: params.price ?? null,
        mintRaw: params.mintRaw ?? null,
      },
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
    recordSourcingIntent: assign((_, params: SignSourcingOutput) =>
      params.ok
        ? {
            sourcingIntent: {
              signature: params.signature,
              lastValidBlockHeight: params.lastValidBlockHeight,
              transactionBase64: params.transactionBase64,
              lapsed: false,
            },
          }
        : {},
    ),
    recordMintIntent: assign((_, params: SignMintOutput) =>
      params.ok ? { mintIntent: { ...params.intent, attestation: null, transaction: null } } : {},
    ),
    recordMintAttestation: assign(({ context }, params: AttestMintOutput) =>
      params.ok && context.mintIntent !== null
        ? {
            mintIntent: {
              ...context.mintIntent,
              attestation: params.attestation,
              transaction: { ...params.transaction, lapsed: false },
            },
          }
        : {},
    ),
    markMintLapsed: assign(({ context }) => ({
      mintIntent: context.mintIntent && {
        ...context.mintIntent,
        transaction: context.mintIntent.transaction && { ...context.mintIntent.transaction, lapsed: true },
      },
    })),
    recordMinted: assign(({ context }, params: SendMintOutput) =>
      params.landed ? signed(context, 'gateway_mint', params.signature) : {},
    ),
    markSourcingLapsed: assign(({ context }) => ({
      sourcingIntent: context.sourcingIntent && { ...context.sourcingIntent, lapsed: true },
    })),
    /** A sourcing swap that landed and failed shows among the trade's signatures, as failed. */
    recordFailedSourcing: assign(({ context }, params: SendSourcingOutput) =>
      !params.landed && params.failed !== undefined
        ? { signatures: withFailedSwap(context.signatures, params.failed.signature) }
        : {},
    ),
    recordSourced: assign(({ context }, params: SendSourcingOutput) =>
      params.landed
        ? {
            sourced: { signature: params.signature, soldRaw: params.soldRaw, boughtRaw: params.boughtRaw },
            ...signed(context, 'aggregator_swap', params.signature),
          }
        : {},
    ),
    /**
     * The intent's lock is proved unable to land. Had it landed at confirmed before a fork took it back, its
     * movement goes too (the ledger reverses it); the lock signed afresh lands under its own signature.
     */
    markMakerLockLapsed: assign(({ context }) => {
      const lapsed = context.makerLockIntent;
      if (lapsed === null) return {};
      const gone = (s: TradeSignature) => s.kind === 'maker_lock' && s.signature === lapsed.signature;
      return {
        makerLockIntent: { ...lapsed, lapsed: true },
        ...(context.signatures.some(gone) ? { signatures: context.signatures.filter((s) => !gone(s)) } : {}),
      };
    }),
    recordMakerLock: assign(({ context }, params: { signature: string | null }) =>
      signed(context, 'maker_lock', params.signature),
    ),
    /** A maker escrow found on chain can only come from the intent (its address is unique to the trade). */
    recordMakerLockOfIntent: assign(({ context }) =>
      context.makerLockIntent === null
        ? {}
        : signed(context, 'maker_lock', context.makerLockIntent.signature),
    ),
    /**
     * The maker escrow is back with the maker (its lock, landed, and its refund or the taker's cancel), or
     * never held anything: the lock signed is then proved lapsed.
     */
    recordMakerEscrowBack: assign(({ context }, params: { ending: EscrowEnding | { kind: 'absent' } }) => {
      const { ending } = params;
      if (ending.kind === 'absent') {
        return { makerLockIntent: context.makerLockIntent && { ...context.makerLockIntent, lapsed: true } };
      }
      if (ending.kind !== 'returned' || context.makerLockIntent === null) return {};
      const locked = withSignature(context.signatures, 'maker_lock', context.makerLockIntent.signature);
      return { signatures: withSignature(locked, 'maker_refund', ending.signature) };
    }),
    recordRedeemRequest: assign(({ event }) => {
      assertEvent(event, 'REDEEM_REQUESTED');
      return { preimage: event.preimage, redeemRequested: true };
    }),
    recordTakerRedeem: assign(({ context }, params: { signature: string | null }) =>
      signed(context, 'taker_redeem', params.signature),
    ),
    recordMakerEscrowRedeemed: assign(({ context, event }) => {
      assertEvent(event, 'MAKER_ESCROW_REDEEMED');
      return {
        preimage: event.preimage,
        makerEscrowRedeemSeen: true,
        ...signed(context, 'taker_redeem', event.signature),
      };
    }),
    /** The same as MAKER_ESCROW_REDEEMED, learnt from an effect that found the maker escrow paid. */
    recordMakerEscrowPaid: assign(({ context }, params: { ending: EscrowEnding | { kind: 'absent' } }) =>
      params.ending.kind === 'paid' && params.ending.preimage !== null
        ? {
            preimage: params.ending.preimage,
            makerEscrowRedeemSeen: true,
            ...signed(context, 'taker_redeem', params.ending.signature),
          }
        : {},
    ),
    recordMakerRedeem: assign(({ context }, params: { signature: string | null }) =>
      signed(context, 'maker_redeem', params.signature),
    ),
    recordMakerRefund: assign(({ context }, params: { signature: string | null }) =>
      signed(context, 'maker_refund', params.signature),
    ),
    recordTakerRefund: assign(({ context }, params: { signature: string | null }) =>
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
    // is re-entered by its own retry (when due, or once the chain answers again), which counts on.
    forgetEffectFailure: assign(({ event }) =>
      event.type === 'RETRY_EFFECT' || event.type === 'CHAIN_REACHABLE' ? {} : { effectError: null },
    ),
  },
});

/** A state's config, checked against the machine's names: guards, actions, effects, tags and meta. */
export type TradeStateConfig = Parameters<typeof tradeSetup.createStateConfig>[0];
/** One effect's invoke as xstate types it: the input and the done event's output follow the effect. */
type EffectInvoke = Extract<NonNullable<TradeStateConfig['invoke']>, { src: TradeEffect }>;
/** Per effect, what its state says about the invoke: the effect, its input, where its answer leads. */
type EffectOf<I> = I extends EffectInvoke ? Pick<I, 'src' | 'input' | 'onDone'> : never;

/** The done transitions of one effect's state, typed by what the effect answers. */
export type EffectDone<E extends TradeEffect> = Extract<EffectStateConfig, { src: E }>['onDone'];
/** A state's event transitions, for those several states share. */
export type TradeTransitions = NonNullable<TradeStateConfig['on']>;

/** What an effect state states for itself; the rest is the same in every one (see `effectState`). */
export type EffectStateConfig = Omit<
  TradeStateConfig,
  'tags' | 'exit' | 'invoke' | 'states' | 'initial' | 'onDone'
> &
  EffectOf<EffectInvoke>;

/**
 * A state that runs one effect until it answers, tagged `effect`. A rejection records `effectError` with
 * its retry time (recordEffectError); RETRY_EFFECT then re-enters the state, running the effect again, once
 * that time has come (effectRetryDue, markRetryRunning) — or at once when the chain answers again after an
 * outage (CHAIN_REACHABLE): a backoff grown during the outage must not delay the maker once it can act.
 * Leaving the state any other way forgets its
 * failures (forgetEffectFailure). `state` is the state's own key, the retry's target.
 */
export function effectState(
  state: string,
  { src, input, onDone, on, ...rest }: EffectStateConfig,
): Omit<TradeStateConfig, 'states' | 'initial'> {
  const onError: EffectInvoke['onError'] = {
    actions: { type: 'recordEffectError', params: { effect: src } },
  };
  const invoke = { id: src, src, input, onDone, onError };
  return tradeSetup.createStateConfig({
    ...rest,
    tags: 'effect',
    exit: 'forgetEffectFailure',
    // Taken apart above, src, input and onDone no longer show TypeScript that they name one effect. (Only
    // the name is asserted: Stryker leaves whatever an `as` wraps unmutated.)
    invoke: invoke as EffectInvoke,
    on: {
      RETRY_EFFECT: { guard: 'effectRetryDue', target: state, reenter: true, actions: 'markRetryRunning' },
      CHAIN_REACHABLE: {
        guard: 'effectRetryPending',
        target: state,
        reenter: true,
        actions: 'markRetryRunning',
      },
      ...on,
    },
  });
}
