// Quotes and the output they reserve: the repository of quotes (a quote is used once, by the trade made from
// it: see trades.ts), and its one write. On PostgreSQL a quote can reserve against every instance's holds
// (reservation-buckets.ts); on SQLite the desk's in-memory book is exact.
import type { QuoteRecord } from './records.ts';

export type QuoteWrite =
  /**
   * A new quote. With `reserve` (PostgreSQL, several instances): refused as a StoreConflict 'inventory'
   * unless the output it reserves fits under balanceRaw beside every instance's reservations of its output
   * mint at nowMs (open quotes and trade holds), checked and inserted in one transaction under a per-mint
   * lock, so concurrent RFQs on different instances can never reserve more than the maker holds.
   */
  { kind: 'insertQuote'; quote: QuoteRecord; reserve?: { balanceRaw: bigint; nowMs: number } };

export interface QuotesRepository {
  getQuote(quoteId: string): Promise<QuoteRecord | undefined>;
  /** Quotes not used by a trade whose expiry is after nowMs: what the reservation book holds at start. */
  openQuotes(nowMs: number): Promise<QuoteRecord[]>;
}
