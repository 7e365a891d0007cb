// Prometheus metrics of one service instance, served by GET /metrics. Each service has its own registry
// (tests run several services in one process): typed recording functions for the paths that count — RFQs,
// settlement starts, trade transitions, effects, chain calls, store commits — and gauges read from the
// service's state when scraped, from indexes and caches only (nothing per trade at rest, no chain call per
// asset). The process's default metrics (event-loop lag, CPU, memory) join every exposition.
//
// Labels are bounded sets — outcomes, check, effect, status and state names, port methods, configured asset
// symbols — never a trade, quote or wallet. Amounts are raw units as float64: exact below 2^53, observability
// only; nothing reads them back.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  EFFECT_RETRY,
  isFinalStatus,
  TRADE_EFFECTS,
  type TradeContext,
  type TradeEffect,
} from '../../machines/index.ts';
import type { ChainCallRecorder, ChainFailure, ChainMethod, ChainPort } from '../chain/index.ts';
import type { Config } from '../config/index.ts';
import {
  HEDGE_FAILURE_REASONS,
  type HedgeFailureReason,
  type HedgeObserver,
  type InventoryAsset,
} from '../hedging/index.ts';
import { formatUsd } from '../money/index.ts';
import { type AcceptedQuote, FEED_STATUSES, type FeedState, type RejectedQuote } from '../quotes/index.ts';
import {
  CONFIRMED_LOCK_REFUSALS,
  type ConfirmedLockRefusal,
  type ExposureView,
  type TradeTransition,
} from '../runtime/index.ts';
import { type CommitFailure, type CommitStats, isStorageFull, type OwnedTrades } from '../store/index.ts';
import { publicSubstate, RISK_CHECKS } from '../vocabulary/index.ts';
import { DEADLINES, ESCROW_SIDES, storedExposure } from './exposure.ts';
import { processRegistry } from './process.ts';

export { DEADLINES, ESCROW_SIDES, escrowExposure, storedExposure } from './exposure.ts';

const PREFIX = 'rfq_maker_';
/** An escrow of a mint the config does not list (a taker may lock anything): one label for all of them. */
export const UNLISTED_ASSET = 'unlisted';
/** How long a scrape waits for the chain (fee balance, health) before reporting it as not answering. */
const CHAIN_READ_TIMEOUT_MS = 3_000;

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const CHAIN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const SETTLEMENT_BUCKETS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const HEDGE_USD_BUCKETS = [10, 100, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000];
/** Negative: a better price than the mid. */
const SLIPPAGE_BPS_BUCKETS = [-25, -10, 0, 5, 10, 20, 30, 50, 75, 100, 150, 250];
const HEDGE_SECONDS_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900];

export type RfqOutcome = 'quoted' | 'rejected';
export type SettlementStartOutcome = 'created' | 'repeated';

/** What the scrape-time gauges read. */
export interface MetricsSources {
  config: Pick<Config, 'assets' | 'hedging' | 'pairs'>;
  /** The trades of the run (this instance) the gauges count. */
  owned: Pick<OwnedTrades, 'ownedTradeCounts' | 'failingEffectCounts' | 'settlingSnapshots'>;
  /** Actors in memory now. */
  activeActors(): number;
  /** Whether the chain pushes account changes right now (else the watcher polls). */
  feedLive(): boolean;
  /** Seconds this run's lease has left as the process last confirmed it (0 once lost). */
  leaseRemainingSeconds(): number;
  /** Chain time now (unix seconds), estimated without a chain call; 0 while unknown. */
  chainNow(): number;
  /** Seconds the chain has been unreachable (a confirmed outage), 0 while it answers. */
  chainUnreachableSeconds(): number;
  /** The maker's last known balance per mint (the cache quotes read); undefined until first read. */
  balance(mint: string): bigint | undefined;
  /** Output held by open quotes and trades not yet maker-locked, per mint. */
  reserved(mint: string): bigint;
  chain: Pick<ChainPort, 'solBalance' | 'health' | 'makerWallet'>;
  /** The fee balance below which the service reports itself not ready. */
  minFeeLamports: bigint;
  /** Every configured price as the price source holds it now (no chain call: the source's snapshot). */
  prices?(): FeedState[];
  /** Every configured asset's position against its target and band (hedging), from the desk's cache. */
  inventory?(): InventoryAsset[];
  /** The control plane's pauses in force here: the desk's kill switch, and the pairs stopped by any pause. */
  desk?(): { paused: boolean; pausedPairs: number };
  /** The commitment policy's book: what rides on confirmed taker locks not final yet. */
  confirmedLocks?(): ExposureView;
  /** Whether the store cannot write for lack of space now (StorageWatch.full). */
  storageFull?(): boolean;
}

export class ServiceMetrics implements ChainCallRecorder, HedgeObserver {
  /** This service's own metrics. */
  readonly registry = new Registry();
  /** What GET /metrics serves: this service's metrics and the process's. */
  private readonly exposed: Registry;
  private sources: MetricsSources | null = null;

  private readonly rfqs = this.counter(
    'rfqs_total',
    'RFQs answered, by outcome: quoted (a firm quote) or rejected (a risk check failed). Invalid requests (400) are not counted.',
    ['outcome'],
  );
  private readonly rejections = this.counter(
    'rfq_rejections_total',
    'Failing risk checks of rejected RFQs, by check; an RFQ failing two checks counts once for each.',
    ['check'],
  );
  private readonly rfqSeconds = this.histogram(
    'rfq_duration_seconds',
    'Time to answer an RFQ once validated: pricing, risk checks and, when quoted, the quote’s group commit; by outcome.',
    ['outcome'],
    LATENCY_BUCKETS,
  );
  private readonly startSeconds = this.histogram(
    'settlement_start_duration_seconds',
    'Time to answer a wallet-settlement start once validated (the trade stored, its unsigned lock built), by outcome: created, or repeated (the same start again).',
    ['outcome'],
    LATENCY_BUCKETS,
  );
  private readonly settlementSeconds = this.histogram(
    'settlement_duration_seconds',
    'Time from a trade’s settlement start to its final status (redeemed, refunded or failed), by that status.',
    ['status'],
    SETTLEMENT_BUCKETS,
  );
  private readonly statusChanges = this.counter(
    'trade_status_changes_total',
    'Trades changing settlement_status, by old and new status.',
    ['from', 'to'],
  );
  private readonly losses = this.counter(
    'maker_losses_total',
    'Trades in which the maker lost funds (failure_reason maker_missed_redeem: the taker was paid and also refunded its own escrow); each is also logged as "ALERT: maker lost funds".',
    [],
  );
  private readonly effectFailures = this.counter(
    'effect_failures_total',
    'Failed runs of trade effects (chain transactions and reads the trade machine invokes), by effect; each is retried with backoff.',
    ['effect'],
  );
  private readonly lastLooks = this.counter(
    'maker_last_looks_total',
    "The maker's last look before it locks, by pair and outcome: holds (it locks, if all else allows), price_moved (the mid moved against it beyond the tolerance since the quote) or price_unavailable (a price is not usable now); the two declines release the taker at once.",
    ['pair', 'outcome'],
  );
  private readonly effectRetries = this.counter(
    'effect_retries_total',
    'Retries of failed trade effects, by effect.',
    ['effect'],
  );
  private readonly chainSeconds = this.histogram(
    'chain_call_duration_seconds',
    'Duration of calls to the chain port, by port method (land waits for finality).',
    ['method'],
    CHAIN_BUCKETS,
  );
  private readonly chainErrors = this.counter(
    'chain_call_errors_total',
    'Chain port calls that threw, by port method and error code (unavailable and timeout: the chain did not answer).',
    ['method', 'code'],
  );
  private readonly commitSeconds = this.histogram(
    'store_commit_duration_seconds',
    'How long each group commit took: one store transaction (SQLite: with its fsync, holding the event loop; PostgreSQL: a commit the loop does not wait on).',
    [],
    LATENCY_BUCKETS,
  );
  private readonly commitSize = this.histogram(
    'store_commit_batch_size',
    'Writes per group commit.',
    [],
    BATCH_BUCKETS,
  );
  private readonly commitFailures = this.counter(
    'store_commit_failures_total',
    'Group commits that failed (nothing of their batch was stored), by reason: storage_full (the disk under the store is full: SQLITE_FULL, PostgreSQL 53100) or other.',
    ['reason'],
  );
  private readonly storageFull = this.gauge(
    'storage_full',
    '1 while the store cannot write for lack of space (from the first commit that failed so until one succeeds at least 10 s after the last that did; GET /v1/health/ready answers 503 meanwhile), else 0.',
    [],
  );
  private readonly streams = this.gauge(
    'event_streams_open',
    'Server-Sent Event streams open now, by stream: trade (a taker following its trade, GET /v1/trades/{id}/stream; at most 8 per trade, 10,000 in all) or runtime (the operator log).',
    ['stream'],
  );

  private readonly takenOver = this.counter(
    'trades_taken_over_total',
    'Trades this run took over from a run that was gone (stopped, or its lease lapsed): several instances over PostgreSQL.',
    [],
  );
  private readonly forwarded = this.counter(
    'commands_forwarded_total',
    'Commands for a trade another live instance owns, relayed to that owner, by outcome: answered (the owner answered), unreachable (503: it did not answer), taken_over (503: its lease lapsed while it was asked and this run took the trade), refused (503: already forwarded once).',
    ['outcome'],
  );
  private readonly leaseRemaining = this.gauge(
    'lease_remaining_seconds',
    'Seconds until this run’s lease lapses unless renewed, as the process last confirmed it (renewed every third of cluster.lease_ttl_seconds; 0 once lost).',
    [],
  );
  private readonly info = this.gauge(
    'info',
    'Always 1: the running version and the kind of chain it settles on.',
    ['version', 'chain'],
  );
  private readonly openTrades = this.gauge(
    'open_trades',
    'Unclosed trades this run owns, by settlement_status and substate (as TradeResponse names it).',
    ['status', 'substate'],
  );
  private readonly actors = this.gauge(
    'trade_actors',
    'Owned unclosed trades by where they are: active (an actor in memory) or at_rest (in the store only).',
    ['state'],
  );
  private readonly failingEffects = this.gauge(
    'failing_effect_trades',
    `Unclosed trades whose current effect failed at least ${EFFECT_RETRY.visibleAfterAttempts} times in a row, by effect (GET /v1/runtime lists them).`,
    ['effect'],
  );
  private readonly escrowFunds = this.gauge(
    'escrow_funds_raw',
    `Funds in escrow of unclosed trades in raw units (the asset's smallest unit; float64, exact below 2^53), by asset and side: taker (the taker's lock) or maker (the maker's lock). Escrows of mints the config does not list count as asset="${UNLISTED_ASSET}".`,
    ['asset', 'side'],
  );
  private readonly nearest = this.gauge(
    'nearest_deadline_seconds',
    'Chain seconds from now to the nearest deadline among unclosed trades, negative once passed; absent when no trade has one. maker_expiry and redeem_by: over maker escrows holding funds; taker_expiry: over taker escrows the maker has yet to redeem after its own escrow paid the taker.',
    ['deadline'],
  );
  private readonly balances = this.gauge(
    'balance_raw',
    'The maker’s balance per configured asset in raw units (float64, exact below 2^53), as last read from the chain for quoting (SOL as wrapped SOL).',
    ['asset'],
  );
  private readonly reservedRaw = this.gauge(
    'reserved_raw',
    'Output held per asset in raw units by open quotes and by trades whose maker lock has not landed yet (float64, exact below 2^53).',
    ['asset'],
  );
  private readonly feeLamports = this.gauge(
    'fee_balance_lamports',
    'The maker wallet’s native SOL for fees and escrow rent, read at scrape; absent when the chain did not answer.',
    [],
  );
  private readonly feeMinLamports = this.gauge(
    'fee_balance_min_lamports',
    'The fee balance below which GET /v1/health/ready reports the service not ready.',
    [],
  );
  private readonly chainUp = this.gauge(
    'chain_up',
    '1 when the chain answered its health check at scrape, else 0.',
    [],
  );
  private readonly chainUnreachable = this.gauge(
    'chain_unreachable_seconds',
    "How long every chain call has failed (a confirmed outage: the service's own probe failed too); 0 while the chain answers.",
    [],
  );
  private readonly feedLive = this.gauge(
    'chain_feed_live',
    '1 while the chain pushes account changes, 0 while the watcher polls every tick instead.',
    [],
  );

  private readonly priceAge = this.gauge(
    'price_age_seconds',
    'Age of each configured asset’s reference price: chain clock (estimated from the last read) minus its publish time; absent while the asset has no usable price.',
    ['asset'],
  );
  private readonly priceMaxAge = this.gauge(
    'price_max_age_seconds',
    'The age beyond which an asset’s price fails price_freshness (the feed’s max_age_seconds).',
    ['asset'],
  );
  private readonly priceStatus = this.gauge(
    'price_status',
    'Each configured asset’s price by status, 1 for the one that holds: fresh, stale (too old, or no usable price), wide (confidence beyond its bound), deviating (too far from its EMA); RFQs on a pair with a side not fresh are refused.',
    ['asset', 'status'],
  );

  private readonly hedgesLanded = this.counter(
    'hedges_landed_total',
    'Hedge swaps landed through the aggregator, by hedged asset and side (sell: the maker was long the asset; buy: short).',
    ['asset', 'side'],
  );
  private readonly hedgeFailures = this.counter(
    'hedge_failures_total',
    'Hedges that could not be made or did not land, by asset and reason: stale_price (never on a stale mid), no_route, slippage (the route pays less than the mid less hedging.max_slippage_bps), unavailable (the aggregator or chain), refused (a check of the aggregator port), failed_on_chain (landed and failed: only its fee moved), expired (its swap can never land: it is quoted and signed again), store (its state could not be written). The asset is tried again after hedging.retry_seconds.',
    ['asset', 'reason'],
  );
  private readonly hedgeNotional = this.histogram(
    'hedge_notional_usd',
    'Size of each landed hedge: its input at the Pyth mid it was bounded by, in USD, by hedged asset.',
    ['asset'],
    HEDGE_USD_BUCKETS,
  );
  private readonly hedgeSlippage = this.histogram(
    'hedge_slippage_bps',
    'What each landed hedge paid against the live Pyth mid, in bps (negative: better than the mid), by hedged asset; it is posted as the trade’s P&L.',
    ['asset'],
    SLIPPAGE_BPS_BUCKETS,
  );
  private readonly hedgeSeconds = this.histogram(
    'hedge_duration_seconds',
    'From a hedge recorded (its swap signed and stored) to landed, by hedged asset; rebroadcasts and re-signing after an expiry included.',
    ['asset'],
    HEDGE_SECONDS_BUCKETS,
  );
  private readonly deskPaused = this.gauge(
    'desk_paused',
    'Whether the whole desk is paused (the kill switch, /v1/desk): 1 while no pair quotes or starts a settlement.',
    [],
  );
  private readonly pausedPairs = this.gauge(
    'paused_pairs',
    'Directed pairs that quote nothing and start no settlement now: paused on their own or by the desk’s pause.',
    [],
  );
  private readonly deskChanges = this.counter(
    'desk_changes_total',
    'Changes to the desk’s live settings made through this instance (/v1/desk), by target kind (desk, pair, hedging) and field.',
    ['target', 'field'],
  );
  private readonly hedgesWorking = this.gauge(
    'hedges_in_flight',
    'Hedges this instance is making or landing now, by asset (at most one per asset).',
    ['asset'],
  );
  private readonly outsideBand = this.gauge(
    'inventory_outside_band',
    'For each asset with a hedging target: 1 while its balance (as last read for quoting) is further from the target than its band, else 0.',
    ['asset'],
  );
  private readonly inventoryDeviation = this.gauge(
    'inventory_deviation_raw',
    'For each asset with a hedging target: balance minus target in raw units (float64, exact below 2^53); positive when the maker is long.',
    ['asset'],
  );
  private readonly inventoryBand = this.gauge(
    'inventory_band_raw',
    'For each asset with a hedging target: how far from the target its balance may stray, raw units.',
    ['asset'],
  );

  private readonly confirmedExposure = this.gauge(
    'confirmed_lock_exposure_usd',
    'The commitment policy: output (USD at the live prices) of the trades the maker locked against a confirmed taker lock not final yet — what a fork could cost at most — and its cap (risk.confirmed_lock.max_exposure_usd), by kind: riding or cap.',
    ['kind'],
  );
  private readonly confirmedTrades = this.gauge(
    'confirmed_lock_trades',
    'Trades the maker locked (or is locking) against a confirmed taker lock that is not final yet.',
    [],
  );
  private readonly finalityLag = this.gauge(
    'finality_lag_slots',
    "How far the cluster's finalized slot trails its confirmed slot, as last read for the commitment policy (about 30 when healthy); beyond risk.confirmed_lock.max_drift_slots every trade waits for finality.",
    [],
  );
  private readonly confirmedDecisions = this.counter(
    'confirmed_lock_decisions_total',
    'The commitment policy asked about a confirmed taker lock, by outcome: admitted (the maker locks against it), or why the trade waits for finality instead — trade_cap, exposure_cap, drift (finality stalling) or price (a price not usable).',
    ['outcome'],
  );
  private confirmedCounted: Record<'admitted' | ConfirmedLockRefusal, number> = {
    admitted: 0,
    trade_cap: 0,
    exposure_cap: 0,
    drift: 0,
    price: 0,
  };

  private readonly chainCalls = new Map<ChainMethod, Histogram.Internal<string>>();

  constructor(info: { version: string; chain: ChainPort['kind'] }) {
    this.exposed = Registry.merge([this.registry, processRegistry()]);
    this.info.set({ version: info.version, chain: info.chain }, 1);
    // Every series of a small fixed set exists from the start, so that rate() sees its first increment.
    for (const outcome of ['quoted', 'rejected'] satisfies RfqOutcome[]) this.rfqs.inc({ outcome }, 0);
    for (const check of RISK_CHECKS) this.rejections.inc({ check }, 0);
    for (const effect of TRADE_EFFECTS) {
      this.effectFailures.inc({ effect }, 0);
      this.effectRetries.inc({ effect }, 0);
    }
    this.losses.inc(0);
    for (const reason of ['storage_full', 'other']) this.commitFailures.inc({ reason }, 0);
    this.storageFull.set(0);
  }

  /** Connects the scrape-time gauges to the service's state, once it exists. */
  watch(sources: MetricsSources): void {
    this.sources = sources;
    this.feeMinLamports.set(Number(sources.minFeeLamports));
    for (const { asset } of sources.config.hedging?.assets ?? []) {
      for (const reason of HEDGE_FAILURE_REASONS) this.hedgeFailures.inc({ asset: asset.symbol, reason }, 0);
      for (const side of ['sell', 'buy']) this.hedgesLanded.inc({ asset: asset.symbol, side }, 0);
    }
  }

  // ── Recording ──────────────────────────────────────────────────────────────────────────────────

  rfqAnswered(outcome: AcceptedQuote | RejectedQuote, seconds: number): void {
    const label: RfqOutcome = outcome.status === 'accepted' ? 'quoted' : 'rejected';
    this.rfqs.inc({ outcome: label });
    this.rfqSeconds.observe({ outcome: label }, seconds);
    if (outcome.status === 'rejected')
      for (const { check } of outcome.reasons) this.rejections.inc({ check });
  }

  settlementStarted(outcome: SettlementStartOutcome, seconds: number): void {
    this.startSeconds.observe({ outcome }, seconds);
  }

  /** Every stored transition of a trade: status changes, effect failures and retries, the maker-loss alert. */
  tradeTransition(transition: TradeTransition, nowMs = Date.now()): void {
    const { event, from, to, context } = transition;
    if (from !== to) {
      this.statusChanges.inc({ from, to });
      if (!isFinalStatus(from) && isFinalStatus(to)) {
        const seconds = (nowMs - Date.parse(transition.createdAt)) / 1000;
        if (Number.isFinite(seconds)) this.settlementSeconds.observe({ status: to }, Math.max(0, seconds));
      }
    }
    const failed = failedEffect(event);
    if (failed !== null) this.effectFailures.inc({ effect: failed });
    if ((event === 'RETRY_EFFECT' || event === 'CHAIN_REACHABLE') && context.effectError !== null) {
      this.effectRetries.inc({ effect: context.effectError.effect });
    }
    if (context.alert && !transition.alertedBefore) this.losses.inc();
    const price = context.assessment?.price;
    if (event === 'xstate.done.actor.checkInventory' && price) {
      this.lastLooks.inc({ pair: this.pairName(context), outcome: price.reason ?? 'holds' });
    }
  }

  /** A pair's bounded label: its configured symbols (the mints before the config is known). */
  private pairName(context: Pick<TradeContext, 'inputMint' | 'outputMint'>): string {
    const symbol = (mint: string) => this.sources?.config.assets.find(mint)?.symbol ?? mint;
    return `${symbol(context.inputMint)}/${symbol(context.outputMint)}`;
  }

  chainCall(method: ChainMethod, seconds: number, failure: ChainFailure | null): void {
    let histogram = this.chainCalls.get(method);
    if (histogram === undefined) {
      histogram = this.chainSeconds.labels({ method });
      this.chainCalls.set(method, histogram);
    }
    histogram.observe(seconds);
    if (failure !== null) this.chainErrors.inc({ method, code: failure });
  }

  /** Counts one kind of event stream as its streams open and close. */
  eventStreams(stream: 'trade' | 'runtime'): { opened(): void; closed(): void } {
    const gauge = this.streams.labels({ stream });
    gauge.set(0);
    return { opened: () => gauge.inc(), closed: () => gauge.dec() };
  }

  /** Changes to the desk's settings this instance made (each counted once, here: the others only apply it). */
  deskChanged(changes: readonly { target: string; field: string }[]): void {
    for (const { target, field } of changes) {
      this.deskChanges.inc({ target: target.split(':')[0] ?? target, field });
    }
  }

  tradesTakenOver(count: number): void {
    this.takenOver.inc(count);
  }

  commandForwarded(outcome: 'answered' | 'unreachable' | 'taken_over' | 'refused'): void {
    this.forwarded.inc({ outcome });
  }

  hedgeRecorded(_asset: string, _side: 'sell' | 'buy'): void {
    // Counted once landed or failed; the in-flight gauge reads the hedger at scrape.
  }

  hedgeLanded(landed: {
    asset: string;
    side: 'sell' | 'buy';
    notionalUsd: number;
    slippageBps: number;
    seconds: number;
  }): void {
    const { asset } = landed;
    this.hedgesLanded.inc({ asset, side: landed.side });
    this.hedgeNotional.observe({ asset }, landed.notionalUsd);
    this.hedgeSlippage.observe({ asset }, landed.slippageBps);
    this.hedgeSeconds.observe({ asset }, landed.seconds);
  }

  hedgeFailed(asset: string, reason: HedgeFailureReason): void {
    this.hedgeFailures.inc({ asset, reason });
  }

  storeCommitted(stats: CommitStats): void {
    this.commitSeconds.observe(stats.ms / 1000);
    this.commitSize.observe(stats.size);
  }

  storeFailed(failure: CommitFailure): void {
    this.commitFailures.inc({ reason: isStorageFull(failure.error) ? 'storage_full' : 'other' });
  }

  // ── Exposition ─────────────────────────────────────────────────────────────────────────────────

  get contentType(): string {
    return this.exposed.contentType;
  }

  /** The text exposition, with every scrape-time gauge read now. */
  async exposition(): Promise<string> {
    if (this.sources) await this.readState(this.sources);
    return this.exposed.metrics();
  }

  private async readState(sources: MetricsSources): Promise<void> {
    const { config, owned: trades } = sources;
    const symbol = (mint: string) => config.assets.find(mint)?.symbol ?? UNLISTED_ASSET;
    const [feeLamports, health, ownedCounts, failingCounts, settling] = await Promise.all([
      withTimeout(sources.chain.solBalance(sources.chain.makerWallet)).catch(() => null),
      withTimeout(sources.chain.health()).catch(() => ({ ok: false })),
      trades.ownedTradeCounts(),
      trades.failingEffectCounts(EFFECT_RETRY.visibleAfterAttempts),
      trades.settlingSnapshots(),
    ]);

    this.openTrades.reset();
    let owned = 0;
    // A record stored by machine version 4 and one stored since name one substate two ways: summed.
    for (const { status, substate, count } of ownedCounts) {
      this.openTrades.inc({ status, substate: publicSubstate(substate) }, count);
      owned += count;
    }
    const active = sources.activeActors();
    this.actors.set({ state: 'active' }, active);
    this.actors.set({ state: 'at_rest' }, Math.max(0, owned - active));

    this.failingEffects.reset();
    for (const effect of TRADE_EFFECTS) this.failingEffects.set({ effect }, 0);
    for (const { effect, count } of failingCounts) {
      if (isTradeEffect(effect)) this.failingEffects.set({ effect }, count);
    }

    const exposure = storedExposure(settling);
    this.escrowFunds.reset();
    for (const side of ESCROW_SIDES) {
      for (const asset of config.assets.list) this.escrowFunds.set({ asset: asset.symbol, side }, 0);
      for (const [mint, raw] of exposure.escrowed[side]) {
        this.escrowFunds.inc({ asset: symbol(mint), side }, Number(raw));
      }
    }
    this.nearest.reset();
    const now = sources.chainNow();
    if (now > 0) {
      for (const deadline of DEADLINES) {
        const at = exposure.nearest[deadline];
        if (at !== null) this.nearest.set({ deadline }, at - now);
      }
    }

    this.balances.reset();
    for (const asset of config.assets.list) {
      const balance = sources.balance(asset.mint);
      if (balance !== undefined) this.balances.set({ asset: asset.symbol }, Number(balance));
      this.reservedRaw.set({ asset: asset.symbol }, Number(sources.reserved(asset.mint)));
    }
    this.feeLamports.reset();
    if (feeLamports !== null) this.feeLamports.set(Number(feeLamports));
    this.chainUp.set(health.ok ? 1 : 0);
    this.chainUnreachable.set(sources.chainUnreachableSeconds());
    this.feedLive.set(sources.feedLive() ? 1 : 0);
    this.leaseRemaining.set(sources.leaseRemainingSeconds());
    const desk = sources.desk?.() ?? {
      paused: false,
      pausedPairs: config.pairs.filter((pair) => pair.paused).length,
    };
    this.deskPaused.set(desk.paused ? 1 : 0);
    this.pausedPairs.set(desk.pausedPairs);
    const confirmed = sources.confirmedLocks?.();
    if (confirmed) this.readConfirmedLocks(confirmed);
    this.storageFull.set(sources.storageFull?.() ? 1 : 0);

    this.outsideBand.reset();
    this.inventoryDeviation.reset();
    this.inventoryBand.reset();
    this.hedgesWorking.reset();
    for (const position of sources.inventory?.() ?? []) {
      if (position.hedged === null) continue;
      const asset = position.asset.symbol;
      this.inventoryBand.set({ asset }, Number(position.hedged.bandRaw));
      this.hedgesWorking.set({ asset }, position.state?.working ? 1 : 0);
      if (position.outsideBand !== null) this.outsideBand.set({ asset }, position.outsideBand ? 1 : 0);
      if (position.deviationRaw !== null)
        this.inventoryDeviation.set({ asset }, Number(position.deviationRaw));
    }

    this.priceAge.reset();
    for (const state of sources.prices?.() ?? []) {
      const asset = state.asset.symbol;
      if (state.ageMs !== null) this.priceAge.set({ asset }, state.ageMs / 1000);
      this.priceMaxAge.set({ asset }, state.limits.maxAgeMs / 1000);
      for (const status of FEED_STATUSES)
        this.priceStatus.set({ asset, status }, state.status === status ? 1 : 0);
    }
  }

  private readConfirmedLocks(view: ExposureView): void {
    const usd = (microUsd: bigint) => Number(formatUsd(microUsd));
    this.confirmedExposure.set({ kind: 'cap' }, usd(view.policy.maxExposureMicroUsd));
    if (view.microUsd !== null) this.confirmedExposure.set({ kind: 'riding' }, usd(view.microUsd));
    this.confirmedTrades.set(view.trades);
    if (view.drift !== null) this.finalityLag.set(view.drift.slots);
    const totals = { admitted: view.admitted, ...view.refused };
    for (const outcome of ['admitted', ...CONFIRMED_LOCK_REFUSALS] as const) {
      const grown = totals[outcome] - this.confirmedCounted[outcome];
      // Created at 0 so every outcome shows; grown by what the book counted since the last scrape.
      this.confirmedDecisions.inc({ outcome }, Math.max(0, grown));
    }
    this.confirmedCounted = totals;
  }

  // ── Definitions ────────────────────────────────────────────────────────────────────────────────

  private counter<T extends string>(name: string, help: string, labelNames: T[]): Counter<T> {
    return new Counter({ name: PREFIX + name, help, labelNames, registers: [this.registry] });
  }

  private gauge<T extends string>(name: string, help: string, labelNames: T[]): Gauge<T> {
    return new Gauge({ name: PREFIX + name, help, labelNames, registers: [this.registry] });
  }

  private histogram<T extends string>(
    name: string,
    help: string,
    labelNames: T[],
    buckets: number[],
  ): Histogram<T> {
    return new Histogram({ name: PREFIX + name, help, labelNames, buckets, registers: [this.registry] });
  }
}

const ERROR_EVENT = 'xstate.error.actor.';

/** The effect an invoked actor's error event names (invoke ids are the effects' names), else null. */
function failedEffect(event: string): TradeEffect | null {
  if (!event.startsWith(ERROR_EVENT)) return null;
  const id = event.slice(ERROR_EVENT.length);
  return isTradeEffect(id) ? id : null;
}

function isTradeEffect(name: string): name is TradeEffect {
  return (TRADE_EFFECTS as readonly string[]).includes(name);
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), CHAIN_READ_TIMEOUT_MS);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
