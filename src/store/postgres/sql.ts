// The PostgreSQL store's SQL catalogue: every fixed statement by name (each connection prepares it once),
// and the conditions they share — the database's clock, whether a run is live, the fence of a trade's write,
// the orphans a live run may claim. Columns are listed from the row types of rows.ts and hedges.ts.
import type pg from 'pg';
import { HEDGE_COLUMNS, HEDGE_UPDATE_COLUMNS, type HedgeRow } from '../hedges.ts';
import { PRUNE_AFTER_S } from '../reservation-buckets.ts';
import {
  type EventRow,
  type LedgerRow,
  type QuoteRow,
  REST_COLUMNS,
  type RunRow,
  type TradeRow,
} from '../rows.ts';

/**
 * The event log's lock: a commit that appends events takes it first, so seqs are handed out in commit order
 * across instances, as SQLite's single writer does. Without it, one instance could commit seq 12 while
 * another has yet to commit 11: a reader that saw 12 pages on with events(afterSeq = 12) and never sees 11.
 * (0x7266715f6c6f67: 'rfq_log' in ASCII.)
 */
export const EVENT_LOG_LOCK = '32200784463294311';

/**
 * Columns are named, never `*`: a named statement's result shape is fixed when it is prepared, so once a
 * newer instance's migration adds a column, a star would fail on every connection of the instances still
 * running ("cached plan must not change result type") until they reconnect.
 */
const columns = <Row>(names: readonly (keyof Row & string)[], table = ''): string =>
  names.map((name) => `${table}${name}`).join(', ');

const QUOTE_COLUMNS = columns<QuoteRow>([
  'quote_id',
  'run_id',
  'taker_wallet',
  'input_mint',
  'output_mint',
  'input_raw',
  'output_raw',
  'spread_bps',
  'input_usd',
  'output_usd',
  'input_price',
  'output_price',
  'created_at',
  'expires_at_ms',
  'htlc_expires_at_ms',
  'risk_checks',
  'used_by_trade_id',
  'sourcing',
]);

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

const EVENT_COLUMNS = columns<EventRow>([
  'seq',
  'trade_id',
  'run_id',
  'at',
  'type',
  'status',
  'substate',
  'payload',
]);

const LEDGER_COLUMNS = columns<LedgerRow>([
  'entry_id',
  'trade_id',
  'movement',
  'signature',
  'mint',
  'account',
  'side',
  'amount_raw',
  'at',
]);

/** Now on the database's clock, in unix ms: every lease is measured by that one clock, never an instance's. */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Whether the runs row under `alias` is live: not stopped, and its lease not lapsed (NULL: never had one). */
export const liveRow = (alias: string) =>
  `(${alias}.stopped_at IS NULL AND ${alias}.lease_expires_at_ms > ${NOW_MS})`;
const deadRow = (alias: string) =>
  `(${alias}.stopped_at IS NOT NULL OR ${alias}.lease_expires_at_ms IS NULL OR ${alias}.lease_expires_at_ms <= ${NOW_MS})`;

/** Whether the run whose id the SQL expression `runId` gives is live, as a condition of another statement. */
const isLive = (runId: string, alias = 'live') =>
  `EXISTS (SELECT 1 FROM runs ${alias} WHERE ${alias}.run_id = ${runId} AND ${liveRow(alias)})`;

/**
 * The fence of a write of trade $1 by run $2: the run owns it and its lease lives, checked by the write's own
 * statement (the row it writes, or locks, stays locked until the commit, so no claim can overtake it).
 */
const FENCE = `t.trade_id = $1 AND t.owner_run_id = $2 AND ${isLive('$2')}`;

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

/**
 * The class of the per-mint reservation locks (two-int advisory locks: a key space apart from the
 * one-bigint keys of the event log and the migrations). 0x72657376: 'resv' in ASCII.
 */
export const RESERVATION_LOCK = 1919251318;
/** How often an instance deletes reservation buckets long past (each instance: any one of them would do). */
const _PRUNE_EVERY_MS = 30_000;

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

/** Every fixed statement, prepared by name on each connection the first time it runs there. */
export const SQL = {
  insertRun: `
    INSERT INTO runs (run_id, version, started_at, stopped_at, url, lease_expires_at_ms)
    VALUES ($1, $2, $3, NULL, $4, ${NOW_MS} + $5)`,
  renewLease: `UPDATE runs r SET lease_expires_at_ms = ${NOW_MS} + $2 WHERE r.run_id = $1 AND ${liveRow('r')}`,
  stopRun: `
    UPDATE runs SET stopped_at = $2, lease_expires_at_ms = least(lease_expires_at_ms, ${NOW_MS})
    WHERE run_id = $1`,
  retireRuns: `
    UPDATE runs SET stopped_at = $3, lease_expires_at_ms = least(lease_expires_at_ms, ${NOW_MS})
    WHERE url = $1 AND run_id <> $2 AND stopped_at IS NULL`,
  listRuns: `
    SELECT ${columns<RunRow>(['run_id', 'version', 'started_at', 'stopped_at', 'url', 'lease_expires_at_ms'])}
    FROM runs ORDER BY started_at, run_id`,
  insertQuote: `
    INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw, spread_bps,
                        input_usd, output_usd, input_price, output_price, created_at, expires_at_ms,
                        htlc_expires_at_ms, risk_checks, used_by_trade_id, sourcing)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
  // The batch's mints' locks, taken in the order of their keys (two mints may share one), so two batches
  // never wait on each other in a cycle; each later statement's snapshot (READ COMMITTED) then sees every
  // earlier holder's reservations.
  lockReservations: `
    SELECT pg_advisory_xact_lock(${RESERVATION_LOCK}, k)
    FROM (SELECT DISTINCT hashtext(m) AS k FROM unnest($1::text[]) AS u (m) ORDER BY k) keys`,
  // Output of mint $1 reserved at unix ms $2 by every instance (open quotes and unclosed trades' holds): the
  // buckets after the current second $3, and the reservations ending within it after $2, from their rows.
  reservedSum: `
    SELECT ((SELECT coalesce(sum(raw), 0) FROM reservation_buckets WHERE mint = $1 AND until_s > $3)
          + (SELECT coalesce(sum(output_raw), 0) FROM quotes
              WHERE output_mint = $1 AND used_by_trade_id IS NULL
                AND expires_at_ms > $2 AND expires_at_ms <= $3::bigint * 1000)
          + (SELECT coalesce(sum(hold_raw), 0) FROM trades
              WHERE hold_mint = $1 AND NOT closed AND hold_mint IS NOT NULL
                AND hold_until_ms > $2 AND hold_until_ms <= $3::bigint * 1000))::text AS raw`,
  // A batch's changes to the buckets, one row each, in the order given (sorted): row locks taken in one
  // order by every batch, so none waits on another in a cycle.
  applyReservations: `
    INSERT INTO reservation_buckets (mint, until_s, raw)
    SELECT m, s, r FROM unnest($1::text[], $2::bigint[], $3::numeric[]) WITH ORDINALITY AS d (m, s, r, i)
    ORDER BY i
    ON CONFLICT (mint, until_s) DO UPDATE SET raw = reservation_buckets.raw + excluded.raw`,
  pruneReservations: `DELETE FROM reservation_buckets WHERE until_s < ${NOW_MS} / 1000 - ${PRUNE_AFTER_S}`,
  getQuote: `SELECT ${QUOTE_COLUMNS} FROM quotes WHERE quote_id = $1`,
  openQuotes: `SELECT ${QUOTE_COLUMNS} FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > $1`,
  markQuoteUsed: `
    UPDATE quotes SET used_by_trade_id = $2 WHERE quote_id = $1 AND used_by_trade_id IS NULL
    RETURNING output_mint, output_raw::text AS output_raw, expires_at_ms`,
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
  // An event of the trade this write has just updated or created, fenced there.
  appendLedger: `
    INSERT INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
    SELECT $1, l.movement, l.signature, l.mint, l.account, l.side, l.amount_raw, $2
    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[])
      WITH ORDINALITY AS l (movement, signature, mint, account, side, amount_raw, n)
    ORDER BY l.n
    ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING`,
  insertEvent: `
    INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  // Any other event: fenced on its trade, whose row it locks (FOR SHARE) so no claim overtakes the commit.
  insertEventFenced: `
    INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
    SELECT t.trade_id, t.owner_run_id, $3, $4, $5, $6, $7 FROM trades t WHERE ${FENCE}
    FOR SHARE OF t`,
  setWake: `UPDATE trades t SET next_deadline = $3 WHERE ${FENCE}`,
  setSeen: `UPDATE trades t SET seen = $3 WHERE ${FENCE}`,
  probe: `
    INSERT INTO store_probes (run_id, at) VALUES ($1, $2)
    ON CONFLICT (run_id) DO UPDATE SET at = excluded.at`,
  // POST /resume: the run takes the trade if it is its own or an orphan (and the run is live).
  claimTrade: `
    UPDATE trades t SET owner_run_id = $2, adoption_error = NULL
    WHERE t.trade_id = $1 AND NOT t.closed AND ${isLive('$2')}
      AND (t.owner_run_id = $2 OR NOT ${isLive('t.owner_run_id', 'owner')})`,
  /** Why a fenced write changed nothing: the trade is missing, closed, or someone else's. */
  tradeState: 'SELECT closed FROM trades WHERE trade_id = $1',
  getTrade: `${TRADE_SELECT} WHERE t.trade_id = $1`,
  tradeBySecretHash: `${TRADE_SELECT} WHERE t.secret_hash = $1`,
  tradeByQuote: `${TRADE_SELECT} WHERE t.quote_id = $1`,
  tradeEvents: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE trade_id = $1 ORDER BY seq`,
  events: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE seq > $1 ORDER BY seq LIMIT $2`,
  lastEventSeq: 'SELECT coalesce(max(seq), 0) AS seq FROM trade_events',
  ledgerAll: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries ORDER BY entry_id`,
  ledgerOf: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries WHERE trade_id = $1 ORDER BY entry_id`,
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
  liveTradeCount:
    "SELECT count(*) AS n FROM trades WHERE taker_wallet = $1 AND status IN ('pending', 'initiated')",
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
  // Every trade names its owner: a run owns what names it (unclosed, or closed while it owned it).
  tradeCounts: `
    SELECT r.run_id AS "runId", coalesce(c.created, 0) AS created, coalesce(o.owned, 0) AS owned
    FROM runs r
    LEFT JOIN (SELECT run_id, count(*) AS created FROM trades GROUP BY run_id) c ON c.run_id = r.run_id
    LEFT JOIN (SELECT owner_run_id, count(*) AS owned FROM trades GROUP BY owner_run_id) o
      ON o.owner_run_id = r.run_id
    ORDER BY r.started_at, r.run_id`,
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

export type Statement = keyof typeof SQL;

/** The fixed statements by name, for the plan tests (test/store/plans.test.ts): read, never run, there. */
export const POSTGRES_STATEMENTS: Readonly<Record<Statement, string>> = SQL;

/** Runs a fixed statement by name (prepared on the connection the first time it runs there). */
export function runStatement(
  on: pg.Pool | pg.PoolClient,
  name: Statement,
  values: unknown[] = [],
): Promise<pg.QueryResult> {
  return on.query({ name, text: SQL[name], values });
}
