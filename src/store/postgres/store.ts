// The PostgreSQL store: the same port as SQLite's (sqlite/ is the reference for every query's meaning), over
// a pg Pool, for several service instances sharing one database. A repository per aggregate (quotes.ts,
// trades.ts with rest-index.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts) holds its named statements and
// interprets its writes; a batch's commit takes one client for one transaction across them (commit.ts);
// reads take whichever client is free.
// Between instances: each unclosed trade names its owner run, which holds it while its lease (on its runs
// row, the database's clock) lives; every write of a trade is fenced in its own statement (fence.ts);
// orphans are claimed with SKIP LOCKED; reservations are checked under a per-mint lock against running sums
// per mint and second (reservation-buckets.ts); commits that append events notify the other instances
// (notifications.ts).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ComposedStore } from '../composed.ts';
import type { HedgeRecord } from '../hedges.ts';
import type { OwnedTrades, SharedStore } from '../port.ts';
import type { Acquired, ClaimedTrade, NewRun } from '../records.ts';
import type { StoreWrite, WriteOutcome } from '../writes.ts';
import { BatchCommit } from './commit.ts';
import { PostgresDesk } from './desk.ts';
import { PostgresEvents } from './events.ts';
import { PostgresHedges } from './hedges.ts';
import { Listeners, listenForDeskChanges, listenForEvents } from './notifications.ts';
import { PostgresQuotes } from './quotes.ts';
import { PostgresRestIndex } from './rest-index.ts';
import { PostgresRuns } from './runs.ts';
import { PostgresTrades } from './trades.ts';
import { PostgresTransfers } from './transfers.ts';

/** How often an instance deletes reservation buckets long past (each instance: any one of them would do). */
const PRUNE_EVERY_MS = 30_000;

/** The repositories of one pool; their LISTENing connections (`listeners`) tagged as this instance's. */
function repositories(pool: pg.Pool, url: string, instanceId: string, listeners: Listeners) {
  const quotes = new PostgresQuotes(pool);
  const events = new PostgresEvents(pool, (listener) =>
    listeners.add(() => listenForEvents(url, instanceId, listener)),
  );
  const transfers = new PostgresTransfers(pool);
  return {
    quotes,
    events,
    trades: new PostgresTrades(pool, quotes, events, transfers),
    restIndex: new PostgresRestIndex(pool),
    hedges: new PostgresHedges(pool),
    transfers,
    desk: new PostgresDesk(pool, (listener) =>
      listeners.add(() => listenForDeskChanges(url, instanceId, listener)),
    ),
    runs: new PostgresRuns(pool),
  };
}

export class PostgresStore extends ComposedStore implements SharedStore {
  readonly kind = 'postgres' as const;
  private open = true;
  /** The dedicated connections of watchEvents and watchDesk (notifications.ts), ended by close. */
  private readonly listeners: Listeners;
  /** When this instance last pruned past reservation buckets (unix ms). */
  private prunedAt = 0;
  private readonly parts: ReturnType<typeof repositories>;
  private readonly batches: BatchCommit;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    url: string,
  ) {
    const listeners = new Listeners();
    // Tags this instance's notifications, so its own watchers skip them.
    const instanceId = randomUUID();
    const parts = repositories(pool, url, instanceId, listeners);
    super(parts);
    this.listeners = listeners;
    this.parts = parts;
    this.batches = new BatchCommit(
      pool,
      instanceId,
      {
        ...parts.quotes.writes,
        ...parts.trades.writes,
        ...parts.events.writes,
        ...parts.hedges.writes,
        ...parts.transfers.writes,
        ...parts.desk.writes,
        ...parts.runs.writes,
      },
      parts.quotes,
    );
  }

  /**
   * Applies the batch in one transaction (commit.ts); after a commit, buckets long past are pruned now and
   * then, apart from it.
   */
  async commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]> {
    const outcomes = await this.batches.commit(batch);
    if (batch.length > 0) this.pruneReservations();
    return outcomes;
  }

  /** Deletes buckets long past, at most every PRUNE_EVERY_MS, after a commit and apart from it. */
  private pruneReservations(): void {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.parts.quotes.pruneReservations().catch(() => {
      // The next commit after PRUNE_EVERY_MS tries again; old buckets only cost a little space meanwhile.
    });
  }

  // ── Ownership: runs, their leases, and the trades and hedges they own (src/cluster/ drives these) ──

  insertRun(run: NewRun, leaseTtlMs: number): Promise<void> {
    return this.parts.runs.insertRun(run, leaseTtlMs);
  }

  renewLease(runId: string, leaseTtlMs: number): Promise<boolean> {
    return this.parts.runs.renewLease(runId, leaseTtlMs);
  }

  /** The runtime's indexes, each over the owner's trades and hedges (every index leads with the owner). */
  ownedBy(owner: string): OwnedTrades {
    return { ...this.parts.restIndex.of(owner), ...this.parts.hedges.ownedBy(owner) };
  }

  claimUnclosed(runId: string): Promise<number> {
    return this.parts.restIndex.claimUnclosed(runId);
  }

  claimOrphans(runId: string, limit: number): Promise<ClaimedTrade[]> {
    return this.parts.restIndex.claimOrphans(runId, limit);
  }

  acquireTrade(tradeId: string, runId: string): Promise<Acquired> {
    return this.parts.restIndex.acquireTrade(tradeId, runId);
  }

  claimHedges(runId: string): Promise<HedgeRecord[]> {
    return this.parts.hedges.claimHedges(runId);
  }

  async ping(): Promise<boolean> {
    const { rows } = await this.pool.query<{ ok: number }>('SELECT 1 AS ok');
    return rows[0]?.ok === 1;
  }

  get isOpen(): boolean {
    return this.open;
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.listeners.close();
    await this.pool.end();
  }
}
