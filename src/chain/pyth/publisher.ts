// The embedded chain's Pyth: real-layout PriceUpdateV2 accounts at the real addresses, owned by the
// receiver program, kept moving on a seeded random walk so that quotes have a market to follow. Each
// publish writes what the push oracle would: the price and its confidence, the EMA, publish_time from the
// chain clock and posted_slot from the chain's slot. Controls let a demo or a test freeze, stale or jump
// a feed. Integer arithmetic throughout: the walk is deterministic for a seed, whatever the host.

import { createHash } from 'node:crypto';
import type { PublicKey } from '@solana/web3.js';
import { publicKey } from '../keys.ts';
import { DEFAULT_FEED_SEEDS, type FeedSeed, SPONSORED_FEEDS, SPONSORED_SYMBOLS } from './feeds.ts';
import { encodePriceUpdateV2, type PriceUpdate, PYTH_RECEIVER_PROGRAM_ID } from './layout.ts';

/** One embedded feed: where it lives, and how it starts and moves (see FeedSeed). */
export interface PythFeedSpec extends FeedSeed {
  symbol: string;
  account: PublicKey;
  /** 64 lower-case hex characters. */
  feedId: string;
}

export interface PythPublisherOptions {
  feeds: readonly PythFeedSpec[];
  /** The walk is a function of the seed and the number of steps taken, nothing else. */
  seed: number | string;
  /** How often every live feed steps and publishes; 0: only on publishNow() (tests). */
  intervalMs: number;
  /** Publishing steps the EMA averages over (a step moves it by 1/emaSteps of the gap); default 30. */
  emaSteps?: number;
}

/** What the publisher writes with: the embedded ledger. */
export interface PriceAccountWriter {
  tick(): { slot: number; unix: bigint };
  placeAccount(address: PublicKey, owner: PublicKey, data: Uint8Array): void;
}

/** live: walks and publishes; frozen: publishes the same price with fresh times; stale: publishes nothing. */
export type FeedMode = 'live' | 'frozen' | 'stale';

interface FeedState {
  spec: PythFeedSpec;
  mode: FeedMode;
  price: bigint;
  emaPrice: bigint;
  emaConf: bigint;
  steps: bigint;
  latest: PriceUpdate | null;
}

const BPS = 10_000n;
/** Walk moves are drawn in millionths of the price, so a 1 bp volatility still has 201 outcomes. */
const PPM = 1_000_000n;
const DEFAULT_EMA_STEPS = 30;

/** The embedded feeds for the sponsored symbols, at their real addresses, from DEFAULT_FEED_SEEDS. */
export function sponsoredFeedSpecs(
  symbols: readonly string[] = SPONSORED_SYMBOLS,
  overrides: Readonly<Record<string, Partial<FeedSeed>>> = {},
): PythFeedSpec[] {
  return symbols.map((symbol) => {
    const upper = symbol.toUpperCase();
    if (!(SPONSORED_SYMBOLS as readonly string[]).includes(upper))
      throw new Error(`no sponsored Pyth feed for ${symbol}`);
    const key = upper as keyof typeof SPONSORED_FEEDS;
    const feed = SPONSORED_FEEDS[key];
    return {
      symbol: upper,
      account: publicKey(feed.account),
      feedId: feed.feedId,
      ...DEFAULT_FEED_SEEDS[key],
      ...overrides[upper],
    };
  });
}

export class PythPublisher {
  private readonly feeds = new Map<string, FeedState>();
  private readonly seed: Buffer;
  private readonly emaSteps: bigint;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly writer: PriceAccountWriter,
    private readonly options: PythPublisherOptions,
  ) {
    this.seed = createHash('sha256').update(String(options.seed)).digest();
    const emaSteps = options.emaSteps ?? DEFAULT_EMA_STEPS;
    if (!Number.isInteger(emaSteps) || emaSteps < 1) throw new Error('pyth emaSteps: a positive integer');
    this.emaSteps = BigInt(emaSteps);
    for (const spec of options.feeds) {
      checkSpec(spec);
      const symbol = spec.symbol.toUpperCase();
      if (this.feeds.has(symbol)) throw new Error(`pyth feed ${symbol}: listed twice`);
      this.feeds.set(symbol, {
        spec,
        mode: 'live',
        price: spec.price,
        emaPrice: spec.price,
        emaConf: confOf(spec.price, spec.confBps),
        steps: 0n,
        latest: null,
      });
    }
  }

  get symbols(): string[] {
    return [...this.feeds.keys()];
  }

  /** Publishes every feed once (at its initial price), then every intervalMs; the timer never holds the process. */
  start(): void {
    if (this.timer) return;
    for (const feed of this.feeds.values()) if (feed.mode !== 'stale') this.write(feed);
    if (this.options.intervalMs > 0) {
      this.timer = setInterval(() => this.publishNow(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Calls `listener` after every publication that may have moved a price (each step, jump and resume),
   * synchronously, once the accounts are written: the embedded venue's keeper follows the feeds this way.
   * A listener's failure is its own. Answers the unsubscribe function.
   */
  onPublish(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private published(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // The prices are out whatever a follower does with them.
      }
    }
  }

  /** One step: every live feed moves and publishes, frozen ones republish their price, stale ones stay. */
  publishNow(): void {
    for (const feed of this.feeds.values()) {
      if (feed.mode === 'stale') continue;
      if (feed.mode === 'live') this.step(feed);
      this.write(feed);
    }
    this.published();
  }

  /** Keeps publishing the same price with fresh times. */
  freeze(symbol: string): void {
    this.feed(symbol).mode = 'frozen';
  }

  /** Stops publishing: the account keeps its last update and its publish_time ages. */
  stale(symbol: string): void {
    this.feed(symbol).mode = 'stale';
  }

  /** Back to the walk, published at once. */
  resume(symbol: string): void {
    const feed = this.feed(symbol);
    feed.mode = 'live';
    this.write(feed);
    this.published();
  }

  /** Moves the price by bps (+500 = 5% up) in one step, published at once unless the feed is stale. */
  jump(symbol: string, bps: number): void {
    if (!Number.isInteger(bps) || bps <= -10_000)
      throw new Error(`pyth jump: bps must be an integer above -10000`);
    const feed = this.feed(symbol);
    feed.price = max1((feed.price * (BPS + BigInt(bps))) / BPS);
    if (feed.mode !== 'stale') this.write(feed);
    this.published();
  }

  /**
   * Sets the walk's largest step, in whole bps of the price (FeedSeed.volatilityBps), from the next step on:
   * a calm or a stormy market for a demo, or for a test of what follows the feeds' volatility.
   */
  volatility(symbol: string, bps: number): void {
    if (!Number.isInteger(bps) || bps < 0 || bps > 10_000)
      throw new Error('pyth volatility: bps must be an integer from 0 to 10000');
    const feed = this.feed(symbol);
    feed.spec = { ...feed.spec, volatilityBps: bps };
  }

  mode(symbol: string): FeedMode {
    return this.feed(symbol).mode;
  }

  /** The update last written for the feed, or null before its first. */
  latest(symbol: string): PriceUpdate | null {
    return this.feed(symbol).latest;
  }

  private feed(symbol: string): FeedState {
    const feed = this.feeds.get(symbol.toUpperCase());
    if (!feed) throw new Error(`no embedded Pyth feed ${symbol} (have ${this.symbols.join(', ')})`);
    return feed;
  }

  /** One move of the walk: a uniform draw of ±volatility, plus the pull back toward the initial price. */
  private step(feed: FeedState): void {
    const { spec } = feed;
    const range = BigInt(spec.volatilityBps) * (PPM / BPS);
    const draw = this.draw(spec.symbol.toUpperCase(), feed.steps);
    feed.steps += 1n;
    const move = range === 0n ? 0n : (draw % (2n * range + 1n)) - range;
    const pull = ((spec.price - feed.price) * BigInt(spec.reversionBps ?? 0)) / BPS;
    feed.price = max1(feed.price + (feed.price * move) / PPM + pull);
  }

  /** 64 uniform bits for (seed, symbol, step). */
  private draw(symbol: string, step: bigint): bigint {
    const at = Buffer.alloc(8);
    at.writeBigUInt64LE(step);
    const h = createHash('sha256').update(this.seed).update(symbol).update(at).digest();
    return h.readBigUInt64LE(0);
  }

  private write(feed: FeedState): void {
    const { slot, unix } = this.writer.tick();
    const conf = confOf(feed.price, feed.spec.confBps);
    feed.emaPrice += (feed.price - feed.emaPrice) / this.emaSteps;
    feed.emaConf += (conf - feed.emaConf) / this.emaSteps;
    const update: PriceUpdate = {
      // The push oracle's accounts are their own write authority (pyth-push-oracle's update_price_feed).
      writeAuthority: feed.spec.account,
      verificationLevel: { kind: 'full' },
      feedId: feed.spec.feedId,
      price: feed.price,
      conf,
      exponent: feed.spec.exponent,
      publishTime: unix,
      prevPublishTime: feed.latest?.publishTime ?? unix,
      emaPrice: feed.emaPrice,
      emaConf: feed.emaConf,
      postedSlot: BigInt(slot),
    };
    this.writer.placeAccount(feed.spec.account, PYTH_RECEIVER_PROGRAM_ID, encodePriceUpdateV2(update));
    feed.latest = update;
  }
}

const confOf = (price: bigint, confBps: number) => (price * BigInt(confBps)) / BPS;
const max1 = (price: bigint) => (price < 1n ? 1n : price);

function checkSpec(spec: PythFeedSpec): void {
  const name = `pyth feed ${spec.symbol}`;
  if (spec.price < 1n) throw new Error(`${name}: price must be positive`);
  for (const [field, value] of [
    ['confBps', spec.confBps],
    ['volatilityBps', spec.volatilityBps],
    ['reversionBps', spec.reversionBps ?? 0],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 10_000)
      throw new Error(`${name}: ${field} must be an integer from 0 to 10000`);
  }
  if (!/^[0-9a-f]{64}$/.test(spec.feedId)) throw new Error(`${name}: feedId must be 64 lower-case hex`);
}
