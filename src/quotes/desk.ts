// The quote desk: prices an RFQ, runs the risk checks and, when it passes, records the firm quote and
// reserves its output — in one synchronous step, so concurrent RFQs can never reserve more than the inventory.
import { randomUUID } from 'node:crypto';
import type { Asset, Config, Pair } from '../config/index.ts';
import { AmountError, dividePrices, type Price, parseAmount } from '../money/index.ts';
import {
  type GroupCommit,
  type QuoteRecord,
  type Store,
  StoreConflict,
  timeOrderedUuid,
} from '../store/index.ts';
import type { RiskCheck } from '../vocabulary/index.ts';
import { feedStates, limitsOf } from './feeds.ts';
import {
  confidenceBps,
  type FeedReading,
  type PriceQuote,
  type PriceSource,
  readingOfPrice,
} from './prices.ts';
import { type PricedQuote, priceQuote } from './pricing.ts';
import { ReservationBook } from './reservations.ts';
import { evaluateRisk, type PriceLeg, type RiskFailure } from './risk.ts';

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

export interface QuoteDeskDeps {
  config: Config;
  store: Store;
  /** The service's group commit: quotes of one event-loop turn share one fsync with everything else. */
  durable: GroupCommit;
  prices: PriceSource;
  inventory: InventorySource;
  runId: string;
  nowMs?: () => number;
  exposure?: TradeExposure;
}

export class QuoteDesk {
  private readonly book = new ReservationBook();
  /**
   * Quotes this process issued that no trade has used yet, roughly in expiry order: a settlement start
   * finds its quote here without reading the store. Expired ones are dropped as new quotes come in.
   */
  private readonly open = new Map<string, QuoteRecord>();
  private readonly nowMs: () => number;
  private exposure: TradeExposure;

  /** A desk whose reservation book holds the stored quotes still open. */
  static async open(deps: QuoteDeskDeps): Promise<QuoteDesk> {
    const desk = new QuoteDesk(deps);
    for (const quote of await deps.store.openQuotes(desk.nowMs())) desk.reserveQuote(quote);
    return desk;
  }

  private constructor(private readonly deps: QuoteDeskDeps) {
    this.nowMs = deps.nowMs ?? Date.now;
    this.exposure = deps.exposure ?? { liveTradesOf: async () => 0 };
  }

  /** The trade runtime plugs in its exposure once it exists. */
  setExposure(exposure: TradeExposure): void {
    this.exposure = exposure;
  }

  get reservations(): ReservationBook {
    return this.book;
  }

  /**
   * Reads the wallet's live trades, then prices, checks and reserves synchronously (so concurrent RFQs see
   * each other's reservations), then answers once the quote is durable. Quotes of one event-loop turn
   * share one fsync (group commit).
   */
  async requestQuote(request: RfqRequest): Promise<AcceptedQuote | RejectedQuote> {
    const { config } = this.deps;
    const input = this.asset(request.inputAsset, 'body.input_asset');
    const output = this.asset(request.outputAsset, 'body.output_asset');
    const pair = config.pairs.find((p) => p.input === input && p.output === output);
    if (!pair) {
      throw new RfqInputError(
        'body.output_asset',
        `the maker does not quote ${input.symbol}→${output.symbol}`,
      );
    }
    let inputRaw: bigint;
    try {
      inputRaw = parseAmount(request.amount, input.decimals);
    } catch (error) {
      throw new RfqInputError('body.amount', (error as Error).message);
    }
    if (inputRaw === 0n) throw new RfqInputError('body.amount', 'must be above zero');
    const expirySeconds = request.expirySeconds ?? config.quotes.defaultExpirySeconds;
    if (
      !Number.isInteger(expirySeconds) ||
      expirySeconds < 1 ||
      expirySeconds > config.quotes.maxExpirySeconds
    ) {
      throw new RfqInputError(
        'body.expiry_seconds',
        `must be an integer 1..${config.quotes.maxExpirySeconds}`,
      );
    }

    const liveTrades = await this.exposure.liveTradesOf(request.takerWallet);
    const now = this.nowMs();
    this.book.expire(now);
    const inputPrice = this.deps.prices.latest(input.mint);
    const outputPrice = this.deps.prices.latest(output.mint);
    const legs = [this.leg(input, inputPrice), this.leg(output, outputPrice)] as const;
    const balance = this.deps.inventory.balance(output.mint);
    if (balance === undefined) throw new InventoryUnknown(output.symbol);
    const reserved = this.book.reserved(output.mint);
    const available = balance > reserved ? balance - reserved : 0n;
    // Without a usable price on either side there is nothing to price; price_freshness says why.
    const priced =
      inputPrice && outputPrice
        ? this.priced(pair, inputRaw, inputPrice, outputPrice, legs, available)
        : null;
    const risk = evaluateRisk({
      nowMs: now,
      pair: {
        input,
        output,
        paused: pair.paused,
        minInputRaw: pair.minInputRaw,
        maxInputRaw: pair.maxInputRaw,
        minNotionalMicroUsd: config.risk.minNotionalMicroUsd,
        maxNotionalMicroUsd: config.risk.maxNotionalMicroUsd,
      },
      inputRaw,
      inputUsdPrice: inputPrice?.usd ?? null,
      outputRaw: priced?.outputRaw ?? null,
      prices: legs,
      inventory: { balanceRaw: balance, reservedRaw: reserved },
      wallet: {
        address: request.takerWallet,
        openQuotes: this.book.countFor(request.takerWallet),
        liveTrades,
        maxOpen: config.risk.maxOpenPerWallet,
      },
    });
    if (risk.failed.length > 0 || !priced || !inputPrice || !outputPrice) {
      return {
        status: 'rejected',
        rejectionId: randomUUID(),
        pair,
        inputRaw,
        reasons: risk.failed,
        riskChecks: risk.passed,
      };
    }

    const expiresAtMs = now + expirySeconds * 1000;
    const record: QuoteRecord = {
      quoteId: timeOrderedUuid(),
      runId: this.deps.runId,
      takerWallet: request.takerWallet,
      inputMint: input.mint,
      outputMint: output.mint,
      inputRaw,
      outputRaw: priced.outputRaw,
      spreadBps: priced.spreadBps,
      inputUsd: priceText(inputPrice.usd),
      outputUsd: priceText(outputPrice.usd),
      inputPrice: legs[0].reading,
      outputPrice: legs[1].reading,
      createdAt: new Date(now).toISOString(),
      expiresAtMs,
      htlcExpiresAtMs: expiresAtMs + config.settlement.takerTimelockSeconds * 1000,
      riskChecks: risk.passed,
      usedByTradeId: null,
    };
    // Reserved in the same synchronous step as the check above; durable before it is answered. With
    // several instances the store checks again, against every instance's reservations, as it inserts.
    this.reserveQuote(record);
    try {
      await this.commit(record, { balanceRaw: balance, nowMs: now });
    } catch (error) {
      if (!(error instanceof StoreConflict && error.conflict === 'inventory')) throw error;
      const passed = risk.passed.filter((check) => check !== 'inventory');
      return {
        status: 'rejected',
        rejectionId: randomUUID(),
        pair,
        inputRaw,
        reasons: [{ check: 'inventory', message: `${error.message} (across every instance)` }],
        riskChecks: passed,
      };
    }
    this.remember(record, now);
    return this.accepted(record, pair);
  }

  /** output = input × mid × (1 − σ), the mid from the two USD prices; σ includes the confidence term. */
  private priced(
    pair: Pair,
    inputRaw: bigint,
    inputPrice: PriceQuote,
    outputPrice: PriceQuote,
    legs: readonly PriceLeg[],
    available: bigint,
  ): PricedQuote {
    const { pricing } = this.deps.config;
    const mid: Price = dividePrices(inputPrice.usd, outputPrice.usd);
    // Each leg adds ⌈conf/price⌉ bps, at most its max_confidence_bps (a wider price is refused by
    // price_confidence anyway), and never more than the room the other terms leave below 10000.
    const room = 10_000 - pair.baseSpreadBps - pricing.sizeSpreadMaxBps - pricing.inventorySkewMaxBps;
    let confidence = 0;
    for (const leg of legs) {
      if (leg.reading === null) continue;
      const bps = Number(confidenceBps(leg.reading) > 10_000n ? 10_000n : confidenceBps(leg.reading));
      confidence += leg.maxConfidenceBps === null ? bps : Math.min(bps, leg.maxConfidenceBps);
    }
    const quote = {
      inputRaw,
      inputDecimals: pair.input.decimals,
      outputDecimals: pair.output.decimals,
      mid,
      baseSpreadBps: pair.baseSpreadBps,
      confidenceSpreadBps: Math.max(0, Math.min(confidence, room)),
      sizeSpread: { maxBps: pricing.sizeSpreadMaxBps, halfSizeRaw: pair.maxInputRaw },
      inventorySkew: {
        maxBps: pricing.inventorySkewMaxBps,
        freeShareBps: pricing.inventoryFreeShareBps,
        availableOutputRaw: available,
      },
    };
    try {
      return priceQuote(quote);
    } catch (error) {
      // At a live price, an amount the input side allows can still pay out beyond int64 on the output side.
      if (error instanceof AmountError && error.reason === 'out_of_range') {
        throw new RfqInputError('body.amount', `${error.message}: ask for less`);
      }
      throw error;
    }
  }

  /** One side's price with the bounds its feed sets (a price source given in code: the risk section's age only). */
  private leg(asset: Asset, price: PriceQuote | undefined): PriceLeg {
    const limits = limitsOf(this.deps.config, asset.mint);
    const reading = price ? (price.reading ?? readingOfPrice(price.usd, price.asOf.getTime())) : null;
    return {
      symbol: asset.symbol,
      reading,
      ...(price ? {} : { missing: this.deps.prices.problem?.(asset.mint) ?? 'the price source has none' }),
      asOfMs: price ? price.asOf.getTime() : 0,
      alwaysFresh: price?.alwaysFresh ?? false,
      ...limits,
    };
  }

  private async commit(record: QuoteRecord, reserve: { balanceRaw: bigint; nowMs: number }): Promise<void> {
    try {
      // One instance (SQLite): the book above is every reservation there is; the store need not check.
      const shared = this.deps.store.kind === 'postgres';
      await this.deps.durable.write({ kind: 'insertQuote', quote: record, ...(shared ? { reserve } : {}) });
    } catch (error) {
      // Not stored, so never answered: the reservation goes too.
      this.book.release(record.quoteId);
      throw error;
    }
  }

  private remember(record: QuoteRecord, nowMs: number): void {
    this.open.set(record.quoteId, record);
    for (const [id, oldest] of this.open) {
      if (oldest.expiresAtMs > nowMs) break;
      this.open.delete(id);
    }
  }

  async getQuote(
    quoteId: string,
  ): Promise<
    { quote: AcceptedQuote; state: QuoteState; takerWallet: string; record: QuoteRecord } | undefined
  > {
    // With instances sharing the store, another may have used a quote this one made: its own record of it
    // may say open when the store says used, so the store answers (and the quote's hold moves to its trade).
    const cached = this.open.get(quoteId);
    const record =
      cached !== undefined && this.deps.store.kind !== 'postgres'
        ? cached
        : await this.deps.store.getQuote(quoteId);
    if (!record) return undefined;
    if (cached !== undefined && record.usedByTradeId !== null) this.releaseQuote(quoteId);
    const pair = this.deps.config.pairs.find(
      (p) => p.input.mint === record.inputMint && p.output.mint === record.outputMint,
    );
    if (!pair) return undefined;
    const state: QuoteState =
      record.usedByTradeId !== null ? 'used' : record.expiresAtMs <= this.nowMs() ? 'expired' : 'open';
    return { quote: this.accepted(record, pair), state, takerWallet: record.takerWallet, record };
  }

  /** A used quote's output is held by its trade from now on. */
  releaseQuote(quoteId: string): void {
    this.open.delete(quoteId);
    this.book.release(quoteId);
  }

  private reserveQuote(record: QuoteRecord): void {
    this.book.reserve({
      id: record.quoteId,
      mint: record.outputMint,
      wallet: record.takerWallet,
      raw: record.outputRaw,
      untilMs: record.expiresAtMs,
    });
  }

  private accepted(record: QuoteRecord, pair: Pair): AcceptedQuote {
    return {
      status: 'accepted',
      quoteId: record.quoteId,
      pair,
      inputRaw: record.inputRaw,
      outputRaw: record.outputRaw,
      spreadBps: record.spreadBps,
      expiresAt: new Date(record.expiresAtMs),
      htlcExpiresAt: new Date(record.htlcExpiresAtMs),
      riskChecks: record.riskChecks as RiskCheck[],
      prices: { input: record.inputPrice ?? null, output: record.outputPrice ?? null },
    };
  }

  /**
   * The USD price of the mint as a quote would take it now, or null when a quote could not (no price, or
   * one that is stale, too wide or too far from its EMA): what the maker's last look re-prices with.
   */
  usablePrice(mint: string): Price | null {
    const state = feedStates(this.deps.config, this.deps.prices, this.nowMs()).find(
      (feed) => feed.asset.mint === mint,
    );
    if (state?.status !== 'fresh') return null;
    return this.deps.prices.latest(mint)?.usd ?? null;
  }

  private asset(idOrSymbol: string, field: string): Asset {
    const asset = this.deps.config.assets.find(idOrSymbol);
    if (!asset) throw new RfqInputError(field, `no configured asset matches '${idOrSymbol}'`);
    return asset;
  }
}

const priceText = (price: Price) => `${price.num}/${price.den}`;
