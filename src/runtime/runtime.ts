// The trade runtime of one run, composed: the actor host (virtual actors), the chain watcher, the deadline
// scheduler, the commands and the queries, over one group-committed store and one chain. It owns the run's
// ticker and what happens at start (taking up the trades the run owns) and stop; which trades those are,
// and the ones it takes over from runs that are gone, its ownership (src/cluster/) tells it.
import { knowsPreimageToRedeem, type PriceCheck } from '../../machines/index.ts';
import { type AggregatorPort, rawMid } from '../aggregator/index.ts';
import { type ChainPort, finalOnLanding, meterChain } from '../chain/index.ts';
import type { Ownership } from '../cluster/index.ts';
import type { Config } from '../config/index.ts';
import { type LedgerEntry, postNetworkFee } from '../ledger/index.ts';
import { dividePrices } from '../money/index.ts';
import type { Ratio } from '../money/ratio.ts';
import { type QuoteDesk, repriceCheck } from '../quotes/index.ts';
import type { ClaimedTrade, GroupCommit, StorageWatch, Store } from '../store/index.ts';
import { ChainClock } from './clock.ts';
import { TradeCommands } from './commands.ts';
import { chainEffects, type EffectActors } from './effects/index.ts';
import { ConfirmedExposure } from './exposure.ts';
import { TradeHost } from './host.ts';
import type { RuntimeLogger } from './logger.ts';
import type { MintingHooks } from './minting.ts';
import { TradeQueries } from './queries.ts';
import { ChainReachability } from './reachability.ts';
import { DeadlineScheduler } from './scheduler.ts';
import type { IndexedRest } from './trade-record.ts';
import { type TradeTransition, transitionLog } from './transitions.ts';
import { unpostedFees } from './unposted-fees.ts';
import { ChainWatcher } from './watcher.ts';

export interface RuntimeOptions {
  store: Store;
  /** The group commit every durable write of the run goes through (shared with the quote desk). */
  durable: GroupCommit;
  chain: ChainPort;
  /** The config sections the runtime reads, and those its commands and views read. */
  config: Pick<
    Config,
    'aggregator' | 'assets' | 'prices' | 'reservations' | 'risk' | 'settlement' | 'sourcing'
  >;
  quotes: QuoteDesk;
  runId: string;
  log: RuntimeLogger;
  /** The tick: deadlines checked, a slice of the watched escrows swept (everything while not pushed). */
  pollIntervalMs?: number;
  /** How long POST /lock waits for the lock to appear on chain before answering lock_not_found. */
  lockWaitMs?: number;
  landTimeoutMs?: number;
  /** One full safety-net pass over every watched escrow while pushes flow. */
  sweepIntervalMs?: number;
  /** Records each stored transition of a trade (the service's metrics). */
  onTransition?: (transition: TradeTransition) => void;
  /** Which trades the run owns (src/cluster/): kept from the runtime's start until it stops. */
  ownership: Ownership;
  /** The run lost its trades: the runtime has stopped acting; the process should exit (a new run restarts). */
  onOwnershipLost?: (reason: string) => void;
  /** Trades this run took over from runs that were gone (the service's metrics). */
  onTakeover?: (count: number) => void;
  /**
   * Whether the chain answers, fed by every call on `chain` (the service observes its port for it): the
   * runtime acts the moment an outage ends. Default: the runtime observes the chain it is given itself.
   */
  reachability?: ChainReachability;
  /**
   * The aggregator that sources part of a trade's output just in time (config sourcing); null or absent: a
   * trade whose quote sourced is declined at its sourcing step (the taker released at once).
   */
  aggregator?: AggregatorPort | null;
  /**
   * Circle Gateway's minting (config gateway): a trade whose USDC falls short on Solana mints the rest before
   * it locks; null or absent: no shortfall is measured, and nothing is minted.
   */
  minting?: MintingHooks | null;
  /**
   * Tells when the store takes writes again after they failed for lack of space: the trades whose writes
   * failed meanwhile are taken up again at once (see retakeBroken).
   */
  storage?: Pick<StorageWatch, 'onWritable'>;
}

/** Trades whose failed effects are retried at once when an outage ends, per store query. */
const RECOVERY_BATCH = 10_000;
/** Trades nudged at once after an outage (each may activate an actor and send a transaction). */
const RECOVERY_CONCURRENCY = 64;

export class TradeRuntime {
  readonly host: TradeHost;
  readonly watcher: ChainWatcher;
  readonly commands: TradeCommands;
  readonly queries: TradeQueries;
  readonly clock: ChainClock;
  /** The commitment policy's book: trades gone on a confirmed taker lock not final yet. */
  readonly exposure: ConfirmedExposure;
  private readonly scheduler: DeadlineScheduler;
  readonly ownership: Ownership;
  readonly reachability: ChainReachability;
  private recovering: Promise<void> | null = null;
  private recoverAgain = false;
  private retaking: Promise<void> | null = null;
  private retakeAgain = false;
  private stopWatchingStorage: (() => void) | null = null;
  private stopWatchingEvents: (() => Promise<void>) | null = null;
  private readonly eventListeners = new Set<(tradeId: string) => void>();
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: RuntimeOptions) {
    const { store, durable, config, quotes, runId, log } = options;
    this.ownership = options.ownership;
    const embedded = options.chain.kind === 'embedded';
    // Waits that a chain keeping real time makes long (finality ~13 s) are sized as on a cluster.
    const instant = finalOnLanding(options.chain);
    this.tickMs = options.pollIntervalMs ?? (embedded ? 250 : 2_000);
    const reachability =
      options.reachability ??
      new ChainReachability({ probe: () => this.clock.read(), maxProbeMs: this.tickMs });
    this.reachability = reachability;
    const chain = options.reachability ? options.chain : meterChain(options.chain, reachability);
    this.clock = new ChainClock(chain, 30_000);
    this.exposure = new ConfirmedExposure({
      policy: config.risk.confirmedLock,
      price: (mint) => quotes.usablePrice(mint),
      decimals: (mint) => config.assets.find(mint)?.decimals ?? null,
    });
    // Confirmed differs from finalized only where finality lags: there the policy needs its own pushes.
    const confirmedLocks = this.exposure.enabled && !instant;
    const effects = this.createEffects(chain, instant);
    this.host = this.createHost(effects);
    this.watcher = new ChainWatcher({
      chain,
      clock: this.clock,
      host: this.host,
      log,
      storeSeen: (tradeId, seen) => {
        void durable.write({ kind: 'setSeen', tradeId, runId, seen }).catch(() => undefined);
      },
      tickMs: this.tickMs,
      sweepIntervalMs: options.sweepIntervalMs ?? (embedded ? 60_000 : 30_000),
      confirmedLocks: confirmedLocks ? { beforeConfirmedLock: () => this.readCommitments() } : null,
    });
    this.host.setObserver((trade) => this.watcher.observe(trade));
    this.queries = new TradeQueries({
      store,
      ownership: this.ownership,
      host: this.host,
      chain,
      config,
      clock: this.clock,
      runId,
    });
    this.commands = new TradeCommands({
      host: this.host,
      watcher: this.watcher,
      queries: this.queries,
      store,
      durable,
      chain,
      clock: this.clock,
      config,
      quotes,
      runId,
      ownership: this.ownership,
      lockWaitMs: options.lockWaitMs ?? (instant ? 3_000 : 45_000),
      pollIntervalMs: this.tickMs,
      confirmedLocks,
    });
    this.scheduler = new DeadlineScheduler({
      trades: this.ownership.trades,
      runId,
      durable,
      host: this.host,
      watcher: this.watcher,
      clock: this.clock,
      log,
      recheckSeconds: Math.max(1, Math.ceil(this.tickMs / 1000)),
    });
    quotes.setExposure({ liveTradesOf: (wallet) => this.commands.liveTradesOf(wallet) });
  }

  /** The chain effects the trades' machines invoke, each told how to reach the store, the host and the clock. */
  private createEffects(chain: ChainPort, instant: boolean): EffectActors {
    const { store, durable, config, log, aggregator, minting, landTimeoutMs } = this.options;
    return chainEffects(chain, {
      // After the transition that started the effect joined its commit (same turn), wait for that commit; a
      // transition of the trade that was not stored fails the effect before it acts.
      barrier: (tradeId) =>
        new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.host.settled(tradeId)),
      recordIntent: (tradeId, kind, signature, lastValidBlockHeight) =>
        this.host.note(tradeId, 'TX_INTENT', {
          kind,
          signature,
          last_valid_block_height: lastValidBlockHeight,
        }),
      unpostedFees: async (tradeId) => {
        const [events, ledger] = await Promise.all([store.tradeEvents(tradeId), store.ledger(tradeId)]);
        return unpostedFees(events, ledger);
      },
      postFee: async (tradeId, signature, lamports) => {
        const entries = postNetworkFee(signature, lamports);
        if (entries.length === 0) return;
        const at = new Date().toISOString();
        await durable
          .write({ kind: 'appendLedger', tradeId, at, entries })
          .catch((error: unknown) =>
            log.warn({ trade_id: tradeId, err: (error as Error).message }, 'could not post a network fee'),
          );
      },
      chainTime: () => this.clock.estimate(),
      reprice: (quoteId) => this.reprice(quoteId),
      // Whenever there is an aggregator: a trade whose quote sourced buys its part even once sourcing is
      // switched off (the switch stops new sourced quotes; quotes already given are honoured).
      sourcing: aggregator
        ? {
            aggregator,
            rawMid: (sellMint, buyMint) => this.sourcingMid(sellMint, buyMint),
            maxSlippageBps: config.sourcing.maxSlippageBps,
            aggregatorMaxSlippageBps: config.aggregator.maxSlippageBps,
            routeToleranceBps: config.aggregator.routeToleranceBps,
          }
        : null,
      // Once per signature: a re-run after a restart finds the swap booked (one effect runs per trade at a time).
      postSwap: (tradeId, signature, entries) => this.postOnce(tradeId, signature, entries),
      minting: minting ?? null,
      mintableUsdc: minting?.usdcMint ?? null,
      postMint: (tradeId, signature, entries) => this.postOnce(tradeId, signature, entries),
      minRedeemWindowSeconds: config.settlement.minRedeemWindowSeconds,
      landTimeoutMs: landTimeoutMs ?? (instant ? 5_000 : 90_000),
    });
  }

  /** Posts a maker transaction's entries to the trade's ledger unless entries under its signature are there. */
  private async postOnce(tradeId: string, signature: string, entries: LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const booked = await this.options.store.ledger(tradeId);
    if (booked.some((e) => e.signature === signature)) return;
    await this.options.durable.write({
      kind: 'appendLedger',
      tradeId,
      at: new Date().toISOString(),
      entries,
    });
  }

  /** The actor host, its transitions fed to the commitment policy's book, the metrics and the log. */
  private createHost(effects: EffectActors): TradeHost {
    const { store, durable, config, runId, log } = this.options;
    const logTransition = transitionLog(log);
    return new TradeHost({
      store,
      durable,
      runId,
      log,
      clock: this.clock,
      effects,
      holds: {
        lockWindowSeconds: config.settlement.lockWindowSeconds,
        lockLandingSeconds: config.reservations.lockLandingSeconds,
      },
      onRest: (rest, seen) => this.index(rest, seen),
      onEventsStored: (tradeId) => this.eventsStored(tradeId),
      ownership: this.ownership,
      onAcquired: () => this.options.onTakeover?.(1),
      onTransition: (transition) => {
        // Out of the book once nothing of the trade rides on a lock not final: final, or the trade moved on.
        this.exposure.moved(
          transition.tradeId,
          transition.to,
          transition.context.takerLockConfirmedOnly === true,
        );
        this.options.onTransition?.(transition);
        logTransition(transition);
      },
      guards: { confirmedLockAdmitted: ({ context }) => this.exposure.admit(context) },
    });
  }

  get runId(): string {
    return this.options.runId;
  }

  /**
   * Takes over the trades earlier runs left unclosed, indexes the run's trades at rest, restarts the effects
   * a crash interrupted, and starts the ticker — whether or not the chain answers: a run started during an
   * outage watches every trade, wakes every deadline and acts the moment the chain answers (see recover),
   * so no trade waits for a command to be taken up. What earlier runs left is taken as its ownership says
   * (one instance: every unclosed trade at once; several: orphans drained once the run acts, and only by a run
   * that reaches the chain; a command for a trade not taken yet takes it itself). No actor is
   * made here: a trade records its adoption (ADOPTED, in its context and its history) when its actor first
   * runs in this run, and the first tick sweeps every watched escrow once, so changes made while no run
   * watched are seen.
   */
  async start(): Promise<void> {
    const { store, log } = this.options;
    this.reachability.onRecovered(() => void this.recover());
    this.stopWatchingStorage = this.options.storage?.onWritable(() => void this.retakeBroken()) ?? null;
    await this.clock.read().catch((error: unknown) => {
      log.warn(
        { err: (error as Error).message },
        'chain unreachable at start: the run takes up its trades and acts once the chain answers',
      );
    });
    await this.ownership.takeOver();
    for (const entry of await this.ownership.trades.restIndex()) this.index(entry, entry.seen);
    await this.rebuildExposure();
    this.watcher.start();
    for (const tradeId of await this.ownership.trades.runningTrades()) this.restartEffect(tradeId);
    // Events other instances make durable reach this instance's live streams too.
    this.stopWatchingEvents = await store.watchEvents((tradeIds) => {
      for (const tradeId of tradeIds) this.eventsStored(tradeId);
    });
    this.ownership.keep({
      adopt: (claimed) => this.adopt(claimed),
      // The chain answered within the time asked (the watcher's reads keep the clock fresh), or answers now.
      reachesChain: async (withinMs) =>
        this.clock.fresh(withinMs) !== null ||
        (await this.clock.read().then(
          () => true,
          () => false,
        )),
      lost: (reason) => {
        void this.stop().finally(() => this.options.onOwnershipLost?.(reason));
      },
    });
    this.schedule();
  }

  /**
   * The commitment policy's book after a start: every trade of the run riding on a confirmed taker lock not
   * final yet (what a fork could still cost), counted whatever the caps say now.
   */
  private async rebuildExposure(): Promise<void> {
    for (const stored of await this.ownership.trades.settlingSnapshots()) {
      const { value, context } = JSON.parse(stored) as {
        value: unknown;
        context: {
          tradeId: string;
          outputMint: string;
          outputAmountRaw: string;
          takerLockConfirmedOnly?: boolean;
        };
      };
      const initiated = typeof value === 'object' && value !== null && 'initiated' in value;
      if (initiated && context.takerLockConfirmedOnly === true) this.exposure.track(context);
    }
  }

  /** How far finality trails, read for the exposure book when its last reading is getting old. */
  private async readCommitments(): Promise<void> {
    const { chain } = this.options;
    if (!this.exposure.driftStale || !chain.commitmentSlots) return;
    try {
      this.exposure.noteCommitments(await chain.commitmentSlots());
    } catch (error) {
      // No reading: the book refuses (the trade waits for finality) until one is had.
      this.options.log.warn({ err: (error as Error).message }, 'could not read the commitments’ slots');
    }
  }

  /** Trades taken over while running (a lost instance's): indexed, interrupted effects restarted. */
  private adopt(claimed: readonly ClaimedTrade[]): void {
    if (this.stopped || claimed.length === 0) return;
    this.options.onTakeover?.(claimed.length);
    for (const entry of claimed) this.index(entry, entry.seen);
    for (const entry of claimed) if (entry.running) this.restartEffect(entry.tradeId);
    // What the chain did while nobody owned them (a lock landed, the taker redeemed) is read now: its push
    // went to nobody, and the sweep would find it only a pass later.
    const ids = claimed.filter((entry) => !entry.running).map((entry) => entry.tradeId);
    void this.watcher
      .checkAll(ids)
      .catch((error: unknown) =>
        this.options.log.warn({ err: (error as Error).message }, 'reading taken-over escrows failed'),
      );
  }

  /** Activates a trade stored with an effect in flight: its actor runs the effect again. */
  private restartEffect(tradeId: string): void {
    void this.host
      .use(tradeId, async () => {})
      .catch((error: unknown) =>
        this.options.log.warn(
          { trade_id: tradeId, err: (error as Error).message },
          'could not restart an interrupted effect',
        ),
      );
  }

  /**
   * The trade's quote re-priced from the prices the desk would quote with now: the mid at quote time against
   * the current one, judged against the configured tolerance; price_unavailable when a side's price is not
   * usable now (stale, wide or deviating). null for a quote the store no longer knows (never for a trade).
   */
  private async reprice(quoteId: string): Promise<PriceCheck | null> {
    const { store, quotes, config } = this.options;
    const quote = await store.getQuote(quoteId);
    if (!quote) return null;
    return repriceCheck({
      quotedUsd: { input: quote.inputUsd, output: quote.outputUsd },
      currentUsd: {
        input: quotes.usablePrice(quote.inputMint),
        output: quotes.usablePrice(quote.outputMint),
      },
      toleranceBps: config.risk.makerLockPriceToleranceBps,
    });
  }

  /**
   * The live mid for a sourcing swap, buy raw units per sell raw unit, from the prices the desk would quote
   * with now; null when either is not usable (stale, wide or deviating): a swap is never bounded by a stale mid.
   */
  private sourcingMid(sellMint: string, buyMint: string): Ratio | null {
    const { quotes, config } = this.options;
    const sell = config.assets.find(sellMint);
    const buy = config.assets.find(buyMint);
    const sellUsd = quotes.usablePrice(sellMint);
    const buyUsd = quotes.usablePrice(buyMint);
    if (!sell || !buy || sellUsd === null || buyUsd === null) return null;
    return rawMid(dividePrices(sellUsd, buyUsd), sell.decimals, buy.decimals);
  }

  /** Stops acting: no tick, no renewal, no actor; idempotent (lost ownership and a shutdown may both ask). */
  stop(): Promise<void> {
    this.stopping ??= this.halt();
    return this.stopping;
  }

  private async halt(): Promise<void> {
    this.stopped = true;
    this.stopWatchingStorage?.();
    this.ownership.stop();
    this.reachability.stop();
    if (this.timer) clearTimeout(this.timer);
    await this.stopWatchingEvents?.();
    await this.ticking;
    this.watcher.stop();
    await this.host.stop();
  }

  /**
   * The chain answers again after an outage: what could not be done meanwhile is done now, most urgent
   * first, instead of at the end of each trade's backoff (which grew up to a minute during the outage):
   * 1. trades that know the preimage and must redeem (the maker's redeem of the taker escrow, a redeem for
   *    the taker) retry their effect;
   * 2. the escrows of every trade past its taker lock are read (a taker may have revealed its preimage on
   *    chain meanwhile: the maker must redeem before the taker's expiry);
   * 3. every other failed effect retries, and every deadline that fell due meanwhile is judged; the next
   *    tick sweeps every watched escrow.
   * One recovery at a time; an outage that ends again meanwhile is recovered from once more after it.
   */
  private recover(): Promise<void> {
    if (this.recovering) {
      this.recoverAgain = true;
      return this.recovering;
    }
    this.recovering = this.recoverOnce()
      .catch((error: unknown) =>
        this.options.log.warn({ err: (error as Error).message }, 'acting on the chain’s return failed'),
      )
      .finally(() => {
        this.recovering = null;
        if (this.recoverAgain && !this.stopped) {
          this.recoverAgain = false;
          void this.recover();
        }
      });
    return this.recovering;
  }

  private async recoverOnce(): Promise<void> {
    const { runId, log } = this.options;
    if (this.stopped) return;
    const failing = await this.ownership.trades.failingTrades(1, RECOVERY_BATCH);
    const urgent = failing.filter((trade) => knowsPreimageToRedeem(trade.substate)).map((t) => t.tradeId);
    const others = failing.filter((trade) => !knowsPreimageToRedeem(trade.substate)).map((t) => t.tradeId);
    log.info(
      { run_id: runId, retrying: failing.length, redeeming: urgent.length },
      'the chain answers again: acting on what failed while it could not be reached',
    );
    await this.nudge(urgent);
    this.watcher.sweepSoon();
    await this.watcher.checkAll(this.watcher.settlingTrades());
    await this.nudge(others);
    await this.scheduler.wakeDue();
  }

  /**
   * The store writes again after writes failed for lack of space: every trade whose write failed meanwhile is
   * taken up again from its last stored snapshot, now rather than at the next command or deadline, and
   * reconciled with the chain (POST /resume's work: its escrows read, what they show observed, its deadlines
   * judged) — a trade whose preimage is public redeems at once. Then whatever fell due is woken. One pass at
   * a time; asked again meanwhile, it runs once more after it.
   */
  private retakeBroken(): Promise<void> {
    if (this.retaking) {
      this.retakeAgain = true;
      return this.retaking;
    }
    this.retaking = this.retakeOnce()
      .catch((error: unknown) =>
        this.options.log.warn({ err: (error as Error).message }, 'taking up trades after a full disk failed'),
      )
      .finally(() => {
        this.retaking = null;
        if (this.retakeAgain && !this.stopped) {
          this.retakeAgain = false;
          void this.retakeBroken();
        }
      });
    return this.retaking;
  }

  private async retakeOnce(): Promise<void> {
    const broken = this.host.brokenTrades();
    if (this.stopped) return;
    if (broken.length > 0) {
      this.options.log.info(
        { run_id: this.runId, trades: broken.length },
        'the store writes again: taking up the trades whose writes failed',
      );
    }
    for (let i = 0; i < broken.length && !this.stopped; i += RECOVERY_CONCURRENCY) {
      await Promise.all(
        broken.slice(i, i + RECOVERY_CONCURRENCY).map((tradeId) =>
          this.commands.resume(tradeId).catch((error: unknown) =>
            // Taken up from the store all the same: the scheduler and the watcher act on it from there.
            this.options.log.warn(
              { trade_id: tradeId, err: (error as Error).message },
              'could not reconcile a trade after a full disk',
            ),
          ),
        ),
      );
    }
    this.watcher.sweepSoon();
    await this.scheduler.wakeDue();
  }

  /** CHAIN_REACHABLE to each trade: a failed effect waiting for its retry runs now. */
  private async nudge(tradeIds: readonly string[]): Promise<void> {
    for (let i = 0; i < tradeIds.length && !this.stopped; i += RECOVERY_CONCURRENCY) {
      await Promise.all(
        tradeIds.slice(i, i + RECOVERY_CONCURRENCY).map((tradeId) =>
          this.host
            .use(tradeId, async (trade) => {
              if (!trade.closed) trade.send({ type: 'CHAIN_REACHABLE' });
            })
            .catch((error: unknown) =>
              this.options.log.warn(
                { trade_id: tradeId, err: (error as Error).message },
                'could not retry a trade’s effect after the outage',
              ),
            ),
        ),
      );
    }
  }

  /** Called with the trade's id after new events of it reach the store (for live streams); returns the unsubscribe function. */
  onEvents(listener: (tradeId: string) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** A trade's events were made durable (by its host, or by a write outside it: a Gateway burn seen). */
  eventsStored(tradeId: string): void {
    for (const listener of this.eventListeners) {
      try {
        listener(tradeId);
      } catch (error) {
        this.options.log.warn({ err: (error as Error).message }, 'event listener failed');
      }
    }
  }

  /**
   * A trade's rest state into the indexes: the escrows the watcher watches, the output the book holds. A
   * rest entry read from the store is an unclosed trade's (no `closed`).
   */
  private index(rest: IndexedRest, seen?: string): void {
    this.watcher.track(rest, seen);
    const book = this.options.quotes.reservations;
    if (rest.closed || rest.hold === null) book.release(rest.tradeId);
    else book.reserve({ id: rest.tradeId, wallet: null, ...rest.hold });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        this.schedule();
      });
    }, this.tickMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    try {
      await this.watcher.sweep();
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, 'sweeping watched escrows failed');
    }
    // A confirmed lock the maker went on is looked at every tick until final: a fork may take it back.
    const riding = this.exposure.tradeIds();
    if (riding.length > 0) await this.watcher.observeConfirmed(riding);
    try {
      await this.scheduler.wakeDue();
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, 'waking due trades failed');
    }
  }
}
