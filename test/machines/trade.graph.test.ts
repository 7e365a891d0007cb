// Exhaustive state × event coverage generated from the machine itself (xstate/graph): every reachable
// state, reached by its shortest path, meets every event of a representative set. A failure prints the
// path as JSON events, replayable with `transition`.

import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  isClosed,
  lockTermsMatch,
  nextDeadline,
  settlementStatusOf,
  substateOf,
  TRADE_EFFECTS,
  TRADE_EVENT_TYPES,
  type TradeEffect,
  type TradeEvent,
  tradeMachine,
} from '../../machines/index.ts';
import { FINAL_SETTLEMENT_STATUSES, SETTLEMENT_STATUSES } from '../../src/vocabulary/index.ts';
import {
  chainTime,
  DECIDED_AT,
  finalizedLock,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  OTHER_HASH,
  PREIMAGE,
  REDEEM_BY,
  redeemRequest,
  SECRET_HASH,
  SIG,
  T0,
  TAKER_EXPIRY,
  type TradeSnapshot,
  tradeInput,
} from './trade.fixtures.ts';

const input = tradeInput();
const FOREIGN_EXPIRY = TAKER_EXPIRY + 600;
const UPPER_PREIMAGE = 'EF'.repeat(32);
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const failure = (id: string) =>
  ({ type: `xstate.error.actor.${id}`, error: 'boom' }) as unknown as TradeEvent;

/** Representative payloads per event type: each guard's both sides and each time boundary. */
const EVENTS = [
  { type: 'ABANDON', secretHash: SECRET_HASH },
  { type: 'ABANDON', secretHash: OTHER_HASH },
  { type: 'LOCK_SUBMITTED', signature: SIG.takerLock, lastValidBlockHeight: 500 },
  { type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock },
  finalizedLock(input),
  finalizedLock(input, { amountRaw: '1' }),
  finalizedLock(input, { recipient: 'SomeoneElse1111111111111111111111111111111', expiry: FOREIGN_EXPIRY }),
  { type: 'TAKER_LOCK_DROPPED', now: LOCK_DEADLINE },
  { type: 'TAKER_LOCK_DROPPED', now: LOCK_DEADLINE + 1 },
  redeemRequest(REDEEM_BY - 1),
  redeemRequest(REDEEM_BY),
  redeemRequest(REDEEM_BY - 1, OTHER_HASH),
  { type: 'REFUND_REQUESTED', now: TAKER_EXPIRY - 1 },
  { type: 'REFUND_REQUESTED', now: TAKER_EXPIRY },
  { type: 'REFUND_REQUESTED', now: FOREIGN_EXPIRY },
  { type: 'RETRY_EFFECT' },
  { type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE },
  { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
  ...[
    LOCK_DEADLINE,
    LOCK_DEADLINE + 1,
    MAKER_EXPIRY - 1,
    MAKER_EXPIRY,
    TAKER_EXPIRY - 1,
    TAKER_EXPIRY,
    FOREIGN_EXPIRY,
  ].map(chainTime),
  done('checkInventory', { available: true, now: DECIDED_AT }),
  done('checkInventory', { available: false, now: DECIDED_AT }),
  done('checkInventory', { available: true, now: T0 + 481 }),
  done('signMakerLock', { signature: SIG.makerLock, lastValidBlockHeight: 1_000, transactionBase64: 'AQID' }),
  done('makerLock', { landed: true, signature: SIG.makerLock }),
  done('makerLock', { landed: false }),
  done('takerRedeem', { signature: SIG.takerRedeem }),
  done('makerRedeem', { signature: SIG.makerRedeem }),
  done('makerRefund', { signature: SIG.makerRefund }),
  done('makerRefund', { signature: null }),
  done('makerCancel', { signature: SIG.cancel }),
  done('takerRefund', { signature: SIG.takerRefund }),
  done('closeEscrows', {}),
  ...TRADE_EFFECTS.map(failure),
] as unknown as TradeEvent[];

/**
 * Checked in every state but not traversed: a second held lock signature, adoptions, and a preimage
 * written in capitals (kept in lower case). They would multiply every later state without new
 * behaviour.
 */
const CHECK_ONLY_EVENTS = [
  { type: 'LOCK_SUBMITTED', signature: 'sig-taker-lock-2', lastValidBlockHeight: 700 },
  { type: 'TAKER_LOCK_SEEN', signature: 'sig-taker-lock-2' },
  { type: 'ADOPTED', runId: 'run-2', now: T0 + 30 },
  { type: 'ADOPTED', runId: input.runId, now: T0 + 30 },
  { ...redeemRequest(REDEEM_BY - 1), preimage: UPPER_PREIMAGE },
  { ...redeemRequest(REDEEM_BY - 1), preimage: `zz${PREIMAGE}` },
  { ...redeemRequest(REDEEM_BY - 1), preimage: `${PREIMAGE}zz` },
  { type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: UPPER_PREIMAGE },
] as unknown as TradeEvent[];
const ALL_EVENTS = [...EVENTS, ...CHECK_ONLY_EVENTS];
/**
 * An effect's done and error events come only from that effect while it runs: offered elsewhere they would
 * escalate to an errored actor, a snapshot no trade can be in. (They are still sent in every state below.)
 */
const ACTOR_EVENT = /^xstate\.(?:done|error)\.actor\.(.+)$/;
const possibleEvents = (state: TradeSnapshot) =>
  EVENTS.filter((e) => {
    const actor = ACTOR_EVENT.exec(e.type)?.[1];
    return actor === undefined || actor in state.children;
  });
/** The walk runs while the file is collected; a machine it cannot walk must still fail a test, below. */
let walkError: unknown = null;
const paths = (() => {
  try {
    return getShortestPaths(tradeMachine, { input, events: possibleEvents });
  } catch (error) {
    walkError = error;
    return [];
  }
})();
/** The path's events after xstate.init: replay with `initialTransition(tradeMachine, input)` then `transition`. */
const replayable = (steps: { event: { type: string } }[]) =>
  JSON.stringify(steps.map((s) => s.event).filter((e) => e.type !== 'xstate.init'));
const cases = paths.map((p) => ({
  name: `${substateOf(p.state)} via ${p.steps.length} steps`,
  state: p.state as TradeSnapshot,
  path: replayable(p.steps),
}));

describe('state × event coverage from xstate/graph', () => {
  it('the payload set covers every event type and every effect outcome', () => {
    const types = new Set(ALL_EVENTS.map((e) => e.type));
    for (const type of TRADE_EVENT_TYPES) expect(types).toContain(type);
    for (const effect of TRADE_EFFECTS) {
      expect(types).toContain(`xstate.done.actor.${effect}`);
      expect(types).toContain(`xstate.error.actor.${effect}`);
    }
  });

  it('the walk over every reachable state completes', () => {
    if (walkError !== null) throw walkError;
    expect(cases.length).toBeGreaterThan(500);
  });

  it('walks only states a running trade can be in', () => {
    for (const c of cases) expect(c.state.status, c.path).toBe('active');
  });

  it('reaches every leaf state of the machine', () => {
    const reached = new Set(cases.map((c) => substateOf(c.state)));
    const transient = new Set(['initiated.deciding', 'refunded.settling', 'failed.lateLockFinalized']);
    const leaves: string[] = [];
    const walk = (node: { states: Record<string, unknown> }, prefix: string[]) => {
      for (const [key, child] of Object.entries(node.states)) {
        const c = child as { states: Record<string, unknown> };
        if (Object.keys(c.states).length === 0) leaves.push([...prefix, key].join('.'));
        else walk(c, [...prefix, key]);
      }
    };
    walk(tradeMachine.root, []);
    for (const leaf of leaves.filter((l) => !transient.has(l))) expect(reached, leaf).toContain(leaf);
  });

  it.each(cases)('$name', ({ state, path }) => {
    refusedEventsChangeNothingAndFinalStatusesHold(state, path);
    acceptedExactlyWhenTheSpecSays(state, path);
    acceptedEventsLandWhereTheSpecSays(state, path);
    failedEffectsAreRetriedInPlace(state, path);
    effectOutcomesAreRecorded(state, path);
    tagsSayWhatTheStateDoes(state, path);
    safetyInvariantsHold(state, path);
    nextDeadlineWakesTimeDrivenTransitions(state, path);
  });
});

/** Where a check failed: the replayable path to the state, and the event sent there. */
const at = (path: string, event: TradeEvent) => `after path ${path}\nevent ${JSON.stringify(event)}`;

function refusedEventsChangeNothingAndFinalStatusesHold(state: TradeSnapshot, path: string) {
  const status = settlementStatusOf(state);
  expect(SETTLEMENT_STATUSES, path).toContain(status);
  for (const event of ALL_EVENTS) {
    const [next] = transition(tradeMachine, state, event);
    const where = at(path, event);
    if (!state.can(event)) {
      expect(next.value, where).toEqual(state.value);
      expect(next.context, where).toEqual(state.context);
    }
    if ((FINAL_SETTLEMENT_STATUSES as readonly string[]).includes(status)) {
      expect(settlementStatusOf(next), where).toBe(status);
    }
  }
}

function safetyInvariantsHold(state: TradeSnapshot, path: string) {
  const { context } = state;
  const count = (kind: string) => context.signatures.filter((s) => s.kind === kind).length;
  for (const kind of ['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem', 'maker_refund']) {
    expect(count(kind), `${kind} twice after ${path}`).toBeLessThanOrEqual(1);
  }
  if (count('maker_lock') > 0 || context.makerLockIntent !== null || state.matches('initiated')) {
    expect(context.takerLockTerms && lockTermsMatch(context, context.takerLockTerms), path).toBe(true);
  }
  if (context.makerExpiry !== null) {
    expect(context.assessment, path).not.toBeNull();
    expect(context.makerExpiry - (context.assessment?.now ?? 0), path).toBeGreaterThanOrEqual(
      context.minRedeemWindow,
    );
  }
  if (count('maker_redeem') > 0) expect(context.makerEscrowRedeemSeen, path).toBe(true);
  if (state.matches({ initiated: 'makerRedeeming' })) expect(context.makerEscrowRedeemSeen, path).toBe(true);
  if (context.preimage !== null)
    expect(context.redeemRequested || context.makerEscrowRedeemSeen, path).toBe(true);
  if (state.matches('redeemed')) {
    expect(context.signatures.map((s) => s.kind).slice(-2), path).toEqual(['taker_redeem', 'maker_redeem']);
  }
  if (state.matches('failed')) expect(context.makerLockIntent, path).toBeNull();
  // Every recorded movement names its transaction.
  for (const entry of context.signatures) {
    expect(typeof entry.signature === 'string' && entry.signature.length > 0, path).toBe(true);
  }
  if (context.makerLockIntent !== null) {
    expect(context.makerLockIntent.makerExpiry, path).toBe(context.makerExpiry);
  }
}

const has = (state: TradeSnapshot, kind: string) => state.context.signatures.some((s) => s.kind === kind);
const oneOf = (state: TradeSnapshot, substates: readonly string[]) => substates.includes(substateOf(state));
const AWAITING_TAKER_EXPIRY = [
  'initiated.takerRedeemLanded',
  'initiated.makerRedeeming',
  'initiated.awaitingTakerExpiry',
] as const;

/**
 * When SPEC §3 lets each command and chain fact through, written from the spec's rules rather than
 * the machine's guards; `undefined` for effect outcomes and retries, which the invariants cover.
 */
function acceptedBySpec(state: TradeSnapshot, event: TradeEvent): boolean | undefined {
  const c = state.context;
  const status = settlementStatusOf(state);
  switch (event.type) {
    case 'ABANDON':
      return (
        status === 'pending' && c.lockSignature === null && event.secretHash.toLowerCase() === c.secretHash
      );
    case 'LOCK_SUBMITTED':
      return (
        oneOf(state, ['pending.awaitingLock', 'pending.lockSubmitted']) &&
        !c.lockSubmissions.some((s) => s.signature === event.signature)
      );
    case 'TAKER_LOCK_SEEN':
      return oneOf(state, [
        'pending.awaitingLock',
        'pending.lockSubmitted',
        'failed.lockWindowOpen',
        'failed.noLock',
      ]);
    case 'TAKER_LOCK_FINALIZED':
      return (
        status === 'pending' ||
        oneOf(state, ['failed.lockWindowOpen', 'failed.noLock', 'failed.lateLockSeen'])
      );
    case 'TAKER_LOCK_DROPPED':
      return (
        (status === 'pending' && event.now > c.lockDeadline && c.lockSignature !== null) ||
        oneOf(state, ['failed.lateLockSeen'])
      );
    case 'REDEEM_REQUESTED':
      return (
        oneOf(state, ['initiated.makerLocked']) &&
        has(state, 'maker_lock') &&
        /^[0-9a-fA-F]{64}$/.test(event.preimage) &&
        event.preimageHash.toLowerCase() === c.secretHash &&
        c.makerExpiry !== null &&
        event.now < c.makerExpiry - c.landingMargin
      );
    case 'REFUND_REQUESTED':
      return (
        (oneOf(state, AWAITING_TAKER_EXPIRY) && event.now >= c.takerExpiry) ||
        (oneOf(state, ['failed.awaitingLateLockExpiry']) &&
          event.now >= (c.takerLockTerms?.expiry ?? Infinity))
      );
    case 'CHAIN_TIME_ADVANCED':
      return (
        (status === 'pending' && event.now > c.lockDeadline && c.lockSignature === null) ||
        (oneOf(state, ['initiated.makerLocked', 'initiated.redeemingForTaker']) &&
          event.now >= (c.makerExpiry ?? Infinity)) ||
        (oneOf(state, AWAITING_TAKER_EXPIRY) && event.now >= c.takerExpiry) ||
        (oneOf(state, ['failed.lockWindowOpen']) && event.now > c.lockDeadline) ||
        (oneOf(state, ['failed.awaitingLateLockExpiry']) &&
          event.now >= (c.takerLockTerms?.expiry ?? Infinity))
      );
    case 'MAKER_ESCROW_REDEEMED':
      return status === 'initiated' && !c.makerEscrowRedeemSeen;
    case 'TAKER_ESCROW_REFUNDED':
      return (
        status === 'initiated' ||
        (status === 'failed' &&
          has(state, 'taker_lock') &&
          !has(state, 'taker_refund') &&
          !has(state, 'maker_redeem'))
      );
    case 'ADOPTED':
      return event.runId !== c.currentRunId;
    case 'RETRY_EFFECT':
      // Only a failed effect is retried, in the state that runs it.
      return substateOf(state) in RETRIED_EFFECT && c.effectError !== null;
    default:
      return undefined;
  }
}

/** The machine takes exactly the commands and chain facts the spec allows, and records what they say. */
function acceptedExactlyWhenTheSpecSays(state: TradeSnapshot, path: string) {
  for (const event of ALL_EVENTS) {
    const expected = acceptedBySpec(state, event);
    if (expected === undefined) continue;
    const where = at(path, event);
    expect(state.can(event), where).toBe(expected);
    if (!expected) continue;
    const [next] = transition(tradeMachine, state, event);
    const before = state.context;
    const after = next.context;
    switch (event.type) {
      case 'ABANDON':
        expect([after.failureReason, after.abandonedWith], where).toEqual([
          'abandoned',
          lower(event.secretHash),
        ]);
        break;
      case 'LOCK_SUBMITTED':
        expect(after.lockSignature, where).toBe(event.signature);
        expect(after.lockSubmissions, where).toEqual([
          ...before.lockSubmissions,
          { signature: event.signature, lastValidBlockHeight: event.lastValidBlockHeight },
        ]);
        break;
      case 'TAKER_LOCK_SEEN':
        expect(after.lockSignature, where).toBe(event.signature);
        break;
      case 'TAKER_LOCK_FINALIZED':
        expect(after.takerLockTerms, where).toEqual(event.terms);
        expect(after.signatures, where).toContainEqual({ kind: 'taker_lock', signature: event.signature });
        break;
      case 'REDEEM_REQUESTED':
        expect([after.preimage, after.redeemRequested], where).toEqual([lower(event.preimage), true]);
        break;
      case 'MAKER_ESCROW_REDEEMED':
        expect([after.preimage, after.makerEscrowRedeemSeen], where).toEqual([lower(event.preimage), true]);
        expect(after.signatures, where).toContainEqual({ kind: 'taker_redeem', signature: event.signature });
        break;
      case 'TAKER_ESCROW_REFUNDED':
        expect(after.signatures, where).toContainEqual({ kind: 'taker_refund', signature: event.signature });
        // The taker took its escrow back after being paid from the maker escrow: the maker lost.
        if (state.matches('initiated') && has(state, 'taker_redeem')) {
          expect([after.failureReason, after.alert], where).toEqual(['maker_missed_redeem', true]);
        } else {
          expect([after.failureReason, after.alert], where).toEqual([before.failureReason, before.alert]);
        }
        break;
      case 'ADOPTED':
        expect([after.currentRunId, after.adoptedAt], where).toEqual([event.runId, event.now]);
        break;
    }
  }
}

const lower = (hex: string) => hex.toLowerCase();

function nextDeadlineWakesTimeDrivenTransitions(state: TradeSnapshot, path: string) {
  const times = EVENTS.filter((e) => e.type === 'CHAIN_TIME_ADVANCED');
  const deadline = nextDeadline(state);
  if (times.some((e) => state.can(e))) {
    expect(deadline, path).not.toBeNull();
    expect(state.can(chainTime(deadline ?? 0)), path).toBe(true);
    expect(state.can(chainTime((deadline ?? 0) - 1)), path).toBe(false);
  }
  if (deadline !== null && !state.matches('pending')) {
    expect(state.can(chainTime(deadline)) || state.can(chainTime(deadline + 1)), path).toBe(true);
  }
}

/** Where an accepted command or chain fact leaves the trade, and what it records as the outcome. */
interface Landing {
  substate: string;
  failureReason: string | null;
  alert: boolean;
  refundRequested: boolean;
}

/**
 * SPEC §3 restated as a table of landings (after eventless steps settle), with the failure reasons of the
 * API's vocabulary: which substate each accepted event leads to and the outcome it records.
 */
function landingBySpec(state: TradeSnapshot, event: TradeEvent): Landing {
  const c = state.context;
  const sub = substateOf(state);
  const status = settlementStatusOf(state);
  const keep = { failureReason: c.failureReason, alert: c.alert, refundRequested: c.refundRequested };
  const land = (substate: string, change: Partial<Omit<Landing, 'substate'>> = {}): Landing => ({
    substate,
    ...keep,
    ...change,
  });
  // The maker missed its redeem once the taker was paid from the maker escrow and the taker escrow goes back.
  const takerWasPaid = c.makerEscrowRedeemSeen || has(state, 'taker_redeem');
  const makerMissedRedeem = { failureReason: 'maker_missed_redeem', alert: true };
  switch (event.type) {
    case 'ABANDON':
      return land('failed.lockWindowOpen', { failureReason: 'abandoned' });
    case 'LOCK_SUBMITTED':
      return land('pending.lockSubmitted');
    case 'TAKER_LOCK_SEEN':
      return land(status === 'pending' ? 'pending.lockSeen' : 'failed.lateLockSeen');
    case 'TAKER_LOCK_FINALIZED': {
      if (status === 'pending' && lockTermsMatch(c, event.terms)) return land('initiated.assessing');
      // Never this trade's: release it at once if it is a lock of our escrow paying us, else wait it out.
      const cancellable = event.terms.escrow === c.takerEscrow && event.terms.recipient === c.makerWallet;
      const where = cancellable ? 'failed.releasingLateLock' : 'failed.awaitingLateLockExpiry';
      return land(where, status === 'pending' ? { failureReason: 'lock_terms_mismatch' } : {});
    }
    case 'TAKER_LOCK_DROPPED':
      return status === 'pending'
        ? land('failed.lockWindowOpen', { failureReason: 'lock_not_landed' })
        : land('failed.noLock');
    case 'REDEEM_REQUESTED':
      return land('initiated.redeemingForTaker');
    case 'MAKER_ESCROW_REDEEMED':
      return land('initiated.makerRedeeming');
    case 'TAKER_ESCROW_REFUNDED': {
      if (status === 'failed') return land('failed.released');
      const makerLocked = has(state, 'maker_lock');
      const makerEscrowSettled = has(state, 'taker_redeem') || has(state, 'maker_refund');
      const lockMayLand = c.makerLockIntent !== null && !c.makerLockIntent.lapsed;
      const where = (makerLocked ? !makerEscrowSettled : lockMayLand)
        ? 'refunded.reclaimingMakerEscrow'
        : makerLocked
          ? 'refunded.closingEscrows'
          : 'refunded.closed';
      return land(where, takerWasPaid ? makerMissedRedeem : {});
    }
    case 'CHAIN_TIME_ADVANCED':
    case 'REFUND_REQUESTED': {
      const requested = event.type === 'REFUND_REQUESTED' ? { refundRequested: true } : {};
      if (status === 'pending')
        return land('failed.lockWindowOpen', { failureReason: 'lock_window_expired' });
      if (sub === 'failed.lockWindowOpen') return land('failed.noLock');
      if (sub === 'failed.awaitingLateLockExpiry') return land('failed.refundingLateLock', requested);
      if (sub === 'initiated.makerLocked' || sub === 'initiated.redeemingForTaker') {
        return land('initiated.refundingMakerEscrow', { failureReason: 'maker_escrow_expired' });
      }
      return land('initiated.refundingTakerEscrow', {
        ...requested,
        ...(sub === 'initiated.awaitingTakerExpiry' ? {} : makerMissedRedeem),
      });
    }
    case 'ADOPTED':
    case 'RETRY_EFFECT':
      return land(sub);
    default:
      throw new Error(`no landing for ${(event as { type: string }).type}`);
  }
}

function acceptedEventsLandWhereTheSpecSays(state: TradeSnapshot, path: string) {
  for (const event of ALL_EVENTS) {
    if (acceptedBySpec(state, event) !== true) continue;
    const [next] = transition(tradeMachine, state, event);
    const { failureReason, alert, refundRequested } = next.context;
    expect({ substate: substateOf(next), failureReason, alert, refundRequested }, at(path, event)).toEqual(
      landingBySpec(state, event),
    );
  }
}

/** The states that run an effect until it succeeds, and the effect each runs. */
const RETRIED_EFFECT: Record<string, TradeEffect> = {
  'initiated.assessing': 'checkInventory',
  'initiated.signingMakerLock': 'signMakerLock',
  'initiated.sendingMakerLock': 'makerLock',
  'initiated.redeemingForTaker': 'takerRedeem',
  'initiated.makerRedeeming': 'makerRedeem',
  'initiated.refundingMakerEscrow': 'makerRefund',
  'initiated.refundingTakerEscrow': 'takerRefund',
  'initiated.releasingTaker': 'makerCancel',
  'refunded.reclaimingMakerEscrow': 'makerRefund',
  'failed.releasingLateLock': 'makerCancel',
  'failed.refundingLateLock': 'takerRefund',
};
/** Closing escrows only returns rent: a failure gives up and closes the trade. */
const BEST_EFFORT_EFFECT: Record<string, TradeEffect> = {
  'redeemed.closingEscrows': 'closeEscrows',
  'refunded.closingEscrows': 'closeEscrows',
};

/**
 * A failed effect is recorded by name and retried in place after the backoff: the state is re-entered,
 * the pending retry cancelled, and the same effect started again; success forgets the failure.
 */
function failedEffectsAreRetriedInPlace(state: TradeSnapshot, path: string) {
  const sub = substateOf(state);
  const bestEffort = BEST_EFFORT_EFFECT[sub];
  if (bestEffort !== undefined) {
    const [next] = transition(tradeMachine, state, failure(bestEffort));
    expect([substateOf(next), next.context.effectError], path).toEqual([
      sub.replace('closingEscrows', 'closed'),
      null,
    ]);
    return;
  }
  const effect = RETRIED_EFFECT[sub];
  if (effect === undefined) return;
  const where = `${effect} failing after path ${path}`;
  const [failed, onError] = transition(tradeMachine, state, failure(effect));
  expect(substateOf(failed), where).toBe(sub);
  expect(failed.context.effectError, where).toEqual({ effect, message: 'boom' });
  expect(onError, where).toContainEqual(
    expect.objectContaining({
      type: 'xstate.raise',
      params: expect.objectContaining({ event: { type: 'RETRY_EFFECT' }, id: 'effectRetry' }),
    }),
  );

  const [retried, onRetry] = transition(tradeMachine, failed, { type: 'RETRY_EFFECT' });
  expect(substateOf(retried), where).toBe(sub);
  expect(retried.context.effectError, where).toBeNull();
  expect(onRetry, where).toContainEqual(
    expect.objectContaining({ type: 'xstate.cancel', params: { sendId: 'effectRetry' } }),
  );
  expect(onRetry, where).toContainEqual(
    expect.objectContaining({
      type: 'xstate.spawnChild',
      params: expect.objectContaining({ id: effect, src: effect }),
    }),
  );

  // Whatever success the effect reports, the trade moves on without the failure or its pending retry.
  for (const event of EVENTS.filter((e) => e.type === `xstate.done.actor.${effect}` && failed.can(e))) {
    const [next, onDone] = transition(tradeMachine, failed, event);
    expect(next.context.effectError, where).toBeNull();
    expect(onDone, where).toContainEqual(
      expect.objectContaining({ type: 'xstate.cancel', params: { sendId: 'effectRetry' } }),
    );
  }
}

/** Final states where nothing of the trade is left in any escrow: the runtime may drop their actors. */
const CLOSED_SUBSTATES = ['redeemed.closed', 'refunded.closed', 'failed.noLock', 'failed.released'];

/** `effect` marks exactly the states that invoke one (the visualiser shows it); `closed` exactly the closed ones. */
function tagsSayWhatTheStateDoes(state: TradeSnapshot, path: string) {
  const sub = substateOf(state);
  const invokes = state._nodes.some((node) => node.invoke.length > 0);
  expect(state.hasTag('effect'), path).toBe(invokes);
  expect(invokes, path).toBe(sub in RETRIED_EFFECT || sub in BEST_EFFORT_EFFECT);
  expect(state.hasTag('closed'), path).toBe(CLOSED_SUBSTATES.includes(sub));
  expect(isClosed(state), path).toBe(CLOSED_SUBSTATES.includes(sub));
}

/** The movement each effect's reported signature records (SPEC §3 signature kinds). */
const RECORDED_AS: Partial<Record<TradeEffect, string>> = {
  makerLock: 'maker_lock',
  takerRedeem: 'taker_redeem',
  makerRedeem: 'maker_redeem',
  makerRefund: 'maker_refund',
  makerCancel: 'taker_refund',
  takerRefund: 'taker_refund',
};

/** Whatever an effect reports is recorded: its transaction under the movement's kind, or nothing. */
function effectOutcomesAreRecorded(state: TradeSnapshot, path: string) {
  for (const event of EVENTS) {
    const effect = ACTOR_EVENT.exec(event.type)?.[1] as TradeEffect | undefined;
    if (effect === undefined || !event.type.startsWith('xstate.done.') || !state.can(event)) continue;
    const [next] = transition(tradeMachine, state, event);
    const signature = (event as unknown as { output: { signature?: string | null } }).output.signature;
    const kind = RECORDED_AS[effect];
    const where = at(path, event);
    if (kind !== undefined && typeof signature === 'string') {
      expect(next.context.signatures, where).toContainEqual({ kind, signature });
    } else {
      expect(next.context.signatures, where).toEqual(state.context.signatures);
    }
  }
}
