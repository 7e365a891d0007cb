// Loads the one config file, validates it (shape, then meaning) and resolves it into typed, exact values
// (types.ts). A bad value stops the process with a message naming the field (fields.ts). Each block of the
// file is resolved beside its own checks: assets, chain, prices, settlement timing, swaps and hedging.
import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import { parseAmount, parseUsd } from '../money/index.ts';
import { rootPath } from '../paths.ts';
import { type Asset, AssetRegistry, resolveAsset } from './assets.ts';
import { resolveChain } from './chain.ts';
import { ConfigError, checkOperatorTokens, checkTrustProxy, decimalPrice, pointerToField } from './fields.ts';
import { resolveGateway } from './gateway.ts';
import { OPTION_DEFAULTS, resolvePriceSource } from './prices.ts';
import { type ConfigFile, ConfigFileSchema } from './schema.ts';
import { resolveAggregator, resolveHedging, resolveSourcing, resolveVenue } from './swaps.ts';
import { pairTiming, resolveReservations, resolveTiming } from './timing.ts';
import type { Config, Pair, ReferencePrice } from './types.ts';

export { type Asset, AssetRegistry } from './assets.ts';
export { ConfigError } from './fields.ts';
export { GATEWAY_DEFAULTS } from './gateway.ts';
export { OPTION_DEFAULTS } from './prices.ts';
export {
  type ConfigFile,
  ConfigFileSchema,
  HedgedAssetConfigSchema,
  PairConfigSchema,
} from './schema.ts';
export { EMBEDDED_AMM_PROGRAM_ID, JUPITER_PUBLIC_BASE_URL, JUPITER_V6_PROGRAM_ID } from './swaps.ts';
export { REAL_CLUSTER_FLOORS, RESERVATION_DEFAULTS } from './timing.ts';
export type {
  AggregatorConfig,
  ChainConfig,
  ChainTimingConfig,
  Config,
  ConfirmedLockConfig,
  GatewayConfig,
  HedgedAsset,
  HedgingConfig,
  OptionPricing,
  Pair,
  PriceFeed,
  PriceSourceConfig,
  ReferencePrice,
  ReservationBudget,
  SettlementTiming,
  SourcingConfig,
  VenueConfig,
} from './types.ts';

export const DEFAULT_CONFIG_PATH = rootPath('config', 'default.json');

/**
 * The commitment policy's defaults (risk.confirmed_lock), safety first: a fork of a confirmed block costs the
 * maker at most the output of the trades it locked against confirmed taker locks (a lock placed again at the
 * escrow's address with less in it lets the maker's signed lock land against it), so the total is capped at
 * $2,500 — ten trades at the $250 per-trade cap — and a cluster whose finality trails its confirmations by
 * more than 64 slots (twice the usual ~30) gets no such trade at all. docs/operations.md#the-commitment-policy.
 */
export const CONFIRMED_LOCK_DEFAULTS = { maxTradeUsd: '250', maxExposureUsd: '2500', maxDriftSlots: 64 };

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

type AssetOf = (symbol: string, field: string) => Asset;

/** The shape check: the first field the schema refuses, named. */
function checkShape(raw: unknown): ConfigFile {
  const [first] = Value.Errors(ConfigFileSchema, raw);
  if (first) {
    const problem = first.message === 'schema is false' ? 'is not a known setting' : first.message;
    throw new ConfigError(pointerToField(first.instancePath), problem);
  }
  return raw as ConfigFile;
}

const assetLookup =
  (assets: AssetRegistry): AssetOf =>
  (symbol, field) => {
    const found = assets.find(symbol);
    if (!found) throw new ConfigError(field, `unknown asset '${symbol}'`);
    return found;
  };

function amount(text: string, of: Asset, field: string) {
  try {
    return parseAmount(text, of.decimals);
  } catch (error) {
    throw new ConfigError(field, (error as Error).message);
  }
}

function usd(text: string, field: string) {
  try {
    return parseUsd(text);
  } catch (error) {
    throw new ConfigError(field, (error as Error).message);
  }
}

/** Each pair's assets and input bounds; its timing comes once the settlement timing is known. */
function resolvePairBases(file: ConfigFile, asset: AssetOf) {
  const seenPairs = new Set<string>();
  return file.pairs.map((pair, i) => {
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
}
type PairBase = ReturnType<typeof resolvePairBases>[number];

/** The reference prices by mint: one per asset, and one for every asset a pair trades. */
function resolvePrices(file: ConfigFile, asset: AssetOf, pairBases: readonly PairBase[]) {
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
  return prices;
}

function resolveInventory(file: ConfigFile, asset: AssetOf) {
  const inventory = new Map<string, bigint>();
  file.inventory.forEach((entry, i) => {
    const of = asset(entry.asset, `inventory[${i}].asset`);
    if (inventory.has(of.mint)) throw new ConfigError(`inventory[${i}]`, `second entry for ${of.symbol}`);
    inventory.set(of.mint, amount(entry.amount, of, `inventory[${i}].amount`));
  });
  return inventory;
}

function resolveRisk(file: ConfigFile) {
  const risk = {
    minNotionalMicroUsd: usd(file.risk.min_notional_usd, 'risk.min_notional_usd'),
    maxNotionalMicroUsd: usd(file.risk.max_notional_usd, 'risk.max_notional_usd'),
    maxPriceAgeSeconds: file.risk.max_price_age_seconds,
    maxOpenPerWallet: file.risk.max_open_per_wallet,
    makerLockPriceToleranceBps: file.risk.maker_lock_price_tolerance_bps ?? 50,
    confirmedLock: {
      maxTradeMicroUsd: usd(
        file.risk.confirmed_lock?.max_trade_usd ?? CONFIRMED_LOCK_DEFAULTS.maxTradeUsd,
        'risk.confirmed_lock.max_trade_usd',
      ),
      maxExposureMicroUsd: usd(
        file.risk.confirmed_lock?.max_exposure_usd ?? CONFIRMED_LOCK_DEFAULTS.maxExposureUsd,
        'risk.confirmed_lock.max_exposure_usd',
      ),
      maxDriftSlots: file.risk.confirmed_lock?.max_drift_slots ?? CONFIRMED_LOCK_DEFAULTS.maxDriftSlots,
    },
  };
  if (risk.confirmedLock.maxExposureMicroUsd < risk.confirmedLock.maxTradeMicroUsd) {
    throw new ConfigError(
      'risk.confirmed_lock.max_exposure_usd',
      'must not be below max_trade_usd: one trade at the cap would already exceed it',
    );
  }
  if (risk.maxNotionalMicroUsd < risk.minNotionalMicroUsd) {
    throw new ConfigError('risk.max_notional_usd', 'must not be below min_notional_usd');
  }
  return risk;
}

function resolvePricing(file: ConfigFile) {
  const option = file.pricing.option;
  return {
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
}

/**
 * Every traded asset has a feed (with Pyth), and no pair's spread terms at their caps add up past 10000 bps:
 * base + size + skew + each leg's confidence + each leg's option term.
 */
function checkSpreadCaps(
  pairBases: readonly PairBase[],
  pricing: ReturnType<typeof resolvePricing>,
  priceSource: ReturnType<typeof resolvePriceSource>,
) {
  // Each leg adds at most maxBps of option term; none while the term is off.
  const optionCap = pricing.option.k > 0 ? pricing.option.maxBps : 0;
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
}

function resolveQuotes(file: ConfigFile) {
  const quotes = {
    defaultExpirySeconds: file.quotes.default_expiry_seconds,
    maxExpirySeconds: file.quotes.max_expiry_seconds,
  };
  if (quotes.defaultExpirySeconds > quotes.maxExpirySeconds) {
    throw new ConfigError('quotes.default_expiry_seconds', 'must not exceed max_expiry_seconds');
  }
  return quotes;
}

function resolveCluster(file: ConfigFile, settlement: ReturnType<typeof resolveTiming>) {
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
  return cluster;
}

const resolveHttp = (http: ConfigFile['http']) => ({
  corsOrigins: http.cors_origins,
  rateLimitPerMinute: http.rate_limit_per_minute,
  bodyLimitBytes: http.body_limit_bytes,
  operatorToken: http.operator_token,
  operatorTokens: checkOperatorTokens(http.operator_token, http.operator_tokens ?? []),
  trustProxy: checkTrustProxy(http.trust_proxy ?? false),
});

/**
 * Validates a parsed config document and resolves it; throws ConfigError naming the first bad field. The
 * steps run in the file's order of dependence (assets before pairs, settlement before pair timing), which is
 * also the order a bad file's first error is found in.
 */
export function resolveConfig(raw: unknown): Config {
  const file = checkShape(raw);
  const assets = new AssetRegistry(file.assets.map((asset, i) => resolveAsset(asset, `assets[${i}]`)));
  const asset = assetLookup(assets);
  const pairBases = resolvePairBases(file, asset);
  const prices = resolvePrices(file, asset, pairBases);
  const inventory = resolveInventory(file, asset);
  const risk = resolveRisk(file);
  const pricing = resolvePricing(file);
  const priceSource = resolvePriceSource(file.price_source, asset);
  checkSpreadCaps(pairBases, pricing, priceSource);
  const quotes = resolveQuotes(file);
  const chain = resolveChain(file.chain);
  const settlement = resolveTiming(file.settlement, chain.kind);
  const pairs = file.pairs.map(
    (raw, i): Pair => ({
      ...(pairBases[i] as PairBase),
      ...pairTiming(raw, `pairs[${i}]`, quotes, settlement, chain.kind),
    }),
  );
  const reservations = resolveReservations(file.reservations, settlement);
  const cluster = resolveCluster(file, settlement);
  const venue = resolveVenue(file.venue, usd);
  const aggregator = resolveAggregator(file.aggregator, chain.kind);

  return {
    file: structuredClone(file),
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
    gateway: resolveGateway(file.gateway, { assets, chain, amount }),
    http: resolveHttp(file.http),
  };
}
