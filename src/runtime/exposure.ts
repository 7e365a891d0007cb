// The commitment policy's book: which trades the maker went on at a confirmed (not final) taker lock, and
// whether one more may. A fork that takes such a lock back can cost the maker that trade's output (a lock
// placed again at the same escrow address with less in it lets the maker's already-signed lock land against
// it), so what rides on locks not final yet is capped per trade and in total, valued at the live price, and
// only while the cluster's finality keeps up with its confirmations. The machine asks through its
// `confirmedLockAdmitted` guard; the book counts a trade from its yes until the lock is final or the trade
// leaves initiated. Everything is in memory: a restart rebuilds it from the stored trades.
import { notionalMicroUsd, type Price } from '../money/index.ts';
import type { SettlementStatus } from '../vocabulary/index.ts';

export interface ConfirmedLockPolicy {
  /** The largest trade (its output, micro-USD) the maker goes on at confirmed; 0: never (wait for finality). */
  readonly maxTradeMicroUsd: bigint;
  /** The most output (micro-USD) riding on taker locks not final yet, all trades together. */
  readonly maxExposureMicroUsd: bigint;
  /** Confirmed and finalized further apart than this many slots: finality stalls — wait for it. */
  readonly maxDriftSlots: number;
}

/** Why a trade waits for finality rather than going on its confirmed lock. */
export const CONFIRMED_LOCK_REFUSALS = ['trade_cap', 'exposure_cap', 'drift', 'price'] as const;
export type ConfirmedLockRefusal = (typeof CONFIRMED_LOCK_REFUSALS)[number];

/** A reading of the cluster's commitments older than this is no reading: the book refuses until a fresh one. */
export const DRIFT_READING_MAX_AGE_MS = 5_000;

interface Riding {
  mint: string;
  amountRaw: bigint;
}

export interface ExposureView {
  policy: ConfirmedLockPolicy;
  /** Trades riding on a taker lock not final yet, and their output per mint (raw units). */
  trades: number;
  byMint: ReadonlyMap<string, bigint>;
  /** Their output valued at the live prices; null while a price is not usable. */
  microUsd: bigint | null;
  /** confirmed − finalized slots as last read, and when (ms); null before any reading. */
  drift: { slots: number; atMs: number } | null;
  /** Trades admitted since the start, and trades refused (each once, by its first reason). */
  admitted: number;
  refused: Readonly<Record<ConfirmedLockRefusal, number>>;
}

export interface ExposureOptions {
  policy: ConfirmedLockPolicy;
  /** The live USD price of an asset, null while it is not usable (stale, wide, deviating). */
  price(mint: string): Price | null;
  decimals(mint: string): number | null;
  nowMs?: () => number;
}

export class ConfirmedExposure {
  private readonly riding = new Map<string, Riding>();
  /** Trades refused and still pending: a trade is asked again at each look, and counted once. */
  private readonly refusedTrades = new Set<string>();
  private drift: { slots: number; atMs: number } | null = null;
  private admitted = 0;
  private readonly refused: Record<ConfirmedLockRefusal, number> = {
    trade_cap: 0,
    exposure_cap: 0,
    drift: 0,
    price: 0,
  };
  private readonly nowMs: () => number;

  constructor(private readonly options: ExposureOptions) {
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** Whether the policy lets any trade go on a confirmed lock. */
  get enabled(): boolean {
    const { policy } = this.options;
    return policy.maxTradeMicroUsd > 0n && policy.maxExposureMicroUsd > 0n;
  }

  /** The cluster's confirmed and finalized slots, as just read. */
  noteCommitments(slots: { confirmed: number; finalized: number }): void {
    this.drift = { slots: Math.max(0, slots.confirmed - slots.finalized), atMs: this.nowMs() };
  }

  /** Whether a fresh reading of the commitments is wanted before the next admission. */
  get driftStale(): boolean {
    return this.drift === null || this.nowMs() - this.drift.atMs > DRIFT_READING_MAX_AGE_MS / 5;
  }

  /**
   * The guard's answer: may the maker go on this trade's confirmed taker lock? Yes counts the trade at once
   * (asked again, a trade already counted is yes). No is a reason to wait for finality, counted by why.
   */
  admit(trade: { tradeId: string; outputMint: string; outputAmountRaw: string }): boolean {
    if (this.riding.has(trade.tradeId)) return true;
    if (!this.enabled) return false;
    const refusal = this.refusal(trade.outputMint, BigInt(trade.outputAmountRaw));
    if (refusal !== null) {
      if (!this.refusedTrades.has(trade.tradeId)) this.refused[refusal]++;
      this.refusedTrades.add(trade.tradeId);
      return false;
    }
    this.refusedTrades.delete(trade.tradeId);
    this.riding.set(trade.tradeId, { mint: trade.outputMint, amountRaw: BigInt(trade.outputAmountRaw) });
    this.admitted++;
    return true;
  }

  private refusal(mint: string, amountRaw: bigint): ConfirmedLockRefusal | null {
    const { policy } = this.options;
    const drift = this.drift;
    if (drift === null || this.nowMs() - drift.atMs > DRIFT_READING_MAX_AGE_MS) return 'drift';
    if (drift.slots > policy.maxDriftSlots) return 'drift';
    const value = this.value(mint, amountRaw);
    const riding = this.ridingMicroUsd();
    if (value === null || riding === null) return 'price';
    if (value > policy.maxTradeMicroUsd) return 'trade_cap';
    if (riding + value > policy.maxExposureMicroUsd) return 'exposure_cap';
    return null;
  }

  /** A trade found riding on a confirmed lock (a restart's rebuild): counted whatever the caps say now. */
  track(trade: { tradeId: string; outputMint: string; outputAmountRaw: string }): void {
    this.riding.set(trade.tradeId, { mint: trade.outputMint, amountRaw: BigInt(trade.outputAmountRaw) });
  }

  /**
   * A trade's transition, once stored: once its lock is final, or it left initiated, nothing of it rides on
   * a lock not final; once it left pending, it is never asked again. Transitions are told when their write
   * is durable, after the guard that admitted a later one may have run: a transition still in pending was
   * made before the admission (which leaves pending), so it takes nothing out of the book.
   */
  moved(tradeId: string, status: SettlementStatus, takerLockConfirmedOnly: boolean): void {
    const rides = status === 'initiated' && takerLockConfirmedOnly;
    if (status !== 'pending' && !rides) this.riding.delete(tradeId);
    if (status !== 'pending') this.refusedTrades.delete(tradeId);
  }

  has(tradeId: string): boolean {
    return this.riding.has(tradeId);
  }

  tradeIds(): string[] {
    return [...this.riding.keys()];
  }

  view(): ExposureView {
    const byMint = new Map<string, bigint>();
    for (const { mint, amountRaw } of this.riding.values()) {
      byMint.set(mint, (byMint.get(mint) ?? 0n) + amountRaw);
    }
    return {
      policy: this.options.policy,
      trades: this.riding.size,
      byMint,
      microUsd: this.ridingMicroUsd(),
      drift: this.drift,
      admitted: this.admitted,
      refused: { ...this.refused },
    };
  }

  private ridingMicroUsd(): bigint | null {
    let total = 0n;
    for (const { mint, amountRaw } of this.riding.values()) {
      const value = this.value(mint, amountRaw);
      if (value === null) return null;
      total += value;
    }
    return total;
  }

  private value(mint: string, amountRaw: bigint): bigint | null {
    const price = this.options.price(mint);
    const decimals = this.options.decimals(mint);
    return price === null || decimals === null ? null : notionalMicroUsd(amountRaw, decimals, price);
  }
}
