// The SQLite store's statements, prepared once when it opens: the queries of PostgreSQL's catalogue
// (postgres/sql.ts) in SQLite's dialect, those over the unclosed trades naming the index they read
// (INDEXED BY).
import type Database from 'better-sqlite3';
import { HEDGE_COLUMNS, HEDGE_UPDATE_COLUMNS } from '../hedges.ts';
import { REST_COLUMNS } from '../rows.ts';

export function prepareStatements(db: Database.Database) {
  return {
    insertRun: db.prepare(
      'INSERT INTO runs (run_id, version, started_at, stopped_at, url) VALUES (@runId, @version, @startedAt, NULL, @url)',
    ),
    stopRun: db.prepare('UPDATE runs SET stopped_at = ? WHERE run_id = ?'),
    retireRuns: db.prepare(
      'UPDATE runs SET stopped_at = ? WHERE url = ? AND run_id <> ? AND stopped_at IS NULL',
    ),
    listRuns: db.prepare(
      'SELECT run_id, version, started_at, stopped_at, url, NULL AS lease_expires_at_ms FROM runs ORDER BY started_at, run_id',
    ),
    insertQuote: db.prepare(`
      INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw, spread_bps,
                          input_usd, output_usd, input_price, output_price, created_at, expires_at_ms,
                          htlc_expires_at_ms, risk_checks, used_by_trade_id, sourcing)
      VALUES (@quoteId, @runId, @takerWallet, @inputMint, @outputMint, @inputRaw, @outputRaw, @spreadBps,
              @inputUsd, @outputUsd, @inputPrice, @outputPrice, @createdAt, @expiresAtMs, @htlcExpiresAtMs,
              @riskChecks, @usedByTradeId, @sourcing)`),
    getQuote: db.prepare('SELECT * FROM quotes WHERE quote_id = ?'),
    openQuotes: db.prepare('SELECT * FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > ?'),
    markQuoteUsed: db.prepare(
      'UPDATE quotes SET used_by_trade_id = ? WHERE quote_id = ? AND used_by_trade_id IS NULL',
    ),
    insertTrade: db.prepare(`
      INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at, updated_at,
                          status, substate, closed, next_deadline, adoption_error, taker_escrow, maker_escrow,
                          watch, seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
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
    insertEvent: db.prepare(`
      INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
      VALUES (@tradeId, @runId, @at, @type, @status, @substate, @payload)`),
    insertLedger: db.prepare(`
      INSERT OR IGNORE INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      VALUES (@tradeId, @movement, @signature, @mint, @account, @side, @amountRaw, @at)`),
    getTrade: db.prepare(
      'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.trade_id = ?',
    ),
    tradeBySecretHash: db.prepare(
      'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.secret_hash = ?',
    ),
    tradeByQuote: db.prepare(
      'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.quote_id = ?',
    ),
    tradeEvents: db.prepare('SELECT * FROM trade_events WHERE trade_id = ? ORDER BY seq'),
    events: db.prepare('SELECT * FROM trade_events WHERE seq > ? ORDER BY seq LIMIT ?'),
    lastEventSeq: db.prepare('SELECT max(seq) AS seq FROM trade_events'),
    ledgerAll: db.prepare('SELECT * FROM ledger_entries ORDER BY entry_id'),
    ledgerOf: db.prepare('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY entry_id'),
    clearUnadoptable: db.prepare(
      'UPDATE trades INDEXED BY trades_unadoptable SET adoption_error = NULL WHERE closed = 0 AND adoption_error IS NOT NULL',
    ),
    countOwned: db.prepare(
      'SELECT count(*) AS n FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL',
    ),
    claimTrade: db.prepare(
      'UPDATE trades SET owner_run_id = @runId, adoption_error = NULL WHERE trade_id = @tradeId AND closed = 0',
    ),
    restIndex: db
      .prepare(`
      SELECT ${REST_COLUMNS}
      FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL`)
      .raw(true),
    runningTrades: db.prepare(
      'SELECT trade_id FROM trades INDEXED BY trades_running WHERE closed = 0 AND running = 1 AND adoption_error IS NULL',
    ),
    dueTrades: db.prepare(`
      SELECT trade_id FROM trades INDEXED BY trades_wake
      WHERE closed = 0 AND next_deadline IS NOT NULL AND next_deadline <= @now AND adoption_error IS NULL
      ORDER BY next_deadline LIMIT @limit`),
    earliestWake: db.prepare(`
      SELECT next_deadline AS at FROM trades INDEXED BY trades_wake
      WHERE closed = 0 AND next_deadline IS NOT NULL AND adoption_error IS NULL
      ORDER BY next_deadline LIMIT 1`),
    setWake: db.prepare('UPDATE trades SET next_deadline = ? WHERE trade_id = ?'),
    probe: db.prepare(
      'INSERT INTO store_probes (run_id, at) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET at = excluded.at',
    ),
    setSeen: db.prepare('UPDATE trades SET seen = ? WHERE trade_id = ?'),
    liveTradeCount: db.prepare(
      "SELECT count(*) AS n FROM trades WHERE taker_wallet = ? AND status IN ('pending', 'initiated')",
    ),
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
    insertHedge: db.prepare(
      `INSERT INTO hedges (${HEDGE_COLUMNS.join(', ')}) VALUES (${HEDGE_COLUMNS.map((c) => `@${c}`).join(', ')})`,
    ),
    updateHedge: db.prepare(
      `UPDATE hedges SET ${HEDGE_UPDATE_COLUMNS.filter((c) => c !== 'hedge_id')
        .map((c) => `${c} = @${c}`)
        .join(', ')} WHERE hedge_id = @hedge_id`,
    ),
    // A hedge's ledger entries belong to the trade that triggered it.
    insertHedgeLedger: db.prepare(`
      INSERT OR IGNORE INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      SELECT trade_id, @movement, @signature, @mint, @account, @side, @amountRaw, @at FROM hedges
      WHERE hedge_id = @hedgeId`),
    getHedge: db.prepare('SELECT * FROM hedges WHERE hedge_id = ?'),
    hedgesOfTrades: db.prepare(`
      SELECT * FROM hedges WHERE trade_id IN (SELECT value FROM json_each(?))
      ORDER BY created_at, hedge_id`),
    hedgesInFlight: db.prepare(`
      SELECT * FROM hedges INDEXED BY hedges_in_flight WHERE status IN ('sending', 'requoting')
      ORDER BY created_at, hedge_id`),
    recentHedges: db.prepare('SELECT * FROM hedges ORDER BY created_at DESC, hedge_id DESC LIMIT ?'),
    runIds: db.prepare('SELECT run_id FROM runs ORDER BY started_at, run_id').pluck(),
    // One pass over the trades, whatever the number of runs (a correlated count per run scanned the table
    // twice per run: 150 ms for two runs at 100,000 trades, and every restart adds a run).
    tradeGroups: db.prepare(`
      SELECT run_id AS runId, owner_run_id AS ownerRunId,
             (closed = 1 OR adoption_error IS NOT NULL) AS settled, count(*) AS n
      FROM trades GROUP BY run_id, owner_run_id, settled`),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
