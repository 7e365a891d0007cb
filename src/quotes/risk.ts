// Risk checks for an RFQ: pure, runs every check and reports every failure with the numbers in it, so a
// rejection tells the taker (and the desk) all that has to change, not just the first problem.

import { formatDecimal, formatUsd, notionalMicroUsd, type Price } from '../money/index.ts';
import { RISK_CHECKS, type RiskCheck } from '../vocabulary/index.ts';
import { confidenceBps, deviationBps, type FeedReading, isDeviating, isWide } from './prices.ts';

export interface RiskAsset {
  symbol: string;
  decimals: number;
}

/** One side's price as the price checks see it, with that asset's bounds. */
export interface PriceLeg {
  symbol: string;
  /** null: no usable price (why: `missing`), which fails price_freshness. */
  reading: FeedReading | null;
  missing?: string;
  /** Publish time on the caller's clock. */
  asOfMs: number;
  maxAgeMs: number;
  /** A static configured source is never stale. */
  alwaysFresh: boolean;
  /** null: the asset has no bound (no configured feed). */
  maxConfidenceBps: number | null;
  maxDeviationBps: number | null;
}

export interface RiskInput {
  /** Epoch milliseconds; the caller's clock, passed in to keep this function pure. */
  nowMs: number;
  pair: {
    input: RiskAsset;
    output: RiskAsset;
    paused: boolean;
    /** Whose pause it is: the whole desk's (the operator's kill switch) or the pair's own (the default). */
    pausedBy?: 'desk' | 'pair';
    /** Pair size limits in input raw units. */
    minInputRaw: bigint;
    maxInputRaw: bigint;
    /** Pair notional limits in micro-USD (parseUsd of the configured strings). */
    minNotionalMicroUsd: bigint;
    maxNotionalMicroUsd: bigint;
  };
  inputRaw: bigint;
  /** USD per display unit of the input asset, for the notional; null without a usable price. */
  inputUsdPrice: Price | null;
  /** The priced output of this quote; null when it could not be priced (a side without a usable price). */
  outputRaw: bigint | null;
  /** The input's and the output's price. */
  prices: readonly PriceLeg[];
  inventory: {
    /** The maker's balance of the output asset. */
    balanceRaw: bigint;
    /**
     * Output held against it: funded holds (trades whose taker lock landed) in full, unfunded holds (open
     * quotes, settlements without a landed lock) up to their budget.
     */
    reservedRaw: bigint;
    /** What unfunded holds hold, and the most of it that counts (the budget); for the message. */
    unfunded?: { heldRaw: bigint; capRaw: bigint };
  };
  /**
   * The unfunded holds of this quote's client address and wallet, and the most each may hold (its share of
   * the free inventory); absent: not judged.
   */
  budget?: {
    client: { address: string; heldRaw: bigint; maxRaw: bigint } | null;
    wallet: { heldRaw: bigint; maxRaw: bigint };
  };
  /**
   * Just-in-time sourcing, judged only for a quote whose output the free inventory does not cover: the part
   * bought through the aggregator, what the maker must sell for it (its own inventory of the input), and the
   * route's answer. Absent: a quote its inventory covers (the check is not named).
   */
  sourcing?: {
    sellRaw: bigint;
    /** The maker's input balance less what quotes and trades hold of it. */
    sellAvailableRaw: bigint;
    /** Why no route within the slippage limit (the aggregator's answer); null: a route was quoted. */
    routeProblem: string | null;
  };
  wallet: {
    address: string;
    openQuotes: number;
    liveTrades: number;
    /** Maximum open quotes plus live trades per taker wallet. */
    maxOpen: number;
  };
}

export interface RiskFailure {
  check: RiskCheck;
  message: string;
}

export interface RiskResult {
  passed: RiskCheck[];
  failed: RiskFailure[];
}

/**
 * Each check returns its failure message, null when it passes, or SKIPPED when it cannot be judged: the
 * notional and inventory checks without a usable price (price_freshness then fails and names why).
 */
type Check = (input: RiskInput, derived: Derived) => string | null | typeof SKIPPED;
const SKIPPED = Symbol('skipped');

interface Derived {
  notional: bigint | null;
  available: bigint;
}

const amount = (raw: bigint, asset: RiskAsset) => `${formatDecimal(raw, asset.decimals)} ${asset.symbol}`;
const usd = (microUsd: bigint) => `${formatUsd(microUsd)} USD`;
const pairName = ({ pair }: RiskInput) => `${pair.input.symbol}->${pair.output.symbol}`;

/** Joins the reasons one check found; null when there are none. */
const reasons = (...found: (string | false)[]) =>
  found.filter((r): r is string => r !== false).join('; ') || null;

const CHECKS: Record<RiskCheck, Check> = {
  pair_enabled: (input) =>
    !input.pair.paused
      ? null
      : input.pair.pausedBy === 'desk'
        ? `the desk is paused: no pair is quoted (pair ${pairName(input)})`
        : `pair ${pairName(input)} is paused`,

  price_freshness: ({ nowMs, prices }) =>
    reasons(
      ...prices.map((leg) => {
        if (leg.reading === null) return `no usable ${leg.symbol} price: ${leg.missing ?? 'none read'}`;
        // A price stamped in the future (clock skew) counts as brand new rather than as stale.
        const ageMs = Math.max(0, nowMs - leg.asOfMs);
        return (
          !leg.alwaysFresh &&
          ageMs > leg.maxAgeMs &&
          `${leg.symbol} price is ${ageMs} ms old; the maximum age is ${leg.maxAgeMs} ms`
        );
      }),
    ),

  price_confidence: ({ prices }) =>
    reasons(
      ...prices.map(
        ({ symbol, reading, maxConfidenceBps: max }) =>
          reading !== null &&
          max !== null &&
          isWide(reading, max) &&
          `${symbol} confidence is ±${confidenceBps(reading)} bps of its price; the maximum is ${max} bps`,
      ),
    ),

  price_deviation: ({ prices }) =>
    reasons(
      ...prices.map(({ symbol, reading, maxDeviationBps: max }) => {
        if (reading === null || max === null || !isDeviating(reading, max)) return false;
        const bps = deviationBps(reading);
        const far = bps === null ? 'has no positive EMA' : `is ${bps} bps from its EMA`;
        return `${symbol} price ${far}; the maximum is ${max} bps: the market moves too fast to quote`;
      }),
    ),

  min_notional: ({ pair, inputRaw }, { notional }) =>
    notional === null
      ? SKIPPED
      : reasons(
          notional < pair.minNotionalMicroUsd &&
            `input notional ${usd(notional)} is below the minimum ${usd(pair.minNotionalMicroUsd)}`,
          inputRaw < pair.minInputRaw &&
            `input ${amount(inputRaw, pair.input)} is below the minimum size ${amount(pair.minInputRaw, pair.input)}`,
        ),

  max_notional: ({ pair, inputRaw }, { notional }) =>
    notional === null
      ? SKIPPED
      : reasons(
          notional > pair.maxNotionalMicroUsd &&
            `input notional ${usd(notional)} is above the maximum ${usd(pair.maxNotionalMicroUsd)}`,
          inputRaw > pair.maxInputRaw &&
            `input ${amount(inputRaw, pair.input)} is above the maximum size ${amount(pair.maxInputRaw, pair.input)}`,
        ),

  inventory: ({ pair, outputRaw, inventory }, { available }) =>
    outputRaw === null
      ? SKIPPED
      : outputRaw <= available
        ? null
        : `output ${amount(outputRaw, pair.output)} exceeds available inventory ${amount(available, pair.output)} ` +
          `(balance ${amount(inventory.balanceRaw, pair.output)}, reserved ${amount(inventory.reservedRaw, pair.output)}` +
          (inventory.unfunded && inventory.unfunded.heldRaw > inventory.unfunded.capRaw
            ? `, of which unfunded holds count ${amount(inventory.unfunded.capRaw, pair.output)} of the ` +
              `${amount(inventory.unfunded.heldRaw, pair.output)} they hold)`
            : ')'),

  reservation_budget: ({ pair, outputRaw, budget, wallet }) => {
    if (outputRaw === null || budget === undefined) return SKIPPED;
    const over = (held: bigint, max: bigint) => held + outputRaw > max;
    const { client } = budget;
    return reasons(
      client !== null &&
        over(client.heldRaw, client.maxRaw) &&
        `client ${client.address} holds ${amount(client.heldRaw, pair.output)} in unfunded quotes and ` +
          `settlements; with ${amount(outputRaw, pair.output)} more it would pass its share of ` +
          `${amount(client.maxRaw, pair.output)}`,
      over(budget.wallet.heldRaw, budget.wallet.maxRaw) &&
        `wallet ${wallet.address} holds ${amount(budget.wallet.heldRaw, pair.output)} in unfunded quotes and ` +
          `settlements; with ${amount(outputRaw, pair.output)} more it would pass its share of ` +
          `${amount(budget.wallet.maxRaw, pair.output)}`,
    );
  },

  sourcing: ({ pair, sourcing }) =>
    sourcing === undefined
      ? SKIPPED
      : reasons(
          sourcing.routeProblem !== null &&
            `the output beyond the free inventory cannot be sourced: ${sourcing.routeProblem}`,
          sourcing.sellRaw > sourcing.sellAvailableRaw &&
            `sourcing the rest sells ${amount(sourcing.sellRaw, pair.input)} of the maker's own, beyond its ` +
              `available ${amount(sourcing.sellAvailableRaw, pair.input)}`,
        ),

  wallet_limits: ({ wallet }) =>
    // "<" not "<=": this quote would be one more open item for the wallet.
    wallet.openQuotes + wallet.liveTrades < wallet.maxOpen
      ? null
      : `wallet ${wallet.address} has ${wallet.openQuotes} open quotes and ${wallet.liveTrades} live trades; ` +
        `at most ${wallet.maxOpen} are allowed at once`,
};

export function evaluateRisk(input: RiskInput): RiskResult {
  const remaining = input.inventory.balanceRaw - input.inventory.reservedRaw;
  const derived: Derived = {
    notional:
      input.inputUsdPrice === null
        ? null
        : notionalMicroUsd(input.inputRaw, input.pair.input.decimals, input.inputUsdPrice),
    // Over-reservation (e.g. a balance that dropped under live trades) leaves nothing, never less.
    available: remaining > 0n ? remaining : 0n,
  };
  const result: RiskResult = { passed: [], failed: [] };
  for (const check of RISK_CHECKS) {
    const message = CHECKS[check](input, derived);
    if (message === null) result.passed.push(check);
    else if (message !== SKIPPED) result.failed.push({ check, message });
  }
  return result;
}
