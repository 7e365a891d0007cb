// The quote desk: prices an RFQ, runs the risk checks and, when it passes, records the firm quote and
// reserves its output — in one synchronous step, so concurrent RFQs can never reserve more than the inventory.
import { randomUUID } from 'node:crypto';
import type { SourcingPlan } from '../../machines/trade.types.ts';
import { type AggregatorQuote, floorOut, rawMid, routeSlippageBps } from '../aggregator/index.ts';
import { publicKey } from '../chain/index.ts';
import type { Asset, Pair } from '../config/index.ts';
import { AmountError, dividePrices, type Price, parseAmount } from '../money/index.ts';
import { type QuoteRecord, StoreConflict, timeOrderedUuid } from '../store/index.ts';
import type { RiskCheck } from '../vocabulary/index.ts';
import {
  type AcceptedQuote,
  type DeskSourcing,
  InventoryUnknown,
  type OptionLegTerm,
  type QuoteDeskDeps,
  type QuoteState,
  type RejectedQuote,
  RfqInputError,
  type RfqRequest,
  type SpreadBreakdown,
  type TradeExposure,
} from './desk-api.ts';
import { feedStates, limitsOf } from './feeds.ts';
import { optionTermBps } from './option.ts';
import { confidenceBps, type PriceQuote, readingOfPrice } from './prices.ts';
import { midOutputRaw, type PricedQuote, priceQuote } from './pricing.ts';
import { type Holder, ReservationBook } from './reservations.ts';
import { evaluateRisk, type PriceLeg, type RiskInput, type RiskResult } from './risk.ts';
import { freeInput, sourcedOutput, sourcingCostBps, spreadAgainstMid } from './sourcing.ts';
import { annualised } from './volatility.ts';

/** The route the sourced part was quoted on, or why there is none. */
type Route = { kind: 'quoted'; quote: AggregatorQuote } | { kind: 'none'; problem: string };

/** One synchronous pass over an RFQ: an answer, or (first pass only) the part to quote a route for. */
type Assessed =
  | { kind: 'answer'; answer: AcceptedQuote | RejectedQuote }
  | { kind: 'route'; inputFree: bigint; inputSourced: bigint; mid: Price }
  | {
      kind: 'accept';
      record: QuoteRecord;
      spread: SpreadBreakdown;
      riskPassed: RiskCheck[];
      pair: Pair;
      /** The balance the store checks the quote's output against (PostgreSQL). */
      storeBalanceRaw: bigint;
      holder: Holder;
    };

/** An RFQ as the desk reads it: its pair, its amount in raw units, its expiry and the wallet's live trades. */
type Rfq = {
  request: RfqRequest;
  input: Asset;
  output: Asset;
  pair: Pair;
  inputRaw: bigint;
  expirySeconds: number;
  liveTrades: number;
};

/** The second pass's split: the part of the input the free inventory gives, and the route for the rest. */
type Sourced = { inputFree: bigint; route: Route; final: boolean };

type Budget = NonNullable<RiskInput['budget']>;

/** What the mint's holds hold against a new quote (see `holds`). */
type Holds = { free: bigint; unfunded: bigint; cap: bigint; counted: bigint };

/** The book as one pass reads it (see `position`). */
type Position = {
  now: number;
  inputPrice: PriceQuote | undefined;
  outputPrice: PriceQuote | undefined;
  legs: readonly [PriceLeg, PriceLeg];
  balance: bigint;
  holds: Holds;
  /** The output's balance less what holds count against it. */
  available: bigint;
  holder: Holder;
  budget: Budget;
};

type Priced = PricedQuote & { spread: SpreadBreakdown };

/** A position with both prices: the whole input priced, the room the free inventory leaves, the mid. */
type Whole = Omit<Position, 'inputPrice' | 'outputPrice'> & {
  inputPrice: PriceQuote;
  outputPrice: PriceQuote;
  priced: Priced;
  room: bigint;
  mid: Price;
};

type SellSide = NonNullable<RiskInput['sourcing']>;

/** The sourced part: its spread, its output at the mid, the route's minimum out, what the quote gives for it. */
type SourcedPart = { spreadBps: number; midOutRaw: bigint; minOut: bigint; outRaw: bigint };

/** What an accepted quote says: its output and spread, the checks it passed, its sourcing. */
type Terms = {
  outputRaw: bigint;
  spreadBps: number;
  spread: SpreadBreakdown;
  riskPassed: RiskCheck[];
  sourcing: SourcingPlan | null;
};

export class QuoteDesk {
  private readonly book = new ReservationBook();
  /**
   * Quotes this process issued that no trade has used yet, roughly in expiry order: a settlement start
   * finds its quote here without reading the store. Expired ones are dropped as new quotes come in.
   */
  private readonly open = new Map<string, { record: QuoteRecord; spread: SpreadBreakdown }>();
  private readonly nowMs: () => number;
  private exposure: TradeExposure;
  private sourcing: DeskSourcing | null = null;

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

  /** Just-in-time sourcing, once the aggregator exists (config sourcing.enabled); null: none. */
  setSourcing(sourcing: DeskSourcing | null): void {
    this.sourcing = sourcing;
  }

  get reservations(): ReservationBook {
    return this.book;
  }

  /** The pairs in force now: the control plane's, changed live, or the config's. */
  pairs(): readonly Pair[] {
    return this.deps.live?.livePairs() ?? this.deps.config.pairs;
  }

  /** Why new quotes and settlement starts of the pair are stopped now, or null. */
  pauseOf(pair: Pair): 'desk' | 'pair' | null {
    if (this.deps.live) return this.deps.live.pauseOf(pair.input.mint, pair.output.mint);
    return pair.paused ? 'pair' : null;
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
    // By mint: the control plane's pairs are resolved afresh (their assets are equal, not the same objects).
    const pair = this.pairs().find((p) => p.input.mint === input.mint && p.output.mint === output.mint);
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
    // The pair's own bound: a volatile pair may keep its quotes (its taker's options) shorter.
    const maxExpiry = pair.maxExpirySeconds;
    const expirySeconds = request.expirySeconds ?? Math.min(config.quotes.defaultExpirySeconds, maxExpiry);
    if (!Number.isInteger(expirySeconds) || expirySeconds < 1 || expirySeconds > maxExpiry) {
      const whose = maxExpiry < config.quotes.maxExpirySeconds ? ` for ${input.symbol}→${output.symbol}` : '';
      throw new RfqInputError('body.expiry_seconds', `must be an integer 1..${maxExpiry}${whose}`);
    }

    const liveTrades = await this.exposure.liveTradesOf(request.takerWallet);
    const rfq = { request, input, output, pair, inputRaw, expirySeconds, liveTrades };
    let assessed = this.assess(rfq, null);
    // The free inventory does not cover the output: the rest is quoted on the aggregator (an await, so the
    // book is read again after it, and the free part checked again against it). Should the free part no
    // longer fit then (other quotes or trades took inventory meanwhile), the split is made again and the
    // rest quoted again, a few times at most.
    for (let attempt = 1; assessed.kind === 'route'; attempt++) {
      const route = await this.route(input, output, assessed.inputSourced, assessed.mid);
      assessed = this.assess(rfq, { inputFree: assessed.inputFree, route, final: attempt >= SPLIT_ATTEMPTS });
    }
    if (assessed.kind === 'answer') return assessed.answer;
    const { record, spread, riskPassed, storeBalanceRaw, holder } = assessed;
    // Reserved in the same synchronous step as the check above; durable before it is answered. With
    // several instances the store checks again, against every instance's reservations, as it inserts: it
    // counts every hold in full, so the unfunded holds beyond their budget (which hold nothing here) are
    // added to the balance it checks against, and the store's check is this desk's.
    this.reserveQuote(record, holder);
    try {
      await this.commit(record, { balanceRaw: storeBalanceRaw, nowMs: this.nowMs() });
    } catch (error) {
      if (!(error instanceof StoreConflict && error.conflict === 'inventory')) throw error;
      const passed = riskPassed.filter((check) => check !== 'inventory');
      return {
        status: 'rejected',
        rejectionId: randomUUID(),
        pair,
        inputRaw,
        reasons: [{ check: 'inventory', message: `${error.message} (across every instance)` }],
        riskChecks: passed,
      };
    }
    this.remember(record, spread, this.nowMs());
    return this.accepted(record, pair, spread);
  }

  /**
   * Prices, checks and (when it passes) makes the quote's record, synchronously from the book as it is now.
   * `sourced` null: the first pass, which asks for a route when the output exceeds what the free inventory
   * and the holder's budget allow and sourcing could supply the rest; given: the second, with that route.
   */
  private assess(rfq: Rfq, sourced: Sourced | null): Assessed {
    const position = this.position(rfq);
    const whole = this.pricedWhole(rfq, position);
    if (whole === null) return rejected(rfq, this.risk(rfq, position, null));
    return sourced === null ? this.fromInventory(rfq, whole) : this.withRoute(rfq, whole, sourced);
  }

  /**
   * The book as this pass reads it: both prices (and the bounds their feeds set), the output's balance and
   * what holds count against it, and the holder's budgets. Expired holds go first.
   */
  private position(rfq: Rfq): Position {
    const { request, input, output } = rfq;
    const now = this.nowMs();
    this.book.expire(now);
    const inputPrice = this.deps.prices.latest(input.mint);
    const outputPrice = this.deps.prices.latest(output.mint);
    const legs = [this.leg(input, inputPrice), this.leg(output, outputPrice)] as const;
    const balance = this.deps.inventory.balance(output.mint);
    if (balance === undefined) throw new InventoryUnknown(output.symbol);
    const holds = this.holds(output.mint, balance);
    const available = balance > holds.counted ? balance - holds.counted : 0n;
    const holder: Holder = { client: request.client ?? null, wallet: request.takerWallet };
    const budget = this.budget(holder, output.mint, holds.free);
    return { now, inputPrice, outputPrice, legs, balance, holds, available, holder, budget };
  }

  /** What the holder's client address and wallet hold of the mint, and their shares of the free inventory. */
  private budget(holder: Holder, mint: string, free: bigint): Budget {
    const { reservations } = this.deps.config;
    return {
      client:
        holder.client === null
          ? null
          : {
              address: holder.client,
              heldRaw: this.book.heldByClient(holder.client, mint),
              maxRaw: share(free, reservations.clientShareBps),
            },
      wallet: {
        heldRaw: this.book.heldByWallet(holder.wallet, mint),
        maxRaw: share(free, reservations.walletShareBps),
      },
    };
  }

  /**
   * The whole input priced against the free inventory, with what the free inventory may give this quote;
   * null without a usable price on either side (nothing to price: price_freshness says why).
   */
  private pricedWhole(rfq: Rfq, position: Position): Whole | null {
    const { inputPrice, outputPrice, legs, available, budget } = position;
    if (!inputPrice || !outputPrice) return null;
    const priced = this.priced(rfq.pair, rfq.inputRaw, inputPrice, outputPrice, legs, available);
    // What the free inventory may give this quote: what is available, within the holder's budgets.
    const room = [
      available,
      roomOf(budget.wallet),
      ...(budget.client === null ? [] : [roomOf(budget.client)]),
    ].reduce(minRaw);
    const mid = dividePrices(inputPrice.usd, outputPrice.usd);
    return { ...position, inputPrice, outputPrice, priced, room, mid };
  }

  /** The risk checks of the quote at this output (null: not priced), and of its sourced part when given. */
  private risk(
    rfq: Rfq,
    position: Position,
    outputRaw: bigint | null,
    sourcing?: RiskInput['sourcing'],
  ): RiskResult {
    const { config } = this.deps;
    const { request, input, output, pair, inputRaw, liveTrades } = rfq;
    return evaluateRisk({
      nowMs: position.now,
      pair: {
        input,
        output,
        paused: pair.paused,
        ...(pair.paused ? { pausedBy: this.pauseOf(pair) ?? 'pair' } : {}),
        minInputRaw: pair.minInputRaw,
        maxInputRaw: pair.maxInputRaw,
        minNotionalMicroUsd: config.risk.minNotionalMicroUsd,
        maxNotionalMicroUsd: config.risk.maxNotionalMicroUsd,
      },
      inputRaw,
      inputUsdPrice: position.inputPrice?.usd ?? null,
      outputRaw,
      prices: position.legs,
      inventory: {
        balanceRaw: position.balance,
        reservedRaw: position.holds.counted,
        unfunded: { heldRaw: position.holds.unfunded, capRaw: position.holds.cap },
      },
      budget: position.budget,
      ...(sourcing ? { sourcing } : {}),
      wallet: {
        address: request.takerWallet,
        openQuotes: this.book.countFor(request.takerWallet),
        liveTrades,
        maxOpen: config.risk.maxOpenPerWallet,
      },
    });
  }

  /**
   * First pass: the whole output from the free inventory. When only the inventory (or the holder's share of
   * it) stands in the way and sourcing is on, the rest may be sourced: the split, and a route asked for.
   */
  private fromInventory(rfq: Rfq, whole: Whole): Assessed {
    const { priced } = whole;
    const risk = this.risk(rfq, whole, priced.outputRaw);
    if (risk.failed.length === 0) {
      return this.accept(rfq, whole, {
        outputRaw: priced.outputRaw,
        spreadBps: priced.spreadBps,
        spread: priced.spread,
        riskPassed: risk.passed,
        sourcing: null,
      });
    }
    const onlyInventory = risk.failed.every(
      (f) => f.check === 'inventory' || f.check === 'reservation_budget',
    );
    if (this.sourcing === null || !onlyInventory) return rejected(rfq, risk);
    return this.split(rfq, whole);
  }

  /** The part of the input the free inventory's room takes, and the rest to quote a route for. */
  private split(rfq: Rfq, whole: Whole): Assessed {
    const { inputPrice, outputPrice, legs, available, room, mid } = whole;
    const inputFree = this.freePart(rfq.pair, rfq.inputRaw, inputPrice, outputPrice, legs, available, room);
    return { kind: 'route', inputFree, inputSourced: rfq.inputRaw - inputFree, mid };
  }

  /**
   * Second pass: the free part from the inventory, the rest bought on the route quoted for it. Split again
   * when the free part no longer fits (and this is not the last attempt); refused when the route, the room
   * or the maker's own input falls short, or a risk check fails.
   */
  private withRoute(rfq: Rfq, whole: Whole, sourced: Sourced): Assessed {
    const { input, output, pair, inputRaw } = rfq;
    const { inputFree, route } = sourced;
    const inputSourced = inputRaw - inputFree;
    const free = this.priced(
      pair,
      inputFree,
      whole.inputPrice,
      whole.outputPrice,
      whole.legs,
      whole.available,
    );
    const sourcing = this.sellSide(input, inputSourced, route);
    const part = this.sourcedPart(rfq, whole, inputSourced, route);
    if (route.kind === 'quoted' && part.outRaw <= 0n) {
      sourcing.routeProblem = `the route's minimum out ${part.minOut} leaves nothing after the spread`;
    }
    // The free part may have shrunk while the route was quoted (other quotes took inventory): then it is
    // over the room, and the inventory check says so.
    const freeFits = free.outputRaw <= whole.room;
    if (!freeFits && sourcing.routeProblem === null && !sourced.final) return this.split(rfq, whole);
    if (sourcing.routeProblem !== null || !freeFits || sourcing.sellRaw > sourcing.sellAvailableRaw) {
      const outputRaw = sourcing.routeProblem !== null ? whole.priced.outputRaw : free.outputRaw;
      return rejected(rfq, this.risk(rfq, whole, outputRaw, sourcing));
    }
    const risk = this.risk(rfq, whole, free.outputRaw, sourcing);
    if (risk.failed.length > 0) return rejected(rfq, risk);
    return this.accept(rfq, whole, {
      ...blended(rfq, whole.mid, free, part),
      riskPassed: risk.passed,
      sourcing: {
        sellMint: input.mint,
        sellRaw: inputSourced.toString(),
        buyMint: output.mint,
        minBuyRaw: part.outRaw.toString(),
      },
    });
  }

  /** What sourcing sells of the maker's own input, what of it is not held, and the route's problem if any. */
  private sellSide(input: Asset, sellRaw: bigint, route: Route): SellSide {
    const inputBalance = this.deps.inventory.balance(input.mint) ?? 0n;
    const inputHeld = this.holds(input.mint, inputBalance).counted;
    return {
      sellRaw,
      sellAvailableRaw: inputBalance > inputHeld ? inputBalance - inputHeld : 0n,
      routeProblem: route.kind === 'none' ? route.problem : null,
    };
  }

  /**
   * The sourced part's output: the route's minimum out, less the spread the whole order would pay without
   * the inventory skew (it takes nothing from the inventory): the base, confidence, option and size terms.
   */
  private sourcedPart(rfq: Rfq, whole: Whole, inputSourced: bigint, route: Route): SourcedPart {
    const { input, output, pair, inputRaw } = rfq;
    const spreadBps = this.priced(
      pair,
      inputRaw,
      whole.inputPrice,
      whole.outputPrice,
      whole.legs,
      null,
    ).spreadBps;
    const midOutRaw = midOutputRaw(inputSourced, input.decimals, output.decimals, whole.mid);
    const minOut = route.kind === 'quoted' ? route.quote.minOut : 0n;
    return { spreadBps, midOutRaw, minOut, outRaw: sourcedOutput(minOut, midOutRaw, spreadBps) };
  }

  /** The accepted answer: the quote's record, and the balance the store checks its output against. */
  private accept(rfq: Rfq, whole: Whole, terms: Terms): Assessed {
    const { config, runId } = this.deps;
    const { request, input, output, pair, inputRaw, expirySeconds } = rfq;
    const { now, legs, balance, holds, holder } = whole;
    const expiresAtMs = now + expirySeconds * 1000;
    const record: QuoteRecord = {
      quoteId: timeOrderedUuid(),
      runId,
      takerWallet: request.takerWallet,
      inputMint: input.mint,
      outputMint: output.mint,
      inputRaw,
      outputRaw: terms.outputRaw,
      spreadBps: terms.spreadBps,
      inputUsd: priceText(whole.inputPrice.usd),
      outputUsd: priceText(whole.outputPrice.usd),
      inputPrice: legs[0].reading,
      outputPrice: legs[1].reading,
      createdAt: new Date(now).toISOString(),
      expiresAtMs,
      htlcExpiresAtMs: expiresAtMs + config.settlement.takerTimelockSeconds * 1000,
      riskChecks: terms.riskPassed,
      usedByTradeId: null,
      sourcing: terms.sourcing,
    };
    // The store (PostgreSQL) counts the quote's whole output against the balance; the sourced part comes
    // from the aggregator, not from the balance.
    const sourcedRaw = terms.sourcing === null ? 0n : BigInt(terms.sourcing.minBuyRaw);
    return {
      kind: 'accept',
      record,
      spread: terms.spread,
      riskPassed: terms.riskPassed,
      pair,
      storeBalanceRaw: balance + (holds.unfunded - holds.cap) + sourcedRaw,
      holder,
    };
  }

  /** The largest part of the input whose output, priced as every quote is, fits in `room`. */
  private freePart(
    pair: Pair,
    inputRaw: bigint,
    inputPrice: PriceQuote,
    outputPrice: PriceQuote,
    legs: readonly PriceLeg[],
    available: bigint,
    room: bigint,
  ): bigint {
    return freeInput(
      inputRaw,
      room,
      (x) => this.priced(pair, x, inputPrice, outputPrice, legs, available).outputRaw,
    );
  }

  /**
   * The aggregator's route for the sourced part: exact in, at sourcing.max_slippage_bps, its minimum out
   * checked against the live mid by the port. Any refusal or failure is the answer's problem, never a throw.
   */
  private async route(input: Asset, output: Asset, amountRaw: bigint, mid: Price): Promise<Route> {
    const sourcing = this.sourcing;
    if (sourcing === null) return { kind: 'none', problem: 'sourcing is off' };
    if (amountRaw <= 0n) return { kind: 'none', problem: 'nothing to source' };
    const request = {
      inputMint: publicKey(input.mint),
      outputMint: publicKey(output.mint),
      amountRaw,
      referenceMid: rawMid(mid, input.decimals, output.decimals),
    };
    try {
      // The route's own price first, then the slippage that keeps its minimum out at or above the mid less
      // sourcing.max_slippage_bps (as a hedge is asked): the tolerance follows the route, the bound is the mid.
      const probe = await sourcing.aggregator.quote({ ...request, slippageBps: 0 });
      const floor = floorOut(amountRaw, request.referenceMid, sourcing.maxSlippageBps);
      const slippageBps = routeSlippageBps(probe.outAmount, floor, sourcing.aggregatorMaxSlippageBps);
      if (slippageBps === null) {
        return {
          kind: 'none',
          problem: `the route pays ${probe.outAmount} raw for ${amountRaw}, below ${floor}: the mid less ${sourcing.maxSlippageBps} bps`,
        };
      }
      const quote = slippageBps === 0 ? probe : await sourcing.aggregator.quote({ ...request, slippageBps });
      return { kind: 'quoted', quote };
    } catch (error) {
      return { kind: 'none', problem: (error as Error).message };
    }
  }

  /** What holds count against the maker's balance of the mint now (the inventory check's reserved). */
  heldAgainst(mint: string, balance: bigint): bigint {
    this.book.expire(this.nowMs());
    return this.holds(mint, balance).counted;
  }

  /**
   * What the mint's holds hold against a new quote: funded holds in full, unfunded ones up to their budget
   * (unfunded_share_bps of the free inventory: the balance minus funded holds). Unfunded holds beyond the
   * budget hold nothing more; the quotes behind them are served at lock time from what is there then.
   */
  private holds(mint: string, balance: bigint) {
    const unfunded = this.book.unfunded(mint);
    const funded = this.book.reserved(mint) - unfunded;
    const free = balance > funded ? balance - funded : 0n;
    const budget = share(free, this.deps.config.reservations.unfundedShareBps);
    const cap = minRaw(unfunded, budget);
    return { free, unfunded, cap, counted: funded + cap };
  }

  /**
   * output = input × mid × (1 − σ), the mid from the two USD prices; σ includes the confidence and option
   * terms. With the breakdown of spread_bps the quote shows.
   */
  private priced(
    pair: Pair,
    inputRaw: bigint,
    inputPrice: PriceQuote,
    outputPrice: PriceQuote,
    legs: readonly PriceLeg[],
    /** null: no inventory skew (a sourced part takes nothing from the inventory). */
    available: bigint | null,
  ): Priced {
    const { pricing } = this.deps.config;
    const mid: Price = dividePrices(inputPrice.usd, outputPrice.usd);
    // The confidence and option terms never take more than the room the other terms leave below 10000.
    const room = 10_000 - pair.baseSpreadBps - pricing.sizeSpreadMaxBps - pricing.inventorySkewMaxBps;
    const confidenceSpreadBps = confidenceTermBps(legs, room);
    const { option, optionSpreadBps } = this.optionTerm(pair, room - confidenceSpreadBps);
    const quote = {
      inputRaw,
      inputDecimals: pair.input.decimals,
      outputDecimals: pair.output.decimals,
      mid,
      baseSpreadBps: pair.baseSpreadBps,
      confidenceSpreadBps,
      optionSpreadBps,
      sizeSpread: { maxBps: pricing.sizeSpreadMaxBps, halfSizeRaw: pair.maxInputRaw },
      ...(available === null
        ? {}
        : {
            inventorySkew: {
              maxBps: pricing.inventorySkewMaxBps,
              freeShareBps: pricing.inventoryFreeShareBps,
              availableOutputRaw: available,
            },
          }),
    };
    try {
      const priced = priceQuote(quote);
      const whole = pair.baseSpreadBps + confidenceSpreadBps + optionSpreadBps;
      return {
        ...priced,
        spread: {
          baseBps: pair.baseSpreadBps,
          confidenceBps: confidenceSpreadBps,
          optionBps: optionSpreadBps,
          sizeAndSkewBps: priced.spreadBps - whole,
          option,
        },
      };
    } catch (error) {
      // At a live price, an amount the input side allows can still pay out beyond int64 on the output side.
      if (error instanceof AmountError && error.reason === 'out_of_range') {
        throw new RfqInputError('body.amount', `${error.message}: ask for less`);
      }
      throw error;
    }
  }

  /**
   * The taker's option lasts from settlement start to the maker's expiry: the lock window, then the pair's
   * maker timelock. Each leg prices it with its own volatility (option.ts says why); together at most `room`.
   */
  private optionTerm(
    pair: Pair,
    room: number,
  ): { option: SpreadBreakdown['option']; optionSpreadBps: number } {
    const { pricing, settlement } = this.deps.config;
    if (!(pricing.option.k > 0)) return { option: null, optionSpreadBps: 0 };
    const windowSeconds = settlement.lockWindowSeconds + pair.makerTimelockSeconds;
    const term = (asset: Asset): OptionLegTerm => {
      const sigma = this.deps.prices.volatility?.(asset.mint);
      const bps = optionTermBps({
        sigmaPerSqrtSecond: sigma ?? 0,
        windowSeconds,
        k: pricing.option.k,
        maxBps: pricing.option.maxBps,
      });
      return {
        symbol: asset.symbol,
        volatilityAnnual: sigma === undefined ? null : annualised(sigma),
        bps,
      };
    };
    const option = { windowSeconds, input: term(pair.input), output: term(pair.output) };
    return { option, optionSpreadBps: Math.min(option.input.bps + option.output.bps, room) };
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
      this.book.release(sourcingHold(record.quoteId));
      throw error;
    }
  }

  private remember(record: QuoteRecord, spread: SpreadBreakdown, nowMs: number): void {
    this.open.set(record.quoteId, { record, spread });
    for (const [id, oldest] of this.open) {
      if (oldest.record.expiresAtMs > nowMs) break;
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
        ? cached.record
        : await this.deps.store.getQuote(quoteId);
    if (!record) return undefined;
    if (cached !== undefined && record.usedByTradeId !== null) this.releaseQuote(quoteId);
    const pair = this.pairs().find(
      (p) => p.input.mint === record.inputMint && p.output.mint === record.outputMint,
    );
    if (!pair) return undefined;
    const state: QuoteState =
      record.usedByTradeId !== null ? 'used' : record.expiresAtMs <= this.nowMs() ? 'expired' : 'open';
    return {
      quote: this.accepted(record, pair, cached?.spread),
      state,
      takerWallet: record.takerWallet,
      record,
    };
  }

  /**
   * A settlement starts from the quote as trade `tradeId`: until its taker lock lands, the trade's hold counts
   * against the quote's holder (client address and wallet), as the quote did. Called before the trade's hold
   * is first taken; the book forgets it when the trade's hold is released.
   */
  handOver(quoteId: string, tradeId: string, takerWallet: string): void {
    this.book.attribute(tradeId, this.book.holderOf(quoteId) ?? { client: null, wallet: takerWallet });
  }

  /** A used quote's output is held by its trade from now on. */
  releaseQuote(quoteId: string): void {
    this.open.delete(quoteId);
    this.book.release(quoteId);
    this.book.release(sourcingHold(quoteId));
  }

  /** An open quote is an unfunded hold until it expires or a settlement uses it. */
  private reserveQuote(record: QuoteRecord, holder?: Holder): void {
    const sourcing = record.sourcing ?? null;
    this.book.reserve({
      id: record.quoteId,
      mint: record.outputMint,
      wallet: record.takerWallet,
      // The sourced part comes from the aggregator: the quote holds only what its inventory gives.
      raw: record.outputRaw - (sourcing === null ? 0n : BigInt(sourcing.minBuyRaw)),
      untilMs: record.expiresAtMs,
      unfunded: true,
      // A quote reloaded at start: its client address was not stored.
      holder: holder ?? { client: null, wallet: record.takerWallet },
    });
    // And what the maker sells of its own input to source the rest, for as long.
    if (sourcing !== null) {
      this.book.reserve({
        id: sourcingHold(record.quoteId),
        mint: sourcing.sellMint,
        wallet: null,
        raw: BigInt(sourcing.sellRaw),
        untilMs: record.expiresAtMs,
      });
    }
  }

  private accepted(record: QuoteRecord, pair: Pair, spread?: SpreadBreakdown): AcceptedQuote {
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
      ...(spread ? { spread } : {}),
      sourcing: record.sourcing ?? null,
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

const minRaw = (a: bigint, b: bigint) => (a < b ? a : b);

/** bps of an amount, floored. */
const share = (raw: bigint, bps: number) => (raw * BigInt(bps)) / 10_000n;

/** How many times a sourced quote's split is made (and its rest quoted) before the RFQ is refused. */
const SPLIT_ATTEMPTS = 3;

/** The book's id of what a sourced quote holds of the maker's input. */
const sourcingHold = (quoteId: string) => `${quoteId}#sourcing`;

/** What a holder's budget leaves for one more hold (never below zero). */
const roomOf = (b: { heldRaw: bigint; maxRaw: bigint }) => (b.maxRaw > b.heldRaw ? b.maxRaw - b.heldRaw : 0n);

/** The refusal: the checks that failed, and those that passed. */
const rejected = (rfq: Rfq, risk: RiskResult): Assessed => ({
  kind: 'answer',
  answer: {
    status: 'rejected',
    rejectionId: randomUUID(),
    pair: rfq.pair,
    inputRaw: rfq.inputRaw,
    reasons: risk.failed,
    riskChecks: risk.passed,
  },
});

/**
 * A sourced quote's output and spread: the free and the sourced parts' outputs together, the spread against
 * the whole order's mid, and the sourcing's cost shown apart from the size and skew term.
 */
function blended(rfq: Rfq, mid: Price, free: Priced, part: SourcedPart) {
  const { input, output, inputRaw } = rfq;
  const outputRaw = free.outputRaw + part.outRaw;
  const whole = rawMid(mid, input.decimals, output.decimals);
  const quotedSpread = spreadAgainstMid(inputRaw, outputRaw, whole);
  const constant = free.spread.baseBps + free.spread.confidenceBps + free.spread.optionBps;
  const sourcingBps = Math.max(
    0,
    Math.min(
      sourcingCostBps(
        midOutputRaw(inputRaw, input.decimals, output.decimals, mid),
        part.midOutRaw,
        part.minOut,
        part.spreadBps,
      ),
      quotedSpread - constant,
    ),
  );
  return {
    outputRaw,
    spreadBps: quotedSpread,
    spread: {
      ...free.spread,
      sizeAndSkewBps: Math.max(0, quotedSpread - constant - sourcingBps),
      sourcingBps,
    },
  };
}

/**
 * The confidence term: each leg adds ⌈conf/price⌉ bps, at most its max_confidence_bps (a wider price is refused
 * by price_confidence anyway); together within `room`.
 */
function confidenceTermBps(legs: readonly PriceLeg[], room: number): number {
  let confidence = 0;
  for (const leg of legs) {
    if (leg.reading === null) continue;
    const bps = Number(confidenceBps(leg.reading) > 10_000n ? 10_000n : confidenceBps(leg.reading));
    confidence += leg.maxConfidenceBps === null ? bps : Math.min(bps, leg.maxConfidenceBps);
  }
  return Math.max(0, Math.min(confidence, room));
}
