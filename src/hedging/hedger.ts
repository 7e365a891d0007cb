// The hedger: once a trade is redeemed, each of its assets that a config band covers and that now sits
// outside that band is swapped back toward its target through the aggregator, clip after clip, one hedge per
// asset at a time. Every hedge is durable work (the hedges table): its signed swap is stored before its first
// send, rebroadcast until it lands or is proven unlandable, and only then quoted and signed again; a crash
// or another instance resumes it from the store and sends nothing new until the stored bytes are settled.
//
// A hedge's steps: plan (band and clip arithmetic on the chain's balances less what quotes and trades
// reserve, plan.ts) → quote twice (a probe for the route's price, then the slippage that keeps its on-chain
// minimum within max_slippage_bps of the live Pyth mid) → sign (the three in clip.ts) → record (status
// sending, with the bytes; record.ts) → land (swap.ts) → book (landed: its legs, fee and outcome; failed: its fee) — or, proven unlandable,
// requote and sign again (attempt + 1).
import { setTimeout as sleep } from 'node:timers/promises';
import type { AggregatorPort } from '../aggregator/index.ts';
import { landSwap, type SwapLanding, swapLedger } from '../aggregator/index.ts';
import type { ChainPort } from '../chain/port.ts';
import { isFenced, type Ownership } from '../cluster/index.ts';
import type { HedgedAsset, HedgingConfig } from '../config/index.ts';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Price } from '../money/index.ts';
import type { ReservationBook } from '../quotes/index.ts';
import type { RuntimeLogger } from '../runtime/logger.ts';
import {
  type GroupCommit,
  type HedgeRecord,
  isHedgeInFlight,
  StoreConflict,
  timeOrderedUuid,
} from '../store/index.ts';
import { type HedgeFailureReason, nextClip, Refusal, type SignedClip, type Step, signClip } from './clip.ts';
import { landedSummary, newHedge, resignedHedge } from './record.ts';

/** What metrics see of hedges (ServiceMetrics implements it). */
export interface HedgeObserver {
  /** A hedge was recorded with its signed swap, about to be sent. */
  hedgeRecorded(asset: string, side: 'sell' | 'buy'): void;
  /** A hedge landed: its size in USD at the mid, its slippage against the mid, recorded → landed seconds. */
  hedgeLanded(landed: {
    asset: string;
    side: 'sell' | 'buy';
    notionalUsd: number;
    slippageBps: number;
    seconds: number;
  }): void;
  hedgeFailed(asset: string, reason: HedgeFailureReason): void;
}

export interface HedgerOptions {
  config: HedgingConfig;
  /** aggregator.max_slippage_bps: the most the port lets a quote ask for. */
  aggregatorMaxSlippageBps: number;
  /** aggregator.route_tolerance_bps: a swap's minimum is the route's quoted out less this. */
  routeToleranceBps: number;
  durable: Pick<GroupCommit, 'write'>;
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet' | 'land' | 'getTransaction'>;
  aggregator: AggregatorPort;
  /** USD per display unit of the mint when its price is fresh (every bound of its feed kept), else null. */
  freshPrice(mint: string): Price | null;
  /** The quote desk's book: what open quotes and trades reserve; a hedge in flight holds its input there too. */
  reservations: Pick<ReservationBook, 'reserve' | 'release' | 'reserved' | 'expire'>;
  /** The maker's balance per mint as the quote desk last read it (the view's balances). */
  cachedBalance(mint: string): bigint | undefined;
  /** Reads the maker's balances again for quoting, once a hedge moved them. */
  refreshInventory(): Promise<void>;
  runId: string;
  log: RuntimeLogger;
  observer?: HedgeObserver;
  /** One landing round (rebroadcasting the same bytes) before the hedger looks again. */
  landTimeoutMs: number;
  /** How often it takes over gone instances' hedges and retries assets left outside their band. */
  tickMs: number;
  /** Which hedges the run owns: those of gone runs it takes over, and a write the store refused it. */
  ownership: Pick<Ownership, 'trades' | 'takeOrphanedHedges' | 'fenced'>;
  nowMs?: () => number;
}

/** Where one hedged asset stands, for GET /v1/inventory and the metrics. */
export interface AssetHedgingState {
  hedged: HedgedAsset;
  /** A hedge of it is being made or landed right now (in this instance). */
  working: boolean;
  /** The last reason a hedge of it could not be made, until one lands. */
  lastError: { reason: HedgeFailureReason | 'reserved'; message: string; at: string } | null;
  /** When the hedger tries again after that (ISO), while the asset stays outside its band. */
  retryAt: string | null;
}

/** A write of the hedge was refused or failed: stop working on it (nothing more is sent). */
class Stopped extends Error {}

/** How long a hedge in flight holds its input in the reservation book before it is held again. */
const HOLD_MS = 10 * 60_000;

export class Hedger {
  private readonly byMint = new Map<string, HedgedAsset>();
  /** The worker of each asset now: one hedge per asset at a time in this instance. */
  private readonly workers = new Map<string, Promise<void>>();
  /** A trade redeemed while the asset's worker was busy: looked at again when it finishes. */
  private readonly again = new Map<string, string>();
  /** A hedge taken over from a gone run while the asset's worker was busy: resumed when it finishes. */
  private readonly toResume = new Map<string, HedgeRecord>();
  /** The last trade that touched each asset: a retry after a failure is that trade's hedge. */
  private readonly lastTrade = new Map<string, string>();
  private readonly retryAtMs = new Map<string, number>();
  private readonly lastError = new Map<string, NonNullable<AssetHedgingState['lastError']>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private started = false;
  private stopped = false;
  private readonly nowMs: () => number;

  constructor(private options: HedgerOptions) {
    for (const hedged of options.config.assets) this.byMint.set(hedged.asset.mint, hedged);
    this.nowMs = options.nowMs ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.config.enabled;
  }

  /** Resumes this run's hedges in flight (a crash interrupted them) and starts the tick. */
  async start(): Promise<void> {
    if (!this.enabled || this.started) return;
    this.started = true;
    for (const hedge of await this.options.ownership.trades.hedgesInFlight()) this.resume(hedge);
    this.schedule();
  }

  /**
   * The operator changed the bands, clips or the switch (src/control/): the next clip is planned with them.
   * Switched off, no new hedge starts (one in flight still lands: its swap is signed); switched on, the
   * hedger starts if it had not.
   */
  async setConfig(config: HedgingConfig): Promise<void> {
    this.options = { ...this.options, config };
    for (const hedged of config.assets) this.byMint.set(hedged.asset.mint, hedged);
    if (config.enabled && !this.stopped) await this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // A landing round can take landTimeoutMs; a stop does not wait for it (the hedge resumes from the store).
    await Promise.race([Promise.allSettled([...this.workers.values(), this.ticking]), sleep(2_000)]);
  }

  /** A stored transition of a trade: once it reaches redeemed, its hedged assets are looked at. */
  tradeMoved(t: { from: string; to: string; tradeId: string; mints: readonly string[] }): void {
    if (this.stopped || !this.enabled || t.to !== 'redeemed' || t.from === 'redeemed') return;
    for (const mint of new Set(t.mints)) {
      if (this.byMint.has(mint)) this.kick(mint, t.tradeId);
    }
  }

  /** Every hedged asset as it stands (balances from the desk's cache). */
  states(): AssetHedgingState[] {
    return this.options.config.assets.map((hedged) => {
      const mint = hedged.asset.mint;
      const retry = this.retryAtMs.get(mint);
      return {
        hedged,
        working: this.workers.has(mint),
        lastError: this.lastError.get(mint) ?? null,
        retryAt: retry === undefined ? null : new Date(retry).toISOString(),
      };
    });
  }

  // ── Workers ─────────────────────────────────────────────────────────────────────────────────────

  private kick(mint: string, tradeId: string): void {
    this.lastTrade.set(mint, tradeId);
    if (this.workers.has(mint)) {
      this.again.set(mint, tradeId);
      return;
    }
    this.work(mint, () => this.hedgeAsset(mint, tradeId, null));
  }

  private resume(hedge: HedgeRecord): void {
    this.lastTrade.set(hedge.asset, hedge.tradeId);
    this.work(hedge.asset, async () => {
      const ended = await this.drive(hedge);
      // A resumed hedge that landed goes on toward the target, as it would have without the interruption.
      if (ended.status === 'landed') await this.hedgeAsset(hedge.asset, hedge.tradeId, hedge.side);
    });
  }

  private work(mint: string, job: () => Promise<void>): void {
    const run = (async () => {
      // The worker is registered before the job starts: whatever it does, it does as the asset's only one.
      await null;
      try {
        await job();
      } catch (error) {
        if (!(error instanceof Stopped)) {
          this.options.log.warn(
            { asset: this.symbol(mint), err: (error as Error).message },
            'hedging failed',
          );
        }
      } finally {
        this.workers.delete(mint);
        const taken = this.toResume.get(mint);
        this.toResume.delete(mint);
        const next = this.again.get(mint);
        this.again.delete(mint);
        if (!this.stopped && taken !== undefined) {
          // The hedge in flight first; the trade that waited is looked at after it.
          if (next !== undefined) this.again.set(mint, next);
          this.resume(taken);
        } else if (!this.stopped && next !== undefined) {
          this.kick(mint, next);
        }
      }
    })();
    this.workers.set(mint, run);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = null;
        this.schedule();
      });
    }, this.options.tickMs);
    this.timer.unref?.();
  }

  /** Takes over gone instances' hedges (PostgreSQL), and retries assets whose wait after a failure is over. */
  private async tick(): Promise<void> {
    try {
      for (const hedge of await this.options.ownership.takeOrphanedHedges()) {
        this.options.log.info(
          { hedge_id: hedge.hedgeId, owner_was: hedge.ownerRunId },
          'took over a hedge in flight',
        );
        const taken = { ...hedge, ownerRunId: this.options.runId };
        if (this.workers.has(hedge.asset)) this.toResume.set(hedge.asset, taken);
        else this.resume(taken);
      }
    } catch (error) {
      this.options.log.warn({ err: (error as Error).message }, 'claiming hedges of gone runs failed');
    }
    const now = this.nowMs();
    if (!this.enabled) return;
    for (const [mint, at] of this.retryAtMs) {
      const tradeId = this.lastTrade.get(mint);
      if (at <= now && tradeId !== undefined && !this.workers.has(mint)) {
        this.retryAtMs.delete(mint);
        this.kick(mint, tradeId);
      }
    }
  }

  // ── One asset: clip after clip ──────────────────────────────────────────────────────────────────

  /**
   * Plans and makes hedges of the asset until it is home (or one fails: it waits retry_seconds). `side`: the
   * side of a hedge already made toward the target (a resumed one), which the next clips continue.
   */
  private async hedgeAsset(mint: string, tradeId: string, side: 'sell' | 'buy' | null): Promise<void> {
    if (side === null && (this.retryAtMs.get(mint) ?? 0) > this.nowMs()) return;
    let going = side;
    // Switched off meanwhile: the clip in flight ended, no next one starts.
    while (!this.stopped && this.enabled) {
      let step: Step | null;
      let hedge: HedgeRecord | null;
      try {
        step = await this.nextClip(mint, going !== null);
        if (step === null) return;
        // Trades since the last clip may have carried the balance past the target: a hedge in one direction
        // ends there (the trade that did it looks at the asset afresh, and starts one the other way if the
        // band is crossed).
        if (going !== null && step.plan.side !== going) return;
        hedge = await this.record(mint, tradeId, step);
      } catch (error) {
        if (error instanceof Refusal) {
          this.failed(mint, error.reason, error.message);
          return;
        }
        throw error;
      }
      if (hedge === null) return;
      const ended = await this.drive(hedge);
      if (ended.status !== 'landed') return;
      going = hedge.side;
      // A clip moves the route's price; the next waits for the market to bring it back toward the mid.
      await this.pause(this.options.config.clipIntervalMs);
    }
  }

  /** Waits (wall time), ending early when the hedger stops. */
  private async pause(ms: number): Promise<void> {
    const until = performance.now() + ms;
    while (!this.stopped && performance.now() < until) await sleep(Math.min(100, until - performance.now()));
  }

  /**
   * The next clip of the asset from the chain's balances now, or null when none is due (inside the band,
   * home, or blocked by reservations). Throws Refusal when prices are not fresh.
   */
  private async nextClip(mint: string, continuing: boolean): Promise<Step | null> {
    const next = await nextClip(this.options, this.hedgedOf(mint), continuing, this.nowMs);
    if ('none' in next) {
      if (next.none === 'reserved') {
        this.blocked(mint, 'what open quotes and trades reserve leaves less than min_clip to swap');
      } else {
        this.cleared(mint);
      }
      return null;
    }
    return next;
  }

  /** Signs the clip's swap and records the hedge with it (status sending); null when another is in flight. */
  private async record(mint: string, tradeId: string, step: Step): Promise<HedgeRecord | null> {
    const signed = await signClip(this.options, this.hedgedOf(mint), step);
    const hedge = newHedge({
      hedgeId: timeOrderedUuid(),
      tradeId,
      runId: this.options.runId,
      mint,
      step,
      signed,
      maxSlippageBps: this.options.config.maxSlippageBps,
      at: new Date(this.nowMs()).toISOString(),
    });
    try {
      await this.options.durable.write({ kind: 'insertHedge', hedge });
    } catch (error) {
      // The signed swap was never sent, and now never will be.
      if (error instanceof StoreConflict && error.conflict === 'hedge_in_flight') {
        this.options.log.info({ asset: this.symbol(mint) }, 'another hedge of the asset is in flight');
        return null;
      }
      if (isFenced(error)) {
        this.options.ownership.fenced();
        return null;
      }
      throw new Refusal('store', `could not record the hedge: ${(error as Error).message}`);
    }
    this.options.observer?.hedgeRecorded(this.symbol(mint), hedge.side);
    this.options.log.info(
      {
        hedge_id: hedge.hedgeId,
        trade_id: tradeId,
        asset: this.symbol(mint),
        side: hedge.side,
        amount_in_raw: hedge.amountInRaw.toString(),
        min_out_raw: hedge.minOutRaw.toString(),
        signature: hedge.signature,
      },
      'hedge recorded',
    );
    return hedge;
  }

  // ── One hedge: land, book, or sign again once proven unlandable ────────────────────────────────

  /** Works the hedge until it is no longer in flight (or this run stops, or may not write it). */
  private async drive(initial: HedgeRecord): Promise<HedgeRecord> {
    let hedge = initial;
    const holdId = `hedge:${hedge.hedgeId}`;
    try {
      while (!this.stopped && isHedgeInFlight(hedge.status)) {
        if (hedge.status === 'requoting') {
          this.options.reservations.release(holdId);
          hedge = await this.requote(hedge);
          continue;
        }
        this.options.reservations.reserve({
          id: holdId,
          wallet: null,
          mint: hedge.inputMint,
          raw: hedge.amountInRaw,
          untilMs: this.nowMs() + HOLD_MS,
        });
        const landing = await landSwap(
          this.options.chain,
          {
            signature: hedge.signature as string,
            transactionBase64: hedge.transactionBase64 as string,
            lastValidBlockHeight: hedge.lastValidBlockHeight as number,
          },
          hedge,
          this.options.landTimeoutMs,
        );
        hedge = await this.settle(hedge, landing);
      }
    } finally {
      if (!isHedgeInFlight(hedge.status)) {
        // Quotes read the new balances before the hold on the swapped input goes.
        await this.options.refreshInventory().catch(() => undefined);
        this.options.reservations.release(holdId);
      }
    }
    return hedge;
  }

  /** Books what one landing round came to; answers the hedge as stored now. */
  private async settle(hedge: HedgeRecord, landing: SwapLanding): Promise<HedgeRecord> {
    const mint = hedge.asset;
    const at = new Date(this.nowMs()).toISOString();
    switch (landing.status) {
      case 'pending':
        // Not final: the same bytes go out again after a pause (the chain may be down).
        if (hedge.error !== landing.detail) {
          this.options.log.warn(
            { hedge_id: hedge.hedgeId, signature: hedge.signature, detail: landing.detail },
            'hedge not final yet; rebroadcasting',
          );
        }
        await sleep(this.options.tickMs);
        return { ...hedge, error: landing.detail };
      case 'expired': {
        this.failed(mint, 'expired', `swap ${landing.signature} can never land; quoting again`, false);
        return this.save({
          ...hedge,
          status: 'requoting',
          signature: null,
          transactionBase64: null,
          lastValidBlockHeight: null,
          expiredSignatures: [...hedge.expiredSignatures, landing.signature],
          error: `swap ${landing.signature} expired unlanded`,
          updatedAt: at,
        });
      }
      case 'failed': {
        const saved = await this.save(
          {
            ...hedge,
            status: 'failed',
            feeLamports: landing.fee,
            slot: landing.slot,
            error: landing.err,
            updatedAt: at,
          },
          swapLedger(landing, hedge),
        );
        this.failed(mint, 'failed_on_chain', `swap ${landing.signature} failed on chain: ${landing.err}`);
        return saved;
      }
      case 'landed': {
        const { amountIn, amountOut } = landing.outcome;
        const saved = await this.save(
          {
            ...hedge,
            status: 'landed',
            landedInRaw: amountIn,
            landedOutRaw: amountOut,
            feeLamports: landing.fee,
            slot: landing.slot,
            error: null,
            updatedAt: at,
            landedAt: at,
          },
          swapLedger(landing, hedge),
        );
        this.landed(saved);
        return saved;
      }
    }
  }

  /** A swap proven unlandable: the clip planned again on today's balances, signed again, stored, then sent. */
  private async requote(hedge: HedgeRecord): Promise<HedgeRecord> {
    const mint = hedge.asset;
    const at = () => new Date(this.nowMs()).toISOString();
    let step: Step | null;
    try {
      step = await this.nextClip(mint, true);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return this.endUnsent(hedge, 'failed', error.reason, error.message);
    }
    if (step === null || step.plan.side !== hedge.side) {
      return this.save({ ...hedge, status: 'cancelled', error: 'no longer needed', updatedAt: at() });
    }
    let signed: SignedClip;
    try {
      signed = await signClip(this.options, this.hedgedOf(mint), step);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return this.endUnsent(hedge, 'failed', error.reason, error.message);
    }
    return this.save(resignedHedge(hedge, step, signed, this.options.config.maxSlippageBps, at()));
  }

  private async endUnsent(
    hedge: HedgeRecord,
    status: 'failed',
    reason: HedgeFailureReason,
    message: string,
  ): Promise<HedgeRecord> {
    const saved = await this.save({
      ...hedge,
      status,
      error: message,
      updatedAt: new Date(this.nowMs()).toISOString(),
    });
    this.failed(hedge.asset, reason, message);
    return saved;
  }

  /** The hedge's new state, durable before anything follows from it; Stopped when it cannot be written. */
  private async save(hedge: HedgeRecord, ledger: LedgerEntry[] = []): Promise<HedgeRecord> {
    const { tradeId: _t, runId: _r, asset: _a, side: _s, createdAt: _c, ...update } = hedge;
    try {
      await this.options.durable.write({
        kind: 'updateHedge',
        update: { ...update, ownerRunId: this.options.runId },
        ledger,
      });
    } catch (error) {
      if (isFenced(error)) this.options.ownership.fenced();
      this.options.log.error(
        { hedge_id: hedge.hedgeId, err: (error as Error).message },
        'could not store a hedge’s state: this run stops working on it (it resumes from the store)',
      );
      this.options.observer?.hedgeFailed(this.symbol(hedge.asset), 'store');
      throw new Stopped((error as Error).message);
    }
    return { ...hedge, ownerRunId: this.options.runId };
  }

  // ── Outcomes ────────────────────────────────────────────────────────────────────────────────────

  private landed(hedge: HedgeRecord): void {
    const mint = hedge.asset;
    this.cleared(mint);
    const { slippage, notionalUsd, seconds } = landedSummary(
      hedge,
      this.decimalsOf(hedge.inputMint),
      this.decimalsOf(hedge.outputMint),
    );
    this.options.observer?.hedgeLanded({
      asset: this.symbol(mint),
      side: hedge.side,
      notionalUsd,
      slippageBps: slippage.slippageBps,
      seconds,
    });
    this.options.log.info(
      {
        hedge_id: hedge.hedgeId,
        trade_id: hedge.tradeId,
        asset: this.symbol(mint),
        side: hedge.side,
        signature: hedge.signature,
        amount_in_raw: hedge.landedInRaw?.toString(),
        amount_out_raw: hedge.landedOutRaw?.toString(),
        mid_out_raw: slippage.midOutRaw.toString(),
        slippage_bps: slippage.slippageBps,
        attempt: hedge.attempt,
      },
      'hedge landed',
    );
  }

  /** A hedge of the asset could not be made or did not land: counted, and (unless it goes on) retried later. */
  private failed(mint: string, reason: HedgeFailureReason, message: string, wait = true): void {
    this.options.observer?.hedgeFailed(this.symbol(mint), reason);
    this.lastError.set(mint, { reason, message, at: new Date(this.nowMs()).toISOString() });
    if (wait) this.retryAtMs.set(mint, this.nowMs() + this.options.config.retrySeconds * 1000);
    this.options.log.warn({ asset: this.symbol(mint), reason, err: message }, 'hedge failed');
  }

  private blocked(mint: string, message: string): void {
    this.lastError.set(mint, { reason: 'reserved', message, at: new Date(this.nowMs()).toISOString() });
    this.retryAtMs.set(mint, this.nowMs() + this.options.config.retrySeconds * 1000);
  }

  private cleared(mint: string): void {
    this.lastError.delete(mint);
    this.retryAtMs.delete(mint);
  }

  // ── Small things ────────────────────────────────────────────────────────────────────────────────

  private hedgedOf(mint: string): HedgedAsset {
    const hedged = this.byMint.get(mint);
    if (!hedged) throw new Error(`${mint} is not a hedged asset`);
    return hedged;
  }

  private decimalsOf(mint: string): number {
    if (mint === this.options.config.quoteAsset.mint) return this.options.config.quoteAsset.decimals;
    return this.hedgedOf(mint).asset.decimals;
  }

  private symbol(mint: string): string {
    return this.byMint.get(mint)?.asset.symbol ?? mint;
  }
}
