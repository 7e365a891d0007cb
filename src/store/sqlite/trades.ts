// Trades on SQLite: each row with its snapshot (trade_snapshots) and its rest columns, written by its
// transitions with their events, ledger entries and Gateway transfers (the rest index that reads them is
// rest-index.ts). The running run owns every unclosed
// adoptable trade: nothing is fenced (the owner a write names is that run).
import type Database from 'better-sqlite3';
import type { LedgerEntry } from '../../ledger/index.ts';
import type { Hash32 } from '../../vocabulary/index.ts';
import type { NewTradeEvent, TradeFilter, TradeRecord, TradeUpdate } from '../records.ts';
import { type TradeRow, tradeFromRow } from '../rows.ts';
import type { TradesRepository, TradeWrite } from '../trades.ts';
import type { TransferRecord } from '../transfers.ts';
import { StoreConflict } from '../writes.ts';
import type { SqliteEvents } from './events.ts';
import type { SqliteQuotes } from './quotes.ts';
import type { SqliteTransfers } from './transfers.ts';
import type { SqliteWrites } from './writes.ts';

const TRADE_SELECT =
  'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insertTrade: db.prepare(`
      INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at,
                          updated_at, status, substate, closed, next_deadline, adoption_error, taker_escrow,
                          maker_escrow, watch, seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
      VALUES (@tradeId, @quoteId, @runId, @ownerRunId, @takerWallet, @secretHash, @createdAt, @updatedAt,
              @status, @substate, @closed, @nextDeadline, @adoptionError, @takerEscrow, @makerEscrow,
              @watch, @seen, @holdMint, @holdRaw, @holdUntilMs, @running, @effectAttempts)`),
    insertSnapshot: db.prepare(
      'INSERT INTO trade_snapshots (trade_id, machine_version, snapshot) VALUES (@tradeId, @machineVersion, @snapshot)',
    ),
    updateTrade: db.prepare(`
      UPDATE trades SET owner_run_id = @ownerRunId, updated_at = @updatedAt, status = @status, substate = @substate,
             closed = @closed, next_deadline = @nextDeadline, adoption_error = NULL, watch = @watch,
             hold_mint = @holdMint, hold_raw = @holdRaw, hold_until_ms = @holdUntilMs, running = @running,
             effect_attempts = @effectAttempts
      WHERE trade_id = @tradeId`),
    updateSnapshot: db.prepare(
      'UPDATE trade_snapshots SET machine_version = @machineVersion, snapshot = @snapshot WHERE trade_id = @tradeId',
    ),
    setWake: db.prepare('UPDATE trades SET next_deadline = ? WHERE trade_id = ?'),
    setSeen: db.prepare('UPDATE trades SET seen = ? WHERE trade_id = ?'),
    claimTrade: db.prepare(
      'UPDATE trades SET owner_run_id = @runId, adoption_error = NULL WHERE trade_id = @tradeId AND closed = 0',
    ),
    getTrade: db.prepare(`${TRADE_SELECT} WHERE t.trade_id = ?`),
    tradeBySecretHash: db.prepare(`${TRADE_SELECT} WHERE t.secret_hash = ?`),
    tradeByQuote: db.prepare(`${TRADE_SELECT} WHERE t.quote_id = ?`),
    liveTradeCount: db.prepare(
      "SELECT count(*) AS n FROM trades WHERE taker_wallet = ? AND status IN ('pending', 'initiated')",
    ),
    runIds: db.prepare('SELECT run_id FROM runs ORDER BY started_at, run_id').pluck(),
    // One pass over the trades, whatever the number of runs (a correlated count per run scanned the table
    // twice per run: 150 ms for two runs at 100,000 trades, and every restart adds a run).
    tradeGroups: db.prepare(`
      SELECT run_id AS runId, owner_run_id AS ownerRunId,
             (closed = 1 OR adoption_error IS NOT NULL) AS settled, count(*) AS n
      FROM trades GROUP BY run_id, owner_run_id, settled`),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteTrades implements TradesRepository {
  private readonly statements: Statements;
  /** listTrades' statements, one per combination of filters, prepared the first time it is asked for. */
  private readonly listings = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly quotes: SqliteQuotes,
    private readonly events: SqliteEvents,
    private readonly transfers: SqliteTransfers,
  ) {
    this.statements = prepare(db);
  }

  // The writing run is the running run, the one owner there is: nothing to fence.
  readonly writes: SqliteWrites<TradeWrite> = {
    createTrade: ({ trade, event }) => this.create(trade, event),
    saveTransition: ({ update, events, ledger, transfers }) =>
      this.saveTransition(update, events, ledger, transfers ?? []),
    setSeen: ({ tradeId, seen }) => void this.statements.setSeen.run(seen, tradeId),
    setWake: ({ tradeId, at }) => void this.statements.setWake.run(at, tradeId),
    claimTrade: ({ tradeId, runId }) => void this.statements.claimTrade.run({ tradeId, runId }),
  };

  private create(trade: TradeRecord, event: NewTradeEvent): void {
    this.db.transaction(() => {
      this.quotes.markUsed(trade.quoteId, trade.tradeId);
      this.insertRow(trade);
      this.statements.insertSnapshot.run({
        tradeId: trade.tradeId,
        machineVersion: trade.machineVersion,
        snapshot: trade.snapshot,
      });
      this.events.insertEvent(event);
    })();
  }

  private insertRow(trade: TradeRecord): void {
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
    transfers: readonly TransferRecord[],
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
      for (const event of events) this.events.insertEvent(event);
      this.events.insertLedger(update.tradeId, ledger, update.updatedAt);
      for (const transfer of transfers) this.transfers.save(transfer);
    })();
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
    const sql = `${TRADE_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY t.created_at, t.trade_id LIMIT @limit`;
    let statement = this.listings.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.listings.set(sql, statement);
    }
    return (statement.all(params) as TradeRow[]).map(tradeFromRow);
  }

  async liveTradeCount(wallet: string): Promise<number> {
    return (this.statements.liveTradeCount.get(wallet) as { n: number }).n;
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
}
