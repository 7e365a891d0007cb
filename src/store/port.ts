// The store's port: the composition of one repository per aggregate — quotes and their reservations
// (quotes.ts), trades and their rest index (trades.ts), events and the ledger (events.ts), hedges (hedges.ts),
// the Gateway's transfers (transfers.ts), the desk's overrides (desk.ts), runs (runs.ts) — over the records
// of records.ts. A caller takes the repositories it reads; writes reach the store as a
// turn's batch through the group commit (group-commit.ts), one transaction whichever repositories they
// write. It comes in the shape of each engine's ownership — one instance whose run owns every unclosed trade
// (SingleInstanceStore, SQLite), or several instances over one database whose runs own trades by leases
// (SharedStore, PostgreSQL); sqlite/ is the reference for every query's meaning. The indexes over a run's
// own trades (OwnedTrades) come from that shape, so neither engine takes an owner it has no use for.
import type { DeskRepository } from './desk.ts';
import type { EventsRepository } from './events.ts';
import type { HedgeRecord, HedgesRepository, OwnedHedges } from './hedges.ts';
import type { QuotesRepository } from './quotes.ts';
import type { Acquired, ClaimedTrade, NewRun } from './records.ts';
import type { RunsRepository } from './runs.ts';
import type { TradeRestIndex, TradesRepository } from './trades.ts';
import type { TransfersRepository } from './transfers.ts';
import type { StoreWrite, WriteOutcome } from './writes.ts';

/** What both engines answer: every repository, and the one commit their writes share. */
export interface StoreBase
  extends QuotesRepository,
    TradesRepository,
    EventsRepository,
    HedgesRepository,
    TransfersRepository,
    DeskRepository,
    RunsRepository {
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
  ping(): Promise<boolean>;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

/**
 * The virtual-actor runtime's indexes over the trades one run owns (the rest index, trades.ts), and its
 * hedges in flight (hedges.ts). Which run that is, and so which trades, the store's shape says:
 * SingleInstanceStore.owned, SharedStore.ownedBy.
 */
export interface OwnedTrades extends TradeRestIndex, OwnedHedges {}

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
