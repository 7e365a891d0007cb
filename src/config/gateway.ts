// The gateway block: which Gateway the maker's unified USDC balance lives behind (the embedded dev Gateway,
// Circle's, or none), what of it quotes may count, and what a transfer may cost. docs/gateway.md.
import { CIRCLE_GATEWAY_URLS } from '../gateway/circle-api.ts';
import { GATEWAY_SOLANA_PROGRAMS } from '../gateway/formats/programs.ts';
import { EMBEDDED_GATEWAY_MINTER_ID, EMBEDDED_GATEWAY_WALLET_ID } from '../gateway/solana/program.ts';
import type { Asset, AssetRegistry } from './assets.ts';
import { ConfigError } from './fields.ts';
import type { ConfigFile } from './schema.ts';
import type { ChainConfig, GatewayCommon, GatewayConfig } from './types.ts';

/** Base (domain 6) is the EVM domain anvil stands for unless the config names another. */
export const GATEWAY_DEFAULTS = {
  evmDepositUsdc: '100000',
  domain: 6,
  settleIntervalMs: 1_000,
  reserveUsdc: '0',
  maxFeeUsdc: '100',
  refreshIntervalMs: 5_000,
  timeoutMs: 5_000,
} as const;

const USDC_DECIMALS = 6;

type RawGateway = NonNullable<ConfigFile['gateway']>;
type Cluster = keyof typeof GATEWAY_SOLANA_PROGRAMS;
type Usdc = (text: string, field: string) => bigint;
/** What both modes read from the block; the program ids come with the mode. */
type CommonSettings = Omit<GatewayCommon, 'minterProgram' | 'walletProgram'>;

export function resolveGateway(
  raw: ConfigFile['gateway'],
  ctx: {
    assets: AssetRegistry;
    chain: ChainConfig;
    amount: (text: string, of: Asset, field: string) => bigint;
  },
): GatewayConfig | null {
  if (raw === undefined) return null;
  const mode = gatewayMode(raw, ctx.chain);
  if (mode === 'off') return null;
  const cluster = raw.circle?.cluster;
  if (mode === 'circle' && cluster === undefined) {
    throw new ConfigError('gateway.circle', 'required with mode "circle"');
  }
  const asset = gatewayUsdc(ctx.assets, cluster);
  const usdc: Usdc = (text, field) => ctx.amount(text, asset, field);
  const common = commonSettings(raw, mode, asset, usdc);
  if (cluster === undefined || raw.circle === undefined)
    return embeddedGateway(raw.embedded ?? {}, common, usdc);
  return circleGateway(raw.circle, cluster, common);
}

/**
 * The mode, and that the blocks and the chain fit it. Unnamed, the mode follows the chain: the dev Gateway
 * beside the embedded chain, none on a cluster (Circle's needs settings of its own) — so the shipped config
 * pointed at a cluster runs without one.
 */
function gatewayMode(raw: RawGateway, chain: ChainConfig): 'off' | 'embedded' | 'circle' {
  const mode = raw.mode ?? (chain.kind === 'embedded' ? 'embedded' : 'off');
  if (mode === 'off') return mode;
  if (mode === 'embedded' && raw.circle !== undefined) {
    throw new ConfigError('gateway.circle', 'only with mode "circle"');
  }
  if (mode === 'circle' && raw.embedded !== undefined) {
    throw new ConfigError('gateway.embedded', 'only with mode "embedded"');
  }
  if (mode === 'embedded' && chain.kind !== 'embedded') {
    throw new ConfigError(
      'gateway.mode',
      'the embedded Gateway deploys its programs on the embedded chain: on an rpc chain use "circle" or "off"',
    );
  }
  if (mode === 'circle' && chain.kind !== 'rpc') {
    throw new ConfigError(
      'gateway.mode',
      'Circle\'s Gateway mints on a Solana cluster: on the embedded chain use "embedded" or "off"',
    );
  }
  return mode;
}

/** The Gateway's USDC: on a cluster the mint Circle's programs support there; embedded, the USDC asset. */
function gatewayUsdc(assets: AssetRegistry, cluster: Cluster | undefined): Asset {
  const circleUsdc = cluster === undefined ? undefined : GATEWAY_SOLANA_PROGRAMS[cluster].usdc;
  const asset =
    circleUsdc === undefined
      ? assets.find('USDC')
      : assets.list.find((candidate) => candidate.mint === circleUsdc);
  if (!asset) {
    throw new ConfigError(
      'gateway',
      circleUsdc === undefined
        ? 'no USDC asset is configured'
        : `no configured asset is Gateway's USDC on ${cluster} (${circleUsdc})`,
    );
  }
  if (asset.decimals !== USDC_DECIMALS) {
    throw new ConfigError('gateway', `${asset.symbol} has ${asset.decimals} decimals, USDC has 6`);
  }
  return asset;
}

/** What both modes read: what quotes may count of the balance, what a transfer may cost, how often to look. */
function commonSettings(
  raw: RawGateway,
  mode: 'embedded' | 'circle',
  asset: Asset,
  usdc: Usdc,
): CommonSettings {
  const maxFeeRaw = usdc(raw.max_fee_usdc ?? GATEWAY_DEFAULTS.maxFeeUsdc, 'gateway.max_fee_usdc');
  if (maxFeeRaw <= 0n) throw new ConfigError('gateway.max_fee_usdc', 'must be above zero');
  return {
    asset,
    // Embedded, a quote counted against the unified balance is fillable: the trade mints its shortfall before it
    // locks (src/runtime/minting.ts). In circle mode the service holds no depositor key to mint with yet.
    countUnifiedInQuotes: raw.count_unified_in_quotes ?? mode === 'embedded',
    reserveRaw: usdc(raw.reserve_usdc ?? GATEWAY_DEFAULTS.reserveUsdc, 'gateway.reserve_usdc'),
    maxFeeRaw,
    refreshIntervalMs: raw.refresh_interval_ms ?? GATEWAY_DEFAULTS.refreshIntervalMs,
    timeoutMs: raw.timeout_ms ?? GATEWAY_DEFAULTS.timeoutMs,
  };
}

/** The dev Gateway: our own programs on the embedded chain, anvil standing for one EVM domain. */
function embeddedGateway(
  embedded: NonNullable<RawGateway['embedded']>,
  common: CommonSettings,
  usdc: Usdc,
): GatewayConfig {
  const domain = embedded.domain ?? GATEWAY_DEFAULTS.domain;
  if (domain === 5) throw new ConfigError('gateway.embedded.domain', 'is Solana’s: name an EVM domain');
  return {
    ...common,
    mode: 'embedded',
    minterProgram: EMBEDDED_GATEWAY_MINTER_ID.toBase58(),
    walletProgram: EMBEDDED_GATEWAY_WALLET_ID.toBase58(),
    evmDepositRaw: usdc(
      embedded.evm_deposit_usdc ?? GATEWAY_DEFAULTS.evmDepositUsdc,
      'gateway.embedded.evm_deposit_usdc',
    ),
    domain,
    settleIntervalMs: embedded.settle_interval_ms ?? GATEWAY_DEFAULTS.settleIntervalMs,
  };
}

/** Circle's Gateway on a cluster: its programs there, its API, the maker's depositor, the EVM sources. */
function circleGateway(
  circle: NonNullable<RawGateway['circle']>,
  cluster: Cluster,
  common: CommonSettings,
): GatewayConfig {
  const seen = new Set<number>();
  for (const [i, source] of circle.sources.entries()) {
    if (source.domain === 5) {
      throw new ConfigError(`gateway.circle.sources[${i}].domain`, 'is Solana’s: sources are EVM domains');
    }
    if (seen.has(source.domain)) {
      throw new ConfigError(`gateway.circle.sources[${i}].domain`, `domain ${source.domain} is listed twice`);
    }
    seen.add(source.domain);
  }
  const programs = GATEWAY_SOLANA_PROGRAMS[cluster];
  return {
    ...common,
    mode: 'circle',
    cluster,
    minterProgram: programs.minter,
    walletProgram: programs.wallet,
    baseUrl: (circle.base_url ?? CIRCLE_GATEWAY_URLS[cluster === 'mainnet' ? 'mainnet' : 'testnet']).replace(
      /\/+$/,
      '',
    ),
    depositor: circle.depositor.toLowerCase(),
    attesters: circle.attesters.map((a) => a.toLowerCase()),
    sources: circle.sources.map((s) => ({
      domain: s.domain,
      gatewayWallet: s.gateway_wallet.toLowerCase(),
      usdc: s.usdc.toLowerCase(),
    })),
  };
}
