// The aggregator port: what the hedger and the sourcing step ask of a swap venue. A quote checked against
// the request and the live mid; then the quote's swap as the maker's own signed v0 transaction, not sent
// — the caller records it before it goes out, and lands it through the chain port like every maker
// transaction.

import type { QuoteResponse } from '@jup-ag/api';
import type { PublicKey } from '@solana/web3.js';
import type { SignedMakerTransaction } from '../chain/port.ts';
import type { Ratio } from '../money/ratio.ts';

export interface SwapQuoteRequest {
  inputMint: PublicKey;
  outputMint: PublicKey;
  /** Exact in, raw units of the input mint. */
  amountRaw: bigint;
  /** The slippage asked of the aggregator (its quote's otherAmountThreshold); at most max_slippage_bps. */
  slippageBps: number;
  /**
   * The live mid (Pyth) as output raw units per input raw unit (rawMid() converts a display-unit price). The
   * port refuses a quote whose minimum out is below amountRaw × mid × (1 − max_slippage_bps).
   */
  referenceMid: Ratio;
}

export interface AggregatorQuote {
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  /** What the route is expected to pay. */
  outAmount: bigint;
  /** The least the swap may pay on chain (Jupiter's otherAmountThreshold); the swap instruction enforces it. */
  minOut: bigint;
  slippageBps: number;
  /** The floor the reference mid set: minOut was checked to be at least this. */
  floorOut: bigint;
  priceImpactPct: string;
  route: { ammKey: string; label: string | null }[];
  contextSlot: number | null;
  /** The aggregator's quote as received, handed back for the swap instructions. */
  response: QuoteResponse;
}

/** The quote's swap, signed by the maker alone, NOT sent. Persist it, then send()/land() it. */
export interface SignedSwap extends SignedMakerTransaction {
  quote: AggregatorQuote;
  /** The address lookup tables the message loads keys from (base58). */
  lookupTables: string[];
}

export interface AggregatorPort {
  /** The API base URL in use (…/swap/v1). */
  readonly baseUrl: string;
  /** Throws AggregatorError (unavailable, no_route, slippage_too_high, quote_mismatch, price_out_of_bounds, …). */
  quote(request: SwapQuoteRequest): Promise<AggregatorQuote>;
  /**
   * The swap instructions for the quote, checked (checks.ts), composed into the maker's own v0 transaction
   * and signed. The maker is the payer and only signer. Throws AggregatorError, or ChainError from signing.
   */
  swapTransaction(quote: AggregatorQuote): Promise<SignedSwap>;
}
