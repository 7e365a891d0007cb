// The SQLite store: better-sqlite3 in WAL mode with synchronous=FULL, the embedded default (one file under
// DATA_DIR). Its statements are prepared once and run synchronously; the port's promises only wrap them, so
// a batch's commit (one transaction, one fsync) holds the event loop once per turn, not once per write.
// One instance serves it: the running run owns every unclosed trade it could adopt, without leases, fences
// or claims (the owner named by the runtime's queries and writes is that run), and the desk's in-memory
// reservation book is exact, so a quote's `reserve` needs no check here.
import Database from 'better-sqlite3';
import type { LedgerEntry } from '../../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../../vocabulary/index.ts';
import type { DeskChange, DeskOverride } from '../desk.ts';
import {
  type HedgeRecord,
  type HedgeRow,
  type HedgeUpdate,
  hedgeFromRow,
  hedgeRow,
  hedgeUpdateRow,
} from '../hedges.ts';
import type { OwnedTrades, SingleInstanceStore } from '../port.ts';
import type {
  NewRun,
  NewTradeEvent,
  QuoteRecord,
  RestEntry,
  RunRecord,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeFilter,
  TradeRecord,
  TradeUpdate,
} from '../records.ts';
import {
  type EventRow,
  eventFromRow,
  type LedgerRow,
  ledgerFromRow,
  priceText,
  type QuoteRow,
  quoteFromRow,
  type RestRow,
  type RunRow,
  restEntryFromRow,
  runFromRow,
  type TradeRow,
  tradeFromRow,
} from '../rows.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from '../writes.ts';
import { SqliteDesk } from './desk.ts';
import { MIGRATIONS } from './migrations.ts';
import { sqliteNoSpace } from './no-space.ts';
import { prepareStatements, type Statements } from './sql.ts';

export class SqliteStore implements SingleInstanceStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements: Statements;
  private readonly desk: SqliteDesk;

  constructor(readonly location: string) {
    this.db = new Database(location);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
    this.statements = prepareStatements(this.db);
    this.desk = new SqliteDesk(this.db);
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `store ${this.location} has schema version ${current}, newer than this build knows (${MIGRATIONS.length})`,
      );
    }
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version] as string);
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  /**
   * A full disk fails the whole batch, as a StorageFull: SQLite may have rolled the transaction back already
   * (SQLITE_FULL can end it), and the writes after it would then each commit on their own — as after any error
   * that ends the transaction, which fails the batch too. The connection stays usable: once space is back the
   * next batch commits (tried on a full tmpfs).
   */
  async commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]> {
    try {
      return this.db.transaction(() =>
        batch.map((write): WriteOutcome => {
          try {
            this.db.transaction(() => this.apply(write))();
            return { ok: true };
          } catch (error) {
            // No write's own failure: a full disk, or any error after which SQLite ended the transaction
            // itself (the writes after it would each commit alone).
            if (sqliteNoSpace(error, this.location) || !this.db.inTransaction) throw error;
            const { message } = error as Error;
            return error instanceof StoreConflict
              ? { ok: false, message, conflict: error.conflict }
              : { ok: false, message };
          }
        }),
      )();
    } catch (error) {
      throw sqliteNoSpace(error, this.location) ?? error;
    }
  }

  private apply(write: StoreWrite): void {
    switch (write.kind) {
      case 'insertQuote':
        this.insertQuote(write.quote);
        break;
      case 'createTrade':
        this.createTrade(write.trade, write.event);
        break;
      case 'saveTransition':
        this.saveTransition(write.update, write.events, write.ledger);
        break;
      case 'appendEvents':
        this.appendEvents(write.events);
        break;
      case 'appendLedger':
        this.insertLedger(write.tradeId, write.entries, write.at);
        break;
      // The writing run is the running run, the one owner there is: nothing to fence.
      case 'setSeen':
        this.statements.setSeen.run(write.seen, write.tradeId);
        break;
      case 'setWake':
        this.statements.setWake.run(write.at, write.tradeId);
        break;
      case 'claimTrade':
        this.statements.claimTrade.run({ tradeId: write.tradeId, runId: write.runId });
        break;
      case 'probe':
        this.statements.probe.run(write.runId, write.at);
        break;
      case 'insertHedge':
        this.insertHedge(write.hedge);
        break;
      case 'updateHedge':
        this.updateHedge(write.update, write.ledger);
        break;
      case 'changeDesk':
        this.desk.change(write.changes);
        break;
    }
  }

  async deskOverrides(): Promise<DeskOverride[]> {
    return this.desk.overrides();
  }

  async deskChanges(limit: number, beforeSeq?: number): Promise<DeskChange[]> {
    return this.desk.changes(limit, beforeSeq);
  }

  /** One process writes: its own changes are the only ones there are. */
  async watchDesk(_listener: () => void): Promise<() => Promise<void>> {
    return async () => {};
  }

  private insertHedge(hedge: HedgeRecord): void {
    try {
      this.statements.insertHedge.run(hedgeRow(hedge));
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('hedges.asset')) {
        throw new StoreConflict('hedge_in_flight', `a hedge of ${hedge.asset} is already in flight`);
      }
      throw error;
    }
  }

  private updateHedge(update: HedgeUpdate, ledger: readonly LedgerEntry[]): void {
    this.db.transaction(() => {
      const { changes } = this.statements.updateHedge.run(hedgeUpdateRow(update));
      if (changes !== 1) throw new Error(`hedge ${update.hedgeId} does not exist`);
      for (const entry of ledger) {
        this.statements.insertHedgeLedger.run({
          hedgeId: update.hedgeId,
          movement: entry.movement,
          signature: entry.signature,
          mint: entry.mint,
          account: entry.account,
          side: entry.side,
          amountRaw: entry.amountRaw.toString(),
          at: update.updatedAt,
        });
      }
    })();
  }

  async getHedge(hedgeId: string): Promise<HedgeRecord | undefined> {
    const row = this.statements.getHedge.get(hedgeId) as HedgeRow | undefined;
    return row && hedgeFromRow(row);
  }

  async hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    if (tradeIds.length === 0) return [];
    const rows = this.statements.hedgesOfTrades.all(JSON.stringify(tradeIds)) as HedgeRow[];
    return rows.map(hedgeFromRow);
  }

  /** The running run owns every hedge in flight: its own are every instance's. */
  async hedgesInFlight(): Promise<HedgeRecord[]> {
    return (this.statements.hedgesInFlight.all() as HedgeRow[]).map(hedgeFromRow);
  }

  async recentHedges(limit: number): Promise<HedgeRecord[]> {
    return (this.statements.recentHedges.all(limit) as HedgeRow[]).map(hedgeFromRow);
  }

  async insertRun(run: NewRun): Promise<void> {
    this.statements.insertRun.run({
      runId: run.runId,
      version: run.version,
      startedAt: run.startedAt,
      url: run.url,
    });
  }

  async stopRun(runId: string, stoppedAt: string): Promise<void> {
    this.statements.stopRun.run(stoppedAt, runId);
  }

  async retireRuns(url: string, runId: string, stoppedAt: string): Promise<number> {
    return this.statements.retireRuns.run(stoppedAt, url, runId).changes;
  }

  async listRuns(): Promise<RunRecord[]> {
    return (this.statements.listRuns.all() as RunRow[]).map(runFromRow);
  }

  private insertQuote(quote: QuoteRecord): void {
    // Parameters spelled out, not spread over the record: that is a slow path in V8 (µs per write).
    this.statements.insertQuote.run({
      quoteId: quote.quoteId,
      runId: quote.runId,
      takerWallet: quote.takerWallet,
      inputMint: quote.inputMint,
      outputMint: quote.outputMint,
      inputRaw: quote.inputRaw.toString(),
      outputRaw: quote.outputRaw.toString(),
      spreadBps: quote.spreadBps,
      inputUsd: quote.inputUsd,
      outputUsd: quote.outputUsd,
      inputPrice: priceText(quote.inputPrice ?? null),
      outputPrice: priceText(quote.outputPrice ?? null),
      createdAt: quote.createdAt,
      expiresAtMs: quote.expiresAtMs,
      htlcExpiresAtMs: quote.htlcExpiresAtMs,
      riskChecks: JSON.stringify(quote.riskChecks),
      usedByTradeId: quote.usedByTradeId,
      sourcing: quote.sourcing ? JSON.stringify(quote.sourcing) : null,
    });
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const row = this.statements.getQuote.get(quoteId) as QuoteRow | undefined;
    return row && quoteFromRow(row);
  }

  async openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return (this.statements.openQuotes.all(nowMs) as QuoteRow[]).map(quoteFromRow);
  }

  private markQuoteUsed(quoteId: string, tradeId: string): void {
    const { changes } = this.statements.markQuoteUsed.run(tradeId, quoteId);
    if (changes !== 1) throw new StoreConflict('quote_used', `quote ${quoteId} is already used`);
  }

  private createTrade(trade: TradeRecord, event: NewTradeEvent): void {
    this.db.transaction(() => {
      this.markQuoteUsed(trade.quoteId, trade.tradeId);
      this.insertTradeRow(trade);
      this.statements.insertSnapshot.run({
        tradeId: trade.tradeId,
        machineVersion: trade.machineVersion,
        snapshot: trade.snapshot,
      });
      this.insertEvent(event);
    })();
  }

  private insertTradeRow(trade: TradeRecord): void {
    try {
      this.statements.insertTrade.run({
        tradeId: trade.tradeId,
        quoteId: trade.quoteId,
        runId: trade.runId,
        ownerRunId: trade.ownerRunId,
        takerWallet: trade.takerWallet,
        secretHash: trade.secretHash,
        createdAt: trade.createdAt,
        updatedAt: trade.updatedAt,
        status: trade.status,
        substate: trade.substate,
        closed: trade.closed ? 1 : 0,
        nextDeadline: trade.nextDeadline,
        adoptionError: trade.adoptionError,
        takerEscrow: trade.takerEscrow,
        makerEscrow: trade.makerEscrow,
        watch: trade.watch,
        seen: trade.seen,
        holdMint: trade.hold?.mint ?? null,
        holdRaw: trade.hold?.raw.toString() ?? null,
        holdUntilMs: trade.hold?.untilMs ?? null,
        running: trade.running ? 1 : 0,
        effectAttempts: trade.effectAttempts,
      });
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('trades.secret_hash')) {
        throw new StoreConflict('secret_hash_used', `secret hash ${trade.secretHash} belongs to a trade`);
      }
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('trades.quote_id')) {
        throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
      }
      throw error;
    }
  }

  private saveTransition(
    update: TradeUpdate,
    events: readonly NewTradeEvent[],
    ledger: readonly LedgerEntry[],
  ): void {
    this.db.transaction(() => {
      const { changes } = this.statements.updateTrade.run({
        tradeId: update.tradeId,
        ownerRunId: update.ownerRunId,
        updatedAt: update.updatedAt,
        status: update.status,
        substate: update.substate,
        closed: update.closed ? 1 : 0,
        nextDeadline: update.nextDeadline,
        watch: update.watch,
        holdMint: update.hold?.mint ?? null,
        holdRaw: update.hold?.raw.toString() ?? null,
        holdUntilMs: update.hold?.untilMs ?? null,
        running: update.running ? 1 : 0,
        effectAttempts: update.effectAttempts,
      });
      if (changes !== 1) throw new Error(`trade ${update.tradeId} does not exist`);
      this.statements.updateSnapshot.run({
        tradeId: update.tradeId,
        machineVersion: update.machineVersion,
        snapshot: update.snapshot,
      });
      for (const event of events) this.insertEvent(event);
      this.insertLedger(update.tradeId, ledger, update.updatedAt);
    })();
  }

  /** Each entry once (the ledger's unique key): a movement reported twice is posted once. */
  private insertLedger(tradeId: string, entries: readonly LedgerEntry[], at: string): void {
    for (const entry of entries) {
      this.statements.insertLedger.run({ ...entry, tradeId, amountRaw: entry.amountRaw.toString(), at });
    }
  }

  private appendEvents(events: readonly NewTradeEvent[]): void {
    this.db.transaction(() => {
      for (const event of events) this.insertEvent(event);
    })();
  }

  private insertEvent(event: NewTradeEvent): void {
    this.statements.insertEvent.run({
      tradeId: event.tradeId,
      runId: event.runId,
      at: event.at,
      type: event.type,
      status: event.status,
      substate: event.substate,
      payload: JSON.stringify(event.payload),
    });
  }

  async getTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const row = this.statements.getTrade.get(tradeId) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  async findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined> {
    const row = this.statements.tradeBySecretHash.get(secretHash) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  async findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined> {
    const row = this.statements.tradeByQuote.get(quoteId) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  async listTrades(filter: TradeFilter): Promise<TradeRecord[]> {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: filter.limit };
    if (filter.takerWallet !== undefined) {
      where.push('t.taker_wallet = @takerWallet');
      params.takerWallet = filter.takerWallet;
    }
    if (filter.status !== undefined) {
      where.push('t.status = @status');
      params.status = filter.status;
    }
    if (filter.runId !== undefined) {
      where.push('t.run_id = @runId');
      params.runId = filter.runId;
    }
    if (filter.ownedBy !== undefined) {
      where.push(
        '((t.closed = 0 AND t.adoption_error IS NULL) OR (t.closed = 1 AND t.owner_run_id = @ownedBy))',
      );
      params.ownedBy = filter.ownedBy;
    }
    if (filter.after !== undefined) {
      where.push('(t.created_at, t.trade_id) > (@afterCreatedAt, @afterTradeId)');
      params.afterCreatedAt = filter.after.createdAt;
      params.afterTradeId = filter.after.tradeId;
    }
    const sql = `SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
                 ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY t.created_at, t.trade_id LIMIT @limit`;
    return (this.db.prepare(sql).all(params) as TradeRow[]).map(tradeFromRow);
  }

  /** The new run adopts every unclosed trade by starting: only earlier unadoptable marks are cleared. */
  async adoptUnclosed(): Promise<number> {
    this.statements.clearUnadoptable.run();
    return (this.statements.countOwned.get() as { n: number }).n;
  }

  // The runtime's indexes: the owner is the running run, which owns every unclosed adoptable trade.

  readonly owned: OwnedTrades = {
    restIndex: () => this.restIndex(),
    runningTrades: () => this.runningTrades(),
    dueTrades: (now, limit) => this.dueTrades(now, limit),
    earliestWake: () => this.earliestWake(),
    ownedTradeCounts: () => this.ownedTradeCounts(),
    failingTrades: (minAttempts, limit) => this.failingTrades(minAttempts, limit),
    failingEffectCounts: (minAttempts) => this.failingEffectCounts(minAttempts),
    settlingSnapshots: () => this.settlingSnapshots(),
    hedgesInFlight: () => this.hedgesInFlight(),
  };

  private async restIndex(): Promise<RestEntry[]> {
    // Row by row: at 100,000 trades the whole result as arrays first costs a tenth of a restart.
    const entries: RestEntry[] = [];
    for (const row of this.statements.restIndex.iterate() as IterableIterator<RestRow>) {
      entries.push(restEntryFromRow(row));
    }
    return entries;
  }

  private async runningTrades(): Promise<string[]> {
    return (this.statements.runningTrades.all() as { trade_id: string }[]).map((r) => r.trade_id);
  }

  private async dueTrades(now: number, limit: number): Promise<string[]> {
    const rows = this.statements.dueTrades.all({ now, limit }) as { trade_id: string }[];
    return rows.map((r) => r.trade_id);
  }

  private async earliestWake(): Promise<number | null> {
    const row = this.statements.earliestWake.get() as { at: number } | undefined;
    return row?.at ?? null;
  }

  async liveTradeCount(wallet: string): Promise<number> {
    return (this.statements.liveTradeCount.get(wallet) as { n: number }).n;
  }

  private async ownedTradeCounts(): Promise<{ status: SettlementStatus; substate: string; count: number }[]> {
    return this.statements.ownedTradeCounts.all() as {
      status: SettlementStatus;
      substate: string;
      count: number;
    }[];
  }

  private async failingTrades(minAttempts: number, limit: number): Promise<TradeRecord[]> {
    const rows = this.statements.failingTrades.all({ min: minAttempts, limit }) as TradeRow[];
    return rows.map(tradeFromRow);
  }

  private async failingEffectCounts(minAttempts: number): Promise<{ effect: string; count: number }[]> {
    type Row = { effect: string; count: number };
    return this.statements.failingEffectCounts.all({ min: minAttempts }) as Row[];
  }

  private async settlingSnapshots(): Promise<string[]> {
    return this.statements.settlingSnapshots.all() as string[];
  }

  async tradeEvents(tradeId: string): Promise<TradeEventRecord[]> {
    return (this.statements.tradeEvents.all(tradeId) as EventRow[]).map(eventFromRow);
  }

  async events(afterSeq: number, limit: number): Promise<TradeEventRecord[]> {
    return (this.statements.events.all(afterSeq, limit) as EventRow[]).map(eventFromRow);
  }

  async lastEventSeq(): Promise<number> {
    return (this.statements.lastEventSeq.get() as { seq: number | null }).seq ?? 0;
  }

  async ledger(tradeId?: string): Promise<StoredLedgerEntry[]> {
    const rows =
      tradeId === undefined ? this.statements.ledgerAll.all() : this.statements.ledgerOf.all(tradeId);
    return (rows as LedgerRow[]).map(ledgerFromRow);
  }

  /**
   * Trades each run created, and those it owns: closed ones and unadoptable ones by the run that holds
   * them, and every unclosed adoptable one by the running run.
   */
  async tradeCounts(current: string): Promise<{ runId: string; created: number; owned: number }[]> {
    const counts = new Map<string, { runId: string; created: number; owned: number }>();
    for (const runId of this.statements.runIds.all() as string[]) {
      counts.set(runId, { runId, created: 0, owned: 0 });
    }
    const groups = this.statements.tradeGroups.all() as {
      runId: string;
      ownerRunId: string;
      settled: number;
      n: number;
    }[];
    for (const { runId, ownerRunId, settled, n } of groups) {
      const creator = counts.get(runId);
      if (creator) creator.created += n;
      const owner = counts.get(settled ? ownerRunId : current);
      if (owner) owner.owned += n;
    }
    return [...counts.values()];
  }

  /** One process writes: there are never events of another to hear. */
  async watchEvents(_listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    return async () => {};
  }

  async ping(): Promise<boolean> {
    return (this.db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
