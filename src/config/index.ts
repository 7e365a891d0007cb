// Loads the one config file, validates it (shape, then meaning) and resolves it into typed, exact values.
// A bad value stops the process with a message naming the field.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import Value from 'typebox/value';
import { SPONSORED_FEEDS } from '../chain/pyth/index.ts';
import { type Price, parseAmount, parsePrice, parseUsd } from '../money/index.ts';
import { rootPath } from '../paths.ts';
import { decodeBase58 } from '../vocabulary/index.ts';
import { type ConfigFile, ConfigFileSchema } from './schema.ts';

export { ConfigFileSchema } from './schema.ts';

export const DEFAULT_CONFIG_PATH = rootPath('config', 'default.json');

export interface Asset {
  /** The asset's id is its mint address. */
  readonly id: string;
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /**
   * The config accepts the mint's freeze authority: its issuer is trusted not to freeze an escrow vault.
   * Absent means not trusted (the config always sets it; hand-built assets in tests may leave it out).
   */
  readonly trustFreezeAuthority?: boolean;
}

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

export type ChainConfig =
  | { readonly kind: 'embedded'; readonly programId: string | null }
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

/** Jupiter's public Swap API v1 (no key; https://api.jup.ag/swap/v1 with one). */
export const JUPITER_PUBLIC_BASE_URL = 'https://lite-api.jup.ag/swap/v1';
/** Jupiter's aggregator program (v6), the program its swap instructions call. */
export const JUPITER_V6_PROGRAM_ID = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
/** The embedded venue's AMM (src/venue/program.ts; its keypair was discarded, so nothing else can live there). */
export const EMBEDDED_AMM_PROGRAM_ID = 'EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH';

export interface Config {
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
  readonly http: {
    /** Origins allowed to call public routes cross-origin; empty: same origin only; '*' only if written. */
    readonly corsOrigins: readonly string[];
    readonly rateLimitPerMinute: number;
    readonly bodyLimitBytes: number;
    readonly operatorToken: string | null;
    /** Fastify's trustProxy: which X-Forwarded-For hops name the client. */
    readonly trustProxy: boolean | readonly string[];
  };
}

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`config ${field}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Assets by id (mint) or symbol, case-insensitively, as the interface matches them. */
export class AssetRegistry {
  readonly list: readonly Asset[];
  private readonly byKey = new Map<string, Asset>();

  constructor(assets: readonly Asset[]) {
    this.list = assets;
    assets.forEach((asset, index) => {
      for (const key of new Set([asset.mint.toLowerCase(), asset.symbol.toLowerCase()])) {
        const other = this.byKey.get(key);
        if (other && other !== asset) {
          throw new ConfigError(
            `assets[${index}]`,
            `'${key}' would match both ${other.symbol} and ${asset.symbol}`,
          );
        }
        this.byKey.set(key, asset);
      }
    });
  }

  find(idOrSymbol: string): Asset | undefined {
    return this.byKey.get(idOrSymbol.toLowerCase());
  }
}

export function loadConfig(path: string = DEFAULT_CONFIG_PATH): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, `cannot read the file (${(error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, `not valid JSON (${(error as Error).message})`);
  }
  return resolveConfig(raw);
}

/** Validates a parsed config document and resolves it; throws ConfigError naming the first bad field. */
export function resolveConfig(raw: unknown): Config {
  const [first] = Value.Errors(ConfigFileSchema, raw);
  if (first) {
    const problem = first.message === 'schema is false' ? 'is not a known setting' : first.message;
    throw new ConfigError(pointerToField(first.instancePath), problem);
  }
  const file = raw as ConfigFile;

  const assets = new AssetRegistry(file.assets.map((asset, i) => resolveAsset(asset, `assets[${i}]`)));
  const asset = (symbol: string, field: string) => {
    const found = assets.find(symbol);
    if (!found) throw new ConfigError(field, `unknown asset '${symbol}'`);
    return found;
  };
  const amount = (text: string, of: Asset, field: string) => {
    try {
      return parseAmount(text, of.decimals);
    } catch (error) {
      throw new ConfigError(field, (error as Error).message);
    }
  };

  const seenPairs = new Set<string>();
  const pairBases = file.pairs.map((pair, i) => {
    const field = `pairs[${i}]`;
    const input = asset(pair.input, `${field}.input`);
    const output = asset(pair.output, `${field}.output`);
    if (input === output) throw new ConfigError(field, 'input and output are the same asset');
    const key = `${input.mint}>${output.mint}`;
    if (seenPairs.has(key)) throw new ConfigError(field, `duplicate pair ${input.symbol}→${output.symbol}`);
    seenPairs.add(key);
    const minInputRaw = amount(pair.min_input, input, `${field}.min_input`);
    const maxInputRaw = amount(pair.max_input, input, `${field}.max_input`);
    if (minInputRaw <= 0n) throw new ConfigError(`${field}.min_input`, 'must be above zero');
    if (maxInputRaw < minInputRaw) throw new ConfigError(`${field}.max_input`, 'must not be below min_input');
    return {
      input,
      output,
      baseSpreadBps: pair.base_spread_bps,
      minInputRaw,
      maxInputRaw,
      paused: pair.paused,
    };
  });

  const prices = new Map<string, ReferencePrice>();
  file.prices.forEach((price, i) => {
    const field = `prices[${i}]`;
    const of = asset(price.asset, `${field}.asset`);
    if (prices.has(of.mint)) throw new ConfigError(field, `second price for ${of.symbol}`);
    const asOf = new Date(price.as_of);
    if (Number.isNaN(asOf.getTime())) throw new ConfigError(`${field}.as_of`, 'not an RFC 3339 date-time');
    prices.set(of.mint, { usd: decimalPrice(price.usd, `${field}.usd`), asOf });
  });
  for (const pair of pairBases) {
    for (const side of [pair.input, pair.output]) {
      if (!prices.has(side.mint)) throw new ConfigError('prices', `no reference price for ${side.symbol}`);
    }
  }

  const inventory = new Map<string, bigint>();
  file.inventory.forEach((entry, i) => {
    const of = asset(entry.asset, `inventory[${i}].asset`);
    if (inventory.has(of.mint)) throw new ConfigError(`inventory[${i}]`, `second entry for ${of.symbol}`);
    inventory.set(of.mint, amount(entry.amount, of, `inventory[${i}].amount`));
  });

  const usd = (text: string, field: string) => {
    try {
      return parseUsd(text);
    } catch (error) {
      throw new ConfigError(field, (error as Error).message);
    }
  };
  const risk = {
    minNotionalMicroUsd: usd(file.risk.min_notional_usd, 'risk.min_notional_usd'),
    maxNotionalMicroUsd: usd(file.risk.max_notional_usd, 'risk.max_notional_usd'),
    maxPriceAgeSeconds: file.risk.max_price_age_seconds,
    maxOpenPerWallet: file.risk.max_open_per_wallet,
    makerLockPriceToleranceBps: file.risk.maker_lock_price_tolerance_bps ?? 50,
  };
  if (risk.maxNotionalMicroUsd < risk.minNotionalMicroUsd) {
    throw new ConfigError('risk.max_notional_usd', 'must not be below min_notional_usd');
  }
  const option = file.pricing.option;
  const pricing = {
    sizeSpreadMaxBps: file.pricing.size_spread_max_bps,
    inventorySkewMaxBps: file.pricing.inventory_skew_max_bps,
    inventoryFreeShareBps: file.pricing.inventory_free_share_bps,
    option: {
      k: option?.k ?? OPTION_DEFAULTS.k,
      maxBps: option?.max_bps ?? OPTION_DEFAULTS.maxBps,
      volatilityHalfLifeSeconds:
        option?.volatility_half_life_seconds ?? OPTION_DEFAULTS.volatilityHalfLifeSeconds,
    },
  };
  // Each leg adds at most maxBps of option term; none while the term is off.
  const optionCap = pricing.option.k > 0 ? pricing.option.maxBps : 0;
  const priceSource = resolvePriceSource(file.price_source, asset);
  const confidenceCap = (of: Asset) =>
    priceSource.kind === 'pyth'
      ? (priceSource.feeds.find((feed) => feed.asset === of)?.maxConfidenceBps ?? 0)
      : 0;
  for (const pair of pairBases) {
    if (priceSource.kind === 'pyth') {
      for (const side of [pair.input, pair.output]) {
        if (!priceSource.feeds.some((feed) => feed.asset === side)) {
          throw new ConfigError('price_source.feeds', `no feed for ${side.symbol}, which a pair trades`);
        }
      }
    }
    // The confidence term of the spread is at most each leg's max_confidence_bps (a wider price is refused).
    const caps =
      pair.baseSpreadBps +
      pricing.sizeSpreadMaxBps +
      pricing.inventorySkewMaxBps +
      confidenceCap(pair.input) +
      confidenceCap(pair.output) +
      2 * optionCap;
    if (caps > 10_000) {
      throw new ConfigError(
        'pricing',
        `base + size + skew + confidence + option spread of ${pair.input.symbol}→${pair.output.symbol} exceeds 10000 bps`,
      );
    }
  }

  const quotes = {
    defaultExpirySeconds: file.quotes.default_expiry_seconds,
    maxExpirySeconds: file.quotes.max_expiry_seconds,
  };
  if (quotes.defaultExpirySeconds > quotes.maxExpirySeconds) {
    throw new ConfigError('quotes.default_expiry_seconds', 'must not exceed max_expiry_seconds');
  }

  const chainUrls = file.chain.kind === 'rpc' ? rpcUrls(file.chain) : [];
  const chain: ChainConfig =
    file.chain.kind === 'embedded'
      ? { kind: 'embedded', programId: checkAddress(file.chain.program_id ?? null, 'chain.program_id') }
      : {
          kind: 'rpc',
          url: chainUrls[0] as string,
          urls: chainUrls,
          wsUrl: file.chain.ws_url ?? null,
          maxSlotLag: file.chain.max_slot_lag ?? 25,
          programId: checkAddress(file.chain.program_id, 'chain.program_id') as string,
          makerKeypairPath: file.chain.maker_keypair_path,
          priorityFeeMicroLamports: file.chain.priority_fee_micro_lamports ?? 10_000,
          maxPriorityFeeMicroLamports:
            file.chain.max_priority_fee_micro_lamports ??
            100 * (file.chain.priority_fee_micro_lamports ?? 10_000),
          priorityFeeRampSeconds: file.chain.priority_fee_ramp_seconds ?? 120,
        };
  if (chain.kind === 'rpc' && chain.maxPriorityFeeMicroLamports < chain.priorityFeeMicroLamports) {
    throw new ConfigError(
      'chain.max_priority_fee_micro_lamports',
      'must not be below priority_fee_micro_lamports',
    );
  }

  const settlement = resolveTiming(file.settlement, chain.kind);
  const pairs = file.pairs.map(
    (raw, i): Pair => ({
      ...(pairBases[i] as (typeof pairBases)[number]),
      ...pairTiming(raw, `pairs[${i}]`, quotes, settlement, chain.kind),
    }),
  );
  const reservations = resolveReservations(file.reservations, settlement);
  // A lost instance's trades are taken over about 1⅓ leases after it stopped renewing (the lease, then the
  // next claim): that must leave the maker most of its safety margin to redeem. The default is 10 s, or a
  // third of a shorter margin (the embedded chain's second-long test timings).
  const leaseLimit = Math.floor(settlement.safetyMarginSeconds / 3);
  const cluster = {
    leaseTtlSeconds: file.cluster?.lease_ttl_seconds ?? Math.max(1, Math.min(10, leaseLimit)),
    claimBatch: file.cluster?.claim_batch ?? 500,
    secret: file.cluster?.secret ?? null,
  };
  if (file.cluster?.lease_ttl_seconds !== undefined && cluster.leaseTtlSeconds > leaseLimit) {
    throw new ConfigError(
      'cluster.lease_ttl_seconds',
      `must be at most a third of settlement.safety_margin_seconds (${settlement.safetyMarginSeconds} s)`,
    );
  }

  const venue = resolveVenue(file.venue, usd);
  const aggregator = resolveAggregator(file.aggregator, chain.kind);

  return {
    assets,
    pairs,
    prices,
    priceSource,
    risk,
    pricing,
    reservations,
    quotes,
    settlement,
    inventory,
    chain,
    cluster,
    swapPage: { rpcUrl: file.swap_page?.rpc_url ?? null },
    venue,
    aggregator,
    hedging: resolveHedging(file.hedging, { asset, amount, aggregator, chain, venue }),
    sourcing: resolveSourcing(file.sourcing, {
      aggregator,
      chain,
      venue,
      hedging: file.hedging !== undefined,
    }),
    http: {
      corsOrigins: file.http.cors_origins,
      rateLimitPerMinute: file.http.rate_limit_per_minute,
      bodyLimitBytes: file.http.body_limit_bytes,
      operatorToken: file.http.operator_token,
      trustProxy: checkTrustProxy(file.http.trust_proxy ?? false),
    },
  };
}

function resolveVenue(
  raw: ConfigFile['venue'],
  usd: (text: string, field: string) => bigint,
): VenueConfig | null {
  if (raw === undefined) return null;
  const liquidityMicroUsd = usd(raw.liquidity_usd_per_side ?? '2000000', 'venue.liquidity_usd_per_side');
  if (liquidityMicroUsd <= 0n) throw new ConfigError('venue.liquidity_usd_per_side', 'must be above zero');
  return {
    liquidityMicroUsd,
    feeBps: raw.fee_bps ?? 30,
    keeperTriggerBps: raw.keeper_trigger_bps === undefined ? 10 : raw.keeper_trigger_bps,
  };
}

/** chain.url or chain.urls (not both), each a URL, none twice. */
function rpcUrls(raw: { url?: string; urls?: string[] }): string[] {
  if (raw.url !== undefined && raw.urls !== undefined) {
    throw new ConfigError('chain.urls', 'give url or urls, not both');
  }
  const field = raw.urls ? (i: number) => `chain.urls[${i}]` : () => 'chain.url';
  const urls = raw.urls ?? (raw.url !== undefined ? [raw.url] : []);
  if (urls.length === 0) throw new ConfigError('chain.url', 'an rpc chain needs url or urls');
  const seen = new Set<string>();
  for (const [i, url] of urls.entries()) {
    let href: string;
    try {
      href = new URL(url).href;
    } catch {
      throw new ConfigError(field(i), 'not a URL');
    }
    if (seen.has(href)) throw new ConfigError(field(i), 'the same endpoint twice');
    seen.add(href);
  }
  return urls;
}

function resolveAggregator(raw: ConfigFile['aggregator'], chainKind: ChainConfig['kind']): AggregatorConfig {
  const allowed = raw?.allowed_programs ?? [JUPITER_V6_PROGRAM_ID, EMBEDDED_AMM_PROGRAM_ID];
  for (const [i, program] of allowed.entries()) checkAddress(program, `aggregator.allowed_programs[${i}]`);
  return {
    kind: 'jupiter',
    baseUrl:
      raw?.base_url?.replace(/\/+$/, '') ?? (chainKind === 'embedded' ? null : JUPITER_PUBLIC_BASE_URL),
    apiKeyEnv: raw?.api_key_env ?? null,
    maxSlippageBps: raw?.max_slippage_bps ?? 100,
    maxPriorityFeeLamports: BigInt(raw?.max_priority_fee_lamports ?? 1_000_000),
    allowedPrograms: allowed,
    timeoutMs: raw?.timeout_ms ?? 10_000,
  };
}

function resolveSourcing(
  raw: ConfigFile['sourcing'],
  ctx: { aggregator: AggregatorConfig; chain: ChainConfig; venue: VenueConfig | null; hedging: boolean },
): SourcingConfig {
  const maxSlippageBps = raw?.max_slippage_bps ?? ctx.aggregator.maxSlippageBps;
  if (maxSlippageBps > ctx.aggregator.maxSlippageBps) {
    throw new ConfigError(
      'sourcing.max_slippage_bps',
      `must not exceed aggregator.max_slippage_bps (${ctx.aggregator.maxSlippageBps})`,
    );
  }
  const enabled = raw?.enabled ?? (ctx.venue !== null || ctx.hedging);
  // On the embedded chain the aggregator is the venue's own API unless a base URL names another.
  if (enabled && ctx.chain.kind === 'embedded' && ctx.venue === null && ctx.aggregator.baseUrl === null) {
    throw new ConfigError(
      'sourcing',
      'sourcing swaps through the aggregator: on the embedded chain configure `venue` (or aggregator.base_url)',
    );
  }
  return { enabled, maxSlippageBps };
}

function resolveHedging(
  raw: ConfigFile['hedging'],
  ctx: {
    asset: (symbol: string, field: string) => Asset;
    amount: (text: string, of: Asset, field: string) => bigint;
    aggregator: AggregatorConfig;
    chain: ChainConfig;
    venue: VenueConfig | null;
  },
): HedgingConfig | null {
  if (raw === undefined) return null;
  const enabled = raw.enabled ?? true;
  const quoteAsset = ctx.asset(raw.quote_asset ?? 'USDC', 'hedging.quote_asset');
  const maxSlippageBps = raw.max_slippage_bps ?? ctx.aggregator.maxSlippageBps;
  if (maxSlippageBps > ctx.aggregator.maxSlippageBps) {
    throw new ConfigError(
      'hedging.max_slippage_bps',
      `must not exceed aggregator.max_slippage_bps (${ctx.aggregator.maxSlippageBps})`,
    );
  }
  // On the embedded chain the aggregator is the venue's own API unless a base URL names another.
  if (enabled && ctx.chain.kind === 'embedded' && ctx.venue === null && ctx.aggregator.baseUrl === null) {
    throw new ConfigError(
      'hedging',
      'hedges swap through the aggregator: on the embedded chain configure `venue` (or aggregator.base_url)',
    );
  }
  const seen = new Set<Asset>();
  const assets = Object.entries(raw.assets).map(([symbol, entry]): HedgedAsset => {
    const field = `hedging.assets.${symbol}`;
    const of = ctx.asset(symbol, field);
    if (seen.has(of)) throw new ConfigError(field, `${of.symbol} is listed twice`);
    seen.add(of);
    if (of === quoteAsset) {
      throw new ConfigError(field, `${of.symbol} is the quote asset, which hedges are swapped against`);
    }
    const targetRaw = ctx.amount(entry.target, of, `${field}.target`);
    if ((entry.band === undefined) === (entry.band_bps === undefined)) {
      throw new ConfigError(field, 'give exactly one of band and band_bps');
    }
    const bandRaw =
      entry.band !== undefined
        ? ctx.amount(entry.band, of, `${field}.band`)
        : (targetRaw * BigInt(entry.band_bps as number)) / 10_000n;
    if (bandRaw <= 0n) throw new ConfigError(field, 'the band must be above zero');
    const maxClipRaw = ctx.amount(entry.max_clip, of, `${field}.max_clip`);
    const minClipRaw = ctx.amount(entry.min_clip, of, `${field}.min_clip`);
    if (minClipRaw <= 0n) throw new ConfigError(`${field}.min_clip`, 'must be above zero');
    if (maxClipRaw < minClipRaw) throw new ConfigError(`${field}.max_clip`, 'must not be below min_clip');
    // A deviation just past the band must be hedgeable, or the asset could sit outside it for good.
    if (minClipRaw > bandRaw) throw new ConfigError(`${field}.min_clip`, 'must not exceed the band');
    return { asset: of, targetRaw, bandRaw, maxClipRaw, minClipRaw };
  });
  return {
    enabled,
    quoteAsset,
    maxSlippageBps,
    retrySeconds: raw.retry_seconds ?? 30,
    clipIntervalMs: raw.clip_interval_ms ?? 2_000,
    assets,
  };
}

function resolvePriceSource(
  raw: ConfigFile['price_source'],
  asset: (symbol: string, field: string) => Asset,
): PriceSourceConfig {
  if (raw.kind === 'static') return { kind: 'static' };
  const seen = new Set<Asset>();
  const feeds = raw.feeds.map((feed, i): PriceFeed => {
    const field = `price_source.feeds[${i}]`;
    const of = asset(feed.asset, `${field}.asset`);
    if (seen.has(of)) throw new ConfigError(field, `second feed for ${of.symbol}`);
    seen.add(of);
    const sponsored = (SPONSORED_FEEDS as Readonly<Record<string, { account: string; feedId: string }>>)[
      of.symbol.toUpperCase()
    ];
    const account = feed.account ?? sponsored?.account;
    const feedId = feed.feed_id ?? sponsored?.feedId;
    if (account === undefined || feedId === undefined) {
      throw new ConfigError(field, `${of.symbol} has no sponsored feed: give its account and feed_id`);
    }
    return {
      asset: of,
      account: checkAddress(account, `${field}.account`) as string,
      feedId: feedId.replace(/^0x/, '').toLowerCase(),
      maxAgeSeconds: feed.max_age_seconds,
      maxConfidenceBps: feed.max_confidence_bps,
      maxDeviationBps: feed.max_deviation_bps,
    };
  });
  const accounts = new Set(feeds.map((feed) => feed.account));
  if (accounts.size !== feeds.length)
    throw new ConfigError('price_source.feeds', 'two feeds share an account');
  return {
    kind: 'pyth',
    commitment: raw.commitment ?? 'confirmed',
    refreshIntervalMs: raw.refresh_interval_ms,
    clockToleranceSeconds: raw.clock_tolerance_seconds ?? 10,
    feeds,
    embeddedPublisher: raw.embedded_publisher
      ? { seed: raw.embedded_publisher.seed, intervalMs: raw.embedded_publisher.interval_ms }
      : null,
  };
}

/** The option term's defaults (config pricing.option). */
export const OPTION_DEFAULTS: OptionPricing = { k: 0.4, maxBps: 100, volatilityHalfLifeSeconds: 900 };

/** The reservation budget's defaults (config reservations); the landing window is at most the lock window. */
export const RESERVATION_DEFAULTS: ReservationBudget = {
  clientShareBps: 2500,
  walletShareBps: 1500,
  unfundedShareBps: 5000,
  lockLandingSeconds: 30,
};

function resolveReservations(
  raw: ConfigFile['reservations'],
  settlement: SettlementTiming,
): ReservationBudget {
  return {
    clientShareBps: raw?.client_share_bps ?? RESERVATION_DEFAULTS.clientShareBps,
    walletShareBps: raw?.wallet_share_bps ?? RESERVATION_DEFAULTS.walletShareBps,
    unfundedShareBps: raw?.unfunded_share_bps ?? RESERVATION_DEFAULTS.unfundedShareBps,
    // Within the lock window, whose end releases a hold anyway (a few seconds' windows of tests and demos).
    lockLandingSeconds: Math.min(
      raw?.lock_landing_seconds ?? RESERVATION_DEFAULTS.lockLandingSeconds,
      settlement.lockWindowSeconds,
    ),
  };
}

/**
 * A pair's quote lifetime and maker timelock: bounds that only ever shorten the global ones (which validation
 * already holds to the safety margin and the floors) — the shorter of the two applies — and a maker timelock
 * still long enough that the maker can lock at all (the taker keeps its minimum redeem window) and, on a
 * real cluster, above its floor.
 */
function pairTiming(
  raw: ConfigFile['pairs'][number],
  field: string,
  quotes: { maxExpirySeconds: number },
  settlement: SettlementTiming,
  chainKind: ChainConfig['kind'],
): Pick<Pair, 'maxExpirySeconds' | 'makerTimelockSeconds'> {
  const timelock = raw.maker_timelock_seconds;
  if (timelock !== undefined) {
    const name = `${field}.maker_timelock_seconds`;
    if (timelock < settlement.minRedeemWindowSeconds) {
      throw new ConfigError(name, 'must be at least settlement.min_redeem_window_seconds');
    }
    if (chainKind === 'rpc' && timelock < REAL_CLUSTER_FLOORS.makerTimelockSeconds) {
      throw new ConfigError(
        name,
        `must be at least ${REAL_CLUSTER_FLOORS.makerTimelockSeconds} s on a real cluster`,
      );
    }
  }
  return {
    maxExpirySeconds: Math.min(raw.max_expiry_seconds ?? quotes.maxExpirySeconds, quotes.maxExpirySeconds),
    makerTimelockSeconds: Math.min(
      timelock ?? settlement.makerTimelockSeconds,
      settlement.makerTimelockSeconds,
    ),
  };
}

/**
 * Floors that a real cluster needs: finality (~13 s), clock drift between chain and wall time, and a maker
 * restart must all fit inside the margins. The embedded chain accepts seconds, for tests and demos.
 */
export const REAL_CLUSTER_FLOORS: Readonly<Record<keyof SettlementTiming, number>> = {
  lockWindowSeconds: 60,
  takerTimelockSeconds: 600,
  makerTimelockSeconds: 180,
  safetyMarginSeconds: 180,
  minRedeemWindowSeconds: 90,
  landingMarginSeconds: 20,
};

function resolveTiming(raw: ConfigFile['settlement'], chainKind: ChainConfig['kind']): SettlementTiming {
  const timing: SettlementTiming = {
    lockWindowSeconds: raw.lock_window_seconds,
    takerTimelockSeconds: raw.taker_timelock_seconds,
    makerTimelockSeconds: raw.maker_timelock_seconds,
    safetyMarginSeconds: raw.safety_margin_seconds,
    minRedeemWindowSeconds: raw.min_redeem_window_seconds,
    landingMarginSeconds: raw.landing_margin_seconds,
  };
  const field = (key: keyof SettlementTiming) =>
    `settlement.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  if (chainKind === 'rpc') {
    for (const key of Object.keys(REAL_CLUSTER_FLOORS) as (keyof SettlementTiming)[]) {
      if (timing[key] < REAL_CLUSTER_FLOORS[key]) {
        throw new ConfigError(field(key), `must be at least ${REAL_CLUSTER_FLOORS[key]} s on a real cluster`);
      }
    }
  }
  if (timing.landingMarginSeconds >= timing.minRedeemWindowSeconds) {
    throw new ConfigError(field('landingMarginSeconds'), 'must be below min_redeem_window_seconds');
  }
  if (timing.makerTimelockSeconds < timing.minRedeemWindowSeconds) {
    throw new ConfigError(field('makerTimelockSeconds'), 'must be at least min_redeem_window_seconds');
  }
  // The latest maker lock comes at the end of the lock window; it must still leave the taker its redeem window.
  const latestMakerExpiry = timing.takerTimelockSeconds - timing.safetyMarginSeconds;
  if (latestMakerExpiry - timing.lockWindowSeconds < timing.minRedeemWindowSeconds) {
    throw new ConfigError(
      field('takerTimelockSeconds'),
      'must cover lock_window + safety_margin + min_redeem_window, or a maker lock could never be placed',
    );
  }
  return timing;
}

function resolveAsset(raw: ConfigFile['assets'][number], field: string): Asset {
  const mint = checkAddress(raw.mint, `${field}.mint`) as string;
  return {
    id: mint,
    mint,
    symbol: raw.symbol,
    name: raw.name,
    decimals: raw.decimals,
    trustFreezeAuthority: raw.trust_freeze_authority ?? false,
  };
}

/** Each proxy is an address, a CIDR range, or one of proxy-addr's names for the special ranges. */
function checkTrustProxy(value: boolean | readonly string[]): boolean | readonly string[] {
  if (typeof value === 'boolean') return value;
  value.forEach((entry, i) => {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || rest.length > 0) {
      throw new ConfigError(
        `http.trust_proxy[${i}]`,
        'not an IP address, a CIDR range, or loopback/linklocal/uniquelocal',
      );
    }
  });
  return value;
}

function checkAddress(address: string | null, field: string): string | null {
  if (address === null) return null;
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(address);
  } catch {
    throw new ConfigError(field, 'not base58');
  }
  if (bytes.length !== 32) throw new ConfigError(field, 'not a 32-byte address');
  return address;
}

function decimalPrice(text: string, field: string): Price {
  try {
    return parsePrice(text);
  } catch (error) {
    throw new ConfigError(field, (error as Error).message);
  }
}

function pointerToField(pointer: string): string {
  if (pointer === '') return '(root)';
  return pointer
    .slice(1)
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}
