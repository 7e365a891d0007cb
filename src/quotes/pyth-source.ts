// The Pyth price source: keeps an in-memory snapshot of every configured price update account, refreshed by
// one batched chain read every refresh interval (and once, awaited, at start), so an RFQ reads prices
// without touching the chain. The same code reads the embedded publisher's accounts and a real cluster's.
//
// Freshness is judged on the chain's clock: each read returns the chain clock with the accounts, and a
// price's age is that clock, advanced by the wall time elapsed since the read, minus its publish time. It is
// also judged on the service's own clock, within a tolerance: an RPC node whose Clock sysvar lags (a node
// behind the cluster) would make an old price look as young as its own view of time, so a price's time on
// the desk's clock is never later than its publish time plus clockToleranceMs — whichever clock says older
// wins. A source that can no longer read keeps its last snapshot, whose prices age on the same rule until
// price_freshness refuses them.
import { PublicKey } from '@solana/web3.js';
import { OPTION_DEFAULTS, type PriceFeed } from '../config/index.ts';
import {
  type FeedReading,
  type FeedView,
  type ObservablePriceSource,
  type PriceQuote,
  usdOf,
} from './prices.ts';
import { logPrice, VolatilityEstimate } from './volatility.ts';

/** What the source needs of one account read: the fields of a PriceUpdateV2 it uses. */
export interface PriceUpdateFields {
  feedId: string;
  price: bigint;
  conf: bigint;
  exponent: number;
  publishTime: bigint;
  emaPrice: bigint;
  /** Wormhole signatures checked when it was posted: only a fully verified update prices a quote. */
  verificationLevel: { kind: 'partial' } | { kind: 'full' };
}

/** The one chain call the source makes (ChainPort.readPriceUpdates). */
export interface PriceUpdateReader {
  readPriceUpdates(
    accounts: readonly PublicKey[],
    commitment: 'confirmed' | 'finalized',
  ): Promise<{ updates: (PriceUpdateFields | null)[]; clockUnix: number }>;
}

export interface PythSourceOptions {
  feeds: readonly PriceFeed[];
  commitment: 'confirmed' | 'finalized';
  refreshIntervalMs: number;
  /**
   * How much younger than its publish time (on the service's clock) a price may look because the chain's
   * clock is behind: a price is counted at most this much fresher than the service's own clock says.
   * Default 10 s.
   */
  clockToleranceMs?: number;
  nowMs?: () => number;
  /** Half-life of each feed's volatility estimate (volatility.ts); default 900 s. */
  volatilityHalfLifeSeconds?: number;
  /** The first failed refresh of an outage (the snapshot is kept and ages). */
  onError?: (error: Error) => void;
}

interface Entry {
  readonly reading: FeedReading | null;
  readonly problem: string | null;
}

export class PythPriceSource implements ObservablePriceSource {
  readonly kind = 'pyth' as const;
  private readonly keys: PublicKey[];
  private readonly byMint = new Map<string, Entry>();
  private readonly cache = new Map<string, PriceQuote>();
  /** Each feed's volatility, fed by every read that finds a newer publish. */
  private readonly volatilities = new Map<string, VolatilityEstimate>();
  /** Chain clock minus wall clock at the last read, in ms: publish times translate into the desk's clock. */
  private offsetMs: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private readonly nowMs: () => number;
  lastError: string | null = null;

  constructor(
    private readonly reader: PriceUpdateReader,
    private readonly options: PythSourceOptions,
  ) {
    this.keys = options.feeds.map((feed) => new PublicKey(feed.account));
    this.nowMs = options.nowMs ?? Date.now;
    const halfLife = options.volatilityHalfLifeSeconds ?? OPTION_DEFAULTS.volatilityHalfLifeSeconds;
    for (const feed of options.feeds) {
      this.byMint.set(feed.asset.mint, { reading: null, problem: 'not read yet' });
      this.volatilities.set(feed.asset.mint, new VolatilityEstimate(halfLife));
    }
  }

  /** Reads once (awaited, so the first RFQ has prices), then every refresh interval. */
  async start(): Promise<void> {
    await this.refresh().catch(() => undefined);
    this.timer = setInterval(() => {
      this.refresh().catch(() => undefined);
    }, this.options.refreshIntervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One batched read of every feed; concurrent callers share it. */
  refresh(): Promise<void> {
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async read(): Promise<void> {
    let result: Awaited<ReturnType<PriceUpdateReader['readPriceUpdates']>>;
    try {
      result = await this.reader.readPriceUpdates(this.keys, this.options.commitment);
    } catch (error) {
      // Reported once per outage, not at every refresh.
      if (this.lastError === null) this.options.onError?.(error as Error);
      this.lastError = (error as Error).message;
      if (this.offsetMs === null) {
        // Nothing was ever read: every feed's problem is the read itself.
        const problem = `could not read the price accounts: ${this.lastError}`;
        for (const mint of this.byMint.keys()) this.byMint.set(mint, { reading: null, problem });
      }
      throw error;
    }
    const readAt = this.nowMs();
    this.lastError = null;
    this.offsetMs = result.clockUnix * 1000 - readAt;
    this.cache.clear();
    this.options.feeds.forEach((feed, i) => {
      const entry = entryOf(feed, result.updates[i] ?? null);
      this.byMint.set(feed.asset.mint, entry);
      const { reading } = entry;
      if (reading) {
        this.volatilities
          .get(feed.asset.mint)
          ?.observe(reading.publishTime, logPrice(reading.price, reading.exponent));
      }
    });
  }

  latest(mint: string): PriceQuote | undefined {
    const cached = this.cache.get(mint);
    if (cached) return cached;
    const entry = this.byMint.get(mint);
    if (!entry?.reading || this.offsetMs === null) return undefined;
    const { reading } = entry;
    const quote: PriceQuote = {
      usd: usdOf(reading.price, reading.exponent),
      asOf: new Date(this.asOfMs(reading.publishTime, this.offsetMs)),
      alwaysFresh: false,
      reading,
    };
    this.cache.set(mint, quote);
    return quote;
  }

  /** σ per √second of the feed's published prices; undefined until it has published twice. */
  volatility(mint: string): number | undefined {
    return this.volatilities.get(mint)?.perSqrtSecond ?? undefined;
  }

  problem(mint: string): string | undefined {
    const entry = this.byMint.get(mint);
    if (!entry) return 'no feed is configured for it';
    return entry.problem ?? (this.lastError === null ? undefined : `last read failed: ${this.lastError}`);
  }

  feeds(): FeedView[] {
    return this.options.feeds.map((feed) => {
      const entry = this.byMint.get(feed.asset.mint) as Entry;
      const asOfMs =
        entry.reading && this.offsetMs !== null
          ? this.asOfMs(entry.reading.publishTime, this.offsetMs)
          : null;
      return {
        mint: feed.asset.mint,
        reading: entry.reading,
        asOfMs,
        alwaysFresh: false,
        problem: entry.problem ?? (this.lastError === null ? null : `last read failed: ${this.lastError}`),
      };
    });
  }

  /**
   * A publish time (chain unix seconds) on the desk's clock: translated by the chain's offset, and never
   * later than the publish time itself plus the tolerance (a lagging chain clock does not make it younger).
   */
  private asOfMs(publishTime: number, offsetMs: number): number {
    const published = publishTime * 1000;
    return Math.min(published - offsetMs, published + (this.options.clockToleranceMs ?? 10_000));
  }

  /** The chain clock now as the source estimates it (unix ms); null before the first read. */
  chainNowMs(): number | null {
    return this.offsetMs === null ? null : this.nowMs() + this.offsetMs;
  }
}

function entryOf(feed: PriceFeed, update: PriceUpdateFields | null): Entry {
  if (update === null) return { reading: null, problem: `no price update account at ${feed.account}` };
  const feedId = update.feedId.replace(/^0x/, '').toLowerCase();
  if (feedId !== feed.feedId) {
    // A substituted or misconfigured account never prices a quote.
    return { reading: null, problem: `account ${feed.account} carries feed ${feedId}, not ${feed.feedId}` };
  }
  // As the receiver SDK's get_price_no_older_than: a partially verified update is not a price.
  if (update.verificationLevel.kind !== 'full') {
    return { reading: null, problem: `account ${feed.account} holds a partially verified update` };
  }
  if (update.price <= 0n) return { reading: null, problem: `price ${update.price} is not positive` };
  return {
    reading: {
      source: 'pyth',
      account: feed.account,
      feedId,
      price: update.price,
      conf: update.conf,
      exponent: update.exponent,
      emaPrice: update.emaPrice,
      publishTime: Number(update.publishTime),
    },
    problem: null,
  };
}
