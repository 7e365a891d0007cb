// Hedges on PostgreSQL: one row per hedge swap, at most one in flight per asset across every instance (a
// unique partial index); its writes are fenced on its owner run's lease, as a trade's are, and a live run
// takes over the hedges in flight of runs that are gone (claimHedges).
import type pg from 'pg';
import {
  HEDGE_COLUMNS,
  HEDGE_UPDATE_COLUMNS,
  type HedgeRecord,
  type HedgeRow,
  type HedgesRepository,
  type HedgeWrite,
  hedgeFromRow,
  hedgeRow,
  hedgeUpdateRow,
  type OwnedHedges,
} from '../hedges.ts';
import { StoreConflict } from '../writes.ts';
import { isLive, runner } from './sql.ts';
import type { PostgresWrites } from './writes.ts';

const UNIQUE_VIOLATION = '23505';

/** The casts a hedge's parameters need where the statement alone does not type them (INSERT … SELECT). */
const HEDGE_CASTS: Partial<Record<keyof HedgeRow, string>> = {
  amount_in_raw: '::numeric',
  quoted_out_raw: '::numeric',
  min_out_raw: '::numeric',
  mid_out_raw: '::numeric',
  max_slippage_bps: '::integer',
  attempt: '::integer',
  last_valid_block_height: '::bigint',
  landed_in_raw: '::numeric',
  landed_out_raw: '::numeric',
  fee_lamports: '::numeric',
  slot: '::bigint',
};

/** Hedges' statements. */
const SQL = {
  // Fenced: the owner run (the hedge's creator, $4) must be live.
  insertHedge: `
    INSERT INTO hedges (${HEDGE_COLUMNS.join(', ')})
    SELECT ${HEDGE_COLUMNS.map((column, i) => `$${i + 1}${HEDGE_CASTS[column] ?? ''}`).join(', ')}
    WHERE ${isLive('$4')}`,
  // A hedge's new state, fenced on its owner ($2), and the ledger entries it posts to its trade, each once.
  updateHedge: `
    WITH moved AS (
      UPDATE hedges h SET ${HEDGE_UPDATE_COLUMNS.filter((c) => c !== 'hedge_id')
        .map(
          (column) => `${column} = $${HEDGE_UPDATE_COLUMNS.indexOf(column) + 1}${HEDGE_CASTS[column] ?? ''}`,
        )
        .join(', ')}
      WHERE h.hedge_id = $1 AND h.owner_run_id = $2 AND ${isLive('$2')}
      RETURNING h.trade_id
    ),
    ledger AS (
      INSERT INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      SELECT moved.trade_id, l.movement, l.signature, l.mint, l.account, l.side, l.amount_raw, $${HEDGE_UPDATE_COLUMNS.indexOf('updated_at') + 1}
      FROM moved, unnest($${HEDGE_UPDATE_COLUMNS.length + 1}::text[], $${HEDGE_UPDATE_COLUMNS.length + 2}::text[],
                         $${HEDGE_UPDATE_COLUMNS.length + 3}::text[], $${HEDGE_UPDATE_COLUMNS.length + 4}::text[],
                         $${HEDGE_UPDATE_COLUMNS.length + 5}::text[], $${HEDGE_UPDATE_COLUMNS.length + 6}::numeric[])
        WITH ORDINALITY AS l (movement, signature, mint, account, side, amount_raw, n)
      ORDER BY l.n
      ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING
    )
    SELECT trade_id FROM moved`,
  hedgeOwner: 'SELECT owner_run_id FROM hedges WHERE hedge_id = $1',
  getHedge: `SELECT ${HEDGE_COLUMNS.join(', ')} FROM hedges WHERE hedge_id = $1`,
  hedgesOfTrades: `
    SELECT ${HEDGE_COLUMNS.join(', ')} FROM hedges WHERE trade_id = ANY ($1::text[]) ORDER BY created_at, hedge_id`,
  hedgesInFlight: `
    SELECT ${HEDGE_COLUMNS.join(', ')} FROM hedges
    WHERE ($1::text IS NULL OR owner_run_id = $1) AND status IN ('sending', 'requoting')
    ORDER BY created_at, hedge_id`,
  recentHedges: `
    SELECT ${HEDGE_COLUMNS.join(', ')} FROM hedges ORDER BY created_at DESC, hedge_id DESC LIMIT $1`,
  // The in-flight hedges of runs that are gone, taken by a live run $1. The rows it updates stay locked until
  // it commits: a second claimer waits, then finds their owner live and leaves them.
  claimHedges: `
    UPDATE hedges h SET owner_run_id = $1
    WHERE h.status IN ('sending', 'requoting') AND h.owner_run_id <> $1
      AND NOT ${isLive('h.owner_run_id', 'owner')} AND ${isLive('$1')}
    RETURNING ${HEDGE_COLUMNS.map((column) => `h.${column}`).join(', ')}`,
} as const;

export const HEDGE_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresHedges implements HedgesRepository {
  constructor(private readonly pool: pg.Pool) {}

  readonly writes: PostgresWrites<HedgeWrite> = {
    insertHedge: {
      fencedRuns: ({ hedge }) => [hedge.ownerRunId],
      apply: async ({ client }, { hedge }) => {
        const row = hedgeRow(hedge);
        let rowCount: number | null;
        try {
          ({ rowCount } = await run(
            client,
            'insertHedge',
            HEDGE_COLUMNS.map((column) => row[column]),
          ));
        } catch (error) {
          const { code, constraint } = error as { code?: string; constraint?: string };
          if (code === UNIQUE_VIOLATION && constraint === 'hedges_in_flight') {
            throw new StoreConflict('hedge_in_flight', `a hedge of ${hedge.asset} is already in flight`);
          }
          throw error;
        }
        if (rowCount !== 1) {
          throw new StoreConflict('fenced', `run ${hedge.ownerRunId} has no live lease to record a hedge`);
        }
      },
    },
    updateHedge: {
      fencedRuns: ({ update }) => [update.ownerRunId],
      apply: async ({ client }, { update, ledger }) => {
        const row = hedgeUpdateRow(update);
        const { rowCount } = await run(client, 'updateHedge', [
          ...HEDGE_UPDATE_COLUMNS.map((column) => row[column as keyof typeof row]),
          ledger.map((l) => l.movement),
          ledger.map((l) => l.signature),
          ledger.map((l) => l.mint),
          ledger.map((l) => l.account),
          ledger.map((l) => l.side),
          ledger.map((l) => l.amountRaw.toString()),
        ]);
        if (rowCount === 1) return;
        const [owner] = (await run<{ owner_run_id: string }>(client, 'hedgeOwner', [update.hedgeId])).rows;
        if (owner === undefined) throw new Error(`hedge ${update.hedgeId} does not exist`);
        throw new StoreConflict(
          'fenced',
          `run ${update.ownerRunId} does not own hedge ${update.hedgeId}, or its lease lapsed`,
        );
      },
    },
  };

  async getHedge(hedgeId: string): Promise<HedgeRecord | undefined> {
    const [row] = (await run<HedgeRow>(this.pool, 'getHedge', [hedgeId])).rows;
    return row && hedgeFromRow(row);
  }

  async hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    if (tradeIds.length === 0) return [];
    return (await run<HedgeRow>(this.pool, 'hedgesOfTrades', [tradeIds])).rows.map(hedgeFromRow);
  }

  hedgesInFlight(): Promise<HedgeRecord[]> {
    return this.inFlightOf(null);
  }

  /** The hedges in flight the run owns. */
  ownedBy(owner: string): OwnedHedges {
    return { hedgesInFlight: () => this.inFlightOf(owner) };
  }

  /** The hedges in flight the run owns, or with null every instance's. */
  private async inFlightOf(owner: string | null): Promise<HedgeRecord[]> {
    return (await run<HedgeRow>(this.pool, 'hedgesInFlight', [owner])).rows.map(hedgeFromRow);
  }

  async recentHedges(limit: number): Promise<HedgeRecord[]> {
    return (await run<HedgeRow>(this.pool, 'recentHedges', [limit])).rows.map(hedgeFromRow);
  }

  /** Takes for runId every hedge in flight whose owner run is gone, and answers them. */
  async claimHedges(runId: string): Promise<HedgeRecord[]> {
    return (await run<HedgeRow>(this.pool, 'claimHedges', [runId])).rows.map(hedgeFromRow);
  }
}
