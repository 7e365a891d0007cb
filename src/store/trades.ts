// Trades and their rest index: the repository of trades (each with its snapshot and the rest columns the
// runtime indexes while no actor holds it), and its writes. A trade's writes carry the events and ledger
// entries of the same transition (events.ts) and the Gateway transfers it moved (transfers.ts), so a
// transition commits whole; creating a trade uses its quote.
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import type { NewTradeEvent, RestEntry, TradeFilter, TradeRecord, TradeUpdate } from './records.ts';
import type { TransferRecord } from './transfers.ts';

export type TradeWrite =
  /** Marks the quote used, inserts the trade and its first event. */
  | { kind: 'createTrade'; trade: TradeRecord; event: NewTradeEvent }
  /**
   * One transition: the trade's new snapshot, its events and ledger entries, and the Gateway transfers it
   * moved (transfers.ts: saveTransfer; none when absent), all or nothing.
   */
  | {
      kind: 'saveTransition';
      update: TradeUpdate;
      events: NewTradeEvent[];
      ledger: LedgerEntry[];
      transfers?: TransferRecord[];
    }
  | { kind: 'setSeen'; tradeId: string; runId: string; seen: string }
  | { kind: 'setWake'; tradeId: string; runId: string; at: number | null }
  /** One trade taken by this run (POST /resume of a trade it could not adopt at start). */
  | { kind: 'claimTrade'; tradeId: string; runId: string };

export interface TradesRepository {
  getTrade(tradeId: string): Promise<TradeRecord | undefined>;
  findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined>;
  findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined>;
  listTrades(filter: TradeFilter): Promise<TradeRecord[]>;
  /** Pending and initiated trades of a wallet (they count against its limit). */
  liveTradeCount(wallet: string): Promise<number>;
  /** Per run: trades it created, and trades it owns (the running run, `current`) or owned last. */
  tradeCounts(current: string): Promise<{ runId: string; created: number; owned: number }[]>;
}

/**
 * The rest index: the virtual-actor runtime's queries over the trades one run owns (each one statement).
 * Which run that is the store's shape says (port.ts: OwnedTrades).
 */
export interface TradeRestIndex {
  /** The owned (unclosed, adoptable) trades without their snapshots: what the watcher and the book index. */
  restIndex(): Promise<RestEntry[]>;
  /** Owned trades stored with an effect in flight (a crash interrupted them). */
  runningTrades(): Promise<string[]>;
  /** Owned trades whose wake time has come, earliest first. */
  dueTrades(now: number, limit: number): Promise<string[]>;
  /** The earliest wake time among owned trades. */
  earliestWake(): Promise<number | null>;
  /** Owned trades per status and substate. */
  ownedTradeCounts(): Promise<{ status: SettlementStatus; substate: string; count: number }[]>;
  /** Owned trades whose current effect failed at least minAttempts times in a row, worst first. */
  failingTrades(minAttempts: number, limit: number): Promise<TradeRecord[]>;
  /** failingTrades counted by effect (metrics); bounded by the failing trades, not by the trades at rest. */
  failingEffectCounts(minAttempts: number): Promise<{ effect: string; count: number }[]>;
  /**
   * Snapshots of the owned trades past pending, the only ones whose escrows can hold funds (a trade leaves
   * pending once its taker lock is final): as many as trades in settlement, not as trades waiting for a lock.
   */
  settlingSnapshots(): Promise<string[]>;
}
