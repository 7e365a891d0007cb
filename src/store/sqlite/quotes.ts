// Quotes on SQLite: inserted as the desk issues them, marked used by the trade made from one (trades.ts). One
// instance: the desk's in-memory reservation book is exact, so a quote's `reserve` needs no check here.
import type Database from 'better-sqlite3';
import type { QuotesRepository, QuoteWrite } from '../quotes.ts';
import type { QuoteRecord } from '../records.ts';
import { priceText, type QuoteRow, quoteFromRow } from '../rows.ts';
import { StoreConflict } from '../writes.ts';
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insert: db.prepare(`
      INSERT INTO quotes (quote_id, run_id, taker_wallet, input_mint, output_mint, input_raw, output_raw,
                          spread_bps, input_usd, output_usd, input_price, output_price, created_at,
                          expires_at_ms, htlc_expires_at_ms, risk_checks, used_by_trade_id, sourcing)
      VALUES (@quoteId, @runId, @takerWallet, @inputMint, @outputMint, @inputRaw, @outputRaw, @spreadBps,
              @inputUsd, @outputUsd, @inputPrice, @outputPrice, @createdAt, @expiresAtMs, @htlcExpiresAtMs,
              @riskChecks, @usedByTradeId, @sourcing)`),
    get: db.prepare('SELECT * FROM quotes WHERE quote_id = ?'),
    open: db.prepare('SELECT * FROM quotes WHERE used_by_trade_id IS NULL AND expires_at_ms > ?'),
    markUsed: db.prepare(
      'UPDATE quotes SET used_by_trade_id = ? WHERE quote_id = ? AND used_by_trade_id IS NULL',
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteQuotes implements QuotesRepository {
  private readonly statements: Statements;

  constructor(db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<QuoteWrite> = {
    insertQuote: ({ quote }) => this.insert(quote),
  };

  private insert(quote: QuoteRecord): void {
    // Parameters spelled out, not spread over the record: that is a slow path in V8 (µs per write).
    this.statements.insert.run({
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
      sourcing: quote.sourcing ? JSON.stringify(quote.sourcing) : null,
    });
  }

  /** Within a trade's creation (trades.ts): the quote is used once. */
  markUsed(quoteId: string, tradeId: string): void {
    const { changes } = this.statements.markUsed.run(tradeId, quoteId);
    if (changes !== 1) throw new StoreConflict('quote_used', `quote ${quoteId} is already used`);
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const row = this.statements.get.get(quoteId) as QuoteRow | undefined;
    return row && quoteFromRow(row);
  }

  async openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return (this.statements.open.all(nowMs) as QuoteRow[]).map(quoteFromRow);
  }
}
