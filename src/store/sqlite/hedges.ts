// Hedges on SQLite: one row per hedge swap, at most one in flight per asset (a unique partial index); the
// running run owns every hedge in flight, so nothing is fenced. A hedge's ledger entries belong to the trade
// that triggered it.
import type Database from 'better-sqlite3';
import type { LedgerEntry } from '../../ledger/index.ts';
import {
  HEDGE_COLUMNS,
  HEDGE_UPDATE_COLUMNS,
  type HedgeRecord,
  type HedgeRow,
  type HedgesRepository,
  type HedgeUpdate,
  type HedgeWrite,
  hedgeFromRow,
  hedgeRow,
  hedgeUpdateRow,
  type OwnedHedges,
} from '../hedges.ts';
import { StoreConflict } from '../writes.ts';
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO hedges (${HEDGE_COLUMNS.join(', ')}) VALUES (${HEDGE_COLUMNS.map((c) => `@${c}`).join(', ')})`,
    ),
    update: db.prepare(
      `UPDATE hedges SET ${HEDGE_UPDATE_COLUMNS.filter((c) => c !== 'hedge_id')
        .map((c) => `${c} = @${c}`)
        .join(', ')} WHERE hedge_id = @hedge_id`,
    ),
    insertLedger: db.prepare(`
      INSERT OR IGNORE INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      SELECT trade_id, @movement, @signature, @mint, @account, @side, @amountRaw, @at FROM hedges
      WHERE hedge_id = @hedgeId`),
    get: db.prepare('SELECT * FROM hedges WHERE hedge_id = ?'),
    ofTrades: db.prepare(`
      SELECT * FROM hedges WHERE trade_id IN (SELECT value FROM json_each(?))
      ORDER BY created_at, hedge_id`),
    inFlight: db.prepare(`
      SELECT * FROM hedges INDEXED BY hedges_in_flight WHERE status IN ('sending', 'requoting')
      ORDER BY created_at, hedge_id`),
    recent: db.prepare('SELECT * FROM hedges ORDER BY created_at DESC, hedge_id DESC LIMIT ?'),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteHedges implements HedgesRepository {
  private readonly statements: Statements;

  constructor(private readonly db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<HedgeWrite> = {
    insertHedge: ({ hedge }) => this.insert(hedge),
    updateHedge: ({ update, ledger }) => this.update(update, ledger),
  };

  private insert(hedge: HedgeRecord): void {
    try {
      this.statements.insert.run(hedgeRow(hedge));
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('hedges.asset')) {
        throw new StoreConflict('hedge_in_flight', `a hedge of ${hedge.asset} is already in flight`);
      }
      throw error;
    }
  }

  private update(update: HedgeUpdate, ledger: readonly LedgerEntry[]): void {
    this.db.transaction(() => {
      const { changes } = this.statements.update.run(hedgeUpdateRow(update));
      if (changes !== 1) throw new Error(`hedge ${update.hedgeId} does not exist`);
      for (const entry of ledger) {
        this.statements.insertLedger.run({
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
    const row = this.statements.get.get(hedgeId) as HedgeRow | undefined;
    return row && hedgeFromRow(row);
  }

  async hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    if (tradeIds.length === 0) return [];
    const rows = this.statements.ofTrades.all(JSON.stringify(tradeIds)) as HedgeRow[];
    return rows.map(hedgeFromRow);
  }

  /** The running run owns every hedge in flight: its own are every instance's. */
  async hedgesInFlight(): Promise<HedgeRecord[]> {
    return (this.statements.inFlight.all() as HedgeRow[]).map(hedgeFromRow);
  }

  readonly owned: OwnedHedges = { hedgesInFlight: () => this.hedgesInFlight() };

  async recentHedges(limit: number): Promise<HedgeRecord[]> {
    return (this.statements.recent.all(limit) as HedgeRow[]).map(hedgeFromRow);
  }
}
