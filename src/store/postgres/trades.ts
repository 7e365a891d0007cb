// Trades on PostgreSQL: each row names its owner run, and every write of a trade is fenced in its own
// statement (fence.ts); a transition is one statement (the fenced update, its snapshot, events and ledger
// entries together), then the Gateway transfers it moved (transfers.ts). Creating a trade uses its quote (quotes.ts) and moves the quote's reservation to the
// trade's hold; a transition moves the hold in the reservation buckets. The indexes over one run's trades,
// and how a run takes trades over, are rest-index.ts.
import type pg from 'pg';
import type { Hash32 } from '../../vocabulary/index.ts';
import type { TradeFilter, TradeRecord } from '../records.ts';
import { holdReservation } from '../reservation-buckets.ts';
import { holdFromRow, type TradeRow, tradeFromRow } from '../rows.ts';
import type { TradesRepository, TradeWrite } from '../trades.ts';
import { StoreConflict } from '../writes.ts';
import type { PostgresEvents } from './events.ts';
import { FENCE, refused } from './fence.ts';
import type { PostgresQuotes } from './quotes.ts';
import { columns, isLive, runner } from './sql.ts';
import type { PostgresTransfers } from './transfers.ts';
import type { PostgresWrites, WriteContext } from './writes.ts';

const UNIQUE_VIOLATION = '23505';

export const TRADE_SELECT = `SELECT ${columns<TradeRow>(
  [
    'trade_id',
    'quote_id',
    'run_id',
    'owner_run_id',
    'taker_wallet',
    'secret_hash',
    'created_at',
    'updated_at',
    'status',
    'substate',
    'closed',
    'next_deadline',
    'adoption_error',
    'taker_escrow',
    'maker_escrow',
    'watch',
    'seen',
    'hold_mint',
    'hold_raw',
    'hold_until_ms',
    'running',
    'effect_attempts',
  ],
  't.',
)}, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id`;

/** Trades' statements. */
const SQL = {
  // Fenced: the creating run (the trade's owner, $4) must be live.
  insertTrade: `
    INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at, updated_at,
                        status, substate, closed, next_deadline, adoption_error, taker_escrow, maker_escrow,
                        watch, seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::boolean, $12::bigint, $13, $14, $15, $16::integer, $17,
           $18, $19::numeric, $20::bigint, $21::boolean, $22::integer
    WHERE ${isLive('$4')}`,
  insertSnapshot: 'INSERT INTO trade_snapshots (trade_id, machine_version, snapshot) VALUES ($1, $2, $3)',
  // A whole transition in one round trip: the fenced update of the trade, then, only if it moved, its
  // snapshot, its events (in order) and its ledger entries (each posted once). Answers the trade's hold and
  // closed flag from before the update (old: read under the row's lock); no row when the fence refused it,
  // and then nothing was written.
  saveTransition: `
    WITH old AS (SELECT trade_id, closed, hold_mint, hold_raw, hold_until_ms FROM trades WHERE trade_id = $1 FOR UPDATE),
    moved AS (
      UPDATE trades t SET updated_at = $3, status = $4, substate = $5, closed = $6, next_deadline = $7,
             adoption_error = NULL, watch = $8, hold_mint = $9, hold_raw = $10, hold_until_ms = $11, running = $12,
             effect_attempts = $13
      FROM old WHERE old.trade_id = t.trade_id AND ${FENCE}
      RETURNING t.trade_id, old.closed, old.hold_mint, old.hold_raw::text AS hold_raw, old.hold_until_ms
    ),
    snapshot AS (
      UPDATE trade_snapshots s SET machine_version = $14, snapshot = $15 FROM moved WHERE s.trade_id = moved.trade_id
    ),
    events AS (
      INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
      SELECT moved.trade_id, $2, e.at, e.type, e.status, e.substate, e.payload
      FROM moved, unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::text[])
        WITH ORDINALITY AS e (at, type, status, substate, payload, n)
      ORDER BY e.n
    ),
    ledger AS (
      INSERT INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      SELECT moved.trade_id, l.movement, l.signature, l.mint, l.account, l.side, l.amount_raw, $3
      FROM moved, unnest($21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::numeric[])
        WITH ORDINALITY AS l (movement, signature, mint, account, side, amount_raw, n)
      ORDER BY l.n
      ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING
    )
    SELECT closed, hold_mint, hold_raw, hold_until_ms FROM moved`,
  setWake: `UPDATE trades t SET next_deadline = $3 WHERE ${FENCE}`,
  setSeen: `UPDATE trades t SET seen = $3 WHERE ${FENCE}`,
  // POST /resume: the run takes the trade if it is its own or an orphan (and the run is live).
  claimTrade: `
    UPDATE trades t SET owner_run_id = $2, adoption_error = NULL
    WHERE t.trade_id = $1 AND NOT t.closed AND ${isLive('$2')}
      AND (t.owner_run_id = $2 OR NOT ${isLive('t.owner_run_id', 'owner')})`,
  getTrade: `${TRADE_SELECT} WHERE t.trade_id = $1`,
  tradeBySecretHash: `${TRADE_SELECT} WHERE t.secret_hash = $1`,
  tradeByQuote: `${TRADE_SELECT} WHERE t.quote_id = $1`,
  liveTradeCount:
    "SELECT count(*) AS n FROM trades WHERE taker_wallet = $1 AND status IN ('pending', 'initiated')",
  // Every trade names its owner: a run owns what names it (unclosed, or closed while it owned it).
  tradeCounts: `
    SELECT r.run_id AS "runId", coalesce(c.created, 0) AS created, coalesce(o.owned, 0) AS owned
    FROM runs r
    LEFT JOIN (SELECT run_id, count(*) AS created FROM trades GROUP BY run_id) c ON c.run_id = r.run_id
    LEFT JOIN (SELECT owner_run_id, count(*) AS owned FROM trades GROUP BY owner_run_id) o
      ON o.owner_run_id = r.run_id
    ORDER BY r.started_at, r.run_id`,
} as const;

export const TRADE_STATEMENTS = SQL;
const run = runner(SQL);

/** The trade's columns, in the order of the insert statement's parameters. */
function tradeValues(trade: TradeRecord): unknown[] {
  return [
    trade.tradeId,
    trade.quoteId,
    trade.runId,
    trade.ownerRunId,
    trade.takerWallet,
    trade.secretHash,
    trade.createdAt,
    trade.updatedAt,
    trade.status,
    trade.substate,
    trade.closed,
    trade.nextDeadline,
    trade.adoptionError,
    trade.takerEscrow,
    trade.makerEscrow,
    trade.watch,
    trade.seen,
    trade.hold?.mint ?? null,
    trade.hold?.raw.toString() ?? null,
    trade.hold?.untilMs ?? null,
    trade.running,
    trade.effectAttempts,
  ];
}

export class PostgresTrades implements TradesRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly quotes: PostgresQuotes,
    private readonly events: PostgresEvents,
    private readonly transfers: PostgresTransfers,
  ) {}

  readonly writes: PostgresWrites<TradeWrite> = {
    createTrade: {
      fencedRuns: ({ trade }) => [trade.ownerRunId],
      appendsEventsOf: ({ trade }) => [trade.tradeId],
      apply: (tx, { trade, event }) => this.create(tx, trade, event),
    },
    saveTransition: {
      fencedRuns: ({ update }) => [update.ownerRunId],
      appendsEventsOf: ({ events }) => events.map((event) => event.tradeId),
      apply: (tx, write) => this.saveTransition(tx, write),
    },
    setSeen: {
      fencedRuns: ({ runId }) => [runId],
      apply: async ({ client }, { tradeId, runId, seen }) => {
        const { rowCount } = await run(client, 'setSeen', [tradeId, runId, seen]);
        // An unknown trade changes nothing, as it always did.
        if (rowCount !== 1) await refused(client, tradeId, runId, { unknown: 'ok' });
      },
    },
    setWake: {
      fencedRuns: ({ runId }) => [runId],
      apply: async ({ client }, { tradeId, runId, at }) => {
        const { rowCount } = await run(client, 'setWake', [tradeId, runId, at]);
        if (rowCount !== 1) await refused(client, tradeId, runId, { unknown: 'ok' });
      },
    },
    claimTrade: {
      fencedRuns: ({ runId }) => [runId],
      apply: async ({ client }, { tradeId, runId }) => {
        const { rowCount } = await run(client, 'claimTrade', [tradeId, runId]);
        // An unknown or closed trade has nothing to claim, as before.
        if (rowCount !== 1) await refused(client, tradeId, runId, { unknown: 'ok', closed: 'ok' });
      },
    },
  };

  private async create(
    tx: WriteContext,
    trade: TradeRecord,
    event: Parameters<PostgresEvents['insertEvent']>[1],
  ): Promise<void> {
    // The quote's reservation becomes the trade's hold.
    tx.changes.move(
      await this.quotes.markUsed(tx.client, trade.quoteId, trade.tradeId),
      holdReservation(trade),
    );
    let rowCount: number | null;
    try {
      ({ rowCount } = await run(tx.client, 'insertTrade', tradeValues(trade)));
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === 'trades_secret_hash_key') {
        throw new StoreConflict('secret_hash_used', `secret hash ${trade.secretHash} belongs to a trade`);
      }
      if (code === UNIQUE_VIOLATION && constraint === 'trades_quote_id_key') {
        throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
      }
      throw error;
    }
    if (rowCount !== 1) {
      throw new StoreConflict(
        'fenced',
        `run ${trade.ownerRunId} has no live lease to create trade ${trade.tradeId}`,
      );
    }
    await run(tx.client, 'insertSnapshot', [trade.tradeId, trade.machineVersion, trade.snapshot]);
    await this.events.insertEvent(tx.client, event, { tradeId: trade.tradeId, runId: trade.ownerRunId });
  }

  private async saveTransition(
    tx: WriteContext,
    { update, events, ledger, transfers }: Extract<TradeWrite, { kind: 'saveTransition' }>,
  ): Promise<void> {
    // Every event of a transition is its trade's, by the run that moved it (see the runtime's persist).
    if (events.some((event) => event.tradeId !== update.tradeId || event.runId !== update.ownerRunId)) {
      throw new Error(`a transition of trade ${update.tradeId} carries another trade's or run's event`);
    }
    const { rowCount, rows } = await run<
      Pick<TradeRow, 'closed' | 'hold_mint' | 'hold_raw' | 'hold_until_ms'>
    >(tx.client, 'saveTransition', [
      update.tradeId,
      update.ownerRunId,
      update.updatedAt,
      update.status,
      update.substate,
      update.closed,
      update.nextDeadline,
      update.watch,
      update.hold?.mint ?? null,
      update.hold?.raw.toString() ?? null,
      update.hold?.untilMs ?? null,
      update.running,
      update.effectAttempts,
      update.machineVersion,
      update.snapshot,
      events.map((e) => e.at),
      events.map((e) => e.type),
      events.map((e) => e.status),
      events.map((e) => e.substate),
      events.map((e) => JSON.stringify(e.payload)),
      ledger.map((l) => l.movement),
      ledger.map((l) => l.signature),
      ledger.map((l) => l.mint),
      ledger.map((l) => l.account),
      ledger.map((l) => l.side),
      ledger.map((l) => l.amountRaw.toString()),
    ]);
    if (rowCount !== 1) await refused(tx.client, update.tradeId, update.ownerRunId);
    // Past the fence: the transfers the transition moved, in its savepoint.
    for (const transfer of transfers ?? []) await this.transfers.save(tx.client, transfer);
    const before = rows[0] as Pick<TradeRow, 'closed' | 'hold_mint' | 'hold_raw' | 'hold_until_ms'>;
    tx.changes.move(
      holdReservation({ closed: Boolean(before.closed), hold: holdFromRow(before) }),
      holdReservation(update),
    );
  }

  async getTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const [row] = (await run<TradeRow>(this.pool, 'getTrade', [tradeId])).rows;
    return row && tradeFromRow(row);
  }

  async findTradeBySecretHash(secretHash: Hash32): Promise<TradeRecord | undefined> {
    const [row] = (await run<TradeRow>(this.pool, 'tradeBySecretHash', [secretHash])).rows;
    return row && tradeFromRow(row);
  }

  async findTradeByQuote(quoteId: string): Promise<TradeRecord | undefined> {
    const [row] = (await run<TradeRow>(this.pool, 'tradeByQuote', [quoteId])).rows;
    return row && tradeFromRow(row);
  }

  /** The one statement not in the catalogue: its conditions are the filter's; its values still parameters. */
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

  async liveTradeCount(wallet: string): Promise<number> {
    return (await run<{ n: number }>(this.pool, 'liveTradeCount', [wallet])).rows[0]?.n ?? 0;
  }

  /** Per run: trades it created, and trades naming it their owner (`current` changes nothing here). */
  async tradeCounts(_current: string): Promise<{ runId: string; created: number; owned: number }[]> {
    return (await run<{ runId: string; created: number; owned: number }>(this.pool, 'tradeCounts')).rows;
  }
}
