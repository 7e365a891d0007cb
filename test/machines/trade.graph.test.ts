// Exhaustive state × event coverage generated from the machine itself (xstate/graph): every reachable
// state, reached by its shortest path, meets every event of a representative set. A failure prints the
// path as JSON events, replayable with `transition`.

import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  lockTermsMatch,
  nextDeadline,
  settlementStatusOf,
  substateOf,
  TRADE_EFFECTS,
  TRADE_EVENT_TYPES,
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
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const failure = (id: string) => ({ type: `xstate.error.actor.${id}`, error: 'boom' });

/** Representative payloads per event type: each guard's both sides and each time boundary. */
const EVENTS = [
  { type: 'ABANDON', secretHash: SECRET_HASH },
  { type: 'ABANDON', secretHash: OTHER_HASH },
  { type: 'LOCK_SUBMITTED', signature: SIG.takerLock, lastValidBlockHeight: 500 },
  { type: 'LOCK_SUBMITTED', signature: 'sig-taker-lock-2', lastValidBlockHeight: 700 },
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
  { type: 'ADOPTED', runId: 'run-2', now: T0 + 30 },
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
 * Traversal uses one payload of each command that only adds bookkeeping (a second held lock signature,
 * an adoption), which would multiply every later state without new behaviour; the checks below still
 * send the full set in every state.
 */
const TRAVERSAL_EVENTS = EVENTS.filter(
  (e) => e.type !== 'ADOPTED' && !(e.type === 'LOCK_SUBMITTED' && e.signature !== SIG.takerLock),
);
const paths = getShortestPaths(tradeMachine, { input, events: TRAVERSAL_EVENTS });
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
    const types = new Set(EVENTS.map((e) => e.type));
    for (const type of TRADE_EVENT_TYPES) expect(types).toContain(type);
    for (const effect of TRADE_EFFECTS) {
      expect(types).toContain(`xstate.done.actor.${effect}`);
      expect(types).toContain(`xstate.error.actor.${effect}`);
    }
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
    safetyInvariantsHold(state, path);
    nextDeadlineWakesTimeDrivenTransitions(state, path);
  });
});

function refusedEventsChangeNothingAndFinalStatusesHold(state: TradeSnapshot, path: string) {
  const status = settlementStatusOf(state);
  expect(SETTLEMENT_STATUSES, path).toContain(status);
  for (const event of EVENTS) {
    const [next] = transition(tradeMachine, state, event);
    const where = `after path ${path}\nevent ${JSON.stringify(event)}`;
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
}

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
