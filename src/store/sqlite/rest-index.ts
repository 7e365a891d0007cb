// The rest index on SQLite: the runtime's queries over the unclosed trades, each naming the partial index it
// reads (INDEXED BY). The running run owns every unclosed adoptable trade, so they need no owner; a new run
// takes them all by starting.
import type Database from 'better-sqlite3';
import type { SettlementStatus } from '../../vocabulary/index.ts';
import type { RestEntry } from '../records.ts';
import { REST_COLUMNS, type RestRow, restEntryFromRow, type TradeRow, tradeFromRow } from '../rows.ts';
import type { TradeRestIndex } from '../trades.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    clearUnadoptable: db.prepare(
      'UPDATE trades INDEXED BY trades_unadoptable SET adoption_error = NULL WHERE closed = 0 AND adoption_error IS NOT NULL',
    ),
    countOwned: db.prepare(
      'SELECT count(*) AS n FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL',
    ),
    restIndex: db
      .prepare(`
      SELECT ${REST_COLUMNS}
      FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL`)
      .raw(true),
    runningTrades: db
      .prepare(
        'SELECT trade_id FROM trades INDEXED BY trades_running WHERE closed = 0 AND running = 1 AND adoption_error IS NULL',
      )
      .pluck(),
    dueTrades: db
      .prepare(`
      SELECT trade_id FROM trades INDEXED BY trades_wake
      WHERE closed = 0 AND next_deadline IS NOT NULL AND next_deadline <= @now AND adoption_error IS NULL
      ORDER BY next_deadline LIMIT @limit`)
      .pluck(),
    earliestWake: db
      .prepare(`
      SELECT next_deadline AS at FROM trades INDEXED BY trades_wake
      WHERE closed = 0 AND next_deadline IS NOT NULL AND adoption_error IS NULL
      ORDER BY next_deadline LIMIT 1`)
      .pluck(),
    ownedTradeCounts: db.prepare(`
      SELECT status, substate, count(*) AS count FROM trades INDEXED BY trades_unclosed
      WHERE closed = 0 AND adoption_error IS NULL GROUP BY status, substate ORDER BY status, substate`),
    failingTrades: db.prepare(`
      SELECT t.*, s.machine_version, s.snapshot FROM trades t INDEXED BY trades_failing
      JOIN trade_snapshots s ON s.trade_id = t.trade_id
      WHERE t.closed = 0 AND t.effect_attempts > 0 AND t.effect_attempts >= @min AND t.adoption_error IS NULL
      ORDER BY t.effect_attempts DESC, t.trade_id LIMIT @limit`),
    failingEffectCounts: db.prepare(`
      SELECT json_extract(s.snapshot, '$.context.effectError.effect') AS effect, count(*) AS count
      FROM trades t INDEXED BY trades_failing JOIN trade_snapshots s ON s.trade_id = t.trade_id
      WHERE t.closed = 0 AND t.effect_attempts > 0 AND t.effect_attempts >= @min AND t.adoption_error IS NULL
      GROUP BY effect`),
    settlingSnapshots: db
      .prepare(`
      SELECT s.snapshot FROM trades t INDEXED BY trades_unclosed JOIN trade_snapshots s ON s.trade_id = t.trade_id
      WHERE t.closed = 0 AND t.status IN ('initiated', 'redeemed', 'refunded', 'failed')`)
      .pluck(),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteRestIndex {
  private readonly statements: Statements;

  constructor(db: Database.Database) {
    this.statements = prepare(db);
  }

  /** The new run adopts every unclosed trade by starting: only earlier unadoptable marks are cleared. */
  adoptUnclosed(): number {
    this.statements.clearUnadoptable.run();
    return (this.statements.countOwned.get() as { n: number }).n;
  }

  /** The runtime's indexes: the owner is the running run, which owns every unclosed adoptable trade. */
  readonly owned: TradeRestIndex = {
    restIndex: async () => {
      // Row by row: at 100,000 trades the whole result as arrays first costs a tenth of a restart.
      const entries: RestEntry[] = [];
      for (const row of this.statements.restIndex.iterate() as IterableIterator<RestRow>) {
        entries.push(restEntryFromRow(row));
      }
      return entries;
    },
    runningTrades: async () => this.statements.runningTrades.all() as string[],
    dueTrades: async (now, limit) => this.statements.dueTrades.all({ now, limit }) as string[],
    earliestWake: async () => (this.statements.earliestWake.get() as number | undefined) ?? null,
    ownedTradeCounts: async () =>
      this.statements.ownedTradeCounts.all() as {
        status: SettlementStatus;
        substate: string;
        count: number;
      }[],
    failingTrades: async (minAttempts, limit) =>
      (this.statements.failingTrades.all({ min: minAttempts, limit }) as TradeRow[]).map(tradeFromRow),
    failingEffectCounts: async (minAttempts) =>
      this.statements.failingEffectCounts.all({ min: minAttempts }) as { effect: string; count: number }[],
    settlingSnapshots: async () => this.statements.settlingSnapshots.all() as string[],
  };
}
