// The reference model: what each trade should look like, derived from the facts the commands established
// (locked, abandoned, redeem requested, ...) and the chain clock — or, once the taker settled an escrow
// itself, from how the chain shows its escrows ended (oracle.ts); the invariants checked against the real
// service after every command; and the end of every run, when time runs out (finale).
import type { Keypair } from '@solana/web3.js';
import { PublicKey } from '@solana/web3.js';
import { SLOT_MS } from '../../../src/chain/embedded/ledger.ts';
import { ESCROW_MOVEMENTS } from '../../../src/ledger/index.ts';
import { escrowOutcome, makerLost, type TradeOutcome } from './oracle.ts';
import { type Json, type Secret, SOL, SOL_FEE_TOLERANCE, TIMING, type World } from './world.ts';

export type Status = 'pending' | 'initiated' | 'redeemed' | 'refunded' | 'failed';
const FINAL: readonly Status[] = ['redeemed', 'refunded', 'failed'];
export const isFinal = (s: Status) => FINAL.includes(s);
const RANK: Record<Status, number> = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 };

/** Substates in which a trade is closed: final, nothing left in any escrow (the runtime drops its actor). */
export const CLOSED_SUBSTATES = ['redeemed.closed', 'refunded.closed', 'failed.noLock', 'failed.released'];

export interface MTrade {
  n: number;
  wallet: Keypair;
  taker: string;
  inputMint: string;
  outputMint: string;
  inputRaw: bigint;
  outputRaw: bigint;
  quoteId: string;
  quotedAtMs: number;
  /** The quote expired before settlement: the trade never started. */
  dead: boolean;
  secret: Secret;
  tradeId: string | null;
  lockTx: { base64: string; at: number } | null;
  takerEscrow: string;
  makerEscrow: string;
  lockDeadline: number;
  takerExpiry: number;
  makerExpiry: number | null;
  // Facts the commands established.
  /** The service answered 202 to /lock: the agreed lock is final on chain. */
  locked: boolean;
  /** The service holds a lock signature for the still-pending trade (lock answered other than 202). */
  lockSubmitted: boolean;
  abandoned: boolean;
  /** A lock the taker sent after abandoning landed on chain. */
  lateLock: boolean;
  /** A lock with other terms landed in this trade's escrow. */
  wrongTerms: 'amount' | 'expiry' | null;
  redeemRequested: boolean;
  /** The taker's own redeem of the maker escrow landed on chain. */
  takerRedeemed: boolean;
  refundRequested: boolean;
  /**
   * The taker settled an escrow with its own raw instructions (cancel, redeem either, refund), or time
   * jumped past an expiry while a killed process had a maker lock in flight: from then on the model expects
   * what the chain shows (`outcome`) rather than what the API facts imply.
   */
  chainMoved: boolean;
  /** The taker closed its own escrow (once settled). */
  takerClosed: boolean;
  /** Tokens the taker sent to each escrow's vault (that landed). */
  donated: { maker: bigint; taker: bigint };
  /** How the escrows ended as the chain shows it, refreshed while the model waits (chain-moved trades). */
  outcome: TradeOutcome | null;
  /** Events stored for the trade at the end of the last step (for the per-step bound). */
  eventCount: number;
  /** Taker holdings (SOL: lamports + wrapped) right after its airdrop. */
  start: { input: bigint; output: bigint };
  /** Highest status seen; a final one never changes. */
  seen: Status | null;
  lastView: Json | null;
  /** The quote sources part of its output through the venue (risk check `sourcing`). */
  sourced: boolean;
  /**
   * How the sourcing swap went, fixed when the taker's lock was accepted: the venue answered within the
   * plan (landed: aggregator_swap before maker_lock), or it was down or its pool had slipped (failed: the
   * maker never locks and releases the taker at once, sourcing_failed).
   */
  sourcing: 'landed' | 'failed' | null;
}

export interface Model {
  trades: MTrade[];
  maxTrades: number;
  /** The venue's API server is closed (until the service starts again: a new process serves it anew). */
  venueDown?: boolean;
  /** The sourcing pool's price was moved by a large swap beyond what any sourcing plan allows. */
  slipped?: boolean;
}

/** Sourcing would fail now: the venue does not answer, or its route is beyond every plan's bound. */
export const venueFailing = (m: Model) => m.venueDown === true || m.slipped === true;

export interface Expected {
  status: Status;
  /** Allowed substates (the first is the one the model expects; others are equivalent namings). */
  substate: string | string[];
  /** Allowed failure reasons; `not_a_loss`: any but maker_missed_redeem. */
  reasons: (string | null)[] | 'not_a_loss';
  /** Allowed orders of tx_signature_kinds (with `anyOrder`, the one multiset they must form). */
  kinds: string[][];
  anyOrder?: boolean;
  /** Other states equally acceptable. */
  or?: Expected[];
}

/** The movements the chain shows for a trade's escrows, as signature kinds (each once). */
export function kindsFromChain(o: TradeOutcome, t?: MTrade): string[] {
  const kinds = ['taker_lock'];
  if (t?.sourcing === 'landed') kinds.push('aggregator_swap');
  if (o.maker.state !== 'none') kinds.push('maker_lock');
  if (o.maker.state === 'paid') kinds.push('taker_redeem');
  if (o.maker.state === 'returned') kinds.push('maker_refund');
  if (o.taker.state === 'paid') kinds.push('maker_redeem');
  if (o.taker.state === 'returned') kinds.push('taker_refund');
  return kinds;
}

/**
 * Where a trade whose escrows the taker settled itself must come to rest, from what the chain shows
 * (`t.outcome`) and the clock — or null while the runtime still has something to do (e.g. the maker
 * escrow was cancelled: the maker cancels the taker escrow at once). The runtime reacts to every chain
 * change at once, so the states it may rest in are few:
 */
function chainExpected(t: MTrade, now: number): Expected | null {
  const at = chainSettled(t, now);
  // A lock that landed (and was settled by the taker itself) while no process ran, and that the service
  // never recorded (its /lock was in flight at the kill): the escrow is gone by the time a run looks, so the
  // run learns of the lock from the escrow's history, read once at the lock deadline (watcher.unseenLock).
  // Until then the trade waits for its lock.
  const o = t.outcome;
  const settledByTaker = o !== null && (o.taker.state === 'paid' || o.taker.state === 'returned');
  if (settledByTaker && !t.locked && !t.lockSubmitted && o.maker.state === 'none') {
    if (now <= t.lockDeadline) {
      const waiting: Expected = {
        status: 'pending',
        substate: ['pending.awaitingLock', 'pending.lockSubmitted'],
        reasons: [null],
        kinds: [[]],
      };
      return at === null ? waiting : { ...at, or: [...(at.or ?? []), waiting] };
    }
  }
  return at;
}

function chainSettled(t: MTrade, now: number): Expected | null {
  const o = t.outcome;
  if (o === null) return null;
  const M = o.maker;
  const T = o.taker;
  const kinds = [kindsFromChain(o, t)];
  const state = (
    status: Status,
    substate: string | string[],
    reasons: Expected['reasons'] = 'not_a_loss',
  ) => ({
    status,
    substate,
    reasons,
    kinds,
    anyOrder: true,
  });
  const beforeMakerExpiry = t.makerExpiry !== null && now < t.makerExpiry;
  const beforeTakerExpiry = now < t.takerExpiry;
  if (T.state === 'paid') {
    // The taker escrow went to the maker: redeemed — once the maker escrow is settled too (a maker escrow
    // refunded at its expiry is followed by the trade's last step at the taker expiry).
    if (M.state === 'paid' || (M.state === 'returned' && M.how === 'cancelled'))
      return state('redeemed', 'redeemed.closed');
    if (M.state === 'returned')
      return beforeTakerExpiry
        ? {
            ...state('initiated', 'initiated.awaitingTakerExpiry'),
            or: [state('redeemed', 'redeemed.closed')],
          }
        : state('redeemed', 'redeemed.closed');
    if (M.state === 'locked') return beforeMakerExpiry ? state('initiated', 'initiated.makerLocked') : null;
    // No maker lock: a late or mismatched lock the trade released, or a lock the maker never matched.
    return { ...state('failed', 'failed.released'), or: [state('redeemed', 'redeemed.closed')] };
  }
  if (T.state === 'returned') {
    // Both sides back, or the maker's output gone and the taker's input back: the loss, alerted.
    if (M.state === 'paid') return state('refunded', 'refunded.closed', ['maker_missed_redeem']);
    if (M.state === 'returned') return state('refunded', 'refunded.closed');
    if (M.state === 'locked') return null;
    return { ...state('failed', 'failed.released'), or: [state('refunded', 'refunded.closed')] };
  }
  if (T.state === 'locked') {
    if (M.state === 'locked') return beforeMakerExpiry ? state('initiated', 'initiated.makerLocked') : null;
    if (M.state === 'returned' && M.how === 'refunded' && beforeTakerExpiry)
      return state('initiated', 'initiated.awaitingTakerExpiry');
    return null;
  }
  // No escrow ever reached the chain (a lock in flight when the process died, or moves that were refused):
  // once the lock window is over the trade failed without a lock, like one whose lock never landed.
  if (T.state === 'none' && M.state === 'none' && now > t.lockDeadline)
    return {
      status: 'failed',
      substate: 'failed.noLock',
      reasons: t.abandoned ? ['abandoned'] : ['lock_window_expired', 'lock_not_landed'],
      kinds: [[]],
    };
  return null;
}

/**
 * The settled (quiescent) state a trade must reach, given the facts and the chain clock. A sourced trade
 * whose swap landed shows it right after the taker's lock; one whose sourcing failed is released at once.
 */
export function expected(t: MTrade, now: number): Expected | null {
  if (t.tradeId === null) return null;
  if (t.chainMoved) return chainExpected(t, now);
  if (t.sourcing === 'failed')
    return {
      status: 'refunded',
      substate: 'refunded.closed',
      reasons: ['sourcing_failed'],
      kinds: [['taker_lock', 'taker_refund']],
    };
  const e = plainExpected(t, now);
  if (e === null || t.sourcing !== 'landed') return e;
  const withSwap = (x: Expected): Expected => ({
    ...x,
    kinds: x.kinds.map((k) => (k[0] === 'taker_lock' ? ['taker_lock', 'aggregator_swap', ...k.slice(1)] : k)),
    ...(x.or ? { or: x.or.map(withSwap) } : {}),
  });
  return withSwap(e);
}

function plainExpected(t: MTrade, now: number): Expected | null {
  if (t.wrongTerms !== null)
    return {
      status: 'failed',
      substate: 'failed.released',
      reasons: ['lock_terms_mismatch'],
      kinds: [['taker_lock', 'taker_refund']],
    };
  if (t.abandoned)
    return t.lateLock
      ? {
          status: 'failed',
          substate: 'failed.released',
          reasons: ['abandoned'],
          kinds: [['taker_lock', 'taker_refund']],
        }
      : {
          status: 'failed',
          // While the window is open the runtime keeps watching the escrow (a lock may still land).
          substate: now > t.lockDeadline ? 'failed.noLock' : ['failed.lockWindowOpen', 'failed.noLock'],
          reasons: ['abandoned'],
          kinds: [[]],
        };
  if (!t.locked) {
    if (now > t.lockDeadline)
      return {
        status: 'failed',
        substate: 'failed.noLock',
        reasons: ['lock_window_expired', 'lock_not_landed'],
        kinds: [[]],
      };
    return {
      status: 'pending',
      substate: t.lockSubmitted ? 'pending.lockSubmitted' : 'pending.awaitingLock',
      reasons: [null],
      kinds: [[]],
    };
  }
  if (t.redeemRequested || t.takerRedeemed)
    return {
      status: 'redeemed',
      substate: 'redeemed.closed',
      reasons: [null],
      kinds: [['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']],
    };
  if (t.makerExpiry === null) throw new Error(`trade ${t.n} locked without a maker expiry`);
  if (now >= t.takerExpiry)
    return {
      status: 'refunded',
      substate: 'refunded.closed',
      // The taker may refund itself before the runtime reclaims the maker escrow (no reason then).
      reasons: ['maker_escrow_expired', null],
      kinds: [
        ['taker_lock', 'maker_lock', 'maker_refund', 'taker_refund'],
        ['taker_lock', 'maker_lock', 'taker_refund', 'maker_refund'],
      ],
    };
  if (now >= t.makerExpiry)
    return {
      status: 'initiated',
      substate: 'initiated.awaitingTakerExpiry',
      reasons: ['maker_escrow_expired'],
      kinds: [['taker_lock', 'maker_lock', 'maker_refund']],
    };
  return {
    status: 'initiated',
    substate: 'initiated.makerLocked',
    reasons: [null],
    kinds: [['taker_lock', 'maker_lock']],
  };
}

const sorted = (xs: string[]) => [...xs].sort().join(',');

function matches(view: Json, e: Expected): boolean {
  const kinds = (view.tx_signature_kinds as { kind: string }[]).map((k) => k.kind);
  const here =
    view.settlement_status === e.status &&
    (Array.isArray(e.substate) ? e.substate.includes(view.substate) : view.substate === e.substate) &&
    (e.reasons === 'not_a_loss'
      ? view.failure_reason !== 'maker_missed_redeem'
      : e.reasons.includes(view.failure_reason)) &&
    e.kinds.some((k) =>
      e.anyOrder ? sorted(kinds) === sorted(k) : JSON.stringify(kinds) === JSON.stringify(k),
    );
  return here || (e.or ?? []).some((other) => matches(view, other));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How the trade's escrows ended, as the chain shows it (see oracle.ts). */
export async function tradeOutcome(world: World, t: MTrade): Promise<TradeOutcome> {
  const maker = world.makerWallet.toBase58();
  return {
    maker: await escrowOutcome(world.service.chain, {
      escrow: t.makerEscrow,
      mint: t.outputMint,
      amount: t.outputRaw,
      recipient: t.taker,
      initializer: maker,
    }),
    taker: await escrowOutcome(world.service.chain, {
      escrow: t.takerEscrow,
      mint: t.inputMint,
      amount: t.wrongTerms === 'amount' ? t.inputRaw - 1n : t.inputRaw,
      recipient: maker,
      initializer: t.taker,
    }),
  };
}

/**
 * Polls every started trade until it shows what the model expects at the current chain time (the runtime
 * acts on its own timer), then records the views. Fails with the trades that never got there within
 * `timeoutMs` — counted, for a trade whose close waits on the chain (closeAwaits), from the block its wait
 * ends at: that wait is the chain's, not the runtime's. When every trade is final and those still pending
 * wait only for that, nothing else hangs on chain time: the clock is moved past it rather than waiting
 * a minute for its blocks.
 */
export async function settle(model: Model, world: World, timeoutMs = 15_000): Promise<void> {
  let until = Date.now() + timeoutMs;
  for (;;) {
    const before = await world.now();
    const pending: string[] = [];
    let allFinal = true;
    /** The blocks the pending trades' closes await (NaN once one pending trade awaits something else). */
    let blocksAwaited = 0;
    for (const t of model.trades) {
      if (t.tradeId === null) {
        allFinal = false;
        continue;
      }
      if (t.chainMoved) t.outcome = await tradeOutcome(world, t);
      const view = await world.trade(t.tradeId);
      if (t.makerExpiry === null && view.maker_expires_at) t.makerExpiry = isoSeconds(view.maker_expires_at);
      const after = await world.now();
      const e = expected(t, after);
      if (e === null || !isFinal(e.status)) allFinal = false;
      const ok = [before, after].some((now) => {
        const at = expected(t, now);
        return at !== null && matches(view, at);
      });
      if (ok) {
        t.lastView = view;
        continue;
      }
      const awaited = await closeAwaits(world, t, view, e);
      if (awaited === null) blocksAwaited = Number.NaN;
      else {
        const blocksLeft = awaited.lastValidBlockHeight - awaited.height + 1;
        blocksAwaited = Math.max(blocksAwaited, blocksLeft);
        until = Math.max(until, Date.now() + blocksLeft * SLOT_MS + timeoutMs);
      }
      pending.push(
        `trade #${t.n}: is ${view.settlement_status}/${view.substate} reason=${view.failure_reason} kinds=${kindsOf(view).join(',')}; ` +
          `expected ${JSON.stringify(e)} (now=${after}, lockDeadline=${t.lockDeadline}, makerExpiry=${t.makerExpiry}, takerExpiry=${t.takerExpiry})` +
          (t.chainMoved ? ` chain: ${JSON.stringify(t.outcome)}` : '') +
          (awaited ? ` its close awaits ${JSON.stringify(awaited)}` : ''),
      );
    }
    if (pending.length === 0) return;
    if (allFinal && blocksAwaited > 0) {
      const seconds = Math.ceil((blocksAwaited * SLOT_MS) / 1000);
      world.note(
        `closing awaits a transaction that may land for ${blocksAwaited} more blocks: advance ${seconds}s`,
      );
      await world.advance(seconds);
      continue;
    }
    if (Date.now() > until)
      throw new Error(`trades did not settle as the model expects:\n${pending.join('\n')}`);
    await sleep(40);
  }
}

/**
 * A trade that is where the model expects it but still closing (`<status>.closingEscrows` for
 * `<status>.closed`) may be waiting for the chain: its books close only once every maker transaction it
 * recorded an intent for has landed (its fee posted) or can no longer land. A run killed between an intent
 * and its send leaves one the chain does not know, and the next run signs that move again; the dead run's
 * transaction could still land until the chain passes its last valid block height — up to a blockhash's
 * life (150 blocks, a minute on the embedded chain) after it was signed, however fast the runtime is. Answers
 * the latest such height and the chain's height now, or null when the close waits for nothing of the kind.
 */
async function closeAwaits(
  world: World,
  t: MTrade,
  view: Json,
  e: Expected | null,
): Promise<{ signature: string; lastValidBlockHeight: number; height: number } | null> {
  const closing = typeof view.substate === 'string' && view.substate.endsWith('.closingEscrows');
  if (e === null || !closing) return null;
  if (!matches({ ...view, substate: view.substate.replace(/closingEscrows$/, 'closed') }, e)) return null;
  const chain = world.service.chain;
  const height = await chain.blockHeight();
  const fees = new Set(
    (await world.ledger())
      .filter((entry) => entry.trade_id === t.tradeId && entry.movement === 'network_fee')
      .map((entry) => entry.signature),
  );
  let latest: { signature: string; lastValidBlockHeight: number; height: number } | null = null;
  for (const event of await world.events(t.tradeId as string)) {
    if (event.type !== 'TX_INTENT') continue;
    const { signature, last_valid_block_height: lastValid } = event.payload as {
      signature: string;
      last_valid_block_height?: number;
    };
    if (fees.has(signature) || lastValid === undefined || lastValid < height) continue;
    if ((await chain.signatureState(signature)).status !== 'unknown') continue;
    if (latest === null || lastValid > latest.lastValidBlockHeight)
      latest = { signature, lastValidBlockHeight: lastValid, height };
  }
  return latest;
}

/**
 * Trades are virtual actors: between steps every trade comes to rest — no actor in memory, no effect running — and what
 * the store answers for it at rest is what its live actor showed. The next step then activates it from
 * the store. Fails with the trades still active after `timeoutMs`.
 */
export async function rest(model: Model, world: World, timeoutMs = 10_000): Promise<void> {
  const ids = model.trades.flatMap((t) => (t.tradeId === null ? [] : [t.tradeId]));
  const until = Date.now() + timeoutMs;
  // A trade at rest may be woken again before the view is read: its deadline came due between two of the
  // scheduler's ticks (on PostgreSQL a tick's queries take longer than the quiet check). That is a wake, not
  // an actor left in memory: wait for rest again. Only a view that keeps listing a trade fails.
  for (;;) {
    await quietly(ids, world, until);
    const runtime = await world.get('/v1/runtime');
    const listed = (runtime.body.actors.list as { trade_id: string }[]).filter((a) =>
      ids.includes(a.trade_id),
    );
    if (listed.length === 0) break;
    if (Date.now() > until) fail(`trades at rest listed as active actors: ${JSON.stringify(listed)}`);
  }
  const now = await world.now();
  for (const t of model.trades) {
    if (t.tradeId === null || t.lastView === null) continue;
    const stored = await world.trade(t.tradeId);
    const same = (v: Json) =>
      JSON.stringify([
        v.settlement_status,
        v.substate,
        v.failure_reason,
        v.tx_signature_kinds,
        v.ledger_summary,
      ]);
    if (same(stored) === same(t.lastView)) continue;
    // It may have moved on meanwhile (a deadline came due), but only to where the model expects it.
    const e = expected(t, now);
    if (e === null || !matches(stored, e))
      fail(`trade #${t.n} at rest reads ${same(stored)}, its actor showed ${same(t.lastView)}`);
    t.lastView = stored;
  }
}

/** Waits until no trade of `ids` is active, twice in a row a few turns apart (a chain change pushed just now
 * activates its trade on the next turn). */
async function quietly(ids: string[], world: World, until: number): Promise<void> {
  let quiet = 0;
  while (quiet < 2) {
    const active = ids.filter((id) => world.isActive(id));
    quiet = active.length === 0 ? quiet + 1 : 0;
    if (quiet < 2) {
      if (Date.now() > until) {
        const host = world.service.runtime.host as unknown as {
          active: Map<
            string,
            {
              actor: { getSnapshot(): { value: unknown; children: object } };
              pending: number;
              broken: string | null;
              observedIn: string | null;
            }
          >;
          locks: Map<string, unknown>;
        };
        const detail = active.map((id) => {
          const a = host.active.get(id);
          const snap = a?.actor.getSnapshot();
          return `${id}: ${JSON.stringify(snap?.value)} children=${Object.keys(snap?.children ?? {})} pending=${a?.pending} broken=${a?.broken} observedIn=${a?.observedIn} locked=${host.locks.has(id)}`;
        });
        throw new Error(`invariant: trades never came to rest: ${detail.join('; ')}`);
      }
      await sleep(15);
    }
  }
}

export const kindsOf = (view: Json): string[] =>
  (view.tx_signature_kinds as { kind: string }[]).map((k) => k.kind);
export const isoSeconds = (iso: string) => Math.round(Date.parse(iso) / 1000);

function fail(message: string): never {
  throw new Error(`invariant: ${message}`);
}

/** Per ledger account and mint, what the ledger posted (debits in, credits out), network fees apart. */
function ledgerNets(
  entries: {
    trade_id: string;
    movement: string;
    mint: string;
    account: string;
    side: string;
    amount_raw: string;
  }[],
  account: string,
  tradeId?: string,
): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const e of entries) {
    if (e.account !== account || e.movement === 'network_fee') continue;
    if (tradeId !== undefined && e.trade_id !== tradeId) continue;
    const amount = BigInt(e.amount_raw) * (e.side === 'debit' ? 1n : -1n);
    net.set(e.mint, (net.get(e.mint) ?? 0n) + amount);
  }
  return net;
}

type LedgerRow = Awaited<ReturnType<World['ledger']>>[number];

/**
 * Just-in-time sourcing: a sourced trade's maker lock follows its swap; a trade whose sourcing failed never
 * locked nor swapped and keeps none of the taker's funds; the swap's ledger entries are what the chain shows
 * it moved (the maker's side against the venue), it sold exactly the plan's input and bought at least what
 * the plan owes the taker.
 */
async function checkSourcing(world: World, t: MTrade, view: Json, ledger: LedgerRow[]): Promise<void> {
  const recorded = view.tx_signature_kinds as { kind: string; signature: string }[];
  const kinds = recorded.map((k) => k.kind);
  const swapAt = kinds.indexOf('aggregator_swap');
  const makerLockAt = kinds.indexOf('maker_lock');
  if (!t.sourced) {
    if (swapAt >= 0) fail(`trade #${t.n} was not sourced but shows an aggregator_swap: ${kinds}`);
    if (view.failure_reason === 'sourcing_failed') fail(`trade #${t.n} was not sourced but failed sourcing`);
    return;
  }
  if (makerLockAt >= 0 && !(swapAt >= 0 && swapAt < makerLockAt))
    fail(`trade #${t.n} sourced: maker_lock without the aggregator_swap before it: ${kinds}`);
  if (swapAt >= 0 && kinds.indexOf('taker_lock') > swapAt)
    fail(`trade #${t.n} swapped before the taker's lock: ${kinds}`);
  if (view.failure_reason === 'sourcing_failed') {
    if (t.sourcing !== 'failed')
      fail(`trade #${t.n} failed sourcing with the venue up and its pool in place`);
    if (swapAt >= 0 || makerLockAt >= 0)
      fail(`trade #${t.n} failed sourcing after swapping or locking: ${kinds}`);
  }
  if (t.sourcing === 'failed' && swapAt >= 0) fail(`trade #${t.n} swapped with the venue failing: ${kinds}`);
  if (swapAt < 0) return;
  const signature = (recorded[swapAt] as { signature: string }).signature;
  const maker = world.makerWallet.toBase58();
  const tx = await world.service.chain.getTransaction(signature, 'finalized');
  if (tx === null || tx.err !== null)
    fail(`trade #${t.n} aggregator_swap ${signature} did not succeed on chain`);
  const legs = ledger.filter((e) => e.signature === signature && e.movement === 'aggregator_swap');
  if (legs.some((e) => e.trade_id !== t.tradeId))
    fail(`trade #${t.n} swap ${signature} booked on another trade`);
  const makerNet = ledgerNets(legs, 'maker');
  const venueNet = ledgerNets(legs, 'venue');
  for (const mint of [t.inputMint, t.outputMint]) {
    let onChain = 0n;
    for (const b of tx.tokenBalances ?? [])
      if (b.owner === maker && b.mint === mint) onChain += b.post - b.pre;
    const booked = makerNet.get(mint) ?? 0n;
    if (booked !== onChain)
      fail(
        `trade #${t.n} swap ${signature}: the ledger books ${booked} of ${mint}, the chain moved ${onChain}`,
      );
    if ((venueNet.get(mint) ?? 0n) !== -booked)
      fail(
        `trade #${t.n} swap ${signature}: the venue's legs ${venueNet.get(mint)} do not mirror the maker's ${booked}`,
      );
  }
  const sold = -(makerNet.get(t.inputMint) ?? 0n);
  const bought = makerNet.get(t.outputMint) ?? 0n;
  if (sold <= 0n || sold > t.inputRaw) fail(`trade #${t.n} swap sold ${sold} of its ${t.inputRaw} input`);
  const plan = (await world.context(t.tradeId as string))?.sourcing ?? null;
  if (plan !== null) {
    if (BigInt(plan.sellRaw) !== sold) fail(`trade #${t.n} swap sold ${sold}, its plan ${plan.sellRaw}`);
    if (bought < BigInt(plan.minBuyRaw))
      fail(`trade #${t.n} swap bought ${bought}, its plan owes ${plan.minBuyRaw}`);
  }
}

/** Every invariant, on the views `settle` just recorded and on the chain. */
export async function checkInvariants(model: Model, world: World): Promise<void> {
  // The check reads the ledger, then the chain: a trade at rest can still be woken between the two (its
  // deadline came due, on chain time that follows the wall clock) and move funds the ledger read before.
  // Its transaction can even land before its posting is written (the posting follows the landing), so a
  // failed check first lets every trade come to rest again: when the ledger has grown meanwhile, the world
  // moved under it: check again.
  for (let attempt = 1; ; attempt++) {
    const ledger = await world.ledger();
    try {
      await checkInvariantsAgainst(model, world, ledger);
      return;
    } catch (error) {
      if (attempt < 3) {
        await rest(model, world);
        if ((await world.ledger()).length !== ledger.length) continue;
      }
      throw error;
    }
  }
}

async function checkInvariantsAgainst(
  model: Model,
  world: World,
  ledger: Awaited<ReturnType<World['ledger']>>,
): Promise<void> {
  const chain = world.service.chain;
  const maker = world.makerWallet.toBase58();
  const started = model.trades.filter((t) => t.tradeId !== null && t.lastView !== null);

  for (const t of started) {
    const view = t.lastView as Json;
    const status = view.settlement_status as Status;
    // settlement_status never leaves a final status, and never goes back.
    if (t.seen !== null) {
      if (isFinal(t.seen) && status !== t.seen) fail(`trade #${t.n} left ${t.seen} for ${status}`);
      if (RANK[status] < RANK[t.seen]) fail(`trade #${t.n} went back from ${t.seen} to ${status}`);
    }
    t.seen = status;

    // Every ledger balanced.
    if (view.ledger_summary?.balanced !== true)
      fail(`trade #${t.n} ledger not balanced: ${JSON.stringify(view.ledger_summary)}`);

    // An alert only on a loss the chain proves (and every such loss alerted).
    const context = await world.context(t.tradeId as string);
    if (t.chainMoved && t.outcome !== null) {
      const lost = makerLost(t.outcome);
      if ((context?.alert ?? false) !== lost)
        fail(`trade #${t.n} alert=${context?.alert} but the chain shows ${JSON.stringify(t.outcome)}`);
    } else if (context?.alert || view.failure_reason === 'maker_missed_redeem') {
      const outcome = await tradeOutcome(world, t);
      if (!makerLost(outcome))
        fail(`trade #${t.n} alerted (${view.failure_reason}) but the chain shows ${JSON.stringify(outcome)}`);
    }

    // No maker lock without a final matching taker lock before it.
    const kinds = kindsOf(view);
    const makerLockAt = kinds.indexOf('maker_lock');
    for (const kind of [...ESCROW_MOVEMENTS, 'aggregator_swap'])
      if (kinds.filter((k) => k === kind).length > 1) fail(`trade #${t.n} has two ${kind}: ${kinds}`);
    await checkSourcing(world, t, view, ledger);
    if (makerLockAt >= 0) {
      const takerLockAt = kinds.indexOf('taker_lock');
      if (takerLockAt < 0 || takerLockAt > makerLockAt)
        fail(`trade #${t.n} maker_lock before taker_lock: ${kinds}`);
      const escrow = await chain.readEscrow(new PublicKey(t.takerEscrow), 'finalized');
      // The taker may close its own escrow once settled (its terms were checked while it existed).
      if (!escrow && !t.takerClosed) fail(`trade #${t.n} maker locked but the taker escrow is absent`);
      if (escrow) {
        const terms = {
          initializer: escrow.initializer.toBase58(),
          recipient: escrow.recipient.toBase58(),
          mint: escrow.mint.toBase58(),
          amount: escrow.amount,
          hashlock: Buffer.from(escrow.hashlock).toString('hex'),
          expiry: Number(escrow.expiry),
          lockDeadline: Number(escrow.lockDeadline),
        };
        const agreed = {
          initializer: t.taker,
          recipient: maker,
          mint: t.inputMint,
          amount: t.inputRaw,
          hashlock: t.secret.secretHash,
          expiry: t.takerExpiry,
          lockDeadline: t.lockDeadline,
        };
        for (const k of Object.keys(agreed) as (keyof typeof agreed)[]) {
          if (terms[k] !== agreed[k])
            fail(`trade #${t.n} maker locked against taker escrow ${k}=${terms[k]} (agreed ${agreed[k]})`);
        }
      }
      const makerEscrow = await chain.readEscrow(new PublicKey(t.makerEscrow), 'finalized');
      if (makerEscrow) {
        if (makerEscrow.recipient.toBase58() !== t.taker)
          fail(`trade #${t.n} maker escrow pays ${makerEscrow.recipient.toBase58()}`);
        if (makerEscrow.amount !== t.outputRaw)
          fail(`trade #${t.n} maker escrow amount ${makerEscrow.amount}`);
        if (Buffer.from(makerEscrow.hashlock).toString('hex') !== t.secret.secretHash)
          fail(`trade #${t.n} maker hashlock`);
        if (Number(makerEscrow.expiry) > t.takerExpiry - TIMING.safety_margin_seconds)
          fail(`trade #${t.n} maker expiry ${makerEscrow.expiry} leaves less than the safety margin`);
      }
    }
    if (kinds.length > 0 && kinds[0] !== 'taker_lock') fail(`trade #${t.n} first movement is ${kinds[0]}`);

    // The taker's holdings moved by exactly what its ledger says (and what it gave away or swept back).
    const taker = t.wallet.publicKey;
    const takerNet = ledgerNets(ledger, 'taker', t.tradeId as string);
    const takerVault = await world.vaultBalance(t.takerEscrow);
    for (const [mint, started_, side] of [
      [t.inputMint, t.start.input, 'input'],
      [t.outputMint, t.start.output, 'output'],
    ] as const) {
      const holding = await world.holding(taker, mint);
      let expectedHolding = started_ + (takerNet.get(mint) ?? 0n);
      if (mint !== SOL) {
        if (side === 'output') expectedHolding -= t.donated.maker;
        // Donated to its own vault: gone until it closes the escrow, which sweeps the rest back.
        if (side === 'input' && takerVault) expectedHolding -= t.donated.taker;
      }
      const tol = mint === SOL ? SOL_FEE_TOLERANCE : 0n;
      if (holding > expectedHolding + tol || holding < expectedHolding - tol)
        fail(
          `trade #${t.n} taker ${side} ${holding} on chain, ${expectedHolding} by its ledger (start ${started_}, ledger ${takerNet.get(mint) ?? 0n}, donated ${JSON.stringify(t.donated, (_, v) => (typeof v === 'bigint' ? String(v) : v))})`,
        );
    }
    // An honest taker (API moves and its own redeem or refund only) never ends with less than it started,
    // unless it received the other side's asset.
    if (!t.chainMoved) {
      const input = await world.holding(taker, t.inputMint);
      const output = await world.holding(taker, t.outputMint);
      const tol = (mint: string) => (mint === SOL ? SOL_FEE_TOLERANCE : 0n);
      const gift = (mint: string, escrow: 'maker' | 'taker') => (mint === SOL ? 0n : t.donated[escrow]);
      const quiet = [
        'redeemed.closed',
        'refunded.closed',
        'failed.noLock',
        'failed.lockWindowOpen',
        'failed.released',
      ].includes(view.substate);
      const startIn = t.start.input - gift(t.inputMint, 'taker');
      const startOut = t.start.output - gift(t.outputMint, 'maker');
      if (status === 'redeemed' && quiet) {
        if (output < startOut + t.outputRaw - tol(t.outputMint))
          fail(
            `trade #${t.n} redeemed but the taker holds ${output} of output (start ${startOut} + ${t.outputRaw})`,
          );
        if (input < startIn - t.inputRaw - tol(t.inputMint))
          fail(`trade #${t.n} taker paid more than its input: ${input} (start ${startIn} - ${t.inputRaw})`);
      } else if (isFinal(status) && quiet) {
        if (input < startIn - tol(t.inputMint))
          fail(`trade #${t.n} ${status} but the taker's input is ${input} (started with ${startIn})`);
        if (output < startOut - tol(t.outputMint))
          fail(`trade #${t.n} ${status} but the taker's output is ${output} (started with ${startOut})`);
      } else if (input < startIn - t.inputRaw - tol(t.inputMint)) {
        // In flight: at most the agreed input sits in escrow.
        fail(`trade #${t.n} taker input ${input} below start ${startIn} - escrowed ${t.inputRaw}`);
      }
    }
  }

  // The maker: its tokens plus what its escrows' vaults hold moved by exactly what the ledger posted for the
  // maker and its escrows, plus what takers donated to those vaults (swept to the maker at close; a
  // wrapped-SOL vault's dust goes to its lamports instead).
  const vaults = new Map<string, bigint>();
  const makerVaults = new Map<string, bigint>();
  const donatedToMaker = new Map<string, bigint>();
  for (const t of model.trades) {
    if (t.tradeId === null) continue;
    for (const [escrow, own] of [
      [t.takerEscrow, false],
      [t.makerEscrow, true],
    ] as const) {
      const v = await world.vaultBalance(escrow);
      if (own && t.donated.maker > 0n && (v !== null || t.outputMint !== SOL))
        donatedToMaker.set(t.outputMint, (donatedToMaker.get(t.outputMint) ?? 0n) + t.donated.maker);
      if (!v) continue;
      vaults.set(v.mint, (vaults.get(v.mint) ?? 0n) + v.amount);
      if (own) makerVaults.set(v.mint, (makerVaults.get(v.mint) ?? 0n) + v.amount);
    }
  }
  const makerNet = ledgerNets(ledger, 'maker');
  const makerEscrowNet = ledgerNets(ledger, 'maker_escrow');
  const makerNow = new Map<string, bigint>();
  for (const mint of world.makerStart.keys()) {
    const balance = await world.tokenBalance(world.makerWallet, mint);
    makerNow.set(mint, balance);
    const onChain = balance + (makerVaults.get(mint) ?? 0n);
    const byLedger =
      (world.makerStart.get(mint) ?? 0n) +
      (makerNet.get(mint) ?? 0n) +
      (makerEscrowNet.get(mint) ?? 0n) +
      (donatedToMaker.get(mint) ?? 0n);
    if (onChain !== byLedger)
      fail(
        `maker ${mint}: holds ${balance} + ${makerVaults.get(mint) ?? 0n} in its vaults, the ledger says ${byLedger} (start ${world.makerStart.get(mint)}, maker ${makerNet.get(mint) ?? 0n}, escrows ${makerEscrowNet.get(mint) ?? 0n}, donated ${donatedToMaker.get(mint) ?? 0n})`,
      );
    // Reserved inventory never exceeds inventory (unfunded holds count up to their budget).
    const reserved = world.service.quotes.heldAgainst(mint, balance);
    if (reserved > balance) fail(`reserved ${reserved} of ${mint} exceeds the maker's ${balance}`);
  }

  // Every swap the maker made on chain (a transaction it paid for that calls the venue's program) is the
  // one sourcing swap of a trade that shows it: never a second swap for a trade, never one for a trade
  // whose sourcing failed.
  const recorded = new Set(
    model.trades.flatMap((t) =>
      ((t.lastView?.tx_signature_kinds ?? []) as { kind: string; signature: string }[])
        .filter((k) => k.kind === 'aggregator_swap')
        .map((k) => k.signature),
    ),
  );
  const amm = world.venue.programId.toBase58();
  const swapsOnChain = world.chain.ledger
    .transactionsForAddress(maker, 10_000)
    .filter((tx) => tx.accountKeys[0] === maker && tx.accountKeys.includes(amm) && tx.err === null)
    .map((tx) => tx.signature);
  for (const signature of swapsOnChain)
    if (!recorded.has(signature))
      fail(`the maker's swap ${signature} on chain is no trade's aggregator_swap`);

  // Funds conserved on chain: takers + maker + vaults + the venue's pools + the model's own trader on the
  // venue, per mint, against what the test put in.
  for (const mint of world.makerStart.keys()) {
    let total =
      (makerNow.get(mint) ?? 0n) +
      (vaults.get(mint) ?? 0n) +
      world.venueHeld(mint) +
      (await world.tokenBalance(world.trader.publicKey, mint));
    let baseline =
      (world.makerStart.get(mint) ?? 0n) +
      (world.venueStart.get(mint) ?? 0n) +
      (world.traderFunded.get(mint) ?? 0n);
    let takers = 0n;
    for (const t of model.trades) {
      const pk = t.wallet.publicKey;
      if (t.inputMint === mint) {
        total += await world.holding(pk, mint);
        baseline += t.start.input;
        takers++;
      } else if (t.outputMint === mint) {
        total += await world.holding(pk, mint);
        baseline += t.start.output;
        takers++;
      }
    }
    const slack = mint === SOL ? SOL_FEE_TOLERANCE * takers : 0n;
    if (total > baseline + slack || total < baseline - slack)
      fail(`${mint} not conserved: ${total} on chain, ${baseline} put in (slack ${slack})`);
  }
}

/**
 * Failed effect attempts per trade over a whole run. On the embedded chain nothing is unreachable: an effect
 * fails only when a taker's move lands between its read of the escrow and its own transaction in a way the
 * effect cannot answer at once, and it answers on its next attempt. A run holds at most a couple of such
 * races per trade; an effect failing in a loop would be retried until time runs out and blow the bound.
 */
export const MAX_EFFECT_FAILURES = 3;

/**
 * Events a trade stores over its whole life: a swap stores 11 to 17 (settlement, lock, the final lock, four
 * or five effects with their intents, a fact or two), a run at most one ADOPTED per restart on top.
 */
export const eventsBound = (restarts: number) => 24 + restarts;

/**
 * The end of every run: time runs out (the clock goes past every lock window and both expiries of every
 * trade), and then every trade must come to a final, closed state within a bounded number of effect
 * attempts, recording exactly the movements the chain shows with their signatures, the maker escrow closed
 * (its rent reclaimed), an alert exactly when the chain shows the maker lost, and the network fees the
 * ledger names as the chain charged them.
 */
export async function finale(model: Model, world: World): Promise<void> {
  const trades = model.trades.filter((t) => t.tradeId !== null);
  if (trades.length === 0) return;
  const end = Math.max(...trades.map((t) => Math.max(t.lockDeadline + 1, t.takerExpiry + 8)));
  const now = await world.now();
  if (now < end) {
    world.note(`finale: advance ${end - now}s past every expiry`);
    await world.advance(end - now);
  }
  await settle(model, world, 20_000);
  await rest(model, world);
  await checkInvariants(model, world);
  const chain = world.service.chain;
  for (const t of trades) {
    const id = t.tradeId as string;
    const view = t.lastView as Json;
    if (!CLOSED_SUBSTATES.includes(view.substate)) fail(`trade #${t.n} did not close: ${view.substate}`);
    const outcome = await tradeOutcome(world, t);
    const recorded = view.tx_signature_kinds as { kind: string; signature: string }[];
    const kinds = recorded.map((k) => k.kind);
    if (outcome.taker.state === 'none') {
      if (kinds.length > 0) fail(`trade #${t.n} without a taker lock records ${kinds}`);
    } else {
      const want = kindsFromChain(outcome, t);
      if (sorted(kinds) !== sorted(want))
        fail(`trade #${t.n} records ${kinds}, the chain shows ${want}: ${JSON.stringify(outcome)}`);
      const settledBy: Record<string, string | undefined> = {
        taker_redeem: outcome.maker.state === 'paid' ? outcome.maker.signature : undefined,
        maker_refund: outcome.maker.state === 'returned' ? outcome.maker.signature : undefined,
        maker_redeem: outcome.taker.state === 'paid' ? outcome.taker.signature : undefined,
        taker_refund: outcome.taker.state === 'returned' ? outcome.taker.signature : undefined,
      };
      for (const { kind, signature } of recorded) {
        const onChain = settledBy[kind];
        if (onChain !== undefined && onChain !== signature)
          fail(`trade #${t.n} records ${kind} ${signature}, the chain settled it in ${onChain}`);
        const state = await chain.signatureState(signature);
        if (state.status === 'unknown' || state.err !== null)
          fail(`trade #${t.n} records ${kind} ${signature}, which did not succeed on chain`);
      }
    }
    if (outcome.maker.state !== 'none') {
      if ((await chain.readEscrow(new PublicKey(t.makerEscrow), 'finalized')) !== null)
        fail(`trade #${t.n} closed but its maker escrow still exists (rent not reclaimed)`);
      if ((await world.vaultBalance(t.makerEscrow)) !== null)
        fail(`trade #${t.n} maker escrow vault left open`);
    }
    const lost = makerLost(outcome);
    const context = await world.context(id);
    if ((context?.alert ?? false) !== lost || (view.failure_reason === 'maker_missed_redeem') !== lost)
      fail(
        `trade #${t.n} alert=${context?.alert} reason=${view.failure_reason}, but the maker ${lost ? 'lost' : 'did not lose'}: ${JSON.stringify(outcome)}`,
      );
    if (context?.effectError != null) fail(`trade #${t.n} closed with a failing effect`);
    const events = await world.events(id);
    const failures = events.filter((e) => e.type.startsWith('xstate.error.actor'));
    if (failures.length > MAX_EFFECT_FAILURES)
      fail(
        `trade #${t.n}: ${failures.length} failed effect attempts (bound ${MAX_EFFECT_FAILURES}): ` +
          JSON.stringify(failures.map((e) => ({ seq: e.seq, type: e.type, payload: e.payload }))),
      );
    if (events.length > eventsBound(world.restarts))
      fail(`trade #${t.n} stored ${events.length} events (bound ${eventsBound(world.restarts)})`);
    // Network fees the ledger posts are what the chain charged for the maker's own transactions.
    const intents = new Set(
      events.filter((e) => e.type === 'TX_INTENT').map((e) => e.payload.signature as string),
    );
    const fees = (await world.ledger()).filter((e) => e.trade_id === id && e.movement === 'network_fee');
    for (const fee of fees.filter((e) => e.account === 'maker')) {
      if (!intents.has(fee.signature))
        fail(`trade #${t.n} fee for ${fee.signature}, not a transaction it sent`);
      const tx = await chain.getTransaction(fee.signature, 'finalized');
      if (tx?.fee !== BigInt(fee.amount_raw))
        fail(`trade #${t.n} fee ${fee.amount_raw} for ${fee.signature}, the chain charged ${tx?.fee}`);
    }
  }
}
