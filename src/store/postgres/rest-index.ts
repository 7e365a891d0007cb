// The trades a run owns on PostgreSQL: the rest index over one owner's trades (every index leads with
// owner_run_id), and how a live run takes over the trades of runs that are gone — orphans claimed with SKIP
// LOCKED, one trade acquired before acting on it. Only the cluster's leased ownership (src/cluster/) drives
// the taking over; the runtime reads the index through it.
import type pg from 'pg';
import type { SettlementStatus } from '../../vocabulary/index.ts';
import type { Acquired, ClaimedTrade, RestEntry, TradeRecord } from '../records.ts';
import {
  type ClaimedRow,
  claimedFromRow,
  REST_COLUMNS,
  type RestRow,
  restEntryFromRow,
  type TradeRow,
  tradeFromRow,
} from '../rows.ts';
import type { TradeRestIndex } from '../trades.ts';
import { deadRow, isLive, liveRow, runner } from './sql.ts';
import { TRADE_SELECT } from './trades.ts';

/**
 * Unclosed trades whose owner stopped or let its lease lapse, each locked for a live claimer $1 (SKIP
 * LOCKED: rows another claimer, or a write still in flight, holds are passed over, never waited for). They
 * are looked up per dead run through the owner index: the LATERAL keeps the planner from reading every
 * unclosed trade instead, as it would, not knowing that dead runs (one per restart, piling up) own next to
 * nothing. `perRun` orders and bounds each dead run's share.
 */
const orphans = (perRun = '') => `
  SELECT c.trade_id AS orphan_id, c.created_at FROM runs o CROSS JOIN LATERAL (
    SELECT t.trade_id, t.created_at FROM trades t
    WHERE t.owner_run_id = o.run_id AND NOT t.closed ${perRun}
    FOR UPDATE OF t SKIP LOCKED
  ) c
  WHERE ${deadRow('o')} AND ${isLive('$1')}`;

/** The statements over one run's trades, and those taking trades over. */
const SQL = {
  // The orphans, locked, are updated by id (an array: the planner, taking dead runs for owners of as many
  // trades as live ones, would otherwise hash-join them against every trade). The outer count reads the
  // trades as they were before the update (a data-modifying CTE's changes are invisible to its own
  // statement), so the claimed ones are added by their number.
  claimUnclosed: `
    WITH orphans AS (${orphans()}),
    claimed AS (
      UPDATE trades t SET owner_run_id = $1, adoption_error = NULL
      WHERE t.trade_id = ANY (ARRAY(SELECT orphan_id FROM orphans)) RETURNING 1
    )
    SELECT (SELECT count(*) FROM claimed)
         + (SELECT count(*) FROM trades WHERE NOT closed AND owner_run_id = $1) AS n`,
  claimOrphans: `
    WITH orphans AS (
      ${orphans('ORDER BY t.created_at, t.trade_id LIMIT $2')}
      ORDER BY c.created_at, c.trade_id LIMIT $2
    ),
    claimed AS (
      UPDATE trades t SET owner_run_id = $1, adoption_error = NULL
      WHERE t.trade_id = ANY (ARRAY(SELECT orphan_id FROM orphans))
      RETURNING ${REST_COLUMNS}, running, created_at
    )
    SELECT ${REST_COLUMNS}, running FROM claimed ORDER BY created_at, trade_id`,
  acquireTrade: `
    UPDATE trades t SET owner_run_id = $2, adoption_error = NULL
    WHERE t.trade_id = $1 AND NOT t.closed AND t.owner_run_id <> $2
      AND NOT ${isLive('t.owner_run_id', 'owner')} AND ${isLive('$2')}`,
  tradeOwner: `
    SELECT t.closed, t.owner_run_id, o.url, ${liveRow('o')} AS live
    FROM trades t JOIN runs o ON o.run_id = t.owner_run_id WHERE t.trade_id = $1`,
  restIndex: `SELECT ${REST_COLUMNS} FROM trades WHERE NOT closed AND owner_run_id = $1 AND adoption_error IS NULL`,
  runningTrades: `
    SELECT trade_id FROM trades WHERE NOT closed AND running AND owner_run_id = $1 AND adoption_error IS NULL`,
  dueTrades: `
    SELECT trade_id FROM trades
    WHERE NOT closed AND next_deadline IS NOT NULL AND owner_run_id = $1 AND next_deadline <= $2
      AND adoption_error IS NULL
    ORDER BY next_deadline LIMIT $3`,
  earliestWake: `
    SELECT next_deadline AS at FROM trades
    WHERE NOT closed AND next_deadline IS NOT NULL AND owner_run_id = $1 AND adoption_error IS NULL
    ORDER BY next_deadline LIMIT 1`,
  ownedTradeCounts: `
    SELECT status, substate, count(*) AS count FROM trades
    WHERE NOT closed AND owner_run_id = $1 AND adoption_error IS NULL
    GROUP BY status, substate ORDER BY status, substate`,
  failingTrades: `
    ${TRADE_SELECT}
    WHERE NOT t.closed AND t.effect_attempts > 0 AND t.owner_run_id = $1 AND t.effect_attempts >= $2
      AND t.adoption_error IS NULL
    ORDER BY t.effect_attempts DESC, t.trade_id LIMIT $3`,
  // The snapshot is TEXT: parsed as json (not jsonb) only for the trades the partial index finds failing.
  failingEffectCounts: `
    SELECT s.snapshot::json #>> '{context,effectError,effect}' AS effect, count(*) AS count
    FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
    WHERE NOT t.closed AND t.effect_attempts > 0 AND t.owner_run_id = $1 AND t.effect_attempts >= $2
      AND t.adoption_error IS NULL
    GROUP BY 1 ORDER BY 1 NULLS FIRST`,
  settlingSnapshots: `
    SELECT s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
    WHERE NOT t.closed AND t.owner_run_id = $1 AND t.status IN ('initiated', 'redeemed', 'refunded', 'failed')`,
} as const;

export const REST_INDEX_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresRestIndex {
  constructor(private readonly pool: pg.Pool) {}

  /** The runtime's indexes over the trades naming `owner` their owner. */
  of(owner: string): TradeRestIndex {
    const pool = this.pool;
    const column = async <T>(name: keyof typeof SQL, values: unknown[]): Promise<T[]> =>
      (await run<[T] & pg.QueryResultRow>(pool, name, values, 'array')).rows.map((row) => row[0]);
    return {
      restIndex: async (): Promise<RestEntry[]> =>
        (await run<RestRow & pg.QueryResultRow>(pool, 'restIndex', [owner], 'array')).rows.map(
          restEntryFromRow,
        ),
      runningTrades: () => column<string>('runningTrades', [owner]),
      dueTrades: (now, limit) => column<string>('dueTrades', [owner, now, limit]),
      earliestWake: async () => (await column<number>('earliestWake', [owner]))[0] ?? null,
      ownedTradeCounts: async () =>
        (
          await run<{ status: SettlementStatus; substate: string; count: number }>(pool, 'ownedTradeCounts', [
            owner,
          ])
        ).rows,
      failingTrades: async (minAttempts, limit): Promise<TradeRecord[]> =>
        (await run<TradeRow>(pool, 'failingTrades', [owner, minAttempts, limit])).rows.map(tradeFromRow),
      failingEffectCounts: async (minAttempts) =>
        (await run<{ effect: string; count: number }>(pool, 'failingEffectCounts', [owner, minAttempts]))
          .rows,
      settlingSnapshots: () => column<string>('settlingSnapshots', [owner]),
    };
  }

  /** Every orphan for runId in one statement, answering how many trades the run owns now. */
  async claimUnclosed(runId: string): Promise<number> {
    return (await run<{ n: number }>(this.pool, 'claimUnclosed', [runId])).rows[0]?.n ?? 0;
  }

  /** Up to `limit` orphans for runId, oldest first. */
  async claimOrphans(runId: string, limit: number): Promise<ClaimedTrade[]> {
    const { rows } = await run<ClaimedRow & pg.QueryResultRow>(
      this.pool,
      'claimOrphans',
      [runId, limit],
      'array',
    );
    return rows.map(claimedFromRow);
  }

  /** Takes the trade for runId if its owner is gone, else names the live owner. */
  async acquireTrade(tradeId: string, runId: string): Promise<Acquired> {
    const { rowCount } = await run(this.pool, 'acquireTrade', [tradeId, runId]);
    if (rowCount === 1) return { acquired: true };
    // Not taken: say who has it now (a later read than the update's, so a claim in between is seen).
    type Row = { closed: boolean; owner_run_id: string; url: string | null; live: boolean };
    const [row] = (await run<Row>(this.pool, 'tradeOwner', [tradeId])).rows;
    if (row === undefined || row.closed || row.owner_run_id === runId) return { acquired: true };
    // A dead owner still named: this run's own lease lapsed (it may take nothing). Its url answers nobody.
    return { acquired: false, ownerRunId: row.owner_run_id, ownerUrl: row.live ? row.url : null };
  }
}
