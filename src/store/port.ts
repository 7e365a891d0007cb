// The store's port, over the records of records.ts: what both engines answer (StoreBase; sqlite/ is the
// reference for every query's meaning), in the shape of each engine's ownership — one instance whose run
// owns every unclosed trade (SingleInstanceStore, SQLite), or several instances over one database whose runs
// own trades by leases (SharedStore, PostgreSQL). The indexes over a run's own trades (OwnedTrades) come
// from that shape, so neither engine takes an owner it has no use for. Writes reach it as a turn's batch
// through the group commit (group-commit.ts), reads directly.
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import type { DeskChange, DeskOverride } from './desk.ts';
import type { HedgeRecord } from './hedges.ts';
import type {
  Acquired,
  ClaimedTrade,
  NewRun,
  QuoteRecord,
  RestEntry,
  RunRecord,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeFilter,
  TradeRecord,
} from './records.ts';
import type { StoreWrite, WriteOutcome } from './writes.ts';

/** What both engines answer; the service sees one of the two shapes below (Store). */
export interface StoreBase {
  readonly kind: Store['kind'];
  /** Where it lives, for logs: a file path, or a database URL without its password. */
  readonly location: string;
  /**
   * Applies a batch of writes in one transaction, each in its own savepoint: a write that fails rolls back
   * alone and is reported so; the rest is durable once this resolves. Rejects (nothing stored) when the
   * commit itself fails — and with a StorageFull (storage-full.ts) when the disk is full, whichever write met
   * it: a lack of space is no write's own failure.
   */
  commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]>;

  // ── Runs: one start of one service process each. Whether a run owns its trades implicitly (one instance)
  // or by a lease (several) is the engine's shape: SingleInstanceStore, SharedStore below. ──

  /** Marks the run stopped (and ends its lease, where it has one): its unclosed trades are free at once. */
  stopRun(runId: string, stoppedAt: string): Promise<void>;
  /**
   * Marks stopped (lease ended) every other unstopped run that advertised `url`, and answers how many: a
   * run calls it once it listens at url, which proves their processes are gone — a live one, even frozen,
   * would still hold the address. So a crashed instance restarted in place takes its trades back at once
   * instead of a lease later. (ADVERTISE_URL must be unique per instance; the fence keeps even a
   * misconfigured pair safe.)
   */
  retireRuns(url: string, runId: string, stoppedAt: string): Promise<number>;
  /** Every run of every instance, oldest first. */
  listRuns(): Promise<RunRecord[]>;

  getQuote(quoteId: string): Promise<QuoteRecord | undefined>;
  /** Quotes not used by a trade whose expiry is after nowMs: what the reservation book holds at start. */
  openQuotes(nowMs: number): Promise<QuoteRecord[]>;
  getTrade(tradeId: string): Promise<TradeRecord | undefined>;
  findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined>;
  findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined>;
  listTrades(filter: TradeFilter): Promise<TradeRecord[]>;

  /** Pending and initiated trades of a wallet (they count against its limit). */
  liveTradeCount(wallet: string): Promise<number>;
  tradeEvents(tradeId: string): Promise<TradeEventRecord[]>;
  /** The runtime event log in stable order: events with seq > afterSeq. */
  events(afterSeq: number, limit: number): Promise<TradeEventRecord[]>;
  /** The newest seq of the event log (0 when empty). */
  lastEventSeq(): Promise<number>;
  ledger(tradeId?: string): Promise<StoredLedgerEntry[]>;
  /** Per run: trades it created, and trades it owns (the running run, `current`) or owned last. */
  tradeCounts(current: string): Promise<{ runId: string; created: number; owned: number }[]>;

  // ── Hedges (src/hedging/): one row per hedge swap; at most one in flight per asset (a second insert is a
  // StoreConflict 'hedge_in_flight'). Their writes are fenced by the owner run's lease on PostgreSQL, as a
  // trade's are; on SQLite the running run owns every hedge in flight. ──

  getHedge(hedgeId: string): Promise<HedgeRecord | undefined>;
  /** The hedges these trades triggered, oldest first (what their TradeResponses show). */
  hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]>;
  /** Every instance's hedges in flight (sending, requoting), oldest first (the operator's view). */
  hedgesInFlight(): Promise<HedgeRecord[]>;
  /** The newest hedges of every instance, newest first. */
  recentHedges(limit: number): Promise<HedgeRecord[]>;

  // ── The desk's live settings (src/control/): the overrides in force over the config file, and the log of
  // every change made to them (written by the changeDesk write). ──

  /** The overrides in force, each with the change that set it, by target and field. */
  deskOverrides(): Promise<DeskOverride[]>;
  /** The change log, newest first: up to `limit` changes, those before `beforeSeq` when given. */
  deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]>;
  /**
   * Calls the listener whenever another process committed a change to the desk's settings (PostgreSQL:
   * LISTEN/NOTIFY on commit). SQLite: never (one process). Resolves once listening; the function it gives
   * stops it.
   */
  watchDesk(listener: () => void): Promise<() => Promise<void>>;

  /**
   * Calls the listener with the trades whose events another process made durable (PostgreSQL: LISTEN/NOTIFY
   * on commit), so live streams of this instance see every instance's events. SQLite: never (one process).
   * Resolves once listening; the function it gives stops it.
   */
  watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>>;

  ping(): Promise<boolean>;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

/**
 * The virtual-actor runtime's indexes over the trades one run owns (each one statement), and its hedges in
 * flight. Which run that is, and so which trades, the store's shape says: SingleInstanceStore.owned,
 * SharedStore.ownedBy.
 */
export interface OwnedTrades {
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
  /** The owned hedges in flight (sending, requoting), oldest first. */
  hedgesInFlight(): Promise<HedgeRecord[]>;
}

/**
 * One instance on its own store (SQLite): the running run owns every unclosed trade it could adopt, implicitly
 * (no row is rewritten); nobody else can orphan a trade, and no write is fenced.
 */
export interface SingleInstanceStore extends StoreBase {
  readonly kind: 'sqlite';
  /** What the running run owns: every unclosed adoptable trade, and every hedge in flight. */
  readonly owned: OwnedTrades;
  /** Records a run (not stopped). */
  insertRun(run: NewRun): Promise<void>;
  /**
   * The new run takes every unclosed trade by starting: earlier unadoptable marks are cleared. Answers how
   * many trades it owns now. (Each trade's history records ADOPTED when its actor first runs in the new run.)
   */
  adoptUnclosed(): Promise<number>;
}

/**
 * Several instances over one store (PostgreSQL): every unclosed trade names its owner run (owner_run_id); a
 * run owns its trades while its lease (on its runs row, renewed by the run) lives; a trade whose owner
 * stopped or let its lease lapse is an orphan that any live run may claim. Every write of a trade is fenced:
 * it names the run writing (TradeUpdate.ownerRunId, an event's runId, setSeen/setWake's runId), and the store
 * refuses it — a StoreConflict 'fenced' — unless that run owns the trade and its lease is live at the write,
 * so a paused or partitioned former owner can never write after losing the lease.
 */
export interface SharedStore extends StoreBase {
  readonly kind: 'postgres';
  /** What the run owns: the trades and hedges naming it their owner (every index leads with the owner). */
  ownedBy(runId: string): OwnedTrades;
  /** Records a run (not stopped); its lease runs leaseTtlMs from now (the store's clock). */
  insertRun(run: NewRun, leaseTtlMs: number): Promise<void>;
  /**
   * Extends the run's lease to leaseTtlMs from now if it is still live. false: it had lapsed (or the run was
   * stopped) — its trades may already be another run's, and the run must stop acting.
   */
  renewLease(runId: string, leaseTtlMs: number): Promise<boolean>;
  /**
   * Every orphan for runId in one statement, as claimOrphans does without a limit, answering how many trades
   * the run owns now. A run drains them with claimOrphans instead: this one statement rewrites every index
   * entry of every trade it moves (~5.5 s at 100,000) before the run could answer.
   */
  claimUnclosed(runId: string): Promise<number>;
  /**
   * While running: takes up to `limit` orphans for runId (FOR UPDATE SKIP LOCKED: instances claiming at
   * the same time share them, none waits on another), oldest first, and answers them.
   */
  claimOrphans(runId: string, limit: number): Promise<ClaimedTrade[]>;
  /**
   * Before a run acts on a trade its record says another run owns: takes it if that owner is gone (the
   * trade's owner becomes runId), else names the live owner. A closed or unknown trade is "acquired"
   * (nothing to own; the caller reads it again).
   */
  acquireTrade(tradeId: string, runId: string): Promise<Acquired>;
  /**
   * Takes for runId (live) every hedge in flight whose owner run is gone (stopped or its lease lapsed), and
   * answers them: the orphans of a lost instance, resumed here.
   */
  claimHedges(runId: string): Promise<HedgeRecord[]>;
}

/** The store, in the shape of its engine: the ownership port (src/cluster/) tells the two apart. */
export type Store = SingleInstanceStore | SharedStore;
