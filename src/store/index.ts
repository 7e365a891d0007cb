// The durable store: better-sqlite3 in WAL mode with synchronous=FULL under DATA_DIR, so that whatever a
// route acknowledges is on disk before its answer leaves. Writes of the running service go through the
// group commit (group-commit.ts): one transaction, one fsync, per event-loop turn. The Store interface is
// what the rest of the service sees; a PostgreSQL implementation can fill it later.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import { MIGRATIONS } from './migrations.ts';

export { type CommitStats, GroupCommit } from './group-commit.ts';
export { timeOrderedUuid } from './ids.ts';
export type { StoreWrite } from './writes.ts';

export interface RunRecord {
  runId: string;
  version: string;
  startedAt: string;
  stoppedAt: string | null;
}

/** A price a quote was priced from, as its source published it (integers scaled by 10^exponent). */
export interface RecordedPrice {
  source: 'pyth' | 'static';
  /** The price update account and its feed id; null for a static price. */
  account: string | null;
  feedId: string | null;
  price: bigint;
  conf: bigint;
  exponent: number;
  emaPrice: bigint;
  /** Unix seconds, chain clock. */
  publishTime: number;
}

export interface QuoteRecord {
  quoteId: string;
  runId: string;
  takerWallet: string;
  inputMint: string;
  outputMint: string;
  inputRaw: bigint;
  outputRaw: bigint;
  spreadBps: number;
  /** USD per display unit of each side at quote time, as decimal strings, for the ledger's estimate. */
  inputUsd: string;
  outputUsd: string;
  /** The prices behind inputUsd and outputUsd; null (or absent) for quotes stored before quotes recorded them. */
  inputPrice?: RecordedPrice | null;
  outputPrice?: RecordedPrice | null;
  createdAt: string;
  expiresAtMs: number;
  /** The latest taker HTLC expiry a settlement from this quote can get (quote expiry + taker timelock). */
  htlcExpiresAtMs: number;
  riskChecks: string[];
  usedByTradeId: string | null;
}

export interface TradeRecord {
  tradeId: string;
  quoteId: string;
  /** The run that created the trade. */
  runId: string;
  /**
   * The run that last owned it: for an unclosed trade the running run owns it unless it is unadoptable
   * (adoptionError); for a closed one, the run that owned it when it closed.
   */
  ownerRunId: string;
  takerWallet: string;
  /** Unique across all trades. */
  secretHash: Hash32;
  createdAt: string;
  updatedAt: string;
  status: SettlementStatus;
  substate: string;
  /** Final and no funds left in any escrow: no actor needs to own it any more. */
  closed: boolean;
  /** Chain time (unix seconds) at which the runtime must wake the trade (a deadline or a retry), if any. */
  nextDeadline: number | null;
  machineVersion: number;
  /** The actor's persisted snapshot, JSON. */
  snapshot: string;
  /** Why the current run could not adopt the trade (then it answers 503 until /resume). */
  adoptionError: string | null;
  // ── The rest record: what the runtime keeps of a trade whose actor is not in memory ──
  takerEscrow: string;
  makerEscrow: string;
  /** Escrows the trade waits on: WATCH_TAKER | WATCH_MAKER. */
  watch: number;
  /** What the trade last absorbed of its watched escrows (see the watcher's fingerprint). */
  seen: string;
  /** Output the trade holds in the reservation book, until untilMs; null once it holds none. */
  hold: TradeHold | null;
  /** An effect was in flight when the trade was last stored: restart activates it at once. */
  running: boolean;
  /** Consecutive failures of the current effect (0 when none failed). */
  effectAttempts: number;
}

export const WATCH_TAKER = 1;
export const WATCH_MAKER = 2;

export interface TradeHold {
  mint: string;
  raw: bigint;
  untilMs: number;
}

/** An owned, unclosed trade as the runtime indexes it at start: no snapshot. */
export type RestEntry = Pick<
  TradeRecord,
  'tradeId' | 'takerWallet' | 'takerEscrow' | 'makerEscrow' | 'watch' | 'seen' | 'hold'
>;

export interface TradeEventRecord {
  seq: number;
  tradeId: string;
  runId: string;
  at: string;
  type: string;
  status: SettlementStatus;
  substate: string;
  payload: Record<string, unknown>;
}

export type NewTradeEvent = Omit<TradeEventRecord, 'seq'>;

export interface StoredLedgerEntry extends LedgerEntry {
  entryId: number;
  tradeId: string;
  at: string;
}

export interface TradeFilter {
  takerWallet?: string | undefined;
  status?: SettlementStatus | undefined;
  /** Trades created by this run. */
  runId?: string | undefined;
  /** Trades the running run (this id) owns: unclosed and adoptable, or closed while it owned them. */
  ownedBy?: string | undefined;
  /** Page after this (created_at, trade_id) position. */
  after?: { createdAt: string; tradeId: string } | undefined;
  limit: number;
}

export type TradeUpdate = Pick<
  TradeRecord,
  | 'tradeId'
  | 'ownerRunId'
  | 'updatedAt'
  | 'status'
  | 'substate'
  | 'closed'
  | 'nextDeadline'
  | 'machineVersion'
  | 'snapshot'
  | 'watch'
  | 'hold'
  | 'running'
  | 'effectAttempts'
>;

export interface Store {
  readonly path: string;
  /** Runs fn in one transaction: all of it is durable, or none of it. */
  transaction<T>(fn: () => T): T;
  insertRun(run: RunRecord): void;
  stopRun(runId: string, stoppedAt: string): void;
  listRuns(): RunRecord[];
  insertQuote(quote: QuoteRecord): void;
  getQuote(quoteId: string): QuoteRecord | undefined;
  /** Quotes not used by a trade whose expiry is after nowMs: what the reservation book holds at start. */
  openQuotes(nowMs: number): QuoteRecord[];
  markQuoteUsed(quoteId: string, tradeId: string): void;

  /** Marks the quote used, inserts the trade and its first event: one transaction. */
  createTrade(trade: TradeRecord, event: NewTradeEvent): void;
  /** One transition: the trade's new snapshot, its events and ledger entries, all or nothing. */
  saveTransition(update: TradeUpdate, events: readonly NewTradeEvent[], ledger: readonly LedgerEntry[]): void;
  /** Runtime notes about a trade that change no snapshot, e.g. the intent written before a transaction is sent. */
  appendEvents(events: readonly NewTradeEvent[]): void;
  getTrade(tradeId: string): TradeRecord | undefined;
  findTradeBySecretHash(secretHash: Hash32): TradeRecord | undefined;
  findTradeByQuote(quoteId: string): TradeRecord | undefined;
  listTrades(filter: TradeFilter): TradeRecord[];

  // ── The virtual-actor runtime's indexes (each one statement) ──
  /**
   * A new run adopts every unclosed trade by starting (ownership is implicit: no row is rewritten); this
   * clears earlier marks of unadoptable trades in one statement and answers how many trades it owns now.
   * (Each trade's history records ADOPTED when its actor first runs in the new run.)
   */
  claimUnclosed(): number;
  /** One trade taken by this run (POST /resume of a trade it could not adopt at start). */
  claimTrade(tradeId: string, runId: string): void;
  /** A new run that cannot reach the chain marks every unclosed trade unadoptable instead. */
  markUnadoptable(error: string): number;
  /** The owned (unclosed, adoptable) trades without their snapshots: what the watcher and the book index. */
  restIndex(): RestEntry[];
  /** Owned trades stored with an effect in flight (a crash interrupted them). */
  runningTrades(): string[];
  /** Owned trades whose wake time has come, earliest first. */
  dueTrades(now: number, limit: number): string[];
  /** The earliest wake time among owned trades. */
  earliestWake(): number | null;
  setWake(tradeId: string, at: number | null): void;
  setSeen(tradeId: string, seen: string): void;
  /** Pending and initiated trades of a wallet (they count against its limit). */
  liveTradeCount(wallet: string): number;
  /** Owned trades per status and substate. */
  ownedTradeCounts(): { status: SettlementStatus; substate: string; count: number }[];
  /** Owned trades whose current effect failed at least minAttempts times in a row, worst first. */
  failingTrades(minAttempts: number, limit: number): TradeRecord[];
  /** failingTrades counted by effect (metrics); bounded by the failing trades, not by the trades at rest. */
  failingEffectCounts(minAttempts: number): { effect: string; count: number }[];
  /** Unclosed trades the running run could not adopt (they wait for /resume). */
  unadoptableTradeCount(): number;
  /**
   * Snapshots of the unclosed trades past pending, the only ones whose escrows can hold funds (a trade leaves
   * pending once its taker lock is final): as many as trades in settlement, not as trades waiting for a lock.
   */
  settlingSnapshots(): string[];
  tradeEvents(tradeId: string): TradeEventRecord[];
  /** The runtime event log in stable order: events with seq > afterSeq. */
  events(afterSeq: number, limit: number): TradeEventRecord[];
  /** The newest seq of the event log (0 when empty). */
  lastEventSeq(): number;
  ledger(tradeId?: string): StoredLedgerEntry[];
  /** Per run: trades it created, and trades it owns (the running run, `current`) or owned last. */
  tradeCounts(current: string): { runId: string; created: number; owned: number }[];

  ping(): boolean;
  readonly isOpen: boolean;
  close(): void;
}

export function openStore(options: { dataDir: string } | { path: string }): Store {
  let path: string;
  if ('dataDir' in options) {
    mkdirSync(options.dataDir, { recursive: true });
    path = join(options.dataDir, 'maker.sqlite');
  } else {
    path = options.path;
  }
  return new SqliteStore(path);
}

interface QuoteRow {
  quote_id: string;
  run_id: string;
  taker_wallet: string;
  input_mint: string;
  output_mint: string;
  input_raw: string;
  output_raw: string;
  spread_bps: number;
  input_usd: string;
  output_usd: string;
  input_price: string | null;
  output_price: string | null;
  created_at: string;
  expires_at_ms: number;
  htlc_expires_at_ms: number;
  risk_checks: string;
  used_by_trade_id: string | null;
}

const quoteFromRow = (row: QuoteRow): QuoteRecord => ({
  quoteId: row.quote_id,
  runId: row.run_id,
  takerWallet: row.taker_wallet,
  inputMint: row.input_mint,
  outputMint: row.output_mint,
  inputRaw: BigInt(row.input_raw),
  outputRaw: BigInt(row.output_raw),
  spreadBps: row.spread_bps,
  inputUsd: row.input_usd,
  outputUsd: row.output_usd,
  inputPrice: priceFromText(row.input_price),
  outputPrice: priceFromText(row.output_price),
  createdAt: row.created_at,
  expiresAtMs: row.expires_at_ms,
  htlcExpiresAtMs: row.htlc_expires_at_ms,
  riskChecks: JSON.parse(row.risk_checks) as string[],
  usedByTradeId: row.used_by_trade_id,
});

/** JSON of a RecordedPrice, its integers as strings (they may exceed 2^53). */
const priceText = (price: RecordedPrice | null): string | null =>
  price === null
    ? null
    : JSON.stringify({
        ...price,
        price: `${price.price}`,
        conf: `${price.conf}`,
        emaPrice: `${price.emaPrice}`,
      });

function priceFromText(text: string | null): RecordedPrice | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as Omit<RecordedPrice, 'price' | 'conf' | 'emaPrice'> &
    Record<'price' | 'conf' | 'emaPrice', string>;
  return { ...raw, price: BigInt(raw.price), conf: BigInt(raw.conf), emaPrice: BigInt(raw.emaPrice) };
}

interface TradeRow {
  trade_id: string;
  quote_id: string;
  run_id: string;
  owner_run_id: string;
  taker_wallet: string;
  secret_hash: string;
  created_at: string;
  updated_at: string;
  status: SettlementStatus;
  substate: string;
  closed: number;
  next_deadline: number | null;
  machine_version: number;
  snapshot: string;
  adoption_error: string | null;
  taker_escrow: string;
  maker_escrow: string;
  watch: number;
  seen: string;
  hold_mint: string | null;
  hold_raw: string | null;
  hold_until_ms: number | null;
  running: number;
  effect_attempts: number;
}

const holdFromRow = (row: Pick<TradeRow, 'hold_mint' | 'hold_raw' | 'hold_until_ms'>): TradeHold | null =>
  row.hold_mint !== null && row.hold_raw !== null && row.hold_until_ms !== null
    ? { mint: row.hold_mint, raw: BigInt(row.hold_raw), untilMs: row.hold_until_ms }
    : null;

const tradeFromRow = (row: TradeRow): TradeRecord => ({
  tradeId: row.trade_id,
  quoteId: row.quote_id,
  runId: row.run_id,
  ownerRunId: row.owner_run_id,
  takerWallet: row.taker_wallet,
  // Written as a Hash32: lower-case hex, as every row since the first has it.
  secretHash: row.secret_hash as Hash32,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  status: row.status,
  substate: row.substate,
  closed: row.closed === 1,
  nextDeadline: row.next_deadline,
  machineVersion: row.machine_version,
  snapshot: row.snapshot,
  adoptionError: row.adoption_error,
  takerEscrow: row.taker_escrow,
  makerEscrow: row.maker_escrow,
  watch: row.watch,
  seen: row.seen,
  hold: holdFromRow(row),
  running: row.running === 1,
  effectAttempts: row.effect_attempts,
});

interface EventRow {
  seq: number;
  trade_id: string;
  run_id: string;
  at: string;
  type: string;
  status: SettlementStatus;
  substate: string;
  payload: string;
}

const eventFromRow = (row: EventRow): TradeEventRecord => ({
  seq: row.seq,
  tradeId: row.trade_id,
  runId: row.run_id,
  at: row.at,
  type: row.type,
  status: row.status,
  substate: row.substate,
  payload: JSON.parse(row.payload) as Record<string, unknown>,
});

interface LedgerRow {
  entry_id: number;
  trade_id: string;
  movement: LedgerEntry['movement'];
  signature: string;
  mint: string;
  account: LedgerEntry['account'];
  side: LedgerEntry['side'];
  amount_raw: string;
  at: string;
}

const ledgerFromRow = (row: LedgerRow): StoredLedgerEntry => ({
  entryId: row.entry_id,
  tradeId: row.trade_id,
  movement: row.movement,
  signature: row.signature,
  mint: row.mint,
  account: row.account,
  side: row.side,
  amountRaw: BigInt(row.amount_raw),
  at: row.at,
});

class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(readonly path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
    this.statements = {
      insertRun: this.db.prepare(
        'INSERT INTO runs (run_id, version, started_at, stopped_at) VALUES (@runId, @version, @startedAt, @stoppedAt)',
      ),
      stopRun: this.db.prepare('UPDATE runs SET stopped_at = ? WHERE run_id = ?'),
      listRuns: this.db.prepare(
        'SELECT run_id AS runId, version, started_at AS startedAt, stopped_at AS stoppedAt FROM runs ORDER BY started_at, run_id',
      ),
      insertQuote: this.db.prepare(`
        INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw, spread_bps,
                            input_usd, output_usd, input_price, output_price, created_at, expires_at_ms,
                            htlc_expires_at_ms, risk_checks, used_by_trade_id)
        VALUES (@quoteId, @runId, @takerWallet, @inputMint, @outputMint, @inputRaw, @outputRaw, @spreadBps,
                @inputUsd, @outputUsd, @inputPrice, @outputPrice, @createdAt, @expiresAtMs, @htlcExpiresAtMs,
                @riskChecks, @usedByTradeId)`),
      getQuote: this.db.prepare('SELECT * FROM quotes WHERE quote_id = ?'),
      openQuotes: this.db.prepare(
        'SELECT * FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > ?',
      ),
      markQuoteUsed: this.db.prepare(
        'UPDATE quotes SET used_by_trade_id = ? WHERE quote_id = ? AND used_by_trade_id IS NULL',
      ),
      insertTrade: this.db.prepare(`
        INSERT INTO trades (trade_id, quote_id, run_id, owner_run_id, taker_wallet, secret_hash, created_at, updated_at,
                            status, substate, closed, next_deadline, adoption_error, taker_escrow, maker_escrow,
                            watch, seen, hold_mint, hold_raw, hold_until_ms, running, effect_attempts)
        VALUES (@tradeId, @quoteId, @runId, @ownerRunId, @takerWallet, @secretHash, @createdAt, @updatedAt,
                @status, @substate, @closed, @nextDeadline, @adoptionError, @takerEscrow, @makerEscrow,
                @watch, @seen, @holdMint, @holdRaw, @holdUntilMs, @running, @effectAttempts)`),
      insertSnapshot: this.db.prepare(
        'INSERT INTO trade_snapshots (trade_id, machine_version, snapshot) VALUES (@tradeId, @machineVersion, @snapshot)',
      ),
      updateTrade: this.db.prepare(`
        UPDATE trades SET owner_run_id = @ownerRunId, updated_at = @updatedAt, status = @status, substate = @substate,
               closed = @closed, next_deadline = @nextDeadline, adoption_error = NULL, watch = @watch,
               hold_mint = @holdMint, hold_raw = @holdRaw, hold_until_ms = @holdUntilMs, running = @running,
               effect_attempts = @effectAttempts
        WHERE trade_id = @tradeId`),
      updateSnapshot: this.db.prepare(
        'UPDATE trade_snapshots SET machine_version = @machineVersion, snapshot = @snapshot WHERE trade_id = @tradeId',
      ),
      insertEvent: this.db.prepare(`
        INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
        VALUES (@tradeId, @runId, @at, @type, @status, @substate, @payload)`),
      insertLedger: this.db.prepare(`
        INSERT OR IGNORE INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
        VALUES (@tradeId, @movement, @signature, @mint, @account, @side, @amountRaw, @at)`),
      getTrade: this.db.prepare(
        'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.trade_id = ?',
      ),
      tradeBySecretHash: this.db.prepare(
        'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.secret_hash = ?',
      ),
      tradeByQuote: this.db.prepare(
        'SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id WHERE t.quote_id = ?',
      ),
      tradeEvents: this.db.prepare('SELECT * FROM trade_events WHERE trade_id = ? ORDER BY seq'),
      events: this.db.prepare('SELECT * FROM trade_events WHERE seq > ? ORDER BY seq LIMIT ?'),
      lastEventSeq: this.db.prepare('SELECT max(seq) AS seq FROM trade_events'),
      ledgerAll: this.db.prepare('SELECT * FROM ledger_entries ORDER BY entry_id'),
      ledgerOf: this.db.prepare('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY entry_id'),
      clearUnadoptable: this.db.prepare(
        'UPDATE trades INDEXED BY trades_unadoptable SET adoption_error = NULL WHERE closed = 0 AND adoption_error IS NOT NULL',
      ),
      countOwned: this.db.prepare(
        'SELECT count(*) AS n FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL',
      ),
      claimTrade: this.db.prepare(
        'UPDATE trades SET owner_run_id = @runId, adoption_error = NULL WHERE trade_id = @tradeId AND closed = 0',
      ),
      markUnadoptable: this.db.prepare('UPDATE trades SET adoption_error = ? WHERE closed = 0'),
      restIndex: this.db
        .prepare(`
        SELECT trade_id, taker_wallet, taker_escrow, maker_escrow, watch, seen, hold_mint, hold_raw, hold_until_ms
        FROM trades INDEXED BY trades_unclosed WHERE closed = 0 AND adoption_error IS NULL`)
        .raw(true),
      runningTrades: this.db.prepare(
        'SELECT trade_id FROM trades INDEXED BY trades_running WHERE closed = 0 AND running = 1 AND adoption_error IS NULL',
      ),
      dueTrades: this.db.prepare(`
        SELECT trade_id FROM trades INDEXED BY trades_wake
        WHERE closed = 0 AND next_deadline IS NOT NULL AND next_deadline <= @now AND adoption_error IS NULL
        ORDER BY next_deadline LIMIT @limit`),
      earliestWake: this.db.prepare(`
        SELECT next_deadline AS at FROM trades INDEXED BY trades_wake
        WHERE closed = 0 AND next_deadline IS NOT NULL AND adoption_error IS NULL
        ORDER BY next_deadline LIMIT 1`),
      setWake: this.db.prepare('UPDATE trades SET next_deadline = ? WHERE trade_id = ?'),
      setSeen: this.db.prepare('UPDATE trades SET seen = ? WHERE trade_id = ?'),
      liveTradeCount: this.db.prepare(
        "SELECT count(*) AS n FROM trades WHERE taker_wallet = ? AND status IN ('pending', 'initiated')",
      ),
      ownedTradeCounts: this.db.prepare(`
        SELECT status, substate, count(*) AS count FROM trades INDEXED BY trades_unclosed
        WHERE closed = 0 AND adoption_error IS NULL GROUP BY status, substate ORDER BY status, substate`),
      failingTrades: this.db.prepare(`
        SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
        WHERE t.closed = 0 AND t.effect_attempts >= @min AND t.adoption_error IS NULL
        ORDER BY t.effect_attempts DESC, t.trade_id LIMIT @limit`),
      failingEffectCounts: this.db.prepare(`
        SELECT json_extract(s.snapshot, '$.context.effectError.effect') AS effect, count(*) AS count
        FROM trades t INDEXED BY trades_failing JOIN trade_snapshots s ON s.trade_id = t.trade_id
        WHERE t.closed = 0 AND t.effect_attempts > 0 AND t.effect_attempts >= @min AND t.adoption_error IS NULL
        GROUP BY effect`),
      unadoptableTradeCount: this.db.prepare(
        'SELECT count(*) AS n FROM trades INDEXED BY trades_unadoptable WHERE closed = 0 AND adoption_error IS NOT NULL',
      ),
      settlingSnapshots: this.db
        .prepare(`
        SELECT s.snapshot FROM trades t INDEXED BY trades_unclosed JOIN trade_snapshots s ON s.trade_id = t.trade_id
        WHERE t.closed = 0 AND t.status IN ('initiated', 'redeemed', 'refunded', 'failed')`)
        .pluck(),
      tradeCounts: this.db.prepare(`
        SELECT r.run_id AS runId,
               (SELECT count(*) FROM trades t WHERE t.run_id = r.run_id) AS created,
               (SELECT count(*) FROM trades t
                 WHERE t.owner_run_id = r.run_id AND (t.closed = 1 OR t.adoption_error IS NOT NULL))
               + CASE WHEN r.run_id = @current THEN
                   (SELECT count(*) FROM trades t WHERE t.closed = 0 AND t.adoption_error IS NULL)
                 ELSE 0 END AS owned
        FROM runs r`),
    };
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `store ${this.path} has schema version ${current}, newer than this build knows (${MIGRATIONS.length})`,
      );
    }
    for (let version = current; version < MIGRATIONS.length; version++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[version] as string);
        this.db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  insertRun(run: RunRecord): void {
    this.statements.insertRun.run(run);
  }

  stopRun(runId: string, stoppedAt: string): void {
    this.statements.stopRun.run(stoppedAt, runId);
  }

  listRuns(): RunRecord[] {
    return this.statements.listRuns.all() as RunRecord[];
  }

  insertQuote(quote: QuoteRecord): void {
    // Parameters spelled out, not spread over the record: that is a slow path in V8 (µs per write).
    this.statements.insertQuote.run({
      quoteId: quote.quoteId,
      runId: quote.runId,
      takerWallet: quote.takerWallet,
      inputMint: quote.inputMint,
      outputMint: quote.outputMint,
      inputRaw: quote.inputRaw.toString(),
      outputRaw: quote.outputRaw.toString(),
      spreadBps: quote.spreadBps,
      inputUsd: quote.inputUsd,
      outputUsd: quote.outputUsd,
      inputPrice: priceText(quote.inputPrice ?? null),
      outputPrice: priceText(quote.outputPrice ?? null),
      createdAt: quote.createdAt,
      expiresAtMs: quote.expiresAtMs,
      htlcExpiresAtMs: quote.htlcExpiresAtMs,
      riskChecks: JSON.stringify(quote.riskChecks),
      usedByTradeId: quote.usedByTradeId,
    });
  }

  getQuote(quoteId: string): QuoteRecord | undefined {
    const row = this.statements.getQuote.get(quoteId) as QuoteRow | undefined;
    return row && quoteFromRow(row);
  }

  openQuotes(nowMs: number): QuoteRecord[] {
    return (this.statements.openQuotes.all(nowMs) as QuoteRow[]).map(quoteFromRow);
  }

  markQuoteUsed(quoteId: string, tradeId: string): void {
    const { changes } = this.statements.markQuoteUsed.run(tradeId, quoteId);
    if (changes !== 1) throw new Error(`quote ${quoteId} is already used`);
  }

  createTrade(trade: TradeRecord, event: NewTradeEvent): void {
    this.db.transaction(() => {
      this.markQuoteUsed(trade.quoteId, trade.tradeId);
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
      this.statements.insertSnapshot.run({
        tradeId: trade.tradeId,
        machineVersion: trade.machineVersion,
        snapshot: trade.snapshot,
      });
      this.insertEvent(event);
    })();
  }

  saveTransition(
    update: TradeUpdate,
    events: readonly NewTradeEvent[],
    ledger: readonly LedgerEntry[],
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
      for (const event of events) this.insertEvent(event);
      for (const entry of ledger) {
        this.statements.insertLedger.run({
          ...entry,
          tradeId: update.tradeId,
          amountRaw: entry.amountRaw.toString(),
          at: update.updatedAt,
        });
      }
    })();
  }

  appendEvents(events: readonly NewTradeEvent[]): void {
    this.db.transaction(() => {
      for (const event of events) this.insertEvent(event);
    })();
  }

  private insertEvent(event: NewTradeEvent): void {
    this.statements.insertEvent.run({
      tradeId: event.tradeId,
      runId: event.runId,
      at: event.at,
      type: event.type,
      status: event.status,
      substate: event.substate,
      payload: JSON.stringify(event.payload),
    });
  }

  getTrade(tradeId: string): TradeRecord | undefined {
    const row = this.statements.getTrade.get(tradeId) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  findTradeBySecretHash(secretHash: Hash32): TradeRecord | undefined {
    const row = this.statements.tradeBySecretHash.get(secretHash) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  findTradeByQuote(quoteId: string): TradeRecord | undefined {
    const row = this.statements.tradeByQuote.get(quoteId) as TradeRow | undefined;
    return row && tradeFromRow(row);
  }

  listTrades(filter: TradeFilter): TradeRecord[] {
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
    const sql = `SELECT t.*, s.machine_version, s.snapshot FROM trades t JOIN trade_snapshots s ON s.trade_id = t.trade_id
                 ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY t.created_at, t.trade_id LIMIT @limit`;
    return (this.db.prepare(sql).all(params) as TradeRow[]).map(tradeFromRow);
  }

  claimUnclosed(): number {
    this.statements.clearUnadoptable.run();
    return (this.statements.countOwned.get() as { n: number }).n;
  }

  claimTrade(tradeId: string, runId: string): void {
    this.statements.claimTrade.run({ tradeId, runId });
  }

  markUnadoptable(error: string): number {
    return this.statements.markUnadoptable.run(error).changes;
  }

  restIndex(): RestEntry[] {
    type Raw = [string, string, string, string, number, string, string | null, string | null, number | null];
    const rows = this.statements.restIndex.all() as Raw[];
    return rows.map(([tradeId, takerWallet, takerEscrow, makerEscrow, watch, seen, mint, raw, untilMs]) => ({
      tradeId,
      takerWallet,
      takerEscrow,
      makerEscrow,
      watch,
      seen,
      hold: mint !== null && raw !== null && untilMs !== null ? { mint, raw: BigInt(raw), untilMs } : null,
    }));
  }

  runningTrades(): string[] {
    return (this.statements.runningTrades.all() as { trade_id: string }[]).map((r) => r.trade_id);
  }

  dueTrades(now: number, limit: number): string[] {
    const rows = this.statements.dueTrades.all({ now, limit }) as { trade_id: string }[];
    return rows.map((r) => r.trade_id);
  }

  earliestWake(): number | null {
    const row = this.statements.earliestWake.get() as { at: number } | undefined;
    return row?.at ?? null;
  }

  setWake(tradeId: string, at: number | null): void {
    this.statements.setWake.run(at, tradeId);
  }

  setSeen(tradeId: string, seen: string): void {
    this.statements.setSeen.run(seen, tradeId);
  }

  liveTradeCount(wallet: string): number {
    return (this.statements.liveTradeCount.get(wallet) as { n: number }).n;
  }

  ownedTradeCounts(): { status: SettlementStatus; substate: string; count: number }[] {
    return this.statements.ownedTradeCounts.all() as {
      status: SettlementStatus;
      substate: string;
      count: number;
    }[];
  }

  failingTrades(minAttempts: number, limit: number): TradeRecord[] {
    const rows = this.statements.failingTrades.all({ min: minAttempts, limit }) as TradeRow[];
    return rows.map(tradeFromRow);
  }

  failingEffectCounts(minAttempts: number): { effect: string; count: number }[] {
    type Row = { effect: string; count: number };
    return this.statements.failingEffectCounts.all({ min: minAttempts }) as Row[];
  }

  unadoptableTradeCount(): number {
    return (this.statements.unadoptableTradeCount.get() as { n: number }).n;
  }

  settlingSnapshots(): string[] {
    return this.statements.settlingSnapshots.all() as string[];
  }

  tradeEvents(tradeId: string): TradeEventRecord[] {
    return (this.statements.tradeEvents.all(tradeId) as EventRow[]).map(eventFromRow);
  }

  events(afterSeq: number, limit: number): TradeEventRecord[] {
    return (this.statements.events.all(afterSeq, limit) as EventRow[]).map(eventFromRow);
  }

  lastEventSeq(): number {
    return (this.statements.lastEventSeq.get() as { seq: number | null }).seq ?? 0;
  }

  ledger(tradeId?: string): StoredLedgerEntry[] {
    const rows =
      tradeId === undefined ? this.statements.ledgerAll.all() : this.statements.ledgerOf.all(tradeId);
    return (rows as LedgerRow[]).map(ledgerFromRow);
  }

  tradeCounts(current: string): { runId: string; created: number; owned: number }[] {
    return this.statements.tradeCounts.all({ current }) as {
      runId: string;
      created: number;
      owned: number;
    }[];
  }

  ping(): boolean {
    return (this.db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
