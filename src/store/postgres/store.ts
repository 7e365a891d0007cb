// The PostgreSQL store: the same port as SQLite's (sqlite/ is the reference for every query's meaning), over
// a pg Pool, for several service instances sharing one database. A batch's commit takes one client for one
// transaction (commit.ts); reads take whichever client is free. Every fixed statement is named (sql.ts), so
// each connection parses and plans it once.
// Between instances: each unclosed trade names its owner run, which holds it while its lease (on its runs
// row, the database's clock) lives; every write of a trade is fenced in its own statement; orphans are
// claimed with SKIP LOCKED; reservations are checked under a per-mint lock against running sums per mint and
// second (reservation-buckets.ts); commits that append events notify the other instances (notifications.ts).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Hash32, SettlementStatus } from '../../vocabulary/index.ts';
import type { DeskChange, DeskOverride } from '../desk.ts';
import { type HedgeRecord, type HedgeRow, hedgeFromRow } from '../hedges.ts';
import type { OwnedTrades, SharedStore } from '../port.ts';
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
} from '../records.ts';
import {
  type ClaimedRow,
  claimedFromRow,
  type EventRow,
  eventFromRow,
  type LedgerRow,
  ledgerFromRow,
  type QuoteRow,
  quoteFromRow,
  type RestRow,
  type RunRow,
  restEntryFromRow,
  runFromRow,
  type TradeRow,
  tradeFromRow,
} from '../rows.ts';
import type { StoreWrite, WriteOutcome } from '../writes.ts';
import { BatchCommit } from './commit.ts';
import { deskChanges, deskOverrides } from './desk.ts';
import { listenForDeskChanges, listenForEvents } from './notifications.ts';
import { runStatement, SQL, type Statement, TRADE_SELECT } from './sql.ts';

/** How often an instance deletes reservation buckets long past (each instance: any one of them would do). */
const PRUNE_EVERY_MS = 30_000;

export class PostgresStore implements SharedStore {
  readonly kind = 'postgres' as const;
  private open = true;
  /** Tags this instance's notifications, so its own watchers skip them. */
  private readonly instanceId = randomUUID();
  /** The dedicated connections of watchEvents, ended by close. */
  private readonly watchers = new Set<() => Promise<void>>();
  /** When this instance last pruned past reservation buckets (unix ms). */
  private prunedAt = 0;
  private readonly batches: BatchCommit;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    private readonly url: string,
  ) {
    this.batches = new BatchCommit(pool, this.instanceId);
  }

  private query(name: Statement, values: unknown[] = []): Promise<pg.QueryResult> {
    return runStatement(this.pool, name, values);
  }

  /** The rows of a statement, as the row type its columns make (see rows.ts, and TYPES in index.ts). */
  private async rows<R>(name: Statement, values: unknown[] = []): Promise<R[]> {
    return (await this.query(name, values)).rows as R[];
  }

  private async column<T>(name: Statement, values: unknown[] = []): Promise<T[]> {
    const { rows } = await this.pool.query<[T]>({ name, text: SQL[name], values, rowMode: 'array' });
    return rows.map((row) => row[0]);
  }

  private async count(name: Statement, values: unknown[] = []): Promise<number> {
    return (await this.rows<{ n: number }>(name, values))[0]?.n ?? 0;
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

  async getHedge(hedgeId: string): Promise<HedgeRecord | undefined> {
    const [row] = await this.rows<HedgeRow>('getHedge', [hedgeId]);
    return row && hedgeFromRow(row);
  }

  async hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    if (tradeIds.length === 0) return [];
    return (await this.rows<HedgeRow>('hedgesOfTrades', [tradeIds])).map(hedgeFromRow);
  }

  hedgesInFlight(): Promise<HedgeRecord[]> {
    return this.hedgesInFlightOf(null);
  }

  /** The hedges in flight the run owns, or with null every instance's. */
  private async hedgesInFlightOf(owner: string | null): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('hedgesInFlight', [owner])).map(hedgeFromRow);
  }

  async recentHedges(limit: number): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('recentHedges', [limit])).map(hedgeFromRow);
  }

  async claimHedges(runId: string): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('claimHedges', [runId])).map(hedgeFromRow);
  }

  async insertRun(run: NewRun, leaseTtlMs: number): Promise<void> {
    await this.query('insertRun', [run.runId, run.version, run.startedAt, run.url, leaseTtlMs]);
  }

  async renewLease(runId: string, leaseTtlMs: number): Promise<boolean> {
    return (await this.query('renewLease', [runId, leaseTtlMs])).rowCount === 1;
  }

  async stopRun(runId: string, stoppedAt: string): Promise<void> {
    await this.query('stopRun', [runId, stoppedAt]);
  }

  async retireRuns(url: string, runId: string, stoppedAt: string): Promise<number> {
    return (await this.query('retireRuns', [url, runId, stoppedAt])).rowCount ?? 0;
  }

  async listRuns(): Promise<RunRecord[]> {
    return (await this.rows<RunRow>('listRuns')).map(runFromRow);
  }

  /** Deletes buckets long past, at most every PRUNE_EVERY_MS, after a commit and apart from it. */
  private pruneReservations(): void {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.query('pruneReservations').catch(() => {
      // The next commit after PRUNE_EVERY_MS tries again; old buckets only cost a little space meanwhile.
    });
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const [row] = await this.rows<QuoteRow>('getQuote', [quoteId]);
    return row && quoteFromRow(row);
  }

  async openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return (await this.rows<QuoteRow>('openQuotes', [nowMs])).map(quoteFromRow);
  }

  async getTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const [row] = await this.rows<TradeRow>('getTrade', [tradeId]);
    return row && tradeFromRow(row);
  }

  async findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined> {
    const [row] = await this.rows<TradeRow>('tradeBySecretHash', [secretHash]);
    return row && tradeFromRow(row);
  }

  async findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined> {
    const [row] = await this.rows<TradeRow>('tradeByQuote', [quoteId]);
    return row && tradeFromRow(row);
  }

  async listTrades(filter: TradeFilter): Promise<TradeRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown) => `$${values.push(value)}`;
    if (filter.takerWallet !== undefined) where.push(`t.taker_wallet = ${param(filter.takerWallet)}`);
    if (filter.status !== undefined) where.push(`t.status = ${param(filter.status)}`);
    if (filter.runId !== undefined) where.push(`t.run_id = ${param(filter.runId)}`);
    // Every trade names its owner (see tradeCounts).
    if (filter.ownedBy !== undefined) where.push(`t.owner_run_id = ${param(filter.ownedBy)}`);
    if (filter.after !== undefined) {
      where.push(
        `(t.created_at, t.trade_id) > (${param(filter.after.createdAt)}, ${param(filter.after.tradeId)})`,
      );
    }
    const text = `${TRADE_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                  ORDER BY t.created_at, t.trade_id LIMIT ${param(filter.limit)}`;
    const { rows } = await this.pool.query<TradeRow>(text, values);
    return rows.map(tradeFromRow);
  }

  // ── Ownership ──

  claimUnclosed(runId: string): Promise<number> {
    return this.count('claimUnclosed', [runId]);
  }

  async claimOrphans(runId: string, limit: number): Promise<ClaimedTrade[]> {
    const { rows } = await this.pool.query<ClaimedRow>({
      name: 'claimOrphans',
      text: SQL.claimOrphans,
      values: [runId, limit],
      rowMode: 'array',
    });
    return rows.map(claimedFromRow);
  }

  async acquireTrade(tradeId: string, runId: string): Promise<Acquired> {
    const { rowCount } = await this.query('acquireTrade', [tradeId, runId]);
    if (rowCount === 1) return { acquired: true };
    // Not taken: say who has it now (a later read than the update's, so a claim in between is seen).
    type Row = { closed: boolean; owner_run_id: string; url: string | null; live: boolean };
    const [row] = await this.rows<Row>('tradeOwner', [tradeId]);
    if (row === undefined || row.closed || row.owner_run_id === runId) return { acquired: true };
    // A dead owner still named: this run's own lease lapsed (it may take nothing). Its url answers nobody.
    return { acquired: false, ownerRunId: row.owner_run_id, ownerUrl: row.live ? row.url : null };
  }

  // ── The runtime's indexes, each over the owner's trades (every index leads with owner_run_id) ──

  ownedBy(owner: string): OwnedTrades {
    return {
      restIndex: () => this.restIndex(owner),
      runningTrades: () => this.runningTrades(owner),
      dueTrades: (now, limit) => this.dueTrades(owner, now, limit),
      earliestWake: () => this.earliestWake(owner),
      ownedTradeCounts: () => this.ownedTradeCounts(owner),
      failingTrades: (minAttempts, limit) => this.failingTrades(owner, minAttempts, limit),
      failingEffectCounts: (minAttempts) => this.failingEffectCounts(owner, minAttempts),
      settlingSnapshots: () => this.settlingSnapshots(owner),
      hedgesInFlight: () => this.hedgesInFlightOf(owner),
    };
  }

  private async restIndex(owner: string): Promise<RestEntry[]> {
    const { rows } = await this.pool.query<RestRow>({
      name: 'restIndex',
      text: SQL.restIndex,
      values: [owner],
      rowMode: 'array',
    });
    return rows.map(restEntryFromRow);
  }

  private runningTrades(owner: string): Promise<string[]> {
    return this.column<string>('runningTrades', [owner]);
  }

  private dueTrades(owner: string, now: number, limit: number): Promise<string[]> {
    return this.column<string>('dueTrades', [owner, now, limit]);
  }

  private async earliestWake(owner: string): Promise<number | null> {
    const [at] = await this.column<number>('earliestWake', [owner]);
    return at ?? null;
  }

  liveTradeCount(wallet: string): Promise<number> {
    return this.count('liveTradeCount', [wallet]);
  }

  private ownedTradeCounts(
    owner: string,
  ): Promise<{ status: SettlementStatus; substate: string; count: number }[]> {
    return this.rows('ownedTradeCounts', [owner]);
  }

  private async failingTrades(owner: string, minAttempts: number, limit: number): Promise<TradeRecord[]> {
    return (await this.rows<TradeRow>('failingTrades', [owner, minAttempts, limit])).map(tradeFromRow);
  }

  private failingEffectCounts(
    owner: string,
    minAttempts: number,
  ): Promise<{ effect: string; count: number }[]> {
    return this.rows('failingEffectCounts', [owner, minAttempts]);
  }

  private settlingSnapshots(owner: string): Promise<string[]> {
    return this.column<string>('settlingSnapshots', [owner]);
  }

  async tradeEvents(tradeId: string): Promise<TradeEventRecord[]> {
    return (await this.rows<EventRow>('tradeEvents', [tradeId])).map(eventFromRow);
  }

  async events(afterSeq: number, limit: number): Promise<TradeEventRecord[]> {
    return (await this.rows<EventRow>('events', [afterSeq, limit])).map(eventFromRow);
  }

  async lastEventSeq(): Promise<number> {
    return (await this.rows<{ seq: number }>('lastEventSeq'))[0]?.seq ?? 0;
  }

  async ledger(tradeId?: string): Promise<StoredLedgerEntry[]> {
    const rows =
      tradeId === undefined
        ? await this.rows<LedgerRow>('ledgerAll')
        : await this.rows<LedgerRow>('ledgerOf', [tradeId]);
    return rows.map(ledgerFromRow);
  }

  /** Per run: trades it created, and trades naming it their owner (`current` changes nothing here). */
  tradeCounts(_current: string): Promise<{ runId: string; created: number; owned: number }[]> {
    return this.rows('tradeCounts');
  }

  /** LISTENs on a connection of its own (notifications.ts); close stops it with the rest. */
  watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    return this.watch(() => listenForEvents(this.url, this.instanceId, listener));
  }

  deskOverrides(): Promise<DeskOverride[]> {
    return deskOverrides(this.pool);
  }

  deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    return deskChanges(this.pool, limit, beforeSeq);
  }

  /** LISTENs on a connection of its own, as watchEvents. */
  watchDesk(listener: () => void): Promise<() => Promise<void>> {
    return this.watch(() => listenForDeskChanges(this.url, this.instanceId, listener));
  }

  private async watch(listen: () => Promise<() => Promise<void>>): Promise<() => Promise<void>> {
    if (!this.open) throw new Error('the store is closed');
    const stopListening = await listen();
    const stop = async () => {
      if (!this.watchers.delete(stop)) return;
      await stopListening();
    };
    this.watchers.add(stop);
    return stop;
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
    await Promise.all([...this.watchers].map((stop) => stop()));
    await this.pool.end();
  }
}
