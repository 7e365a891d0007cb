// Quotes and their reservations on PostgreSQL: a quote that reserves is checked under its output mint's lock
// against every instance's reservations — running sums per mint and second (reservation-buckets.ts), kept
// by every write that moves a hold, in the same transaction (commit.ts applies a batch's changes at its end).
import type pg from 'pg';
import type { QuotesRepository, QuoteWrite } from '../quotes.ts';
import type { QuoteRecord, TradeHold } from '../records.ts';
import { currentSecond, PRUNE_AFTER_S, type ReservationDeltas } from '../reservation-buckets.ts';
import { priceText, type QuoteRow, quoteFromRow } from '../rows.ts';
import { StoreConflict } from '../writes.ts';
import { columns, NOW_MS, runner } from './sql.ts';
import type { PostgresWrites, WriteContext } from './writes.ts';

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

/**
 * The class of the per-mint reservation locks (two-int advisory locks: a key space apart from the
 * one-bigint keys of the event log and the migrations). 0x72657376: 'resv' in ASCII.
 */
export const RESERVATION_LOCK = 1919251318;

/** Quotes' and reservations' statements. */
const SQL = {
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
} as const;

export const QUOTE_STATEMENTS = SQL;
const run = runner(SQL);

/** The quote's columns, in the order of the insert statement's parameters. */
function quoteValues(quote: QuoteRecord): unknown[] {
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

export class PostgresQuotes implements QuotesRepository {
  constructor(private readonly pool: pg.Pool) {}

  readonly writes: PostgresWrites<QuoteWrite> = {
    insertQuote: {
      reservesMint: ({ quote, reserve }) => (reserve ? quote.outputMint : null),
      apply: async (tx, { quote, reserve }) => {
        if (reserve) await this.checkReservation(tx, quote, reserve);
        await run(tx.client, 'insertQuote', quoteValues(quote));
        if (quote.usedByTradeId === null) {
          tx.changes.add({ mint: quote.outputMint, raw: quote.outputRaw, untilMs: quote.expiresAtMs });
        }
      },
    },
  };

  /**
   * Refuses the quote (StoreConflict 'inventory') unless its output fits under the balance beside every
   * instance's reservations of its mint at reserve.nowMs. The batch holds the mint's lock (taken before its
   * first write), so this statement's snapshot (READ COMMITTED: one per statement) sees every reservation the
   * lock's earlier holders committed; tx.batch adds this batch's own, not applied yet.
   */
  private async checkReservation(
    tx: WriteContext,
    quote: QuoteRecord,
    reserve: { balanceRaw: bigint; nowMs: number },
  ): Promise<void> {
    const { rows } = await run<{ raw: string }>(tx.client, 'reservedSum', [
      quote.outputMint,
      reserve.nowMs,
      currentSecond(reserve.nowMs),
    ]);
    const reserved =
      BigInt((rows[0] as { raw: string }).raw) + tx.batch.ahead(quote.outputMint, reserve.nowMs);
    if (reserved + quote.outputRaw > reserve.balanceRaw) {
      throw new StoreConflict(
        'inventory',
        `quote ${quote.quoteId} would reserve ${quote.outputRaw} of ${quote.outputMint} beside ` +
          `${reserved} reserved, over the balance of ${reserve.balanceRaw}`,
      );
    }
  }

  /**
   * Within a trade's creation (trades.ts): the quote is used once. Answers the reservation it held, which
   * becomes the trade's hold.
   */
  async markUsed(client: pg.PoolClient, quoteId: string, tradeId: string): Promise<TradeHold> {
    const { rowCount, rows } = await run<{ output_mint: string; output_raw: string; expires_at_ms: number }>(
      client,
      'markQuoteUsed',
      [quoteId, tradeId],
    );
    const used = rows[0];
    if (rowCount !== 1 || used === undefined) {
      throw new StoreConflict('quote_used', `quote ${quoteId} is already used`);
    }
    return { mint: used.output_mint, raw: BigInt(used.output_raw), untilMs: used.expires_at_ms };
  }

  /** Before a batch's first write, outside any savepoint: the locks of the mints its quotes reserve. */
  async lockReservations(client: pg.PoolClient, mints: readonly string[]): Promise<void> {
    await run(client, 'lockReservations', [mints]);
  }

  /** At a batch's end: what its writes changed in the buckets (ReservationDeltas.rows). */
  async applyReservations(
    client: pg.PoolClient,
    { mints, seconds, raws }: ReturnType<ReservationDeltas['rows']>,
  ): Promise<void> {
    await run(client, 'applyReservations', [mints, seconds, raws]);
  }

  /** Deletes buckets long past (apart from any commit). */
  async pruneReservations(): Promise<void> {
    await run(this.pool, 'pruneReservations');
  }

  async getQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    const [row] = (await run<QuoteRow>(this.pool, 'getQuote', [quoteId])).rows;
    return row && quoteFromRow(row);
  }

  async openQuotes(nowMs: number): Promise<QuoteRecord[]> {
    return (await run<QuoteRow>(this.pool, 'openQuotes', [nowMs])).rows.map(quoteFromRow);
  }
}
