// Exhaustive state × event coverage generated from the machine itself (a breadth-first walk over its pure
// transition: the paths xstate/graph's getShortestPaths finds): every reachable state, reached by its shortest
// path, meets every event of a representative set — commands, chain facts, every ending each running effect
// can answer, its failure, and retries before and at their time. A failure prints the path as JSON events,
// replayable with `transition`.

import { describe, expect, it } from 'vitest';
import { type AnyActorScope, createEmptyActor } from 'xstate';
import {
  type AttestMintOutput,
  type CheckInventoryOutput,
  type EscrowEnding,
  effectRetryDelay,
  isClosed,
  lockTermsMatch,
  type MakerRefundOutput,
  type MintIntent,
  nextDeadline,
  type PriceCheck,
  type SendMintOutput,
  type SendSourcingOutput,
  type SignMintOutput,
  type SignSourcingOutput,
  settlementStatusOf as settlementStatusOfSnapshot,
  substateOf as substateOfSnapshot,
  TRADE_EFFECTS,
  TRADE_EVENT_TYPES,
  type TradeContext,
  type TradeEffect,
  type TradeEvent,
  type TradeSignature,
  tradeMachine,
} from '../../machines/index.ts';
import { ESCROW_MOVEMENTS } from '../../src/ledger/index.ts';
import { FINAL_SETTLEMENT_STATUSES, type Preimage, SETTLEMENT_STATUSES } from '../../src/vocabulary/index.ts';
import {
  ABSENT,
  chainTime,
  confirmedLock,
  DECIDED_AT,
  finalizedLock,
  LOCK_DEADLINE,
  MAKER_EXPIRY,
  OTHER_HASH,
  PREIMAGE,
  paid,
  REDEEM_BY,
  redeemRequest,
  returned,
  rolledBack,
  SECRET_HASH,
  SIG,
  T0,
  TAKER_EXPIRY,
  type TradeSnapshot,
  tradeInput,
} from './trade.fixtures.ts';

/**
 * The machine's own readings of a state (machines/), each made once per state value: the checks ask them of
 * every state and every next state again and again (a tenth of the file's time).
 */
const memoOf = <T>(read: (snapshot: Pick<TradeSnapshot, 'value'>) => T) => {
  const memo = new WeakMap<object, T>();
  return (snapshot: Pick<TradeSnapshot, 'value'>): T => {
    const { value } = snapshot;
    if (typeof value !== 'object') return read(snapshot);
    const known = memo.get(value);
    if (known !== undefined) return known;
    const reading = read(snapshot);
    memo.set(value, reading);
    return reading;
  };
};
const substateOf = memoOf(substateOfSnapshot);
const settlementStatusOf = memoOf(settlementStatusOfSnapshot);

/**
 * The walk runs twice: a trade whose quote sourced part of its output just in time (it always buys that part
 * before it locks), and one without a plan (it locks from inventory). Every state is reached by the first;
 * the second walks the lock from inventory, with contexts that never saw a sourcing step.
 */
const SOURCING_PLAN = {
  sellMint: 'InputMint11111111111111111111111111111111',
  sellRaw: '400000',
  buyMint: 'OutputMint1111111111111111111111111111111',
  minBuyRaw: '3000000000000000000',
};
const input = tradeInput({ sourcing: SOURCING_PLAN });
/**
 * The machine walked: the commitment policy's guard (the runtime's exposure book) admits every trade, so the
 * path through a confirmed taker lock — and a fork taking it back — is walked too. Walked for the trade
 * without a sourcing plan only, which is enough to reach every state that path adds.
 */
const machine = tradeMachine.provide({ guards: { confirmedLockAdmitted: () => true } });
const inventoryInput = tradeInput();
const FOREIGN_EXPIRY = TAKER_EXPIRY + 600;
const UPPER_PREIMAGE = 'EF'.repeat(32);
/** The chain time the walk's effects fail at: their retries are scheduled from it. */
const FAILED_AT = T0 + 200;
/** The program refuses a maker lock after this: maker expiry − the minimum redeem window. */
const MAKER_LOCK_DEADLINE = MAKER_EXPIRY - input.minRedeemWindow;
const PRICE_HOLDS: PriceCheck = {
  holds: true,
  reason: null,
  quotedMid: '150',
  currentMid: '149.5',
  movedBps: 34,
  toleranceBps: 50,
};
const PRICE_MOVED: PriceCheck = { ...PRICE_HOLDS, holds: false, reason: 'price_moved', movedBps: 51 };
const PRICE_UNAVAILABLE: PriceCheck = {
  ...PRICE_HOLDS,
  holds: false,
  reason: 'price_unavailable',
  currentMid: null,
  movedBps: null,
};
/** The USDC the maker lacks on Solana for the trade: what a Gateway mint brings in before the lock. */
const MINT_RAW = '2500000';
/** A burn intent as signMint answers it (its bytes are the runtime's: the machine only carries them). */
const MINT_SIGNED: Omit<MintIntent, 'attestation' | 'transaction'> = {
  burnIntent: { maxBlockHeight: '9000', maxFee: '2010000' },
  signature: `0x${'ab'.repeat(65)}`,
  transferSpecHash: `0x${'cd'.repeat(32)}`,
  valueRaw: MINT_RAW,
  maxBlockHeight: '9000',
};
const MINT_ATTESTED = {
  ok: true,
  attestation: {
    transferId: 'transfer-1',
    attestation: `0x${'ef'.repeat(40)}`,
    signature: `0x${'12'.repeat(65)}`,
    feeRaw: '2000000',
    expirationBlock: '800',
  },
  transaction: { signature: SIG.gatewayMint, lastValidBlockHeight: 950, transactionBase64: 'BwgJ' },
} as const;
/** Failures of one effect the walk goes through: enough to see attempts count on across a retry. */
const WALK_ATTEMPTS = 2;
/** Attempts of an effect failing long enough that its backoff is capped (and its jitter shows). */
const LONG_FAILING = 7;

const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
/** An effect's rejection: an EffectFailure stamped with chain time, or anything else (counts as time 0). */
const failure = (id: TradeEffect, error: unknown = { message: 'boom', at: FAILED_AT }) =>
  ({ type: `xstate.error.actor.${id}`, error }) as unknown as TradeEvent;
const retry = (now: number) => ({ type: 'RETRY_EFFECT', now }) as const;

/** The escrow each effect settles: the maker escrow pays the taker, the taker escrow pays the maker. */
const ESCROW_OF: Partial<Record<TradeEffect, 'maker' | 'taker'>> = {
  takerRedeem: 'maker',
  makerRefund: 'maker',
  makerRedeem: 'taker',
  makerCancel: 'taker',
  takerRefund: 'taker',
};
/**
 * Every way an escrow can end, whoever settled it, with the transaction the chain facts report for the
 * same movement (an escrow ends once, so an effect and the watcher name the same signature).
 */
const ENDINGS: Record<'maker' | 'taker', EscrowEnding[]> = {
  maker: [
    paid(SIG.takerRedeem, PREIMAGE),
    paid(SIG.takerRedeem),
    returned(SIG.makerRefund),
    returned(SIG.makerEscrowCancel, 'cancelled'),
  ],
  taker: [
    paid(SIG.makerRedeem, PREIMAGE),
    paid(SIG.makerRedeem),
    returned(SIG.takerRefund),
    returned(SIG.cancel, 'cancelled'),
  ],
};
/** The movement an escrow's ending records: who got its funds (docs/lifecycle.md#signature-kinds). */
const MOVEMENT = {
  maker: { paid: 'taker_redeem', returned: 'maker_refund' },
  taker: { paid: 'maker_redeem', returned: 'taker_refund' },
} as const;

/** Only the maker escrow's refund may find nothing there: the maker lock never landed. */
const outputsOf = (effect: TradeEffect): MakerRefundOutput[] => {
  const escrow = ESCROW_OF[effect];
  if (escrow === undefined) return [];
  return effect === 'makerRefund' ? [...ENDINGS[escrow], ABSENT] : ENDINGS[escrow];
};

/** Representative payloads per event type: each guard's both sides and each time boundary. */
const EVENTS = [
  { type: 'ABANDON', secretHash: SECRET_HASH },
  { type: 'ABANDON', secretHash: OTHER_HASH },
  { type: 'LOCK_SUBMITTED', signature: SIG.takerLock, lastValidBlockHeight: 500, transactionBase64: null },
  { type: 'LOCK_SUBMITTED', signature: SIG.takerLock, lastValidBlockHeight: 500, transactionBase64: 'AQID' },
  { type: 'TAKER_LOCK_SEEN', signature: SIG.takerLock },
  confirmedLock(input),
  confirmedLock(input, { amountRaw: '1' }),
  rolledBack(false),
  rolledBack(true),
  { type: 'MAKER_LOCK_ROLLED_BACK', signature: SIG.makerLock },
  { type: 'MAKER_LOCK_ROLLED_BACK', signature: 'sig-of-another-lock' },
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
  { type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: PREIMAGE },
  { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerRefund, how: 'refunded' },
  { type: 'MAKER_ESCROW_RETURNED', signature: SIG.makerEscrowCancel, how: 'cancelled' },
  { type: 'TAKER_ESCROW_REFUNDED', signature: SIG.takerRefund },
  { type: 'TAKER_ESCROW_PAID', signature: SIG.makerRedeem },
  { type: 'CHAIN_REACHABLE' },
  ...[
    LOCK_DEADLINE,
    LOCK_DEADLINE + 1,
    MAKER_EXPIRY - 1,
    MAKER_EXPIRY,
    TAKER_EXPIRY - 1,
    TAKER_EXPIRY,
    FOREIGN_EXPIRY,
  ].map(chainTime),
  done('checkInventory', { available: true, now: DECIDED_AT, price: null }),
  done('checkInventory', { available: false, now: DECIDED_AT, price: null }),
  done('checkInventory', { available: true, now: T0 + 481, price: null }),
  // The maker's last look: within tolerance, moved against it, prices unusable (with inventory short too).
  done('checkInventory', { available: true, now: DECIDED_AT, price: PRICE_HOLDS }),
  done('checkInventory', { available: true, now: DECIDED_AT, price: PRICE_MOVED }),
  done('checkInventory', { available: false, now: DECIDED_AT, price: PRICE_MOVED }),
  done('checkInventory', { available: true, now: DECIDED_AT, price: PRICE_UNAVAILABLE }),
  // USDC short on Solana with a Gateway to mint it from: in time, and too late to lock after.
  done('checkInventory', { available: false, now: DECIDED_AT, price: null, mintRaw: MINT_RAW }),
  done('checkInventory', { available: false, now: T0 + 481, price: null, mintRaw: MINT_RAW }),
  done('signMakerLock', { signature: SIG.makerLock, lastValidBlockHeight: 1_000, transactionBase64: 'AQID' }),
  done('makerLock', { landed: true, signature: SIG.makerLock }),
  // Expired unseen while a fresh lock can still land (before maker expiry − minimum redeem window), and at
  // that deadline; refused by the chain.
  done('makerLock', { landed: false, expired: true, now: MAKER_LOCK_DEADLINE - 1 }),
  done('makerLock', { landed: false, expired: true, now: MAKER_LOCK_DEADLINE }),
  done('makerLock', { landed: false, expired: false, now: DECIDED_AT + 1 }),
  ...(['landed', 'refused', 'lapsed'] as const).map((outcome) => done('broadcastTakerLock', { outcome })),
  done('signSourcing', {
    ok: true,
    signature: SIG.swap,
    lastValidBlockHeight: 900,
    transactionBase64: 'BAUG',
  }),
  done('signSourcing', { ok: false, reason: 'no route' }),
  done('sendSourcing', {
    landed: true,
    signature: SIG.swap,
    soldRaw: '400000',
    boughtRaw: '3000000000000000001',
  }),
  // Expired unseen with time left to lock after a fresh one, expired too late, refused on chain.
  done('sendSourcing', { landed: false, expired: true, now: DECIDED_AT + 10 }),
  done('sendSourcing', { landed: false, expired: true, now: T0 + 481 }),
  done('sendSourcing', { landed: false, expired: false, now: DECIDED_AT + 10 }),
  // Landed and failed on chain: for its minimum out (in time to quote again, and too late), or otherwise.
  done('sendSourcing', {
    landed: false,
    expired: false,
    now: DECIDED_AT + 10,
    failed: { signature: SIG.failedSwap, slippage: true },
  }),
  done('sendSourcing', {
    landed: false,
    expired: false,
    now: T0 + 481,
    failed: { signature: SIG.failedSwap, slippage: true },
  }),
  done('sendSourcing', {
    landed: false,
    expired: false,
    now: DECIDED_AT + 10,
    failed: { signature: SIG.failedSwap, slippage: false },
  }),
  done('signMint', { ok: true, intent: MINT_SIGNED }),
  done('signMint', { ok: false, reason: 'fee above gateway.max_fee' }),
  done('attestMint', MINT_ATTESTED),
  done('attestMint', { ok: false, reason: 'Gateway answered 503' }),
  done('sendMint', { landed: true, signature: SIG.gatewayMint }),
  // Expired unseen with time left to lock after a fresh one, expired too late, refused on chain.
  done('sendMint', { landed: false, expired: true, now: DECIDED_AT + 10, reason: 'blockhash expired' }),
  done('sendMint', { landed: false, expired: true, now: T0 + 481, reason: 'blockhash expired' }),
  done('sendMint', { landed: false, expired: false, now: DECIDED_AT + 10, reason: 'refused' }),
  ...TRADE_EFFECTS.flatMap((effect) => outputsOf(effect).map((output) => done(effect, output))),
  done('closeEscrows', {}),
  ...TRADE_EFFECTS.map((effect) => failure(effect)),
] as unknown as TradeEvent[];

/**
 * Checked in every state but not traversed: a second held lock signature, adoptions, a preimage written
 * in capitals (not the form the boundary produces: refused as a request, no secret in an ending) or not
 * hex at all, retries long before and long after any retry time,
 * and rejections that carry no chain time. They would multiply every later state without new behaviour.
 */
const CHECK_ONLY_EVENTS = [
  {
    type: 'LOCK_SUBMITTED',
    signature: 'sig-taker-lock-2',
    lastValidBlockHeight: 700,
    transactionBase64: null,
  },
  { type: 'TAKER_LOCK_SEEN', signature: 'sig-taker-lock-2' },
  // Final, but not the lock recorded: taken only where a fork took that one back (then it is recorded).
  { ...finalizedLock(input), signature: 'sig-taker-lock-2' },
  { type: 'ADOPTED', runId: 'run-2', now: T0 + 30 },
  { type: 'ADOPTED', runId: input.runId, now: T0 + 30 },
  { ...redeemRequest(REDEEM_BY - 1), preimage: UPPER_PREIMAGE },
  { ...redeemRequest(REDEEM_BY - 1), preimage: `zz${PREIMAGE}` },
  { ...redeemRequest(REDEEM_BY - 1), preimage: `${PREIMAGE}zz` },
  { type: 'MAKER_ESCROW_REDEEMED', signature: SIG.takerRedeem, preimage: UPPER_PREIMAGE },
  retry(T0),
  retry(FOREIGN_EXPIRY),
  ...(['takerRedeem', 'makerRefund'] as const).flatMap((effect) => [
    done(effect, paid(SIG.takerRedeem, UPPER_PREIMAGE as Preimage)),
    done(effect, paid(SIG.takerRedeem, `zz${PREIMAGE.slice(2)}` as Preimage)),
  ]),
] as unknown as TradeEvent[];
const ALL_EVENTS = [...EVENTS, ...CHECK_ONLY_EVENTS];

/** A failed effect's retry, offered just before it falls due and when it does. */
const retriesOf = (state: TradeSnapshot): TradeEvent[] => {
  const retryAt = state.context.effectError?.retryAt ?? null;
  return retryAt === null ? [] : [retry(retryAt - 1), retry(retryAt)];
};
/** Every event checked in a state: the fixed set and the state's own retry times. */
const eventsIn = (state: TradeSnapshot) => [...ALL_EVENTS, ...retriesOf(state)];

// ── The spec's rules, restated over the context (not the machine's guards) ───────────────────────

const has = (c: TradeContext, kind: string) => c.signatures.some((s) => s.kind === kind);
const count = (c: TradeContext, kind: string) => c.signatures.filter((s) => s.kind === kind).length;
/** The taker was paid from the maker escrow: its redeem landed or was seen on chain. */
const takerWasPaid = (c: TradeContext) => c.makerEscrowRedeemSeen || has(c, 'taker_redeem');
/** The taker escrow still holds the taker's funds: locked, neither returned nor paid to the maker. */
const takerEscrowHolds = (c: TradeContext) =>
  has(c, 'taker_lock') && !has(c, 'taker_refund') && !has(c, 'maker_redeem');
/** The maker's lock landed and nothing took it out yet. */
const makerEscrowUnsettled = (c: TradeContext) =>
  has(c, 'maker_lock') && !has(c, 'taker_redeem') && !has(c, 'maker_refund');
/** A maker lock landed, or the one signed may still land. */
const makerLockMayExist = (c: TradeContext) =>
  has(c, 'maker_lock') || (c.makerLockIntent !== null && !c.makerLockIntent.lapsed);
/** Where refunded settles: reclaim the maker escrow while funds may sit in it, then close (the books too). */
const refundedSettlesIn = (c: TradeContext) => {
  const makerLocked = has(c, 'maker_lock');
  const mayHoldFunds = makerLocked ? makerEscrowUnsettled(c) : makerLockMayExist(c);
  if (mayHoldFunds) return 'refunded.reclaimingMakerEscrow';
  // Closing settles the books (every maker fee), maker escrow or not.
  return 'refunded.closingEscrows';
};
/** The maker lost funds: the taker escrow went back after the maker escrow paid the taker. */
const MAKER_MISSED_REDEEM = { failureReason: 'maker_missed_redeem', alert: true } as const;

/**
 * The endings the chain can still show for an escrow, given what the trade recorded of it: an escrow ends
 * once, so an effect finds it the way it was reported; only a maker escrow whose lock was never recorded
 * landed may turn out absent.
 */
function endingIsPossible(c: TradeContext, effect: TradeEffect, output: unknown): boolean {
  const escrow = ESCROW_OF[effect];
  if (escrow === undefined) return true;
  const ending = output as MakerRefundOutput;
  if (ending.kind === 'absent') return escrow === 'maker' && !has(c, 'maker_lock');
  if (has(c, MOVEMENT[escrow].paid)) return ending.kind === 'paid';
  if (has(c, MOVEMENT[escrow].returned)) return ending.kind === 'returned';
  return true;
}

/**
 * An effect's done and error events come only from that effect while it runs — not before it starts, not
 * once it failed and waits for its retry: offered elsewhere they would escalate to an errored actor or
 * answer an effect nobody ran. (They are still sent in every state below.) Its answers are the endings
 * still possible. Each effect state is walked failing — twice, with its retries just before and at their
 * time — from the first context the walk reaches it in: failing it in every context would multiply the
 * walk without new behaviour, and every context is failed and retried in place below.
 */
const ACTOR_EVENT = /^xstate\.(?:done|error)\.actor\.(.+)$/;
const effectRuns = (state: TradeSnapshot, effect: string) =>
  effect in state.children && (state.context.effectError?.retryAt ?? null) === null;
const walkedFailing = new Map<string, string>();
const walksFailure = (state: TradeSnapshot) => {
  const sub = substateOf(state);
  const first = JSON.stringify({ ...state.context, effectError: null });
  if (!walkedFailing.has(sub)) walkedFailing.set(sub, first);
  return walkedFailing.get(sub) === first && (state.context.effectError?.attempts ?? 0) < WALK_ATTEMPTS;
};
/**
 * Where a fork is walked: before any maker lock is signed, while one is being sent, and once it landed — the
 * three ways the maker can stand when its confirmed taker lock goes (every state is still offered it).
 */
const FORKED_IN = [
  'initiated.locking.assessing',
  'initiated.locking.sendingMakerLock',
  'initiated.redeeming.makerLocked',
];
/**
 * What a trade riding on a confirmed taker lock is walked with: its way along the main line (effects
 * answering, the taker redeeming), the lock turning final — the states it then reaches are the usual path's
 * own — and the fork. Everything else is walked on the usual path and after the fork (and still offered).
 */
const walkedWhileConfirmed = (e: TradeEvent) =>
  e.type === 'TAKER_LOCK_FINALIZED' ||
  e.type === 'TAKER_LOCK_ROLLED_BACK' ||
  e.type === 'REDEEM_REQUESTED' ||
  e.type.startsWith('xstate.done.');
const possibleEvents = (state: TradeSnapshot) => [
  ...EVENTS.filter((e) => {
    const c = state.context;
    // A confirmed lock is walked for the trade without a sourcing plan (every state it leads to is reached).
    if (e.type === 'TAKER_LOCK_CONFIRMED') return c.sourcing === null;
    if (c.takerLockConfirmedOnly && c.failureReason !== 'taker_lock_rolled_back' && !walkedWhileConfirmed(e))
      return false;
    // A trade that minted is walked up to its maker lock landing: the states after it are the usual
    // path's own with one more movement recorded (every event is still offered in them).
    if (has(c, 'gateway_mint') && has(c, 'maker_lock')) return false;
    // A fork takes back what the trade recorded of it: its taker lock, and its maker lock when it landed.
    if (e.type === 'TAKER_LOCK_ROLLED_BACK') {
      const dropsMakerLock = e.dropped.some((d) => d.kind === 'maker_lock');
      return (
        FORKED_IN.includes(substateOf(state)) &&
        c.effectError === null &&
        has(c, 'taker_lock') &&
        dropsMakerLock === has(c, 'maker_lock')
      );
    }
    // The maker's own lock, landed at confirmed, can be taken back by a fork until it is final.
    if (e.type === 'MAKER_LOCK_ROLLED_BACK') return has(c, 'maker_lock') && c.effectError === null;
    // The walk follows what the chain can show: only a maker escrow that holds (or may hold) funds, not
    // yet returned, can be seen redeemed.
    if (e.type === 'MAKER_ESCROW_REDEEMED')
      return makerLockMayExist(state.context) && !has(state.context, 'maker_refund');
    const effect = ACTOR_EVENT.exec(e.type)?.[1] as TradeEffect | undefined;
    if (effect === undefined) return true;
    if (!effectRuns(state, effect)) return false;
    if (e.type.startsWith('xstate.error.')) return walksFailure(state);
    return endingIsPossible(state.context, effect, (e as unknown as { output: unknown }).output);
  }),
  ...retriesOf(state),
];
/**
 * Bare `{ type }` events are not walked (CHAIN_REACHABLE: sent in every state all the same), as the walk with
 * xstate/graph's filter did.
 */
const notBare = (event: TradeEvent) => Object.keys(event).length > 1;

/**
 * xstate's pure `transition(machine, snapshot, event)`: the next snapshot and the actions to execute, none
 * executed. xstate's own builds an inert actor of the machine for each call, computing its initial snapshot
 * with no input — a trade's context cannot be made from none, so every call threw and caught a TypeError:
 * half of this file's time, over a million calls. The machine's transition needs only a scope to collect the
 * actions in; this is the one xstate/graph walks with (an empty actor as `self`), made once.
 */
const collected: unknown[] = [];
const emptyActor = createEmptyActor();
const scope = {
  self: emptyActor,
  logger: console.log,
  id: '',
  sessionId: 'walk',
  defer: () => {},
  system: emptyActor.system,
  stopChild: () => {},
  emit: () => {},
  actionExecutor: (action: unknown) => collected.push(action),
} as unknown as AnyActorScope;
function transition(logic: typeof machine, snapshot: TradeSnapshot, event: TradeEvent) {
  collected.length = 0;
  const next = logic.transition(snapshot, event, scope) as TradeSnapshot;
  return [next, [...collected]] as [TradeSnapshot, Move['actions']];
}

/** A state as xstate/graph tells states apart: its value and context. */
const serialize = (state: TradeSnapshot) => JSON.stringify({ value: state.value, context: state.context });

/**
 * Every state the walk's events reach from the trade's start, each by a shortest path: breadth first, the
 * first path found to a state kept, so the states, their order and their paths are those of xstate/graph's
 * `getShortestPaths` with these events. Its queue holds every transition taken and is shifted from the front
 * (quadratic in the walk's size), and it serializes each state again on every edge: a quarter of the file's
 * time, for the same walk.
 */
function shortestPaths(from: typeof input): { state: TradeSnapshot; events: TradeEvent[] }[] {
  const start = machine.getInitialSnapshot(scope, from) as TradeSnapshot;
  const reached = new Map([[serialize(start), { state: start, events: [] as TradeEvent[] }]]);
  const queue = [...reached.values()];
  for (let i = 0; i < queue.length; i++) {
    const { state, events } = queue[i] as (typeof queue)[number];
    for (const event of possibleEvents(state)) {
      if (!notBare(event)) continue;
      const [next] = transition(machine, state, event);
      const key = serialize(next);
      if (reached.has(key)) continue;
      const node = { state: next, events: [...events, event] };
      reached.set(key, node);
      queue.push(node);
    }
  }
  return queue;
}

/** The walk runs while the file is collected; a machine it cannot walk must still fail a test, below. */
let walkError: unknown = null;
const walk = (from: typeof input, label: string) => {
  try {
    return shortestPaths(from).map((p) => ({ ...p, label }));
  } catch (error) {
    walkError = error;
    return [];
  }
};
const paths = [...walk(input, 'sourced'), ...walk(inventoryInput, 'from inventory')];
/** The path's events: replay with `initialTransition(tradeMachine, input)` then `transition`. */
const replayable = (events: TradeEvent[]) => JSON.stringify(events);
/** Named as before: the steps count the start (xstate/graph's `xstate.init` step) and each event. */
const cases = paths.map((p) => ({
  name: `${substateOf(p.state)} via ${p.events.length + 1} steps (${p.label})`,
  state: p.state,
  path: replayable(p.events),
}));

/** What one event does in a state: whether the machine takes it, and the snapshot and actions it yields. */
interface Move {
  event: TradeEvent;
  accepted: boolean;
  next: TradeSnapshot;
  actions: { type: string; params?: unknown }[];
}
/**
 * Every event in the state, run through `transition`, except those no active state node has a transition
 * for: xstate cannot take them, and they yield the same snapshot (checked by `can` like all the others).
 */
const movesFrom = (state: TradeSnapshot): Move[] => {
  const handled = new Set(state._nodes.flatMap((node) => [...node.transitions.keys()]));
  return eventsIn(state).map((event) => {
    const accepted = state.can(event);
    if (!handled.has(event.type)) return { event, accepted, next: state, actions: [] };
    const [next, actions] = transition(machine, state, event);
    return { event, accepted, next, actions: actions as Move['actions'] };
  });
};

describe('state × event coverage from a walk of the machine', () => {
  it('the payload set covers every event type, every effect outcome and every escrow ending', () => {
    const types = new Set(ALL_EVENTS.map((e) => e.type));
    for (const type of TRADE_EVENT_TYPES) expect(types).toContain(type);
    for (const effect of TRADE_EFFECTS) {
      expect(types).toContain(`xstate.done.actor.${effect}`);
      expect(types).toContain(`xstate.error.actor.${effect}`);
    }
    for (const effect of Object.keys(ESCROW_OF)) {
      const outputs = EVENTS.filter((e) => e.type === `xstate.done.actor.${effect}`).map(
        (e) => (e as unknown as { output: unknown }).output,
      );
      expect(outputs, effect).toContainEqual(expect.objectContaining({ kind: 'paid', preimage: PREIMAGE }));
      expect(outputs, effect).toContainEqual(expect.objectContaining({ kind: 'paid', preimage: null }));
      for (const how of ['refunded', 'cancelled']) {
        expect(outputs, effect).toContainEqual(expect.objectContaining({ kind: 'returned', how }));
      }
      if (effect === 'makerRefund') expect(outputs, effect).toContainEqual({ kind: 'absent' });
      else expect(outputs, effect).not.toContainEqual({ kind: 'absent' });
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
    const transient = new Set([
      'initiated.locking.deciding',
      'refunded.settling',
      'failed.lateLockFinalized',
    ]);
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

  it('reaches every retried effect failed, retrying, and failed again', () => {
    for (const [sub, effect] of Object.entries(RETRIED_EFFECT)) {
      const errors = cases.filter((c) => substateOf(c.state) === sub).map((c) => c.state.context.effectError);
      const scheduled = { effect, retryAt: expect.any(Number) };
      expect(errors, sub).toContainEqual(expect.objectContaining({ ...scheduled, attempts: 1 }));
      expect(errors, sub).toContainEqual(expect.objectContaining({ effect, attempts: 1, retryAt: null }));
      expect(errors, sub).toContainEqual(expect.objectContaining({ ...scheduled, attempts: WALK_ATTEMPTS }));
    }
  });

  it.each(cases)('$name', ({ state, path }) => {
    const moves = movesFrom(state);
    refusedEventsChangeNothingAndFinalStatusesHold(state, path, moves);
    acceptedExactlyWhenTheSpecSays(state, path, moves);
    acceptedEventsLandWhereTheSpecSays(state, path, moves);
    failedEffectsAreRetriedInPlace(state, path, moves);
    effectOutcomesLandWhereTheSpecSays(state, path, moves);
    tagsSayWhatTheStateDoes(state, path);
    safetyInvariantsHold(state, path);
    nextDeadlineWakesTimeDrivenTransitions(state, path);
  });
});

/** Where a check failed: the replayable path to the state, and the event sent there. */
const at = (path: string, event: TradeEvent) => `after path ${path}\nevent ${JSON.stringify(event)}`;

function refusedEventsChangeNothingAndFinalStatusesHold(state: TradeSnapshot, path: string, moves: Move[]) {
  const status = settlementStatusOf(state);
  expect(SETTLEMENT_STATUSES, path).toContain(status);
  const final = (FINAL_SETTLEMENT_STATUSES as readonly string[]).includes(status);
  for (const { event, accepted, next } of moves) {
    // A refused event leaves the very same snapshot (value and context compared in depth only when they are
    // other objects).
    if (!accepted && next !== state) {
      if (next.value !== state.value) expect(next.value, at(path, event)).toEqual(state.value);
      if (next.context !== state.context) expect(next.context, at(path, event)).toEqual(state.context);
    }
    if (final && settlementStatusOf(next) !== status) {
      expect(settlementStatusOf(next), at(path, event)).toBe(status);
    }
  }
}

const oneOf = (state: TradeSnapshot, substates: readonly string[]) => substates.includes(substateOf(state));
const AWAITING_TAKER_EXPIRY = [
  'initiated.redeeming.takerRedeemLanded',
  'initiated.redeeming.makerRedeeming',
  'initiated.unwinding.awaitingTakerExpiry',
] as const;

/**
 * When the spec lets each command, chain fact and retry through, written from its rules rather than the
 * machine's guards; `undefined` for effect outcomes, checked below.
 */
function acceptedBySpec(state: TradeSnapshot, event: TradeEvent): boolean | undefined {
  const c = state.context;
  const status = settlementStatusOf(state);
  const sub = substateOf(state);
  switch (event.type) {
    case 'ABANDON':
      return (
        status === 'pending' && c.lockSignature === null && event.secretHash.toLowerCase() === c.secretHash
      );
    case 'LOCK_SUBMITTED':
      return (
        oneOf(state, ['pending.awaitingLock', 'pending.lockSubmitted', 'pending.broadcastingLock']) &&
        !c.lockSubmissions.some((s) => s.signature === event.signature)
      );
    case 'TAKER_LOCK_SEEN':
      return oneOf(state, [
        'pending.awaitingLock',
        'pending.lockSubmitted',
        'pending.broadcastingLock',
        'failed.lockWindowOpen',
        'failed.noLock',
      ]);
    case 'TAKER_LOCK_CONFIRMED':
      // Admitted by the commitment policy (the walk's guard), the agreed terms go on at confirmed.
      return status === 'pending' && lockTermsMatch(c, event.terms);
    case 'TAKER_LOCK_FINALIZED':
      return (
        status === 'pending' ||
        oneOf(state, ['failed.lockWindowOpen', 'failed.noLock', 'failed.lateLockSeen']) ||
        // The confirmed lock the maker went on is final; or, after a fork, a lock at its address is.
        (status === 'initiated' &&
          c.takerLockConfirmedOnly &&
          (c.signatures.some((s) => s.kind === 'taker_lock' && s.signature === event.signature) ||
            (sub === 'initiated.unwinding.takerLockRolledBack' && !has(c, 'taker_lock'))))
      );
    case 'TAKER_LOCK_ROLLED_BACK':
      return status === 'initiated' && c.takerLockConfirmedOnly;
    case 'MAKER_LOCK_ROLLED_BACK':
      // No redeem is served on a lock the chain lost: the kept one is sent again.
      return sub === 'initiated.redeeming.makerLocked' && c.makerLockIntent?.signature === event.signature;
    case 'TAKER_LOCK_DROPPED':
      return (
        (status === 'pending' && event.now > c.lockDeadline && c.lockSignature !== null) ||
        oneOf(state, ['failed.lateLockSeen'])
      );
    case 'REDEEM_REQUESTED':
      return (
        oneOf(state, ['initiated.redeeming.makerLocked']) &&
        has(c, 'maker_lock') &&
        /^[0-9a-f]{64}$/.test(event.preimage) &&
        event.preimageHash === c.secretHash &&
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
        (oneOf(state, [
          'initiated.redeeming.makerLocked',
          'initiated.redeeming.redeemingForTaker',
          'initiated.unwinding.takerLockRolledBack',
        ]) &&
          event.now >= (c.makerExpiry ?? Infinity)) ||
        (oneOf(state, AWAITING_TAKER_EXPIRY) && event.now >= c.takerExpiry) ||
        (oneOf(state, ['failed.lockWindowOpen']) && event.now > c.lockDeadline) ||
        (oneOf(state, ['failed.awaitingLateLockExpiry']) &&
          event.now >= (c.takerLockTerms?.expiry ?? Infinity))
      );
    case 'MAKER_ESCROW_REDEEMED':
      return status === 'initiated' && !c.makerEscrowRedeemSeen;
    case 'MAKER_ESCROW_RETURNED':
      // Only a maker escrow that landed and was not settled yet can come back.
      return status === 'initiated' && makerEscrowUnsettled(c);
    case 'TAKER_ESCROW_REFUNDED':
    case 'TAKER_ESCROW_PAID':
      // The taker escrow ends once, either way: a report counts only while it holds the funds.
      return (status === 'initiated' || status === 'failed') && takerEscrowHolds(c);
    case 'ADOPTED':
      return event.runId !== c.currentRunId;
    case 'RETRY_EFFECT':
      // Only a failed effect is retried, in the state that runs it, once its retry time has come.
      return (
        substateOf(state) in RETRIED_EFFECT &&
        c.effectError !== null &&
        c.effectError.retryAt !== null &&
        event.now >= c.effectError.retryAt
      );
    case 'CHAIN_REACHABLE':
      // The chain answers again: a failed effect waiting for its retry runs now, whatever its retry time.
      return substateOf(state) in RETRIED_EFFECT && c.effectError !== null && c.effectError.retryAt !== null;
    default:
      return undefined;
  }
}

/** The machine takes exactly the commands and chain facts the spec allows, and records what they say. */
function acceptedExactlyWhenTheSpecSays(state: TradeSnapshot, path: string, moves: Move[]) {
  for (const { event, accepted, next } of moves) {
    const expected = acceptedBySpec(state, event);
    if (expected === undefined) continue;
    // Asked of every event in every state (a million times): vitest's expect only where it fails.
    if (accepted !== expected) expect(accepted, at(path, event)).toBe(expected);
    if (!expected) continue;
    const where = at(path, event);
    const before = state.context;
    const after = next.context;
    switch (event.type) {
      case 'ABANDON':
        expect([after.failureReason, after.abandonedWith], where).toEqual(['abandoned', event.secretHash]);
        break;
      case 'LOCK_SUBMITTED':
        expect(after.lockSignature, where).toBe(event.signature);
        expect(after.lockSubmissions, where).toEqual([
          ...before.lockSubmissions,
          {
            signature: event.signature,
            lastValidBlockHeight: event.lastValidBlockHeight,
            transactionBase64: event.transactionBase64,
          },
        ]);
        break;
      case 'TAKER_LOCK_SEEN':
        expect(after.lockSignature, where).toBe(event.signature);
        break;
      case 'TAKER_LOCK_CONFIRMED':
        expect(after.takerLockTerms, where).toEqual(event.terms);
        expect(after.signatures, where).toContainEqual({ kind: 'taker_lock', signature: event.signature });
        expect(after.takerLockConfirmedOnly, where).toBe(true);
        break;
      case 'TAKER_LOCK_FINALIZED':
        // The lock the maker went on at confirmed keeps the terms it was read with (the same transaction);
        // any other is recorded as read at finality.
        expect(after.takerLockTerms, where).toEqual(
          settlementStatusOf(state) === 'initiated' && has(before, 'taker_lock')
            ? before.takerLockTerms
            : event.terms,
        );
        expect(after.signatures, where).toContainEqual({ kind: 'taker_lock', signature: event.signature });
        expect(after.takerLockConfirmedOnly, where).toBe(false);
        break;
      case 'TAKER_LOCK_ROLLED_BACK':
        // The movements a fork took back leave the trade's record (the ledger reverses them).
        expect(after.signatures, where).toEqual(
          before.signatures.filter(
            (s) => !event.dropped.some((d) => d.kind === s.kind && d.signature === s.signature),
          ),
        );
        expect([after.takerLockTerms, after.lockSignature], where).toEqual([null, null]);
        break;
      case 'MAKER_LOCK_ROLLED_BACK':
        // Its movement stands while the same transaction may land again (the ledger never posts it twice).
        expect(after.signatures, where).toEqual(before.signatures);
        break;
      case 'REDEEM_REQUESTED':
        expect([after.preimage, after.redeemRequested], where).toEqual([event.preimage, true]);
        break;
      case 'MAKER_ESCROW_REDEEMED':
        expect([after.preimage, after.makerEscrowRedeemSeen], where).toEqual([event.preimage, true]);
        expect(after.signatures, where).toContainEqual({ kind: 'taker_redeem', signature: event.signature });
        break;
      case 'MAKER_ESCROW_RETURNED':
        expect(after.signatures, where).toContainEqual({ kind: 'maker_refund', signature: event.signature });
        break;
      case 'TAKER_ESCROW_REFUNDED':
        expect(after.signatures, where).toContainEqual({ kind: 'taker_refund', signature: event.signature });
        break;
      case 'TAKER_ESCROW_PAID':
        expect(after.signatures, where).toContainEqual({ kind: 'maker_redeem', signature: event.signature });
        break;
      case 'ADOPTED':
        expect([after.currentRunId, after.adoptedAt], where).toEqual([event.runId, event.now]);
        break;
      case 'RETRY_EFFECT':
      case 'CHAIN_REACHABLE':
        // The failures so far are kept; no retry is due while this one runs.
        expect(after.effectError, where).toEqual({ ...before.effectError, retryAt: null });
        break;
    }
  }
}

/** Where an accepted command, chain fact or effect outcome leaves the trade, and the outcome it records. */
interface Landing {
  substate: string;
  failureReason: string | null;
  alert: boolean;
  refundRequested: boolean;
}

/**
 * The spec restated as a table of landings (after eventless steps settle), with the failure reasons of
 * the API's vocabulary: which substate each accepted event leads to and the outcome it records.
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
  switch (event.type) {
    case 'ABANDON':
      return land('failed.lockWindowOpen', { failureReason: 'abandoned' });
    case 'LOCK_SUBMITTED':
      // Handed the bytes, the service broadcasts them until they land; a signature alone is only held.
      return land(event.transactionBase64 === null ? 'pending.lockSubmitted' : 'pending.broadcastingLock');
    case 'TAKER_LOCK_SEEN':
      return land(status === 'pending' ? 'pending.lockSeen' : 'failed.lateLockSeen');
    case 'TAKER_LOCK_CONFIRMED':
      return land('initiated.locking.assessing');
    case 'TAKER_LOCK_ROLLED_BACK':
      // No maker lock ever signed: nothing of the maker's can move, and the trade fails. Else the maker
      // escrow waits for its expiry, serving no redeem.
      return c.makerLockIntent === null
        ? land('failed.lockWindowOpen', { failureReason: 'taker_lock_rolled_back' })
        : land('initiated.unwinding.takerLockRolledBack', { failureReason: 'taker_lock_rolled_back' });
    case 'TAKER_LOCK_FINALIZED': {
      // Final at last: the trade goes on where it was.
      if (status === 'initiated') return land(sub);
      if (status === 'pending' && lockTermsMatch(c, event.terms)) return land('initiated.locking.assessing');
      // Never this trade's: release it at once if it is a lock of our escrow paying us, else wait it out.
      const cancellable = event.terms.escrow === c.takerEscrow && event.terms.recipient === c.makerWallet;
      const where = cancellable ? 'failed.releasingLateLock' : 'failed.awaitingLateLockExpiry';
      return land(where, status === 'pending' ? { failureReason: 'lock_terms_mismatch' } : {});
    }
    case 'MAKER_LOCK_ROLLED_BACK':
      return land('initiated.locking.sendingMakerLock');
    case 'TAKER_LOCK_DROPPED':
      return status === 'pending'
        ? land('failed.lockWindowOpen', { failureReason: 'lock_not_landed' })
        : land('failed.noLock');
    case 'REDEEM_REQUESTED':
      return land('initiated.redeeming.redeemingForTaker');
    case 'MAKER_ESCROW_REDEEMED':
      return land('initiated.redeeming.makerRedeeming');
    case 'MAKER_ESCROW_RETURNED':
      // After a fork: a lock standing again at the taker escrow is released at once; else it is over.
      if (sub === 'initiated.unwinding.takerLockRolledBack') {
        return takerEscrowHolds(c)
          ? land('initiated.unwinding.releasingTaker')
          : land('refunded.closingEscrows');
      }
      // The taker cancelled the maker escrow: the maker releases the taker escrow at once. Refunded after
      // its expiry: the taker escrow goes back at its own.
      return event.how === 'cancelled'
        ? land('initiated.unwinding.releasingTaker', { failureReason: 'taker_cancelled' })
        : land('initiated.unwinding.awaitingTakerExpiry', { failureReason: 'maker_escrow_expired' });
    case 'TAKER_ESCROW_REFUNDED':
      if (status === 'failed') return land('failed.released');
      // The taker took its escrow back after being paid from the maker escrow: the maker lost.
      return land(refundedSettlesIn(c), takerWasPaid(c) ? MAKER_MISSED_REDEEM : {});
    case 'TAKER_ESCROW_PAID':
      // Anyone may submit it; the trade is redeemed once the taker was paid too, else it carries on.
      if (status === 'failed') return land('failed.released');
      return land(takerWasPaid(c) ? 'redeemed.closingEscrows' : sub);
    case 'CHAIN_TIME_ADVANCED':
    case 'REFUND_REQUESTED': {
      const requested = event.type === 'REFUND_REQUESTED' ? { refundRequested: true } : {};
      if (status === 'pending')
        return land('failed.lockWindowOpen', { failureReason: 'lock_window_expired' });
      if (sub === 'failed.lockWindowOpen') return land('failed.noLock');
      if (sub === 'failed.awaitingLateLockExpiry') return land('failed.refundingLateLock', requested);
      if (sub === 'initiated.redeeming.makerLocked' || sub === 'initiated.redeeming.redeemingForTaker') {
        return land('initiated.unwinding.refundingMakerEscrow', { failureReason: 'maker_escrow_expired' });
      }
      if (sub === 'initiated.unwinding.takerLockRolledBack') {
        return land('initiated.unwinding.reclaimingAfterRollback');
      }
      // Past the taker expiry the taker escrow goes back; only the refund's ending can prove a loss.
      return land('initiated.unwinding.refundingTakerEscrow', requested);
    }
    case 'ADOPTED':
    case 'RETRY_EFFECT':
    case 'CHAIN_REACHABLE':
      return land(sub);
    default:
      throw new Error(`no landing for ${(event as { type: string }).type}`);
  }
}

function acceptedEventsLandWhereTheSpecSays(state: TradeSnapshot, path: string, moves: Move[]) {
  for (const { event, next } of moves) {
    if (acceptedBySpec(state, event) !== true) continue;
    const { failureReason, alert, refundRequested } = next.context;
    expect({ substate: substateOf(next), failureReason, alert, refundRequested }, at(path, event)).toEqual(
      landingBySpec(state, event),
    );
  }
}

/** The states that run an effect until it succeeds, and the effect each runs. */
const RETRIED_EFFECT: Record<string, TradeEffect> = {
  'pending.broadcastingLock': 'broadcastTakerLock',
  'initiated.locking.signingMint': 'signMint',
  'initiated.locking.attestingMint': 'attestMint',
  'initiated.locking.sendingMint': 'sendMint',
  'initiated.locking.signingSourcing': 'signSourcing',
  'initiated.locking.sendingSourcing': 'sendSourcing',
  'redeemed.closingEscrows': 'closeEscrows',
  'refunded.closingEscrows': 'closeEscrows',
  'initiated.locking.assessing': 'checkInventory',
  'initiated.locking.signingMakerLock': 'signMakerLock',
  'initiated.locking.sendingMakerLock': 'makerLock',
  'initiated.redeeming.redeemingForTaker': 'takerRedeem',
  'initiated.redeeming.makerRedeeming': 'makerRedeem',
  'initiated.unwinding.refundingMakerEscrow': 'makerRefund',
  'initiated.unwinding.refundingTakerEscrow': 'takerRefund',
  'initiated.unwinding.releasingTaker': 'makerCancel',
  'initiated.unwinding.reclaimingAfterRollback': 'makerRefund',
  'refunded.reclaimingMakerEscrow': 'makerRefund',
  'failed.releasingLateLock': 'makerCancel',
  'failed.refundingLateLock': 'takerRefund',
};

/**
 * A running effect that fails is recorded by name with its consecutive attempts and a retry time backed
 * off from the failure's chain time (time 0 for a rejection that carries none), schedules nothing itself,
 * and is re-run in place by RETRY_EFFECT once due — not before, and not a second time while it runs. A
 * failure is kept across its own retries and dropped whenever the state is left.
 */
function failedEffectsAreRetriedInPlace(state: TradeSnapshot, path: string, moves: Move[]) {
  const sub = substateOf(state);
  const c = state.context;
  const effect = RETRIED_EFFECT[sub];
  if (effect === undefined) return;
  const where = `${effect} failing after path ${path}`;

  if (c.effectError !== null && c.effectError.retryAt !== null) {
    // Failed and waiting: whatever moves the trade elsewhere drops the failure; what keeps it here keeps it.
    for (const { event, accepted, next } of moves) {
      if (
        !accepted ||
        event.type === 'RETRY_EFFECT' ||
        event.type === 'CHAIN_REACHABLE' ||
        ACTOR_EVENT.test(event.type)
      )
        continue;
      const stays = substateOf(next) === sub;
      expect(next.context.effectError, at(path, event)).toEqual(stays ? c.effectError : null);
    }
    return;
  }

  const attempts = (c.effectError?.attempts ?? 0) + 1;
  const rejections: [unknown, number][] = [
    [{ message: 'boom', at: FAILED_AT }, FAILED_AT],
    [Object.assign(new Error('boom'), { at: MAKER_EXPIRY }), MAKER_EXPIRY],
    [new Error('boom'), 0],
    ['boom', 0],
  ];
  for (const [error, failedAt] of rejections) {
    const [failed, onError] = transition(machine, state, failure(effect, error));
    expect(substateOf(failed), where).toBe(sub);
    expect(failed.context.effectError, where).toEqual({
      effect,
      message: 'boom',
      attempts,
      retryAt: failedAt + effectRetryDelay(attempts, c.tradeId),
    });
    // No timer and no re-run: the retry waits for the runtime's RETRY_EFFECT.
    expect(onError, where).toEqual([]);
  }

  const [failed] = transition(machine, state, failure(effect));
  const retryAt = failed.context.effectError?.retryAt ?? Number.NaN;
  expect(failed.can(retry(retryAt - 1)), where).toBe(false);
  const [retried, onRetry] = transition(machine, failed, retry(retryAt));
  expect(substateOf(retried), where).toBe(sub);
  expect(retried.context.effectError, where).toEqual({ ...failed.context.effectError, retryAt: null });
  expect(onRetry, where).toContainEqual(
    expect.objectContaining({
      type: 'xstate.spawnChild',
      params: expect.objectContaining({ id: effect, src: effect }),
    }),
  );
  expect(retried.can(retry(FOREIGN_EXPIRY)), where).toBe(false);
  // The chain answering again after an outage retries it at once, long before its retry time.
  const [reached, onReached] = transition(machine, failed, { type: 'CHAIN_REACHABLE' });
  expect([substateOf(reached), reached.context.effectError], where).toEqual([
    sub,
    retried.context.effectError,
  ]);
  expect(onReached, where).toContainEqual(
    expect.objectContaining({ type: 'xstate.spawnChild', params: expect.objectContaining({ src: effect }) }),
  );
  expect(retried.can({ type: 'CHAIN_REACHABLE' }), where).toBe(false);

  // Long failing: the delay is the capped one, with the jitter this trade gets at that attempt.
  const longFailing = machine.resolveState({
    value: state.value,
    context: { ...c, effectError: { effect, message: 'boom', attempts: LONG_FAILING, retryAt: null } },
  });
  const [capped] = transition(machine, longFailing, failure(effect));
  expect(capped.context.effectError, where).toEqual({
    effect,
    message: 'boom',
    attempts: LONG_FAILING + 1,
    retryAt: FAILED_AT + effectRetryDelay(LONG_FAILING + 1, c.tradeId),
  });
}

/** Final states where nothing of the trade is left in any escrow: the runtime may drop their actors. */
const CLOSED_SUBSTATES = ['redeemed.closed', 'refunded.closed', 'failed.noLock', 'failed.released'];

/**
 * `effect` marks exactly the states that invoke one (the visualiser shows it), and each runs its own effect
 * only (the maker's redeem, say, nowhere but in makerRedeeming); `closed` marks exactly the closed ones.
 */
function tagsSayWhatTheStateDoes(state: TradeSnapshot, path: string) {
  const sub = substateOf(state);
  const invokes = state._nodes.some((node) => node.invoke.length > 0);
  expect(state.hasTag('effect'), path).toBe(invokes);
  expect(invokes, path).toBe(sub in RETRIED_EFFECT);
  const effect = RETRIED_EFFECT[sub];
  expect(Object.keys(state.children), path).toEqual(effect === undefined ? [] : [effect]);
  expect(state.hasTag('closed'), path).toBe(CLOSED_SUBSTATES.includes(sub));
  expect(isClosed(state), path).toBe(CLOSED_SUBSTATES.includes(sub));
}

interface Outcome extends Landing {
  signatures: TradeSignature[];
  /** Other context fields the outcome sets. */
  context: Partial<TradeContext>;
}

/**
 * Where each effect's answer leads, written from the spec: the settling effects route on how the escrow
 * ended (paid to its recipient, returned to its initializer, or — for the maker escrow's refund — never
 * there), recording the movement under its signature kind, and alert only on proven loss.
 */
function outcomeBySpec(state: TradeSnapshot, effect: TradeEffect, output: unknown): Outcome {
  const c = state.context;
  const sub = substateOf(state);
  const keep = { failureReason: c.failureReason, alert: c.alert, refundRequested: c.refundRequested };
  const land = (
    substate: string,
    change: Partial<Omit<Landing, 'substate'>> = {},
    moved: TradeSignature[] = [],
    context: Partial<TradeContext> = {},
  ): Outcome => {
    // Appended in order, each movement once (an effect may report one the watcher reported already).
    const signatures = [...c.signatures];
    for (const m of moved) {
      if (!signatures.some((s) => s.kind === m.kind && s.signature === m.signature)) signatures.push(m);
    }
    return { substate, ...keep, ...change, signatures, context };
  };
  switch (effect) {
    case 'broadcastTakerLock':
      // However the broadcast ended, the lock stays held: the watcher decides from the escrow on chain.
      return land('pending.lockSubmitted');
    case 'checkInventory': {
      const { available, now, price } = output as CheckInventoryOutput;
      const mintRaw = (output as CheckInventoryOutput).mintRaw ?? null;
      const assessment = { available, now, price, mintRaw };
      const makerExpiry = Math.min(now + c.makerTimelock, c.takerExpiry - c.safetyMargin);
      const matchingLock =
        has(c, 'taker_lock') && c.takerLockTerms !== null && lockTermsMatch(c, c.takerLockTerms);
      const window = makerExpiry - now >= c.minRedeemWindow;
      // The maker's last look: nothing re-priced (null) or within tolerance.
      const priceHolds = price === null || price.holds;
      const mayLock =
        matchingLock && takerEscrowHolds(c) && c.makerLockIntent === null && window && priceHolds;
      // Just in time: the plan's swap has not landed and none that could is signed — buy, then lock, even
      // when the balance alone would cover the output (the rest of it is other quotes' holds).
      const needsSourcing =
        c.sourcing !== null && c.sourced === null && (c.sourcingIntent === null || c.sourcingIntent.lapsed);
      // Just in time through Gateway: the USDC the maker lacks on Solana is minted first — once a trade, and
      // before any sourcing swap (docs/gateway.md: gateway_mint before aggregator_swap and maker_lock).
      const needsMinting =
        mintRaw !== null && BigInt(mintRaw) > 0n && c.mintIntent === null && c.sourcingIntent === null;
      if (mayLock && available && !needsSourcing && !needsMinting) {
        return land('initiated.locking.signingMakerLock', {}, [], { assessment, makerExpiry });
      }
      if (mayLock && needsMinting) return land('initiated.locking.signingMint', {}, [], { assessment });
      if (mayLock && needsSourcing) return land('initiated.locking.signingSourcing', {}, [], { assessment });
      if (!makerLockMayExist(c)) {
        // The market moved (or prices are unusable): the maker declines before anything else counts.
        const failureReason = !priceHolds
          ? price.reason === 'price_moved'
            ? 'price_moved'
            : 'price_unavailable'
          : available || needsSourcing || needsMinting
            ? 'redeem_window_too_short'
            : 'inventory_unavailable';
        return land('initiated.unwinding.releasingTaker', { failureReason }, [], {
          assessment,
          makerExpiry: null,
        });
      }
      return land('initiated.locking.sendingMakerLock', {}, [], { assessment });
    }
    // A mint failing at any step released the taker at once: nothing of the maker's moved on Solana, and
    // the burn intent can be minted by no one but the maker.
    case 'signMint': {
      const signed = output as SignMintOutput;
      if (!signed.ok) return land('initiated.unwinding.releasingTaker', { failureReason: 'gateway_failed' });
      const mintIntent = { ...signed.intent, attestation: null, transaction: null };
      return land('initiated.locking.attestingMint', {}, [], { mintIntent });
    }
    case 'attestMint': {
      const attested = output as AttestMintOutput;
      if (!attested.ok)
        return land('initiated.unwinding.releasingTaker', { failureReason: 'gateway_failed' });
      const mintIntent = c.mintIntent && {
        ...c.mintIntent,
        attestation: attested.attestation,
        transaction: { ...attested.transaction, lapsed: false },
      };
      return land('initiated.locking.sendingMint', {}, [], { mintIntent });
    }
    case 'sendMint': {
      const sent = output as SendMintOutput;
      if (sent.landed) {
        // Minted: assessed again with the USDC in, then the lock (or a sourcing swap first).
        return land('initiated.locking.assessing', {}, [{ kind: 'gateway_mint', signature: sent.signature }]);
      }
      const transaction = c.mintIntent?.transaction ?? null;
      const mintIntent = c.mintIntent && {
        ...c.mintIntent,
        transaction: transaction && { ...transaction, lapsed: true },
      };
      // Expired unseen with time left for a fresh gatewayMint (the same attestation) and a lock after it.
      const timeLeft = Math.min(sent.now + c.makerTimelock, c.takerExpiry - c.safetyMargin) - sent.now;
      if (sent.expired && timeLeft >= c.minRedeemWindow) {
        return land('initiated.locking.attestingMint', {}, [], { mintIntent });
      }
      return land('initiated.unwinding.releasingTaker', { failureReason: 'gateway_failed' }, [], {
        mintIntent,
      });
    }
    case 'signSourcing': {
      const signed = output as SignSourcingOutput;
      if (!signed.ok) return land('initiated.unwinding.releasingTaker', { failureReason: 'sourcing_failed' });
      const { signature, lastValidBlockHeight, transactionBase64 } = signed;
      const sourcingIntent = { signature, lastValidBlockHeight, transactionBase64, lapsed: false };
      return land('initiated.locking.sendingSourcing', {}, [], { sourcingIntent });
    }
    case 'sendSourcing': {
      const sent = output as SendSourcingOutput;
      if (sent.landed) {
        const { signature, soldRaw, boughtRaw } = sent;
        return land('initiated.locking.assessing', {}, [{ kind: 'aggregator_swap', signature }], {
          sourced: { signature, soldRaw, boughtRaw },
        });
      }
      const sourcingIntent = c.sourcingIntent && { ...c.sourcingIntent, lapsed: true };
      // Expired unseen with time left for a fresh swap and a maker lock after it: sign again.
      const timeLeft = Math.min(sent.now + c.makerTimelock, c.takerExpiry - c.safetyMargin) - sent.now;
      if (sent.expired && timeLeft >= c.minRedeemWindow) {
        return land('initiated.locking.signingSourcing', {}, [], { sourcingIntent });
      }
      // Landed and failed: listed as failed; for its minimum out, the first time and in time, quoted again.
      const failed: TradeSignature[] = sent.failed
        ? [{ kind: 'aggregator_swap', signature: sent.failed.signature, outcome: 'failed' }]
        : [];
      const failedBefore = c.signatures.some((s) => s.kind === 'aggregator_swap' && s.outcome === 'failed');
      if (sent.failed?.slippage && !failedBefore && timeLeft >= c.minRedeemWindow) {
        return land('initiated.locking.signingSourcing', {}, failed, { sourcingIntent });
      }
      return land('initiated.unwinding.releasingTaker', { failureReason: 'sourcing_failed' }, failed, {
        sourcingIntent,
      });
    }
    case 'signMakerLock': {
      const signed = output as { signature: string; lastValidBlockHeight: number; transactionBase64: string };
      const makerLockIntent = { makerExpiry: c.makerExpiry, ...signed, lapsed: false };
      return land('initiated.locking.sendingMakerLock', {}, [], { makerLockIntent } as Partial<TradeContext>);
    }
    case 'makerLock': {
      const result = output as { landed: boolean; signature?: string };
      if (result.landed) {
        return land('initiated.redeeming.makerLocked', {}, [
          { kind: 'maker_lock', signature: result.signature ?? '' },
        ]);
      }
      const makerLockIntent = c.makerLockIntent && { ...c.makerLockIntent, lapsed: true };
      // A lock that landed at confirmed, was taken back by a fork and is now proved lapsed leaves the
      // trade's record (the ledger reverses it).
      const lapsed = (outcome: Outcome): Outcome => ({
        ...outcome,
        signatures: outcome.signatures.filter(
          (s) => !(s.kind === 'maker_lock' && s.signature === c.makerLockIntent?.signature),
        ),
      });
      // Expired unseen, a lock signed afresh with the same terms may still land before the program's lock
      // deadline for it (maker expiry − minimum redeem window); refused, or too late, the taker is released.
      const { expired, now } = output as { expired: boolean; now: number };
      if (expired && c.makerExpiry !== null && now < c.makerExpiry - c.minRedeemWindow) {
        return lapsed(land('initiated.locking.signingMakerLock', {}, [], { makerLockIntent }));
      }
      return lapsed(
        land('initiated.unwinding.releasingTaker', { failureReason: 'maker_lock_lapsed' }, [], {
          makerLockIntent,
        }),
      );
    }
    case 'closeEscrows':
      return land(sub.replace('closingEscrows', 'closed'));
  }

  const ending = output as MakerRefundOutput;
  const escrow = ESCROW_OF[effect] ?? 'maker';
  const moved: TradeSignature[] =
    ending.kind === 'absent' ? [] : [{ kind: MOVEMENT[escrow][ending.kind], signature: ending.signature }];
  const cancelled = ending.kind === 'returned' && ending.how === 'cancelled';
  // The output came back by the taker's cancel: release the taker escrow at once, without waiting.
  const takerCancelled = () =>
    land('initiated.unwinding.releasingTaker', { failureReason: 'taker_cancelled' }, moved);
  switch (sub) {
    case 'initiated.redeeming.redeemingForTaker':
      if (ending.kind === 'paid') return land('initiated.redeeming.takerRedeemLanded', {}, moved);
      if (cancelled) return takerCancelled();
      return land(
        'initiated.unwinding.awaitingTakerExpiry',
        { failureReason: 'maker_escrow_expired' },
        moved,
      );
    case 'initiated.unwinding.refundingMakerEscrow':
      if (ending.kind === 'paid') {
        // The taker redeemed just in time: with the preimage the maker redeems in turn.
        const preimage = ending.preimage !== null && /^[0-9a-f]{64}$/.test(ending.preimage);
        return preimage
          ? land('initiated.redeeming.makerRedeeming', {}, moved, {
              preimage: ending.preimage,
              makerEscrowRedeemSeen: true,
            })
          : land('initiated.redeeming.takerRedeemLanded', {}, moved);
      }
      if (cancelled) return takerCancelled();
      return land('initiated.unwinding.awaitingTakerExpiry', {}, moved);
    case 'initiated.redeeming.makerRedeeming':
      // The taker escrow went back although the preimage was known: proven loss.
      return ending.kind === 'paid'
        ? land('redeemed.closingEscrows', {}, moved)
        : land(refundedSettlesIn(c), MAKER_MISSED_REDEEM, moved);
    case 'initiated.unwinding.refundingTakerEscrow':
      // Paid: the maker's redeem landed after all. Returned: a loss only if the taker was paid.
      return ending.kind === 'paid'
        ? land('redeemed.closingEscrows', {}, moved)
        : land(refundedSettlesIn(c), takerWasPaid(c) ? MAKER_MISSED_REDEEM : {}, moved);
    case 'initiated.unwinding.releasingTaker':
      return ending.kind === 'paid'
        ? land('redeemed.closingEscrows', {}, moved)
        : land(refundedSettlesIn(c), {}, moved);
    case 'failed.releasingLateLock':
    case 'failed.refundingLateLock':
      return land('failed.released', {}, moved);
    case 'initiated.unwinding.reclaimingAfterRollback': {
      // At the maker expiry after a fork: a maker escrow found on chain can only be the intent's lock.
      const lock: TradeSignature[] =
        ending.kind !== 'absent' && c.makerLockIntent !== null && !has(c, 'maker_lock')
          ? [{ kind: 'maker_lock', signature: c.makerLockIntent.signature }]
          : [];
      if (ending.kind === 'paid') {
        // The taker redeemed it (a lock stood at its escrow's address then): the maker redeems in turn.
        const preimage = ending.preimage !== null && /^[0-9a-f]{64}$/.test(ending.preimage);
        return preimage
          ? land('initiated.redeeming.makerRedeeming', {}, [...lock, ...moved], {
              preimage: ending.preimage,
              makerEscrowRedeemSeen: true,
            })
          : land('initiated.redeeming.takerRedeemLanded', {}, [...lock, ...moved]);
      }
      // Back with the maker, or never there (then its lock is proved lapsed): a lock standing again at
      // the taker escrow is released, else the trade is over.
      const context =
        ending.kind === 'absent'
          ? { makerLockIntent: c.makerLockIntent && { ...c.makerLockIntent, lapsed: true } }
          : {};
      return takerEscrowHolds(c)
        ? land('initiated.unwinding.releasingTaker', {}, [...lock, ...moved], context)
        : land('refunded.closingEscrows', {}, [...lock, ...moved], context);
    }
    case 'refunded.reclaimingMakerEscrow': {
      if (ending.kind === 'absent') {
        return land('refunded.closingEscrows', {}, [], {
          makerLockIntent: c.makerLockIntent && { ...c.makerLockIntent, lapsed: true },
        });
      }
      // An escrow found on chain can only be the intent's lock: it is recorded as landed.
      const lock: TradeSignature[] =
        c.makerLockIntent !== null && !has(c, 'maker_lock')
          ? [{ kind: 'maker_lock', signature: c.makerLockIntent.signature }]
          : [];
      // The taker took the output too, after its escrow went back to it: proven loss.
      return land('refunded.closingEscrows', ending.kind === 'paid' ? MAKER_MISSED_REDEEM : {}, [
        ...lock,
        ...moved,
      ]);
    }
    default:
      throw new Error(`${effect} does not run in ${sub}`);
  }
}

/** Whatever a running effect answers moves the trade where the spec says, recording the movement. */
function effectOutcomesLandWhereTheSpecSays(state: TradeSnapshot, path: string, moves: Move[]) {
  for (const { event, accepted, next } of moves) {
    const effect = ACTOR_EVENT.exec(event.type)?.[1] as TradeEffect | undefined;
    if (effect === undefined || !event.type.startsWith('xstate.done.') || !effectRuns(state, effect))
      continue;
    const output = (event as unknown as { output: unknown }).output;
    if (!endingIsPossible(state.context, effect, output)) continue;
    const where = at(path, event);
    expect(accepted, where).toBe(true);
    const expected = outcomeBySpec(state, effect, output);
    const after = next.context;
    expect(
      {
        substate: substateOf(next),
        failureReason: after.failureReason,
        alert: after.alert,
        refundRequested: after.refundRequested,
        signatures: after.signatures,
        context: Object.fromEntries(
          Object.keys(expected.context).map((k) => [k, after[k as keyof TradeContext]]),
        ),
      },
      where,
    ).toEqual(expected);
    // The effect succeeded: its failures, if any, go with the state.
    expect(after.effectError, where).toBeNull();
  }
}

function safetyInvariantsHold(state: TradeSnapshot, path: string) {
  const { context } = state;
  const sub = substateOf(state);
  for (const kind of ESCROW_MOVEMENTS) {
    expect(count(context, kind), `${kind} twice after ${path}`).toBeLessThanOrEqual(1);
  }
  // The taker escrow ends once: paid to the maker or back to the taker, never both.
  expect(count(context, 'maker_redeem') + count(context, 'taker_refund'), path).toBeLessThanOrEqual(1);
  // Never a maker lock but against a lock of the agreed terms — unless a fork took that lock back since (then
  // its terms are forgotten, or those of a lock placed at its address again, whatever they are).
  const rolledBackSince = path.includes('"TAKER_LOCK_ROLLED_BACK"');
  if (
    !rolledBackSince &&
    (count(context, 'maker_lock') > 0 || context.makerLockIntent !== null || state.matches('initiated'))
  ) {
    expect(context.takerLockTerms && lockTermsMatch(context, context.takerLockTerms), path).toBe(true);
  }
  if (context.makerExpiry !== null) {
    expect(context.assessment, path).not.toBeNull();
    expect(context.makerExpiry - (context.assessment?.now ?? 0), path).toBeGreaterThanOrEqual(
      context.minRedeemWindow,
    );
  }
  // The maker's own redeem runs only with the preimage the chain revealed.
  if (state.matches({ initiated: { redeeming: 'makerRedeeming' } })) {
    expect([context.makerEscrowRedeemSeen, context.preimage !== null], path).toEqual([true, true]);
  }
  if (context.preimage !== null)
    expect(context.redeemRequested || context.makerEscrowRedeemSeen, path).toBe(true);
  // Redeemed: the taker escrow went to the maker. Refunded: back to the taker.
  if (state.matches('redeemed')) {
    expect([has(context, 'maker_redeem'), has(context, 'taker_refund')], path).toEqual([true, false]);
  }
  // (After a fork the taker escrow may never have held anything: nothing went back then.)
  if (state.matches('refunded') && !rolledBackSince) {
    expect([has(context, 'taker_refund'), has(context, 'maker_redeem')], path).toEqual([true, false]);
  }
  // Alerts only on proven loss: the taker got its escrow back and was paid from the maker escrow too.
  expect(context.alert, path).toBe(has(context, 'taker_refund') && takerWasPaid(context));
  expect(context.failureReason === 'maker_missed_redeem', path).toBe(context.alert);
  if (state.matches('failed')) expect(context.makerLockIntent, path).toBeNull();
  // Every recorded movement names its transaction.
  for (const entry of context.signatures) {
    expect(typeof entry.signature === 'string' && entry.signature.length > 0, path).toBe(true);
  }
  if (context.makerLockIntent !== null) {
    expect(context.makerLockIntent.makerExpiry, path).toBe(context.makerExpiry);
  }
  // A failure belongs to the state running the failed effect, and counts its attempts.
  if (context.effectError !== null) {
    expect(RETRIED_EFFECT[sub], path).toBe(context.effectError.effect);
    expect(context.effectError.attempts, path).toBeGreaterThanOrEqual(1);
  }
}

/**
 * The runtime wakes the trade at `nextDeadline`: the state's own deadline (CHAIN_TIME_ADVANCED) or a failed
 * effect's retry time (RETRY_EFFECT), whichever comes first; each is exactly when its event is taken.
 */
function nextDeadlineWakesTimeDrivenTransitions(state: TradeSnapshot, path: string) {
  const times = EVENTS.filter((e) => e.type === 'CHAIN_TIME_ADVANCED');
  const retryAt = state.context.effectError?.retryAt ?? null;
  const own = nextDeadline({ value: state.value, context: { ...state.context, effectError: null } });
  if (times.some((e) => state.can(e))) {
    expect(own, path).not.toBeNull();
    expect(state.can(chainTime(own ?? 0)), path).toBe(true);
    expect(state.can(chainTime((own ?? 0) - 1)), path).toBe(false);
  }
  if (own !== null && !state.matches('pending')) {
    expect(state.can(chainTime(own)) || state.can(chainTime(own + 1)), path).toBe(true);
  }
  expect(nextDeadline(state), path).toBe(
    retryAt === null ? own : own === null ? retryAt : Math.min(own, retryAt),
  );
  if (retryAt !== null) {
    expect(state.can(retry(retryAt)), path).toBe(true);
    expect(state.can(retry(retryAt - 1)), path).toBe(false);
  }
}
