// Every write the running service makes, as data: the group commit gathers a turn's writes and hands them to
// the store's `commit`, which applies them in one transaction, each in its own savepoint, whichever
// repositories they write.
import type { DeskWrite } from './desk.ts';
import type { EventWrite } from './events.ts';
import type { HedgeWrite } from './hedges.ts';
import type { QuoteWrite } from './quotes.ts';
import type { RunWrite } from './runs.ts';
import type { TradeWrite } from './trades.ts';
import type { TransferWrite } from './transfers.ts';

/**
 * Every write kind, each declared beside the repository it writes (quotes.ts, trades.ts, events.ts,
 * hedges.ts, transfers.ts, desk.ts, runs.ts); each engine interprets each repository's writes once, in a
 * file of its own.
 */
export type StoreWrite =
  | QuoteWrite
  | TradeWrite
  | EventWrite
  | HedgeWrite
  | TransferWrite
  | DeskWrite
  | RunWrite;

/** The write of one kind. */
export type WriteOf<K extends StoreWrite['kind']> = Extract<StoreWrite, { kind: K }>;

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
