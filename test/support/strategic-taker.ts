// A strategic taker against the real service on the embedded chain, with a SOL price that moves as a random
// walk at a realistic volatility (and now and then jumps). In each run the taker quotes both directions of
// SOL/USDC for the same size, starts both settlements and locks; once the maker has locked it holds its
// option as long as it safely can — to just before the trade's redeem_by — and then reveals its secret only
// on the trade whose mid moved its way since the quote, walking away from the other and leaving both escrows
// to refund at their expiries. Chain time is warped, never slept: the clock moves in steps of STEP_SECONDS,
// each step one publish of the embedded Pyth publisher and one refresh of the service's prices (so the
// service's volatility estimate follows the walk as it would in production). The chains' clock does not
// follow wall time (CHAIN_WALL_MS): however slow the machine, both markets see the same chain times.
//
// The maker's result of each trade is read from the service's ledger (GET /v1/runtime/ledger, the operator's
// view) and valued at the mid at the end of the trade — when the taker decided — with the ledger's own
// netUsdcEstimate: a redeemed trade counts what the maker gave up to the move, not only the spread it quoted.
import { type EmbeddedChain, isEmbeddedChain } from '../../src/chain/index.ts';
import { type Config, resolveConfig } from '../../src/config/index.ts';
import { type AssetPricing, type LedgerEntry, netUsdcEstimate } from '../../src/ledger/index.ts';
import { dividePrices, type Price, parseRatio } from '../../src/money/index.ts';
import { PythPriceSource } from '../../src/quotes/index.ts';
import { createService } from '../../src/service.ts';
import { SOL_MINT, USDC_MINT } from './mints.ts';
import {
  defaultConfigDocument,
  shippedPriceSource,
  type TestService,
  tempDir,
  testStore,
} from './service.ts';
import { newSecret, type Secret, Taker } from './taker.ts';

/** Chain seconds between two publishes of the walk. */
export const STEP_SECONDS = 4;

/**
 * The publisher's step is a uniform draw of ±stepBps (in millionths), so its standard deviation is
 * stepBps / √3 per step: σ per √second = stepBps · 10⁻⁴ / √(3 · STEP_SECONDS). 5 bps every 4 s is SOL at
 * ~81 % a year, the order of its realised volatility.
 */
export const SOL_STEP_BPS = 5;

/**
 * The chains' wall clock, fixed and the same for both markets: their time moves only when a step warps it, so
 * a run is a function of its seeds. A clock that followed wall time moved each chain by however long the
 * machine took meanwhile: on a loaded one a market held a step more before redeem_by than its twin, and
 * their walks — and every trade after — parted.
 */
const CHAIN_WALL_MS = Date.now();

/** Chain seconds an unsigned lock's blockhash surely stays valid (150 slots of 400 ms, with room). */
const LOCK_BLOCKHASH_SECONDS = 40;
export const annualVolatility = (stepBps: number): number =>
  ((stepBps / 10_000) * Math.sqrt(31_557_600)) / Math.sqrt(3 * STEP_SECONDS);

export interface MarketOptions {
  /** pricing.option.k: 0.4 is the default; 0 switches the option term off. */
  optionK: number;
  /** risk.maker_lock_price_tolerance_bps: 50 is the default; 10000 switches the maker's last look off. */
  lastLookToleranceBps: number;
  /** The walk's seed. */
  publisherSeed: number;
}

/** One run of the taker: a size, traded both ways, and what the market does before the taker locks. */
export interface Scenario {
  /** SOL sold by one taker, in tenths; the other buys SOL with the same USD notional of USDC. */
  solTenths: number;
  /**
   * Walk steps between the quotes and the settlement starts; when positive the taker asks for the longest
   * quote lifetime (quotes.max_expiry_seconds) — a patient taker, whose option starts at the quote.
   */
  quoteWaitSteps: number;
  /** Walk steps between the settlement starts and the taker's locks (within the lock window). */
  lockDelaySteps: number;
  /** A jump of SOL, in bps, right after the settlement starts (0: none): news while the taker waits. */
  jumpBps: number;
}

export type Direction = 'SOL->USDC' | 'USDC->SOL';
export type Ending = 'redeemed' | 'walked_away' | 'declined';

export interface TradeResult {
  direction: Direction;
  ending: Ending;
  spreadBps: number;
  optionBps: number;
  /** The SOL leg's volatility estimate the quote was priced with, annualised (null: none). */
  volatilityAnnual: number | null;
  /** How far the mid moved since the quote when the taker decided, bps of the quoted mid; + = its way. */
  movedBps: number;
  /** The trade's input at the quote's prices, micro-USD. */
  notionalMicroUsd: bigint;
  /** The maker's result from the ledger, at the mid when the taker decided, micro-USDC. */
  pnlMicroUsdc: bigint;
  /** The operator's own figure: ledger_summary.net_usdc_estimate, at the quote's prices, micro-USDC. */
  estimateAtQuoteMicroUsdc: bigint;
}

type Json = ReturnType<typeof JSON.parse>;

interface OpenTrade {
  taker: Taker;
  secret: Secret;
  tradeId: string;
  direction: Direction;
  quote: Json;
  lockTransaction: string;
  /** input USD / output USD as the quote recorded them. */
  quotedMid: Price;
  notionalMicroUsd: bigint;
  ending: Ending;
  valuation: Map<string, AssetPricing>;
  usdcUsd: Price;
  movedBps: number;
}

/** A decimal string with up to 6 fraction digits, in millionths. */
export function micro(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return negative ? -value : value;
}

/** Polls the trade until `done` holds; the runtime acts on its own timer. */
async function until(taker: Taker, tradeId: string, done: (t: Json) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const trade = await taker.trade(tradeId);
    if (done(trade)) return trade;
    if (Date.now() > deadline) throw new Error(`timed out; trade is ${JSON.stringify(trade)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export class StrategicMarket {
  private readonly trades: OpenTrade[] = [];
  /** SOL log returns seen between publishes, for the realised volatility. */
  private squaredReturns = 0;
  private returnSeconds = 0;
  /** The SOL publish the last step saw (a jump between steps counts in the next step's return). */
  private lastSeen: { price: bigint; publishTime: bigint } | null = null;

  private constructor(
    readonly svc: TestService,
    readonly config: Config,
    private readonly chain: EmbeddedChain,
    private readonly prices: PythPriceSource,
  ) {}

  static async start(options: MarketOptions): Promise<StrategicMarket> {
    const doc = defaultConfigDocument();
    // The shipped Pyth feeds; the test moves the walk and refreshes the service's prices itself.
    doc.price_source = {
      ...shippedPriceSource(),
      refresh_interval_ms: 60_000,
      embedded_publisher: { seed: options.publisherSeed, interval_ms: 0 },
    };
    doc.risk.maker_lock_price_tolerance_bps = options.lastLookToleranceBps;
    doc.risk.max_open_per_wallet = 100;
    const pricing = doc.pricing as Record<string, unknown>;
    doc.pricing = { ...pricing, option: { ...(pricing.option as object), k: options.optionK } };
    doc.http = { ...doc.http, rate_limit_per_minute: 1_000_000 };
    const config = resolveConfig(doc);
    const dir = tempDir('rfq-strategic-');
    const service = await createService({
      dataDir: dir.path,
      config,
      chainClock: () => CHAIN_WALL_MS,
      pollIntervalMs: 25,
      lockWaitMs: 1_500,
      ...(await testStore(dir.path)),
    });
    const svc: TestService = Object.assign(service, {
      dataDir: dir.path,
      async dispose() {
        await service.close();
        dir.remove();
      },
    });
    const { chain, prices } = svc;
    if (!isEmbeddedChain(chain) || !chain.pyth)
      throw new Error('expected the embedded chain with its publisher');
    if (!(prices instanceof PythPriceSource)) throw new Error('expected the Pyth price source');
    chain.pyth.volatility('SOL', SOL_STEP_BPS);
    return new StrategicMarket(svc, config, chain, prices);
  }

  dispose(): Promise<void> {
    return this.svc.dispose();
  }

  /** One step of the walk: the clock moves STEP_SECONDS, every feed publishes, the service reads them. */
  async step(): Promise<void> {
    const pyth = this.chain.pyth;
    if (!pyth) throw new Error('no publisher');
    await this.chain.advanceClock(STEP_SECONDS);
    pyth.publishNow();
    const now = pyth.latest('SOL');
    if (this.lastSeen && now) {
      const r = Math.log(Number(now.price) / Number(this.lastSeen.price));
      this.squaredReturns += r * r;
      this.returnSeconds += Number(now.publishTime - this.lastSeen.publishTime);
    }
    this.lastSeen = now;
    await this.prices.refresh();
  }

  async steps(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.step();
  }

  /** The walk's own volatility over the steps since the last reset (jumps included), annualised. */
  get realisedVolatilityAnnual(): number {
    return Math.sqrt((this.squaredReturns / this.returnSeconds) * 31_557_600);
  }

  resetRealisedVolatility(): void {
    this.squaredReturns = 0;
    this.returnSeconds = 0;
  }

  private usd(mint: string): Price {
    const quote = this.prices.latest(mint);
    if (!quote) throw new Error(`no price for ${mint}`);
    return quote.usd;
  }

  /** Chain time now, as the latest publish says (every step publishes). */
  private chainNow(): number {
    const latest = this.chain.pyth?.latest('SOL');
    if (!latest) throw new Error('no SOL publish yet');
    return Number(latest.publishTime);
  }

  /**
   * A fresh taker, funded, with an accepted quote; `expirySeconds`: the lifetime it asks for (default: the
   * service's).
   */
  private async quote(direction: Direction, sol: string, usdc: string, expirySeconds?: number) {
    const [input, output, amount] = direction === 'SOL->USDC' ? ['SOL', 'USDC', sol] : ['USDC', 'SOL', usdc];
    const taker = new Taker(this.svc.app);
    // SOL for the fees (and the input when it is SOL); USDC when it sells USDC.
    await taker.airdrop('SOL', input === 'SOL' ? String(Number(sol) + 1) : '1');
    if (input === 'USDC') await taker.airdrop('USDC', usdc);
    const res = await taker.post('/v1/rfq', {
      input_asset: input,
      output_asset: output,
      amount,
      taker_wallet: taker.address,
      ...(expirySeconds === undefined ? {} : { expiry_seconds: expirySeconds }),
    });
    const quote = res.json();
    if (quote.status !== 'accepted') throw new Error(`quote: ${res.body}`);
    const stored = await this.svc.store.getQuote(quote.quote_id);
    if (!stored) throw new Error('the quote is not stored');
    const inputUsd = parseRatio(stored.inputUsd);
    const decimals = input === 'SOL' ? 9n : 6n;
    return {
      taker,
      direction,
      quote,
      quotedMid: dividePrices(inputUsd, parseRatio(stored.outputUsd)),
      notionalMicroUsd:
        (BigInt(quote.input.amount_raw) * inputUsd.num * 1_000_000n) / (inputUsd.den * 10n ** decimals),
    };
  }

  /** The settlement start of a quote: the taker's trade up to its unsigned lock. */
  private async settle(quoted: Awaited<ReturnType<StrategicMarket['quote']>>): Promise<OpenTrade> {
    const secret = newSecret();
    const settled = await quoted.taker.settle(quoted.quote.quote_id, secret);
    if (settled.statusCode !== 201) throw new Error(`settlement: ${settled.statusCode} ${settled.body}`);
    const settlement = settled.json();
    return {
      ...quoted,
      secret,
      tradeId: settlement.trade_id,
      lockTransaction: settlement.taker_lock_transaction.transaction_base64,
      ending: 'walked_away',
      valuation: new Map(),
      usdcUsd: { num: 1n, den: 1n },
      movedBps: 0,
    };
  }

  /**
   * One scenario: both directions quoted and settled, the market moves (and maybe jumps) while the taker
   * waits to lock, the maker locks or declines; the option is held to one step before redeem_by, then used.
   */
  async run(scenario: Scenario): Promise<void> {
    const solUsd = this.usd(SOL_MINT);
    const sol = (scenario.solTenths / 10).toFixed(1);
    const usdc = ((BigInt(scenario.solTenths) * solUsd.num) / (10n * solUsd.den)).toString();
    const patient = scenario.quoteWaitSteps > 0;
    const expiry = patient ? this.config.quotes.maxExpirySeconds : undefined;
    const quoted = await Promise.all(
      (['SOL->USDC', 'USDC->SOL'] as const).map((direction) => this.quote(direction, sol, usdc, expiry)),
    );
    await this.steps(scenario.quoteWaitSteps);
    const opened = await Promise.all(quoted.map((q) => this.settle(q)));
    if (scenario.jumpBps !== 0) this.chain.pyth?.jump('SOL', scenario.jumpBps);
    await this.steps(scenario.lockDelaySteps);
    await Promise.all(
      opened.map(async (trade) => {
        // A wallet that signs late asks for the lock again (same wallet and hash): its blockhash is fresh.
        if (scenario.lockDelaySteps * STEP_SECONDS > LOCK_BLOCKHASH_SECONDS) {
          const again = await trade.taker.settle(trade.quote.quote_id, trade.secret);
          if (again.statusCode !== 200)
            throw new Error(`settlement again: ${again.statusCode} ${again.body}`);
          trade.lockTransaction = again.json().taker_lock_transaction.transaction_base64;
        }
        const locked = await trade.taker.lock(trade.tradeId, trade.lockTransaction);
        if (locked.statusCode !== 202) throw new Error(`lock: ${locked.statusCode} ${locked.body}`);
        const view = await until(
          trade.taker,
          trade.tradeId,
          (t) => t.substate === 'initiated.makerLocked' || t.failure_reason !== null,
        );
        if (view.failure_reason !== null) {
          // The maker's last look: the only way the service may end a trade the taker locked in time.
          if (view.failure_reason !== 'price_moved')
            throw new Error(`the trade failed: ${JSON.stringify(view)}`);
          trade.ending = 'declined';
        }
      }),
    );
    // The option held as long as it safely is: the maker's timelock less the landing margin, less a step.
    const { makerTimelockSeconds, landingMarginSeconds } = this.config.settlement;
    const hold = Math.floor((makerTimelockSeconds - landingMarginSeconds) / STEP_SECONDS) - 1;
    const lastLocked = opened.find((t) => t.ending !== 'declined');
    const redeemBy = lastLocked
      ? Date.parse((await lastLocked.taker.trade(lastLocked.tradeId)).redeem_by) / 1000
      : Number.POSITIVE_INFINITY;
    for (let i = 0; i < hold && this.chainNow() + 2 * STEP_SECONDS < redeemBy; i++) await this.step();

    const solNow = this.usd(SOL_MINT);
    const usdcNow = this.usd(USDC_MINT);
    const valuation = new Map<string, AssetPricing>([
      [SOL_MINT, { usd: solNow, decimals: 9 }],
      [USDC_MINT, { usd: usdcNow, decimals: 6 }],
    ]);
    await Promise.all(
      opened.map(async (trade) => {
        const now =
          trade.direction === 'SOL->USDC' ? dividePrices(solNow, usdcNow) : dividePrices(usdcNow, solNow);
        const q = trade.quotedMid;
        // (q − now) / q, to a thousandth of a bp. The mid (output per input) fell: the output the quote
        // promises is worth more than the input now — the move went the taker's way.
        trade.movedBps =
          Number(((q.num * now.den - now.num * q.den) * 10_000_000n) / (q.num * now.den)) / 1000;
        trade.valuation = valuation;
        trade.usdcUsd = usdcNow;
        if (trade.ending === 'declined' || trade.movedBps <= 0) return;
        const redeem = await trade.taker.post(`/v1/trades/${trade.tradeId}/redeem`, {
          preimage: trade.secret.preimage,
        });
        if (redeem.statusCode !== 202) throw new Error(`redeem: ${redeem.statusCode} ${redeem.body}`);
        trade.ending = 'redeemed';
        await until(trade.taker, trade.tradeId, (t) => t.settlement_status === 'redeemed' && !t.next_action);
      }),
    );
    this.trades.push(...opened);
  }

  /**
   * Lets every escrow left behind refund at its expiry, then reads each trade's ledger and values the maker's
   * result at the mid of the moment its taker decided.
   */
  async finish(): Promise<TradeResult[]> {
    const last = this.trades.at(-1);
    if (last) {
      const takerExpiry = Date.parse((await last.taker.trade(last.tradeId)).expires_at) / 1000;
      await this.chain.advanceClock(Math.max(0, Math.ceil(takerExpiry - this.chainNow())) + STEP_SECONDS);
    }
    for (const trade of this.trades) {
      await until(
        trade.taker,
        trade.tradeId,
        (t) => (t.settlement_status === 'redeemed' || t.settlement_status === 'refunded') && !t.next_action,
      );
    }
    const res = await this.svc.app.inject({ method: 'GET', url: '/v1/runtime/ledger' });
    if (res.statusCode !== 200) throw new Error(`ledger: ${res.statusCode} ${res.body}`);
    const ledger = res.json() as {
      entries: {
        trade_id: string;
        movement: LedgerEntry['movement'];
        signature: string;
        mint: string;
        account: LedgerEntry['account'];
        side: LedgerEntry['side'];
        amount_raw: string;
      }[];
      summaries: { trade_id: string; balanced: boolean; net_usdc_estimate: string }[];
    };
    return this.trades.map((trade): TradeResult => {
      const entries: LedgerEntry[] = ledger.entries
        .filter((e) => e.trade_id === trade.tradeId)
        .map((e) => ({
          movement: e.movement,
          signature: e.signature,
          mint: e.mint,
          account: e.account,
          side: e.side,
          amountRaw: BigInt(e.amount_raw),
        }));
      const summary = ledger.summaries.find((s) => s.trade_id === trade.tradeId);
      if (!summary?.balanced) throw new Error(`trade ${trade.tradeId}: its ledger does not balance`);
      const breakdown = trade.quote.spread_breakdown;
      const solLeg = breakdown?.option
        ? trade.direction === 'SOL->USDC'
          ? breakdown.option.input
          : breakdown.option.output
        : null;
      return {
        direction: trade.direction,
        ending: trade.ending,
        spreadBps: trade.quote.spread_bps,
        optionBps: breakdown?.option_bps ?? 0,
        volatilityAnnual: solLeg?.volatility_annual ?? null,
        movedBps: trade.movedBps,
        notionalMicroUsd: trade.notionalMicroUsd,
        pnlMicroUsdc: micro(netUsdcEstimate(entries, trade.valuation, trade.usdcUsd)),
        estimateAtQuoteMicroUsdc: micro(summary.net_usdc_estimate),
      };
    });
  }
}

export interface Figures {
  trades: number;
  /** Share of trades the taker redeemed, declined by the last look. */
  takeRate: number;
  declineRate: number;
  /** Mean maker P&L per trade at the decision mid, USDC (micro-USDC exact sum / trades). */
  meanPnlUsdc: number;
  /** The same as bps of the notional traded (Σ P&L / Σ notional). */
  pnlBps: number;
  /** Standard error of the mean P&L per trade, USDC. */
  standardErrorUsdc: number;
  /** Mean of the operator's net_usdc_estimate (at the quote's prices), USDC. */
  meanEstimateAtQuoteUsdc: number;
  meanNotionalUsd: number;
  meanSpreadBps: number;
  meanOptionBps: number;
  meanVolatilityAnnual: number | null;
}

export function figures(results: readonly TradeResult[]): Figures {
  const n = results.length;
  const sum = (f: (r: TradeResult) => bigint) => results.reduce((a, r) => a + f(r), 0n);
  const mean = (f: (r: TradeResult) => number) => results.reduce((a, r) => a + f(r), 0) / n;
  const pnl = sum((r) => r.pnlMicroUsdc);
  const meanPnl = Number(pnl) / n / 1e6;
  const variance = results.reduce((a, r) => a + (Number(r.pnlMicroUsdc) / 1e6 - meanPnl) ** 2, 0) / (n - 1);
  const vols = results.flatMap((r) => (r.volatilityAnnual === null ? [] : [r.volatilityAnnual]));
  return {
    trades: n,
    takeRate: results.filter((r) => r.ending === 'redeemed').length / n,
    declineRate: results.filter((r) => r.ending === 'declined').length / n,
    meanPnlUsdc: meanPnl,
    pnlBps: (Number(pnl) / Number(sum((r) => r.notionalMicroUsd))) * 10_000,
    standardErrorUsdc: Math.sqrt(variance / n),
    meanEstimateAtQuoteUsdc: Number(sum((r) => r.estimateAtQuoteMicroUsdc)) / n / 1e6,
    meanNotionalUsd: Number(sum((r) => r.notionalMicroUsd)) / n / 1e6,
    meanSpreadBps: mean((r) => r.spreadBps),
    meanOptionBps: mean((r) => r.optionBps),
    meanVolatilityAnnual: vols.length ? vols.reduce((a, v) => a + v, 0) / vols.length : null,
  };
}
