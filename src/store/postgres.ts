// The PostgreSQL store: the same port as SQLite's (sqlite.ts is the reference for every query's meaning), over
// a pg Pool, for several service instances sharing one database. A batch's commit takes one client for one
// transaction, each write in its own savepoint; reads take whichever client is free. Every fixed statement is
// named, so each connection parses and plans it once.
// Between instances: each unclosed trade names its owner run, which holds it while its lease (on its runs
// row, the database's clock) lives; every write of a trade is fenced in its own statement; orphans are
// claimed with SKIP LOCKED; reservations are checked under a per-mint lock against running sums per mint and
// second (reservation-buckets.ts); commits that append events notify the other instances.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import {
  HEDGE_COLUMNS,
  HEDGE_UPDATE_COLUMNS,
  type HedgeRecord,
  type HedgeRow,
  type HedgeUpdate,
  hedgeFromRow,
  hedgeRow,
  hedgeUpdateRow,
} from './hedges.ts';
import type {
  Acquired,
  ClaimedTrade,
  NewRun,
  NewTradeEvent,
  QuoteRecord,
  RestEntry,
  RunRecord,
  Store,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeFilter,
  TradeRecord,
  TradeUpdate,
} from './index.ts';
import { migratePostgres } from './postgres-migrations.ts';
import { currentSecond, holdReservation, PRUNE_AFTER_S, ReservationDeltas } from './reservation-buckets.ts';
import {
  type ClaimedRow,
  claimedFromRow,
  type EventRow,
  eventFromRow,
  holdFromRow,
  type LedgerRow,
  ledgerFromRow,
  priceText,
  type QuoteRow,
  quoteFromRow,
  REST_COLUMNS,
  type RestRow,
  type RunRow,
  restEntryFromRow,
  runFromRow,
  type TradeRow,
  tradeFromRow,
} from './rows.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from './writes.ts';

export interface PostgresStoreOptions {
  /** Connections in the pool (default 10): one carries the commit in flight, the rest serve reads. */
  poolSize?: number;
  /**
   * The runs' lease TTL. A transaction left idle by its client (a frozen process, a cut network) holds the
   * event log's lock, its mints' locks and its trades' rows, and so stalls every instance: the server ends
   * one idle for half a lease (at least a second), before any other instance would take the trades over.
   */
  leaseTtlMs?: number;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const idleInTransactionMs = Math.max(1_000, Math.floor((options.leaseTtlMs ?? 10_000) / 2));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    // A peer that vanished (a cut network) is noticed by TCP keepalive, not after the kernel's two hours.
    keepAlive: true,
    options: `-c idle_in_transaction_session_timeout=${idleInTransactionMs}`,
    application_name: 'rfq-maker',
    types: TYPES,
  });
  // An idle client whose connection dies (a server restart) is dropped by the pool, which then emits the
  // error here; without a listener it would end the process. The next query opens a new connection.
  pool.on('error', () => {});
  const location = withoutPassword(url);
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, location);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, location, url);
}

/** The URL for logs: its password removed. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres (unparsable URL)';
  }
}

const INT8_OID = 20;
/**
 * int8 (BIGINT columns, count(*)) read as numbers: every one we store is a seq, an entry id, a count or a
 * time in seconds or milliseconds, far below 2^53. NUMERIC keeps pg's default, a decimal string.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? Number
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The event log's lock: a commit that appends events takes it first, so seqs are handed out in commit order
 * across instances, as SQLite's single writer does. Without it, one instance could commit seq 12 while
 * another has yet to commit 11: a reader that saw 12 pages on with events(afterSeq = 12) and never sees 11.
 * (0x7266715f6c6f67: 'rfq_log' in ASCII.)
 */
const EVENT_LOG_LOCK = '32200784463294311';

const UNIQUE_VIOLATION = '23505';

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

const TRADE_SELECT = `SELECT ${columns<TradeRow>(
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
const liveRow = (alias: string) =>
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
const RESERVATION_LOCK = 1919251318;
/** How often an instance deletes reservation buckets long past (each instance: any one of them would do). */
const PRUNE_EVERY_MS = 30_000;

/** The channel commits that append events notify, with the trades they wrote (see watchEvents). */
const EVENTS_CHANNEL = 'rfq_trade_events';
/** NOTIFY refuses payloads of 8000 bytes or more. */
const NOTIFY_PAYLOAD_BYTES = 7_999;

interface EventsNotice {
  /** The store instance that committed them: an instance skips its own. */
  from: string;
  trades: string[];
}

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
const SQL = {
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

type Statement = keyof typeof SQL;

/** The fixed statements by name, for the plan tests (test/store/plans.test.ts): read, never run, there. */
export const POSTGRES_STATEMENTS: Readonly<Record<Statement, string>> = SQL;

/** A write that appends to the event log (see EVENT_LOG_LOCK). */
const appendsEvents = (write: StoreWrite): boolean =>
  write.kind === 'createTrade' ||
  write.kind === 'appendEvents' ||
  (write.kind === 'saveTransition' && write.events.length > 0);

/** The runs whose leases a write's fence relied on. */
function fencedRuns(write: StoreWrite): string[] {
  switch (write.kind) {
    case 'createTrade':
      return [write.trade.ownerRunId];
    case 'saveTransition':
      return [write.update.ownerRunId];
    case 'appendEvents':
      return write.events.map((event) => event.runId);
    case 'setSeen':
    case 'setWake':
    case 'claimTrade':
      return [write.runId];
    case 'insertHedge':
      return [write.hedge.ownerRunId];
    case 'updateHedge':
      return [write.update.ownerRunId];
    case 'insertQuote':
    case 'appendLedger':
      return [];
  }
}

/**
 * What the commit's lease re-check raises when a run's lease lapsed: a division by zero, computed from the
 * count (a constant 1 / 0 the planner would fold and raise every time), so no function need be created.
 */
const DIVISION_BY_ZERO = '22012';

/** The output mints a batch's quotes are checked against: whose reservation locks it takes. */
const reservingMints = (batch: readonly StoreWrite[]): string[] =>
  [
    ...new Set(batch.flatMap((w) => (w.kind === 'insertQuote' && w.reserve ? [w.quote.outputMint] : []))),
  ].sort();

/** The trades whose events a write appends: what its commit notifies. */
function tradesWithEvents(write: StoreWrite): string[] {
  switch (write.kind) {
    case 'createTrade':
      return [write.trade.tradeId];
    case 'saveTransition':
    case 'appendEvents':
      return write.events.map((event) => event.tradeId);
    default:
      return [];
  }
}

/** NOTIFY payloads naming the trades, each under the size NOTIFY takes. */
function eventsNotices(from: string, tradeIds: Iterable<string>): string[] {
  const notices: string[] = [];
  let trades: string[] = [];
  const empty = Buffer.byteLength(JSON.stringify({ from, trades: [] } satisfies EventsNotice));
  let bytes = empty;
  for (const tradeId of tradeIds) {
    const size = Buffer.byteLength(JSON.stringify(tradeId)) + 1;
    if (trades.length > 0 && bytes + size > NOTIFY_PAYLOAD_BYTES) {
      notices.push(JSON.stringify({ from, trades } satisfies EventsNotice));
      trades = [];
      bytes = empty;
    }
    trades.push(tradeId);
    bytes += size;
  }
  if (trades.length > 0) notices.push(JSON.stringify({ from, trades } satisfies EventsNotice));
  return notices;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private open = true;
  /** Tags this instance's notifications, so its own watchers skip them. */
  private readonly instanceId = randomUUID();
  /** The dedicated connections of watchEvents, ended by close. */
  private readonly watchers = new Set<() => Promise<void>>();
  /** When this instance last pruned past reservation buckets (unix ms). */
  private prunedAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    private readonly url: string,
  ) {}

  private query(
    name: Statement,
    values: unknown[] = [],
    on: pg.Pool | pg.PoolClient = this.pool,
  ): Promise<pg.QueryResult> {
    return on.query({ name, text: SQL[name], values });
  }

  /** The rows of a statement, as the row type its columns make (see rows.ts and TYPES). */
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

  async commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]> {
    if (batch.length === 0) return [];
    const client = await this.pool.connect();
    // The server may end the connection while no query runs on it (a transaction left idle too long: see
    // leaseTtlMs); the client then emits the error, which with no listener would end the process. The
    // commit's next query fails instead, and the batch with it.
    const onError = () => {};
    client.on('error', onError);
    let failed = false;
    try {
      // First without a savepoint per write, one round trip less each: when every write succeeds, the common
      // case, the batch commits as it is. When one fails, the transaction is rolled back whole (so nothing of
      // that run is kept) and the batch runs again with a savepoint per write, so that the others still commit
      // and the failed one answers its own error.
      return (
        (await this.attempt(client, batch, false)) ??
        ((await this.attempt(client, batch, true)) as WriteOutcome[])
      );
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      // A destroyed client may still report its end: leave it the listener.
      if (!failed) client.off('error', onError);
      // After a failed commit the connection itself may be what broke: never hand it out again.
      client.release(failed);
    }
  }

  /**
   * One run of a batch in a transaction of its own, committed. With `savepoints`, each write in its own: a
   * failed one is undone alone and answers its error. Without, the first failure rolls the transaction back
   * and answers null (the caller runs the batch again with them).
   */
  private async attempt(
    client: pg.PoolClient,
    batch: readonly StoreWrite[],
    savepoints: boolean,
  ): Promise<WriteOutcome[] | null> {
    // Savepoint commands ride with the statement before them, so a write costs one round trip beyond its
    // own statements (and none without savepoints). ROLLBACK TO keeps the savepoint, ready for the next write.
    const lock = batch.some(appendsEvents) ? `SELECT pg_advisory_xact_lock(${EVENT_LOG_LOCK}); ` : '';
    const mints = reservingMints(batch);
    if (mints.length === 0) {
      await client.query(`BEGIN; ${lock}${savepoints ? 'SAVEPOINT each_write' : ''}`);
    } else {
      // Outside any savepoint: a lock taken inside one would go with its rollback.
      await client.query(`BEGIN; ${lock}`);
      await this.query('lockReservations', [mints], client);
      if (savepoints) await client.query('SAVEPOINT each_write');
    }
    const outcomes: WriteOutcome[] = [];
    const notified = new Set<string>();
    // What the batch's writes that held change in the reservation buckets, applied before the commit.
    const reservations = new ReservationDeltas();
    // The runs whose live leases the batch's stored writes relied on (a write the fence refused relied on none).
    const leased = new Set<string>();
    let used = false;
    for (const write of batch) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write; SAVEPOINT each_write');
      try {
        const changes = new ReservationDeltas();
        await this.apply(client, write, changes, reservations);
        reservations.merge(changes);
        for (const runId of fencedRuns(write)) leased.add(runId);
        outcomes.push({ ok: true });
        for (const tradeId of tradesWithEvents(write)) notified.add(tradeId);
        used = true;
      } catch (error) {
        if (!savepoints) {
          await client.query('ROLLBACK');
          return null;
        }
        await client.query('ROLLBACK TO SAVEPOINT each_write');
        const { message } = error as Error;
        outcomes.push(
          error instanceof StoreConflict
            ? { ok: false, message, conflict: error.conflict }
            : { ok: false, message },
        );
        used = false;
      }
    }
    const { mints: bucketMints, seconds, raws } = reservations.rows(Date.now());
    if (bucketMints.length > 0) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write');
      await this.query('applyReservations', [bucketMints, seconds, raws], client);
    }
    // The notifications ride with the COMMIT, which delivers them (and none if it rolls back).
    const notify = eventsNotices(this.instanceId, notified)
      .map((notice) => `NOTIFY ${EVENTS_CHANNEL}, ${client.escapeLiteral(notice)}; `)
      .join('');
    // Each fenced write passed its fence when it ran; this process may have been frozen since. Checked
    // again in the COMMIT's own message (no pause of ours can come between): a run whose lease lapsed
    // meanwhile commits nothing (its rows were locked, so no claim has overtaken it yet).
    const runs = [...leased];
    const recheck =
      runs.length === 0
        ? ''
        : `SELECT 1 / (CASE WHEN count(*) > 0 THEN 0 ELSE 1 END) FROM runs r WHERE r.run_id IN (${runs
            .map((runId) => client.escapeLiteral(runId))
            .join(', ')}) AND NOT ${liveRow('r')}; `;
    let results: pg.QueryResult | pg.QueryResult[];
    try {
      results = await client.query(`${recheck}${notify}COMMIT`);
    } catch (error) {
      if ((error as { code?: string }).code === DIVISION_BY_ZERO) {
        await client.query('ROLLBACK');
        throw new StoreConflict('fenced', `the lease of run ${runs.join(', ')} lapsed before its commit`);
      }
      throw error;
    }
    // COMMIT of a transaction in the aborted state answers ROLLBACK instead of failing.
    const { command } = [results].flat().at(-1) as pg.QueryResult;
    if (command !== 'COMMIT') throw new Error(`the commit of ${batch.length} writes was rolled back`);
    this.pruneReservations();
    return outcomes;
  }

  /**
   * One write. `changes` collects what it changes in the reservation buckets (kept only if it succeeds);
   * `batch` is what the batch's earlier writes changed, not applied yet, which a reservation check counts.
   */
  private async apply(
    client: pg.PoolClient,
    write: StoreWrite,
    changes: ReservationDeltas,
    batch: ReservationDeltas,
  ): Promise<void> {
    switch (write.kind) {
      case 'insertQuote':
        if (write.reserve) await this.checkReservation(client, write.quote, write.reserve, batch);
        return this.insertQuote(client, write.quote, changes);
      case 'createTrade':
        return this.createTrade(client, write.trade, write.event, changes);
      case 'saveTransition':
        return this.saveTransition(client, write.update, write.events, write.ledger, changes);
      case 'appendEvents':
        for (const event of write.events) await this.insertEvent(client, event);
        return;
      case 'appendLedger':
        await this.query(
          'appendLedger',
          [
            write.tradeId,
            write.at,
            write.entries.map((e) => e.movement),
            write.entries.map((e) => e.signature),
            write.entries.map((e) => e.mint),
            write.entries.map((e) => e.account),
            write.entries.map((e) => e.side),
            write.entries.map((e) => e.amountRaw.toString()),
          ],
          client,
        );
        return;
      case 'setSeen': {
        const { rowCount } = await this.query('setSeen', [write.tradeId, write.runId, write.seen], client);
        // An unknown trade changes nothing, as it always did.
        if (rowCount !== 1) await this.refused(client, write.tradeId, write.runId, { unknown: 'ok' });
        return;
      }
      case 'setWake': {
        const { rowCount } = await this.query('setWake', [write.tradeId, write.runId, write.at], client);
        if (rowCount !== 1) await this.refused(client, write.tradeId, write.runId, { unknown: 'ok' });
        return;
      }
      case 'claimTrade': {
        const { rowCount } = await this.query('claimTrade', [write.tradeId, write.runId], client);
        // An unknown or closed trade has nothing to claim, as before.
        if (rowCount !== 1) {
          await this.refused(client, write.tradeId, write.runId, { unknown: 'ok', closed: 'ok' });
        }
        return;
      }
      case 'insertHedge':
        return this.insertHedge(client, write.hedge);
      case 'updateHedge':
        return this.updateHedge(client, write.update, write.ledger);
    }
  }

  private async insertHedge(client: pg.PoolClient, hedge: HedgeRecord): Promise<void> {
    const row = hedgeRow(hedge);
    let rowCount: number | null;
    try {
      ({ rowCount } = await this.query(
        'insertHedge',
        HEDGE_COLUMNS.map((column) => row[column]),
        client,
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
  }

  private async updateHedge(
    client: pg.PoolClient,
    update: HedgeUpdate,
    ledger: readonly LedgerEntry[],
  ): Promise<void> {
    const row = hedgeUpdateRow(update);
    const { rowCount } = await this.query(
      'updateHedge',
      [
        ...HEDGE_UPDATE_COLUMNS.map((column) => row[column as keyof typeof row]),
        ledger.map((l) => l.movement),
        ledger.map((l) => l.signature),
        ledger.map((l) => l.mint),
        ledger.map((l) => l.account),
        ledger.map((l) => l.side),
        ledger.map((l) => l.amountRaw.toString()),
      ],
      client,
    );
    if (rowCount === 1) return;
    const [owner] = (await this.query('hedgeOwner', [update.hedgeId], client)).rows as {
      owner_run_id: string;
    }[];
    if (owner === undefined) throw new Error(`hedge ${update.hedgeId} does not exist`);
    throw new StoreConflict(
      'fenced',
      `run ${update.ownerRunId} does not own hedge ${update.hedgeId}, or its lease lapsed`,
    );
  }

  async getHedge(hedgeId: string): Promise<HedgeRecord | undefined> {
    const [row] = await this.rows<HedgeRow>('getHedge', [hedgeId]);
    return row && hedgeFromRow(row);
  }

  async hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]> {
    if (tradeIds.length === 0) return [];
    return (await this.rows<HedgeRow>('hedgesOfTrades', [tradeIds])).map(hedgeFromRow);
  }

  async hedgesInFlight(owner: string | null): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('hedgesInFlight', [owner])).map(hedgeFromRow);
  }

  async recentHedges(limit: number): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('recentHedges', [limit])).map(hedgeFromRow);
  }

  async claimHedges(runId: string): Promise<HedgeRecord[]> {
    return (await this.rows<HedgeRow>('claimHedges', [runId])).map(hedgeFromRow);
  }

  /**
   * A fenced write changed nothing: says why (after the fact, only to choose the error — the write itself
   * decided in its own statement). Trades are never deleted nor reopened, so the answer cannot go stale.
   */
  private async refused(
    client: pg.PoolClient,
    tradeId: string,
    runId: string,
    allowed: { unknown?: 'ok'; closed?: 'ok' } = {},
  ): Promise<void> {
    const [row] = (await this.query('tradeState', [tradeId], client)).rows as { closed: boolean }[];
    if (row === undefined) {
      if (allowed.unknown === 'ok') return;
      throw new Error(`trade ${tradeId} does not exist`);
    }
    if (row.closed && allowed.closed === 'ok') return;
    throw new StoreConflict('fenced', `run ${runId} does not own trade ${tradeId}, or its lease lapsed`);
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

  /** The quote's columns, in the order of the insert statements' parameters. */
  private quoteValues(quote: QuoteRecord): unknown[] {
    return [
      quote.quoteId,
      quote.runId,
      quote.takerWallet,
      quote.inputMint,
      quote.outputMint,
      quote.inputRaw.toString(),
      quote.outputRaw.toString(),
      quote.spreadBps,
      quote.inputUsd,
      quote.outputUsd,
      priceText(quote.inputPrice ?? null),
      priceText(quote.outputPrice ?? null),
      quote.createdAt,
      quote.expiresAtMs,
      quote.htlcExpiresAtMs,
      JSON.stringify(quote.riskChecks),
      quote.usedByTradeId,
      quote.sourcing ? JSON.stringify(quote.sourcing) : null,
    ];
  }

  private async insertQuote(
    client: pg.PoolClient,
    quote: QuoteRecord,
    changes: ReservationDeltas,
  ): Promise<void> {
    await this.query('insertQuote', this.quoteValues(quote), client);
    if (quote.usedByTradeId === null) {
      changes.add({ mint: quote.outputMint, raw: quote.outputRaw, untilMs: quote.expiresAtMs });
    }
  }

  /**
   * Refuses the quote (StoreConflict 'inventory') unless its output fits under the balance beside every
   * instance's reservations of its mint at reserve.nowMs. The batch holds the mint's lock (taken before its
   * first write), so this statement's snapshot (READ COMMITTED: one per statement) sees every reservation the
   * lock's earlier holders committed; `batch` adds this batch's own, not applied yet.
   */
  private async checkReservation(
    client: pg.PoolClient,
    quote: QuoteRecord,
    reserve: { balanceRaw: bigint; nowMs: number },
    batch: ReservationDeltas,
  ): Promise<void> {
    const { rows } = await this.query(
      'reservedSum',
      [quote.outputMint, reserve.nowMs, currentSecond(reserve.nowMs)],
      client,
    );
    const reserved = BigInt((rows[0] as { raw: string }).raw) + batch.ahead(quote.outputMint, reserve.nowMs);
    if (reserved + quote.outputRaw > reserve.balanceRaw) {
      throw new StoreConflict(
        'inventory',
        `quote ${quote.quoteId} would reserve ${quote.outputRaw} of ${quote.outputMint} beside ` +
          `${reserved} reserved, over the balance of ${reserve.balanceRaw}`,
      );
    }
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

  private async createTrade(
    client: pg.PoolClient,
    trade: TradeRecord,
    event: NewTradeEvent,
    changes: ReservationDeltas,
  ): Promise<void> {
    const { rowCount, rows } = await this.query('markQuoteUsed', [trade.quoteId, trade.tradeId], client);
    if (rowCount !== 1) throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
    // The quote's reservation becomes the trade's hold.
    const used = rows[0] as { output_mint: string; output_raw: string; expires_at_ms: number };
    changes.move(
      { mint: used.output_mint, raw: BigInt(used.output_raw), untilMs: used.expires_at_ms },
      holdReservation(trade),
    );
    await this.insertTradeRow(client, trade);
    await this.query('insertSnapshot', [trade.tradeId, trade.machineVersion, trade.snapshot], client);
    await this.insertEvent(client, event, trade.tradeId, trade.ownerRunId);
  }

  private async insertTradeRow(client: pg.PoolClient, trade: TradeRecord): Promise<void> {
    let rowCount: number | null;
    try {
      ({ rowCount } = await this.query(
        'insertTrade',
        [
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
        ],
        client,
      ));
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
  }

  private async saveTransition(
    client: pg.PoolClient,
    update: TradeUpdate,
    events: readonly NewTradeEvent[],
    ledger: readonly LedgerEntry[],
    changes: ReservationDeltas,
  ): Promise<void> {
    // Every event of a transition is its trade's, by the run that moved it (see the runtime's persist).
    if (events.some((event) => event.tradeId !== update.tradeId || event.runId !== update.ownerRunId)) {
      throw new Error(`a transition of trade ${update.tradeId} carries another trade's or run's event`);
    }
    const { rowCount, rows } = await this.query(
      'saveTransition',
      [
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
      ],
      client,
    );
    if (rowCount !== 1) await this.refused(client, update.tradeId, update.ownerRunId);
    const before = rows[0] as Pick<TradeRow, 'closed' | 'hold_mint' | 'hold_raw' | 'hold_until_ms'>;
    changes.move(
      holdReservation({ closed: Boolean(before.closed), hold: holdFromRow(before) }),
      holdReservation(update),
    );
  }

  private async insertEvent(
    client: pg.PoolClient,
    event: NewTradeEvent,
    fencedTrade?: string,
    fencedRun?: string,
  ): Promise<void> {
    const values = [
      event.tradeId,
      event.runId,
      event.at,
      event.type,
      event.status,
      event.substate,
      JSON.stringify(event.payload),
    ];
    if (event.tradeId === fencedTrade && event.runId === fencedRun) {
      await this.query('insertEvent', values, client);
      return;
    }
    const { rowCount } = await this.query('insertEventFenced', values, client);
    if (rowCount !== 1) await this.refused(client, event.tradeId, event.runId);
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

  async restIndex(owner: string): Promise<RestEntry[]> {
    const { rows } = await this.pool.query<RestRow>({
      name: 'restIndex',
      text: SQL.restIndex,
      values: [owner],
      rowMode: 'array',
    });
    return rows.map(restEntryFromRow);
  }

  runningTrades(owner: string): Promise<string[]> {
    return this.column<string>('runningTrades', [owner]);
  }

  dueTrades(owner: string, now: number, limit: number): Promise<string[]> {
    return this.column<string>('dueTrades', [owner, now, limit]);
  }

  async earliestWake(owner: string): Promise<number | null> {
    const [at] = await this.column<number>('earliestWake', [owner]);
    return at ?? null;
  }

  liveTradeCount(wallet: string): Promise<number> {
    return this.count('liveTradeCount', [wallet]);
  }

  ownedTradeCounts(owner: string): Promise<{ status: SettlementStatus; substate: string; count: number }[]> {
    return this.rows('ownedTradeCounts', [owner]);
  }

  async failingTrades(owner: string, minAttempts: number, limit: number): Promise<TradeRecord[]> {
    return (await this.rows<TradeRow>('failingTrades', [owner, minAttempts, limit])).map(tradeFromRow);
  }

  failingEffectCounts(owner: string, minAttempts: number): Promise<{ effect: string; count: number }[]> {
    return this.rows('failingEffectCounts', [owner, minAttempts]);
  }

  settlingSnapshots(owner: string): Promise<string[]> {
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

  /**
   * LISTENs on a connection of its own (a pooled one would be handed to others). Should that connection
   * fail, it goes quiet: the error is swallowed and the listener hears nothing more (the caller's periodic
   * reads still find the events); stopping it then only ends what is left.
   */
  async watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    if (!this.open) throw new Error('the store is closed');
    const client = new pg.Client({ connectionString: this.url, application_name: 'rfq-maker-events' });
    let alive = true;
    client.on('error', () => {
      alive = false;
    });
    client.on('end', () => {
      alive = false;
    });
    client.on('notification', ({ channel, payload }) => {
      if (channel !== EVENTS_CHANNEL || payload === undefined) return;
      try {
        const notice = JSON.parse(payload) as EventsNotice;
        if (notice.from !== this.instanceId) listener(notice.trades);
      } catch {
        // A listener's failure is its own; a foreign payload is not ours to read.
      }
    });
    const stop = async () => {
      if (!this.watchers.delete(stop)) return;
      if (alive) await client.query(`UNLISTEN ${EVENTS_CHANNEL}`).catch(() => {});
      alive = false;
      await client.end().catch(() => {});
    };
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      alive = false;
      await client.end().catch(() => {});
      throw error;
    }
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
