// The durable store: better-sqlite3 in WAL mode with synchronous=FULL under DATA_DIR, so that whatever a
// route acknowledges is on disk before its answer leaves. The Store interface is what the rest of the
// service sees; a PostgreSQL implementation can fill it later.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.ts';

export interface RunRecord {
  runId: string;
  version: string;
  startedAt: string;
  stoppedAt: string | null;
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
  createdAt: string;
  expiresAtMs: number;
  /** The latest taker HTLC expiry a settlement from this quote can get (quote expiry + taker timelock). */
  htlcExpiresAtMs: number;
  riskChecks: string[];
  usedByTradeId: string | null;
}

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
  createdAt: row.created_at,
  expiresAtMs: row.expires_at_ms,
  htlcExpiresAtMs: row.htlc_expires_at_ms,
  riskChecks: JSON.parse(row.risk_checks) as string[],
  usedByTradeId: row.used_by_trade_id,
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
                            input_usd, output_usd, created_at, expires_at_ms, htlc_expires_at_ms, risk_checks,
                            used_by_trade_id)
        VALUES (@quoteId, @runId, @takerWallet, @inputMint, @outputMint, @inputRaw, @outputRaw, @spreadBps,
                @inputUsd, @outputUsd, @createdAt, @expiresAtMs, @htlcExpiresAtMs, @riskChecks,
                @usedByTradeId)`),
      getQuote: this.db.prepare('SELECT * FROM quotes WHERE quote_id = ?'),
      openQuotes: this.db.prepare(
        'SELECT * FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > ?',
      ),
      markQuoteUsed: this.db.prepare(
        'UPDATE quotes SET used_by_trade_id = ? WHERE quote_id = ? AND used_by_trade_id IS NULL',
      ),
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
    this.statements.insertQuote.run({
      ...quote,
      inputRaw: quote.inputRaw.toString(),
      outputRaw: quote.outputRaw.toString(),
      riskChecks: JSON.stringify(quote.riskChecks),
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
