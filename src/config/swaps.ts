// The swaps the maker makes on its own account: the embedded venue it can trade against, the aggregator
// port every swap goes through and the bounds it keeps, and the hedger's inventory targets and bands.
import type { Asset } from './assets.ts';
import { ConfigError, checkAddress } from './fields.ts';
import type { ConfigFile } from './schema.ts';
import type {
  AggregatorConfig,
  ChainConfig,
  HedgedAsset,
  HedgingConfig,
  SourcingConfig,
  VenueConfig,
} from './types.ts';

/** Jupiter's public Swap API v1 (no key; https://api.jup.ag/swap/v1 with one). */
export const JUPITER_PUBLIC_BASE_URL = 'https://lite-api.jup.ag/swap/v1';
/** Jupiter's aggregator program (v6), the program its swap instructions call. */
export const JUPITER_V6_PROGRAM_ID = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
/** The embedded venue's AMM (src/venue/program.ts; its keypair was discarded, so nothing else can live there). */
export const EMBEDDED_AMM_PROGRAM_ID = 'EBJ1xbLGuBBN1327KM7MYz5Wv2mHXiZ4E9KbV2ks5KNH';

export function resolveVenue(
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

export function resolveAggregator(
  raw: ConfigFile['aggregator'],
  chainKind: ChainConfig['kind'],
): AggregatorConfig {
  const allowed = raw?.allowed_programs ?? [JUPITER_V6_PROGRAM_ID, EMBEDDED_AMM_PROGRAM_ID];
  for (const [i, program] of allowed.entries()) checkAddress(program, `aggregator.allowed_programs[${i}]`);
  const trusted = raw?.trusted_pools ?? null;
  for (const [i, pool] of (trusted ?? []).entries()) checkAddress(pool, `aggregator.trusted_pools[${i}]`);
  const maxSlippageBps = raw?.max_slippage_bps ?? 100;
  const routeToleranceBps = raw?.route_tolerance_bps ?? Math.min(20, maxSlippageBps);
  // The tolerance tightens the slippage bound; beyond it, it would be the looser of the two.
  if (routeToleranceBps > maxSlippageBps) {
    throw new ConfigError(
      'aggregator.route_tolerance_bps',
      `must not exceed aggregator.max_slippage_bps (${maxSlippageBps})`,
    );
  }
  return {
    kind: 'jupiter',
    baseUrl:
      raw?.base_url?.replace(/\/+$/, '') ?? (chainKind === 'embedded' ? null : JUPITER_PUBLIC_BASE_URL),
    apiKeyEnv: raw?.api_key_env ?? null,
    maxSlippageBps,
    maxPriorityFeeLamports: BigInt(raw?.max_priority_fee_lamports ?? 1_000_000),
    allowedPrograms: allowed,
    timeoutMs: raw?.timeout_ms ?? 10_000,
    routeToleranceBps,
    trustedPools: trusted,
  };
}

export function resolveHedging(
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

export function resolveSourcing(
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
  // On the embedded chain the aggregator is the venue's own API unless a base URL names another.
  const reachable = !(ctx.chain.kind === 'embedded' && ctx.venue === null && ctx.aggregator.baseUrl === null);
  // By default on where the maker already swaps through an aggregator it can reach; asked for, it must reach one.
  const enabled = raw?.enabled ?? ((ctx.venue !== null || ctx.hedging) && reachable);
  if (enabled && !reachable) {
    throw new ConfigError(
      'sourcing',
      'sourcing swaps through the aggregator: on the embedded chain configure `venue` (or aggregator.base_url)',
    );
  }
  return { enabled, maxSlippageBps };
}
