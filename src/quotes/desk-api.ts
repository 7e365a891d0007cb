// What the quote desk takes and answers: an RFQ, an accepted or rejected quote with its spread breakdown,
// the errors a client's RFQ can meet, and what the desk is built from (desk.ts).
import type { SourcingPlan } from '../../machines/trade.types.ts';
import type { AggregatorPort } from '../aggregator/index.ts';
import type { Config, Pair } from '../config/index.ts';
import type { GroupCommit, QuotesRepository, Store } from '../store/index.ts';
import type { RiskCheck } from '../vocabulary/index.ts';
import type { FeedReading, PriceSource } from './prices.ts';
import type { RiskFailure } from './risk.ts';

/** What the maker holds of each asset, kept current by whoever watches the chain. */
export interface InventorySource {
  /** The maker's balance of the mint as last read from the chain; undefined until it was read once. */
  balance(mint: string): bigint | undefined;
}

/** Live trades that count against a wallet's limit (the trade runtime fills this in). */
export interface TradeExposure {
  liveTradesOf(wallet: string): Promise<number>;
}

export interface RfqRequest {
  inputAsset: string;
  outputAsset: string;
  amount: string;
  takerWallet: string;
  expirySeconds?: number | undefined;
  /**
   * The client address the RFQ came from (the address the rate limit counts, src/http/app.ts): its unfunded
   * holds are kept within its share of the free inventory. Undefined: judged by its wallet alone.
   */
  client?: string | undefined;
}

/** One leg's option term: its volatility (annualised; null without an estimate) and the bps it adds. */
export interface OptionLegTerm {
  symbol: string;
  volatilityAnnual: number | null;
  bps: number;
}

/**
 * How spread_bps is made up: the whole-bps terms, and the rest (the size and skew terms together, rounded up
 * with them), so that the parts add up to spread_bps exactly.
 */
export interface SpreadBreakdown {
  baseBps: number;
  confidenceBps: number;
  optionBps: number;
  sizeAndSkewBps: number;
  /**
   * A sourced quote's: what the route's minimum out costs beyond the spread on the sourced part, in bps of the
   * whole quote's mid value (then base + confidence + option + size and skew + sourcing = spread_bps).
   */
  sourcingBps?: number;
  /** The option term's inputs; null while the term is off (pricing.option.k = 0). */
  option: { windowSeconds: number; input: OptionLegTerm; output: OptionLegTerm } | null;
}

export interface AcceptedQuote {
  status: 'accepted';
  quoteId: string;
  pair: Pair;
  inputRaw: bigint;
  outputRaw: bigint;
  spreadBps: number;
  expiresAt: Date;
  htlcExpiresAt: Date;
  riskChecks: RiskCheck[];
  /** The prices the quote was priced from; null for a quote stored before quotes recorded them. */
  prices: { input: FeedReading | null; output: FeedReading | null };
  /** How the spread is made up; undefined for a quote read back from the store (it keeps no breakdown). */
  spread?: SpreadBreakdown;
  /** Part of the output is bought through the aggregator just in time by this plan; null: inventory covers it. */
  sourcing: SourcingPlan | null;
}

export interface RejectedQuote {
  status: 'rejected';
  rejectionId: string;
  pair: Pair;
  inputRaw: bigint;
  reasons: RiskFailure[];
  riskChecks: RiskCheck[];
}

export type QuoteState = 'open' | 'used' | 'expired';

/** A client mistake in an RFQ: the route answers 400 validation_failed naming the field. */
export class RfqInputError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'RfqInputError';
  }
}

/**
 * The maker's balance of the output has never been read (the chain did not answer since the start): the
 * desk cannot tell what it could sell, and refuses to guess zero — the caller retries.
 */
export class InventoryUnknown extends Error {
  constructor(readonly symbol: string) {
    super(`The maker's ${symbol} balance has not been read from the chain yet; retry shortly.`);
    this.name = 'InventoryUnknown';
  }
}

/** The parts of the config the desk reads (the rest is other parts' business). */
export type DeskConfig = Pick<
  Config,
  'pairs' | 'assets' | 'quotes' | 'risk' | 'reservations' | 'settlement' | 'pricing' | 'priceSource'
>;

export interface QuoteDeskDeps {
  config: DeskConfig;
  /** Its quotes; its kind says whether instances share it (then it checks reservations itself). */
  store: QuotesRepository & Pick<Store, 'kind'>;
  /** The service's group commit: quotes of one event-loop turn share one fsync with everything else. */
  durable: GroupCommit;
  prices: PriceSource;
  inventory: InventorySource;
  runId: string;
  nowMs?: () => number;
  exposure?: TradeExposure;
  /** The pairs in force now, changed live by the control plane (src/control/); absent: the config's. */
  live?: LivePairs;
}

/** The pairs as they stand now, and why one is paused. */
export interface LivePairs {
  livePairs(): readonly Pair[];
  /** The desk's pause (every pair), the pair's own, or none. */
  pauseOf(inputMint: string, outputMint: string): 'desk' | 'pair' | null;
}

/** Just-in-time sourcing as the desk uses it: the aggregator and the slippage asked of its routes. */
export interface DeskSourcing {
  aggregator: Pick<AggregatorPort, 'quote'>;
  /** sourcing.max_slippage_bps: the route's minimum out is at least the mid less this. */
  maxSlippageBps: number;
  /** aggregator.max_slippage_bps: the most slippage the port lets a quote ask for. */
  aggregatorMaxSlippageBps: number;
}
