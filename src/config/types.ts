// The config as the service reads it once resolved: typed, exact values (bigint raw units, exact prices),
// assets resolved to their registry entries (assets.ts). index.ts resolves the file into this shape.
import type { Price } from '../money/index.ts';
import type { Asset, AssetRegistry } from './assets.ts';
import type { ConfigFile } from './schema.ts';

export interface Pair {
  readonly input: Asset;
  readonly output: Asset;
  readonly baseSpreadBps: number;
  readonly minInputRaw: bigint;
  readonly maxInputRaw: bigint;
  readonly paused: boolean;
  /** The longest quote of this pair (pairs[].max_expiry_seconds, at most quotes.max_expiry_seconds). */
  readonly maxExpirySeconds: number;
  /** Maker HTLC expiry of this pair's trades, from the maker lock (at most settlement.maker_timelock_seconds). */
  readonly makerTimelockSeconds: number;
}

/**
 * The option term of the spread (docs/quotes-and-ledger.md#the-option-term): k · σ · √T per leg, in bps
 * rounded up and capped at maxBps, where σ is the leg's volatility per √second and T the pair's maker
 * timelock plus the lock window.
 */
export interface OptionPricing {
  /** 0: the term is off (nothing is computed). */
  readonly k: number;
  readonly maxBps: number;
  /** Half-life of the EWMA of squared log returns a feed's volatility is estimated with. */
  readonly volatilityHalfLifeSeconds: number;
}

/** The budget of unfunded holds (docs/quotes-and-ledger.md#reservations), shares of the free inventory. */
export interface ReservationBudget {
  readonly clientShareBps: number;
  readonly walletShareBps: number;
  readonly unfundedShareBps: number;
  /** How long a settlement start holds its output without a landed taker lock. */
  readonly lockLandingSeconds: number;
}

export interface ReferencePrice {
  readonly usd: Price;
  readonly asOf: Date;
}

export interface SettlementTiming {
  readonly lockWindowSeconds: number;
  readonly takerTimelockSeconds: number;
  readonly makerTimelockSeconds: number;
  readonly safetyMarginSeconds: number;
  readonly minRedeemWindowSeconds: number;
  readonly landingMarginSeconds: number;
}

/** One asset's Pyth feed and the bounds its price must keep to be quoted from. */
export interface PriceFeed {
  readonly asset: Asset;
  /** The price update account (PriceUpdateV2), base58. */
  readonly account: string;
  /** The Pyth feed id, 64 lowercase hex digits without 0x; a read account must carry it. */
  readonly feedId: string;
  readonly maxAgeSeconds: number;
  readonly maxConfidenceBps: number;
  readonly maxDeviationBps: number;
}

export type PriceSourceConfig =
  | { readonly kind: 'static' }
  | {
      readonly kind: 'pyth';
      readonly commitment: 'confirmed' | 'finalized';
      readonly refreshIntervalMs: number;
      /** How far past its max age (on the service's clock, from its publish time) a price may look fresh. */
      readonly clockToleranceSeconds: number;
      readonly feeds: readonly PriceFeed[];
      /** The embedded chain's publisher; null: the config leaves the feeds to whatever writes them. */
      readonly embeddedPublisher: { readonly seed: number; readonly intervalMs: number } | null;
    };

/** The commitment policy's caps in micro-USD and its finality bound (docs/operations.md#the-commitment-policy). */
export interface ConfirmedLockConfig {
  readonly maxTradeMicroUsd: bigint;
  readonly maxExposureMicroUsd: bigint;
  readonly maxDriftSlots: number;
}

/** An embedded chain that keeps real time (src/chain/embedded/time.ts): slot length and commitment lags. */
export interface ChainTimingConfig {
  readonly slotMs: number;
  readonly confirmationSlots: number;
  readonly finalizationSlots: number;
}

export type ChainConfig =
  | {
      readonly kind: 'embedded';
      readonly programId: string | null;
      /** null: the instant chain, every transaction final the moment it lands. */
      readonly timing: ChainTimingConfig | null;
    }
  | {
      readonly kind: 'rpc';
      /** The primary JSON-RPC endpoint: urls[0]. */
      readonly url: string;
      /** JSON-RPC endpoints, the primary first (the file's `url` is a list of one). */
      readonly urls: readonly string[];
      /** null: derived from the first URL (port + 1), as web3.js does. */
      readonly wsUrl: string | null;
      /** Slots an endpoint may trail the best known one and still be believed about absence. */
      readonly maxSlotLag: number;
      readonly programId: string;
      readonly makerKeypairPath: string;
      /** Maker transactions' priority fee: the base far from a deadline, rising to the max over the ramp. */
      readonly priorityFeeMicroLamports: number;
      readonly maxPriorityFeeMicroLamports: number;
      readonly priorityFeeRampSeconds: number;
    };

/** The embedded venue (src/venue/embedded.ts): a pool per configured pair, on embedded and loopback chains. */
export interface VenueConfig {
  readonly liquidityMicroUsd: bigint;
  readonly feeBps: number;
  /** null: no keeper, the pools move only with trades. */
  readonly keeperTriggerBps: number | null;
}

/** The aggregator port (src/aggregator/): a Jupiter Swap API v1 and the bounds a swap through it must keep. */
export interface AggregatorConfig {
  readonly kind: 'jupiter';
  /** null: the embedded venue's own API (chain.kind embedded). */
  readonly baseUrl: string | null;
  /** The environment variable an x-api-key is read from, if any. */
  readonly apiKeyEnv: string | null;
  readonly maxSlippageBps: number;
  readonly maxPriorityFeeLamports: bigint;
  /** Programs a swap instruction may call, base58. */
  readonly allowedPrograms: readonly string[];
  readonly timeoutMs: number;
  /** The least a maker swap accepts: the route's quoted out less this many bps (above the Pyth floor). */
  readonly routeToleranceBps: number;
  /** Pools (base58) a route may name, beside the embedded venue's own; null: none listed. */
  readonly trustedPools: readonly string[] | null;
}

/** One hedged asset: where its balance should sit, how far it may stray, and the sizes of the swaps back. */
export interface HedgedAsset {
  readonly asset: Asset;
  /** Raw units of the asset. */
  readonly targetRaw: bigint;
  /** A balance more than this away from the target is outside the band (exactly this away is inside). */
  readonly bandRaw: bigint;
  /** The largest single hedge, raw units of the asset. */
  readonly maxClipRaw: bigint;
  /** The smallest: a hedge of less is never made (min ≤ band ≤ …, max ≥ min). */
  readonly minClipRaw: bigint;
}

/** Inventory targets and bands, and the hedger that swaps back toward them (src/hedging/). */
export interface HedgingConfig {
  /** false: targets and bands are reported, nothing is swapped. */
  readonly enabled: boolean;
  /** What every hedged asset is swapped against; never itself hedged. */
  readonly quoteAsset: Asset;
  /** A hedge receives at least its input at the live mid less this (≤ aggregator.max_slippage_bps). */
  readonly maxSlippageBps: number;
  /** After a hedge could not be made, how long before the next try while outside the band. */
  readonly retrySeconds: number;
  /** The pause between one landed clip of an asset and its next, for the route to come back to the mid. */
  readonly clipIntervalMs: number;
  readonly assets: readonly HedgedAsset[];
}

/**
 * Just-in-time sourcing: an RFQ whose output the free inventory does not cover buys the rest through the
 * aggregator after the taker's lock is final, priced from the route's minimum out less the spread.
 */
export interface SourcingConfig {
  /** Default: on when the config has a venue or a hedging section (an aggregator the maker already uses). */
  readonly enabled: boolean;
  /**
   * The slippage asked of the route, and the worst the sourcing swap may do against the live Pyth mid; at
   * most aggregator.max_slippage_bps, which is the default.
   */
  readonly maxSlippageBps: number;
}

export interface Config {
  /**
   * The document this config was resolved from, as written (a copy): the control plane (src/control/)
   * validates an operator's change by resolving it again with the change applied.
   */
  readonly file: ConfigFile;
  readonly assets: AssetRegistry;
  readonly pairs: readonly Pair[];
  /** Reference prices: the static source's, the embedded publisher's start, the fallback for fee valuation. */
  readonly prices: ReadonlyMap<string, ReferencePrice>;
  readonly priceSource: PriceSourceConfig;
  readonly risk: {
    /** Order notional limits in micro-USD. */
    readonly minNotionalMicroUsd: bigint;
    readonly maxNotionalMicroUsd: bigint;
    /** The age bound of a price whose asset has no configured feed (a source given in code, e.g. a test's). */
    readonly maxPriceAgeSeconds: number;
    readonly maxOpenPerWallet: number;
    /** The maker's last look: how far the mid may have moved against it since the quote when it locks. */
    readonly makerLockPriceToleranceBps: number;
    /** The commitment policy (src/runtime/exposure.ts): when the maker locks against a confirmed taker lock. */
    readonly confirmedLock: ConfirmedLockConfig;
  };
  readonly pricing: {
    readonly sizeSpreadMaxBps: number;
    readonly inventorySkewMaxBps: number;
    readonly inventoryFreeShareBps: number;
    readonly option: OptionPricing;
  };
  readonly reservations: ReservationBudget;
  readonly quotes: { readonly defaultExpirySeconds: number; readonly maxExpirySeconds: number };
  readonly settlement: SettlementTiming;
  readonly inventory: ReadonlyMap<string, bigint>;
  readonly chain: ChainConfig;
  /** Several instances over one PostgreSQL: how long a run owns its trades without renewing its lease. */
  readonly cluster: {
    readonly leaseTtlSeconds: number;
    readonly claimBatch: number;
    /** Signs and checks commands forwarded between instances; null: forwards are unsigned and never trusted. */
    readonly secret: string | null;
  };
  /** The taker's swap page (GET /): on an rpc chain, the RPC it verifies the maker's lock through. */
  readonly swapPage: { readonly rpcUrl: string | null };
  /** null: the config names no venue (none is seeded). */
  readonly venue: VenueConfig | null;
  readonly aggregator: AggregatorConfig;
  /** null: the config names no targets (nothing is hedged, GET /v1/inventory shows balances only). */
  readonly hedging: HedgingConfig | null;
  /** Just-in-time sourcing of an output the free inventory does not cover (src/quotes/sourcing.ts). */
  readonly sourcing: SourcingConfig;
  /** Circle Gateway's unified USDC balance; null: no Gateway (the section absent, or mode off). */
  readonly gateway: GatewayConfig | null;
  readonly http: {
    /** Origins allowed to call public routes cross-origin; empty: same origin only; '*' only if written. */
    readonly corsOrigins: readonly string[];
    readonly rateLimitPerMinute: number;
    readonly bodyLimitBytes: number;
    readonly operatorToken: string | null;
    /** Named operator tokens beside operator_token (named "operator"); names and tokens each unique. */
    readonly operatorTokens: readonly { readonly name: string; readonly token: string }[];
    /** Fastify's trustProxy: which X-Forwarded-For hops name the client. */
    readonly trustProxy: boolean | readonly string[];
  };
}

/** What both Gateway modes share (src/runtime/gateway.ts opens the one named). */
export interface GatewayCommon {
  /** The configured asset that is the Gateway's USDC on Solana (what the unified balance mints as). */
  readonly asset: Asset;
  /** Quotes may count the unified balance (less fees and the reserve) as available output; off by default. */
  readonly countUnifiedInQuotes: boolean;
  /** Of the unified balance, what quotes never count, raw units. */
  readonly reserveRaw: bigint;
  /** The most one transfer may cost in fees, raw units (the port's cap). */
  readonly maxFeeRaw: bigint;
  readonly refreshIntervalMs: number;
  readonly timeoutMs: number;
  /** The GatewayMinter and GatewayWallet program ids on the Solana chain the maker settles on. */
  readonly minterProgram: string;
  readonly walletProgram: string;
}

/** Circle Gateway (docs/gateway.md); null in Config when the section is absent or mode is off. */
export type GatewayConfig =
  | (GatewayCommon & {
      readonly mode: 'embedded';
      /** The maker's deposit on the EVM domain after each start, raw units. */
      readonly evmDepositRaw: bigint;
      /** The Gateway domain anvil stands for. */
      readonly domain: number;
      readonly settleIntervalMs: number;
    })
  | (GatewayCommon & {
      readonly mode: 'circle';
      readonly cluster: 'mainnet' | 'devnet';
      readonly baseUrl: string;
      /** The maker's EVM depositor, 0x-hex. */
      readonly depositor: string;
      /** Trusted attesters' EVM addresses, 0x-hex. */
      readonly attesters: readonly string[];
      readonly sources: readonly {
        readonly domain: number;
        readonly gatewayWallet: string;
        readonly usdc: string;
      }[];
    });
