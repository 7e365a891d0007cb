// The PostgreSQL store: the same port as SQLite's (sqlite.ts is the reference for every query's meaning), over
// a pg Pool, for several service instances sharing one database. A batch's commit takes one client for one
// transaction, each write in its own savepoint; reads take whichever client is free. Every fixed statement is
// named, so each connection parses and plans it once.
import pg from 'pg';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import type {
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
import {
  type EventRow,
  eventFromRow,
  type LedgerRow,
  ledgerFromRow,
  priceText,
  type QuoteRow,
  quoteFromRow,
  REST_COLUMNS,
  type RestRow,
  restEntryFromRow,
  type TradeRow,
  tradeFromRow,
} from './rows.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from './writes.ts';

export interface PostgresStoreOptions {
  /** Connections in the pool (default 10): one carries the commit in flight, the rest serve reads. */
  poolSize?: number;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
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
  return new PostgresStore(pool, location);
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

/** Every fixed statement, prepared by name on each connection the first time it runs there. */
const SQL = {
  insertRun: 'INSERT INTO runs (run_id, version, started_at, stopped_at) VALUES ($1, $2, $3, $4)',
  stopRun: 'UPDATE runs SET stopped_at = $2 WHERE run_id = $1',
  listRuns: `SELECT run_id AS "runId", version, started_at AS "startedAt", stopped_at AS "stoppedAt"
             FROM runs ORDER BY started_at, run_id`,
  insertQuote: `
    INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw, spread_bps,
                        input_usd, output_usd, input_price, output_price, created_at, expires_at_ms,
                        htlc_expires_at_ms, risk_checks, used_by_trade_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
  getQuote: `SELECT ${QUOTE_COLUMNS} FROM quotes WHERE quote_id = $1`,
  openQuotes: `SELECT ${QUOTE_COLUMNS} FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > $1`,
  markQuoteUsed: 'UPDATE quotes SET used_by_trade_id = $2 WHERE quote_id = $1 AND used_by_trade_id IS NULL',
  insertTrade: `
    INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at, updated_at,
                        status, substate, closed, next_deadline, adoption_error, taker_escrow, maker_escrow,
                        watch, seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
  insertSnapshot: 'INSERT INTO trade_snapshots (trade_id, machine_version, snapshot) VALUES ($1, $2, $3)',
  updateTrade: `
    UPDATE trades SET owner_run_id = $2, updated_at = $3, status = $4, substate = $5, closed = $6,
           next_deadline = $7, adoption_error = NULL, watch = $8, hold_mint = $9, hold_raw = $10,
           hold_until_ms = $11, running = $12, effect_attempts = $13
    WHERE trade_id = $1`,
  updateSnapshot: 'UPDATE trade_snapshots SET machine_version = $2, snapshot = $3 WHERE trade_id = $1',
  insertEvent: `
    INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  insertLedger: `
    INSERT INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING`,
  getTrade: `${TRADE_SELECT} WHERE t.trade_id = $1`,
  tradeBySecretHash: `${TRADE_SELECT} WHERE t.secret_hash = $1`,
  tradeByQuote: `${TRADE_SELECT} WHERE t.quote_id = $1`,
  tradeEvents: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE trade_id = $1 ORDER BY seq`,
  events: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE seq > $1 ORDER BY seq LIMIT $2`,
  lastEventSeq: 'SELECT coalesce(max(seq), 0) AS seq FROM trade_events',
  ledgerAll: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries ORDER BY entry_id`,
  ledgerOf: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries WHERE trade_id = $1 ORDER BY entry_id`,
  // One statement: the outer count reads the trades as they were before the update (a data-modifying CTE's
  // changes are invisible to its own statement), so the trades it clears are added back by their number.
  claimUnclosed: `
    WITH cleared AS (
      UPDATE trades SET adoption_error = NULL WHERE NOT closed AND adoption_error IS NOT NULL RETURNING 1
    )
    SELECT (SELECT count(*) FROM cleared)
         + (SELECT count(*) FROM trades WHERE NOT closed AND adoption_error IS NULL) AS n`,
  claimTrade: 'UPDATE trades SET owner_run_id = $2, adoption_error = NULL WHERE trade_id = $1 AND NOT closed',
  markUnadoptable: 'UPDATE trades SET adoption_error = $1 WHERE NOT closed',
  restIndex: `SELECT ${REST_COLUMNS} FROM trades WHERE NOT closed AND adoption_error IS NULL`,
  runningTrades: 'SELECT trade_id FROM trades WHERE NOT closed AND running AND adoption_error IS NULL',
  dueTrades: `
    SELECT trade_id FROM trades
    WHERE NOT closed AND next_deadline IS NOT NULL AND next_deadline <= $1 AND adoption_error IS NULL
    ORDER BY next_deadline LIMIT $2`,
  earliestWake: `
    SELECT next_deadline AS at FROM trades
    WHERE NOT closed AND next_deadline IS NOT NULL AND adoption_error IS NULL
    ORDER BY next_deadline LIMIT 1`,
  setWake: 'UPDATE trades SET next_deadline = $2 WHERE trade_id = $1',
  setSeen: 'UPDATE trades SET seen = $2 WHERE trade_id = $1',
  liveTradeCount:
    "SELECT count(*) AS n FROM trades WHERE taker_wallet = $1 AND status IN ('pending', 'initiated')",
  ownedTradeCounts: `
    SELECT status, substate, count(*) AS count FROM trades
    WHERE NOT closed AND adoption_error IS NULL GROUP BY status, substate ORDER BY status, substate`,
  failingTrades: `
    ${TRADE_SELECT}
    WHERE NOT t.closed AND t.effect_attempts >= $1 AND t.adoption_error IS NULL
    ORDER BY t.effect_attempts DESC, t.trade_id LIMIT $2`,
  // The snapshot is TEXT: parsed as json (not jsonb) only for the trades the partial index finds failing.
  failingEffectCounts: `
    SELECT s.snapshot::json #>> '{context,effectError,effect}' AS effect, count(*) AS count
    FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
    WHERE NOT t.closed AND t.effect_attempts > 0 AND t.effect_attempts >= $1 AND t.adoption_error IS NULL
    GROUP BY 1 ORDER BY 1 NULLS FIRST`,
  unadoptableTradeCount: 'SELECT count(*) AS n FROM trades WHERE NOT closed AND adoption_error IS NOT NULL',
  settlingSnapshots: `
    SELECT s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
    WHERE NOT t.closed AND t.status IN ('initiated', 'redeemed', 'refunded', 'failed')`,
  tradeCounts: `
    SELECT r.run_id AS "runId",
           (SELECT count(*) FROM trades t WHERE t.run_id = r.run_id) AS created,
           (SELECT count(*) FROM trades t
             WHERE t.owner_run_id = r.run_id AND (t.closed OR t.adoption_error IS NOT NULL))
           + CASE WHEN r.run_id = $1 THEN
               (SELECT count(*) FROM trades t WHERE NOT t.closed AND t.adoption_error IS NULL)
             ELSE 0 END AS owned
    FROM runs r ORDER BY r.started_at, r.run_id`,
} as const;

type Statement = keyof typeof SQL;

/** A write that appends to the event log (see EVENT_LOG_LOCK). */
const appendsEvents = (write: StoreWrite): boolean =>
  write.kind === 'createTrade' ||
  write.kind === 'appendEvents' ||
  (write.kind === 'saveTransition' && write.events.length > 0);

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private open = true;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
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
    let failed = false;
    try {
      // Savepoint commands ride with the statement before them, so a write costs one round trip beyond its
      // own statements. ROLLBACK TO keeps the savepoint, ready for the next write.
      const lock = batch.some(appendsEvents) ? `SELECT pg_advisory_xact_lock(${EVENT_LOG_LOCK}); ` : '';
      await client.query(`BEGIN; ${lock}SAVEPOINT each_write`);
      const outcomes: WriteOutcome[] = [];
      let used = false;
      for (const write of batch) {
        if (used) await client.query('RELEASE SAVEPOINT each_write; SAVEPOINT each_write');
        try {
          await this.apply(client, write);
          outcomes.push({ ok: true });
          used = true;
        } catch (error) {
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
      // COMMIT of a transaction in the aborted state answers ROLLBACK instead of failing.
      const { command } = await client.query('COMMIT');
      if (command !== 'COMMIT') throw new Error(`the commit of ${batch.length} writes was rolled back`);
      return outcomes;
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      // After a failed commit the connection itself may be what broke: never hand it out again.
      client.release(failed);
    }
  }

  private async apply(client: pg.PoolClient, write: StoreWrite): Promise<void> {
    switch (write.kind) {
      case 'insertQuote':
        return this.insertQuote(client, write.quote);
      case 'createTrade':
        return this.createTrade(client, write.trade, write.event);
      case 'saveTransition':
        return this.saveTransition(client, write.update, write.events, write.ledger);
      case 'appendEvents':
        for (const event of write.events) await this.insertEvent(client, event);
        return;
      case 'setSeen':
        return void (await this.query('setSeen', [write.tradeId, write.seen], client));
      case 'setWake':
        return void (await this.query('setWake', [write.tradeId, write.at], client));
      case 'claimTrade':
        return void (await this.query('claimTrade', [write.tradeId, write.runId], client));
    }
  }

  async insertRun(run: RunRecord): Promise<void> {
    await this.query('insertRun', [run.runId, run.version, run.startedAt, run.stoppedAt]);
  }

  async stopRun(runId: string, stoppedAt: string): Promise<void> {
    await this.query('stopRun', [runId, stoppedAt]);
  }

  listRuns(): Promise<RunRecord[]> {
    return this.rows<RunRecord>('listRuns');
  }

  private async insertQuote(client: pg.PoolClient, quote: QuoteRecord): Promise<void> {
    await this.query(
      'insertQuote',
      [
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
      ],
      client,
    );
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const [row] = await this.rows<QuoteRow>('getQuote', [quoteId]);
    return row && quoteFromRow(row);
  }

  async openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return (await this.rows<QuoteRow>('openQuotes', [nowMs])).map(quoteFromRow);
  }

  private async createTrade(client: pg.PoolClient, trade: TradeRecord, event: NewTradeEvent): Promise<void> {
    const { rowCount } = await this.query('markQuoteUsed', [trade.quoteId, trade.tradeId], client);
    if (rowCount !== 1) throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
    await this.insertTradeRow(client, trade);
    await this.query('insertSnapshot', [trade.tradeId, trade.machineVersion, trade.snapshot], client);
    await this.insertEvent(client, event);
  }

  private async insertTradeRow(client: pg.PoolClient, trade: TradeRecord): Promise<void> {
    try {
      await this.query(
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
      );
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
  }

  private async saveTransition(
    client: pg.PoolClient,
    update: TradeUpdate,
    events: readonly NewTradeEvent[],
    ledger: readonly LedgerEntry[],
  ): Promise<void> {
    const { rowCount } = await this.query(
      'updateTrade',
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
      ],
      client,
    );
    if (rowCount !== 1) throw new Error(`trade ${update.tradeId} does not exist`);
    await this.query('updateSnapshot', [update.tradeId, update.machineVersion, update.snapshot], client);
    for (const event of events) await this.insertEvent(client, event);
    for (const entry of ledger) {
      await this.query(
        'insertLedger',
        [
          update.tradeId,
          entry.movement,
          entry.signature,
          entry.mint,
          entry.account,
          entry.side,
          entry.amountRaw.toString(),
          update.updatedAt,
        ],
        client,
      );
    }
  }

  private async insertEvent(client: pg.PoolClient, event: NewTradeEvent): Promise<void> {
    await this.query(
      'insertEvent',
      [
        event.tradeId,
        event.runId,
        event.at,
        event.type,
        event.status,
        event.substate,
        JSON.stringify(event.payload),
      ],
      client,
    );
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
    if (filter.ownedBy !== undefined) {
      where.push(
        `((NOT t.closed AND t.adoption_error IS NULL) OR (t.closed AND t.owner_run_id = ${param(filter.ownedBy)}))`,
      );
    }
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

  claimUnclosed(): Promise<number> {
    return this.count('claimUnclosed');
  }

  async markUnadoptable(error: string): Promise<number> {
    return (await this.query('markUnadoptable', [error])).rowCount ?? 0;
  }

  async restIndex(): Promise<RestEntry[]> {
    const { rows } = await this.pool.query<RestRow>({
      name: 'restIndex',
      text: SQL.restIndex,
      rowMode: 'array',
    });
    return rows.map(restEntryFromRow);
  }

  runningTrades(): Promise<string[]> {
    return this.column<string>('runningTrades');
  }

  dueTrades(now: number, limit: number): Promise<string[]> {
    return this.column<string>('dueTrades', [now, limit]);
  }

  async earliestWake(): Promise<number | null> {
    const [at] = await this.column<number>('earliestWake');
    return at ?? null;
  }

  liveTradeCount(wallet: string): Promise<number> {
    return this.count('liveTradeCount', [wallet]);
  }

  ownedTradeCounts(): Promise<{ status: SettlementStatus; substate: string; count: number }[]> {
    return this.rows('ownedTradeCounts');
  }

  async failingTrades(minAttempts: number, limit: number): Promise<TradeRecord[]> {
    return (await this.rows<TradeRow>('failingTrades', [minAttempts, limit])).map(tradeFromRow);
  }

  failingEffectCounts(minAttempts: number): Promise<{ effect: string; count: number }[]> {
    return this.rows('failingEffectCounts', [minAttempts]);
  }

  unadoptableTradeCount(): Promise<number> {
    return this.count('unadoptableTradeCount');
  }

  settlingSnapshots(): Promise<string[]> {
    return this.column<string>('settlingSnapshots');
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

  tradeCounts(current: string): Promise<{ runId: string; created: number; owned: number }[]> {
    return this.rows('tradeCounts', [current]);
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
    await this.pool.end();
  }
}
