// Events and the ledger: the repository of every trade's history (the runtime event log, in one order across
// instances) and its double-entry postings, and the writes that append to them outside a transition (a
// transition's own events and entries ride with its trade write: trades.ts).
import type { LedgerEntry } from '../ledger/index.ts';
import type { NewTradeEvent, StoredLedgerEntry, TradeEventRecord } from './records.ts';

export type EventWrite =
  /** Runtime notes about a trade that change no snapshot, e.g. the intent written before a transaction is sent. */
  | { kind: 'appendEvents'; events: NewTradeEvent[] }
  /**
   * Ledger entries of a trade learnt outside its transitions (the network fee of a transaction the maker
   * paid for, once the chain showed it final); an entry stored already is kept once. Nothing to fence: it
   * records what happened on chain, whoever owns the trade now.
   */
  | { kind: 'appendLedger'; tradeId: string; at: string; entries: LedgerEntry[] };

export interface EventsRepository {
  tradeEvents(tradeId: string): Promise<TradeEventRecord[]>;
  /** The runtime event log in stable order: events with seq > afterSeq. */
  events(afterSeq: number, limit: number): Promise<TradeEventRecord[]>;
  /** The newest seq of the event log (0 when empty). */
  lastEventSeq(): Promise<number>;
  ledger(tradeId?: string): Promise<StoredLedgerEntry[]>;
  /**
   * Calls the listener with the trades whose events another process made durable (PostgreSQL: LISTEN/NOTIFY
   * on commit), so live streams of this instance see every instance's events. SQLite: never (one process).
   * Resolves once listening; the function it gives stops it.
   */
  watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>>;
}
