// Every write the running service makes, as data: the group commit gathers a turn's writes and hands them to
// the store's `commit`, which applies them in one transaction, each in its own savepoint.
import type { LedgerEntry } from '../ledger/index.ts';
import type { HedgeRecord, HedgeUpdate } from './hedges.ts';
import type { NewTradeEvent, QuoteRecord, TradeRecord, TradeUpdate } from './records.ts';

export type StoreWrite =
  /**
   * A new quote. With `reserve` (PostgreSQL, several instances): refused as a StoreConflict 'inventory'
   * unless the output it reserves fits under balanceRaw beside every instance's reservations of its output
   * mint at nowMs (open quotes and trade holds), checked and inserted in one transaction under a per-mint
   * lock, so concurrent RFQs on different instances can never reserve more than the maker holds.
   */
  | { kind: 'insertQuote'; quote: QuoteRecord; reserve?: { balanceRaw: bigint; nowMs: number } }
  /** Marks the quote used, inserts the trade and its first event. */
  | { kind: 'createTrade'; trade: TradeRecord; event: NewTradeEvent }
  /** One transition: the trade's new snapshot, its events and ledger entries, all or nothing. */
  | { kind: 'saveTransition'; update: TradeUpdate; events: NewTradeEvent[]; ledger: LedgerEntry[] }
  /** Runtime notes about a trade that change no snapshot, e.g. the intent written before a transaction is sent. */
  | { kind: 'appendEvents'; events: NewTradeEvent[] }
  /**
   * Ledger entries of a trade learnt outside its transitions (the network fee of a transaction the maker
   * paid for, once the chain showed it final); an entry stored already is kept once. Nothing to fence: it
   * records what happened on chain, whoever owns the trade now.
   */
  | { kind: 'appendLedger'; tradeId: string; at: string; entries: LedgerEntry[] }
  | { kind: 'setSeen'; tradeId: string; runId: string; seen: string }
  | { kind: 'setWake'; tradeId: string; runId: string; at: number | null }
  /** One trade taken by this run (POST /resume of a trade it could not adopt at start). */
  | { kind: 'claimTrade'; tradeId: string; runId: string }
  /**
   * A new hedge, by its owner run (fenced: its lease must live). Refused as a StoreConflict 'hedge_in_flight'
   * while another hedge of the same asset is in flight, whichever instance made it.
   */
  | { kind: 'insertHedge'; hedge: HedgeRecord }
  /**
   * A hedge's new state, by its owner run (fenced), with the ledger entries it posts to its trade (each
   * posted once): all or nothing.
   */
  | { kind: 'updateHedge'; update: HedgeUpdate; ledger: LedgerEntry[] }
  /**
   * A write that changes nothing anyone reads (the run's row of store_probes): while the disk is full, the
   * storage watch (storage-full.ts) asks with it whether the store takes writes again.
   */
  | { kind: 'probe'; runId: string; at: string };

/** How each write of a committed batch went: a write that threw rolled back to its savepoint alone. */
export type WriteOutcome = { ok: true } | { ok: false; message: string; conflict?: Conflict };

/**
 * What a write can collide with: the quote was already used, the commitment already belongs to a trade,
 * the writing run does not own the trade (or its lease lapsed: the fence), the reservation would exceed
 * what the maker holds, or another hedge of the asset is in flight.
 */
export type Conflict = 'quote_used' | 'secret_hash_used' | 'fenced' | 'inventory' | 'hedge_in_flight';

/**
 * A write refused by a rule of the store (not by a fault). Whoever raced for it lost; the group commit
 * rejects with this.
 */
export class StoreConflict extends Error {
  constructor(
    readonly conflict: Conflict,
    message: string,
  ) {
    super(message);
    this.name = 'StoreConflict';
  }
}
