// The composition root: opens the store, starts a run, opens the chain, builds the quote desk, the trade
// runtime and the HTTP app from one config. main.ts runs it as a process; tests run it in process.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import {
  type ChainOptions,
  type ChainPort,
  createChain,
  DEFAULT_FEED_SEEDS,
  type DevChain,
  isEmbeddedChain,
  loadOrCreateKeypairFile,
  type PythFeedSpec,
  type PythPublisherOptions,
} from './chain/index.ts';
import { type Config, ConfigError, loadConfig } from './config/index.ts';
import { buildHttpApp, type TypeBoxApp } from './http/app.ts';
import type { ReadinessPart } from './http/routes/index.ts';
import { meterChain, ServiceMetrics } from './metrics/index.ts';
import { rootPath } from './paths.ts';
import {
  feedStates,
  type PriceSource,
  PythPriceSource,
  QuoteDesk,
  StaticPriceSource,
} from './quotes/index.ts';
import { MakerInventory, StartupLease, TradeRuntime } from './runtime/index.ts';
import { GroupCommit, openStore, type Store } from './store/index.ts';
import { embeddedVenueOptions } from './venue/config.ts';

export const VERSION: string = (
  JSON.parse(readFileSync(rootPath('package.json'), 'utf8')) as { version: string }
).version;

/** The maker needs SOL for fees and rent of the escrows it opens. */
const MIN_FEE_BALANCE_LAMPORTS = 10_000_000n;

export interface ServiceOptions {
  /** The embedded chain's files and keypairs, and the SQLite store unless databaseUrl names PostgreSQL. */
  dataDir: string;
  /** postgres://… : the store is that PostgreSQL database (DATABASE_URL). */
  databaseUrl?: string | undefined;
  /**
   * Where this instance answers HTTP for the other instances (ADVERTISE_URL; main.ts defaults it to the
   * listen address): commands for trades this run owns that reach another instance are forwarded here.
   */
  url?: string | undefined;
  /** This run lost its lease (another instance may own its trades now): the runtime stopped; exit. */
  onLeaseLost?: (reason: string) => void;
  config?: Config;
  configPath?: string;
  logger?: FastifyServerOptions['logger'] | false;
  /** Replaces the price source the config selects (a test's stale one, say). */
  prices?: PriceSource;
  nowMs?: () => number;
  /** Listening beyond loopback: the operator token is then required. */
  operatorTokenRequired?: boolean;
  /** Wraps the chain the config opens (tests use it to make the chain unreachable for a while). */
  wrapChain?: (chain: ChainPort) => ChainPort;
  /** Runtime tuning, for tests. */
  pollIntervalMs?: number;
  lockWaitMs?: number;
}

export interface Service {
  readonly app: TypeBoxApp;
  readonly config: Config;
  readonly store: Store;
  /** The chain as the config opened it (and wrapChain wrapped it); the service itself calls it metered. */
  readonly chain: ChainPort;
  readonly devChain: DevChain | null;
  readonly quotes: QuoteDesk;
  /** Where quotes take their prices from (the config's source unless options.prices replaced it). */
  readonly prices: PriceSource;
  readonly runtime: TradeRuntime;
  readonly runId: string;
  close(): Promise<void>;
}

export async function createService(options: ServiceOptions): Promise<Service> {
  const config = options.config ?? loadConfig(options.configPath);
  const leaseTtlMs = config.cluster.leaseTtlSeconds * 1000;
  const store = await openStore(
    options.databaseUrl !== undefined
      ? { databaseUrl: options.databaseUrl, leaseTtlMs }
      : { dataDir: options.dataDir },
  );
  const runId = randomUUID();
  const startedAt = new Date();
  // Before the insert: the lease it starts is counted from no later than this.
  const insertedAt = performance.now();
  try {
    await store.insertRun(
      { runId, version: VERSION, startedAt: startedAt.toISOString(), url: options.url ?? null },
      leaseTtlMs,
    );
  } catch (error) {
    await store.close();
    throw error;
  }
  // The rest of the start can outlast a lease on a slow chain: keep it alive until the runtime takes over.
  const startup = new StartupLease(store, runId, leaseTtlMs, insertedAt);

  const opened = openChain(config, options.dataDir);
  const devChain = isEmbeddedChain(opened) ? opened : null;
  const chain = options.wrapChain ? options.wrapChain(opened) : opened;
  const metrics = new ServiceMetrics({ version: VERSION, chain: chain.kind });
  const port = meterChain(chain, metrics);
  const inventory = new MakerInventory(
    port,
    config.assets.list.map((asset) => asset.mint),
  );
  const log = runtimeLogger(options.logger);
  try {
    await checkMints(port, config, log);
  } catch (error) {
    startup.handOver();
    await opened.close();
    await store.close();
    throw error;
  }
  // A chain that is down at start does not stop the service: quotes see no inventory, trades wait for /resume.
  await inventory
    .refresh()
    .catch((error: unknown) =>
      log.warn({ err: (error as Error).message }, 'could not read maker balances at start'),
    );

  const nowMs = options.nowMs ?? Date.now;
  // The Pyth source reads once before the first RFQ can come, then keeps its snapshot current in the background.
  const prices = options.prices ?? openPriceSource(config, port, nowMs, log);
  await prices.start?.();

  // Every durable write of the running service joins the group commit: one fsync per event-loop turn.
  const durable = new GroupCommit(store, (stats) => metrics.storeCommitted(stats));
  const quotes = await QuoteDesk.open({
    config,
    store,
    durable,
    runId,
    prices,
    inventory,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  });

  const runtime = new TradeRuntime({
    store,
    durable,
    chain: port,
    config,
    quotes,
    runId,
    log,
    onTransition: (transition) => metrics.tradeTransition(transition),
    lease: {
      ttlMs: leaseTtlMs,
      claimBatch: config.cluster.claimBatch,
      confirmedAt: () => startup.handOver(),
    },
    onTakeover: (count) => metrics.tradesTakenOver(count),
    ...(options.onLeaseLost ? { onLeaseLost: options.onLeaseLost } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
  });
  await runtime.start();
  inventory.follow(port.kind === 'embedded' ? 1_000 : 5_000, (error) =>
    log.warn({ err: (error as Error).message }, 'could not refresh maker balances'),
  );

  const readiness = async (): Promise<ReadinessPart[]> => [
    await part('store', async () => ((await store.ping()) ? store.kind : 'no answer')),
    await part('chain', async () => {
      const health = await port.health();
      if (!health.ok) throw new Error(health.detail);
      return health.detail;
    }),
    await part(
      'runtime',
      async () => `${runtime.watcher.size} trades watched, ${runtime.host.activeCount} actors active`,
    ),
    await part('maker_fee_balance', async () => {
      const lamports = await port.solBalance(port.makerWallet);
      if (lamports < MIN_FEE_BALANCE_LAMPORTS)
        throw new Error(`${lamports} lamports, below ${MIN_FEE_BALANCE_LAMPORTS}`);
      return `${lamports} lamports`;
    }),
    await part('prices', async () => pricesReadiness(config, prices, nowMs())),
  ];
  metrics.watch({
    config,
    store,
    runId,
    activeActors: () => runtime.host.activeCount,
    feedLive: () => runtime.watcher.live,
    leaseRemainingSeconds: () => runtime.lease.remainingSeconds,
    chainNow: () => runtime.clock.estimate(),
    balance: (mint) => inventory.known(mint),
    reserved: (mint) => {
      quotes.reservations.expire(nowMs());
      return quotes.reservations.reserved(mint);
    },
    chain: port,
    minFeeLamports: MIN_FEE_BALANCE_LAMPORTS,
    prices: () => feedStates(config, prices, nowMs()),
  });

  const app = await buildHttpApp(
    {
      config,
      version: VERSION,
      run: { runId, startedAt },
      quotes,
      prices,
      nowMs,
      runtime,
      devChain,
      operatorTokenRequired: options.operatorTokenRequired ?? false,
      readiness,
      metrics,
    },
    { logger: options.logger ?? false },
  );

  let closed = false;
  return {
    app,
    config,
    store,
    chain,
    devChain,
    quotes,
    prices,
    runtime,
    runId,
    async close() {
      if (closed) return;
      closed = true;
      startup.handOver();
      await app.close();
      prices.stop?.();
      inventory.stop();
      await runtime.stop();
      await opened.close();
      await durable.close();
      if (store.isOpen) {
        await store.stopRun(runId, new Date().toISOString());
        await store.close();
      }
    },
  };
}

function openPriceSource(
  config: Config,
  chain: ChainPort,
  nowMs: () => number,
  log: pino.Logger,
): PriceSource {
  const source = config.priceSource;
  if (source.kind === 'static') return new StaticPriceSource(config.prices);
  return new PythPriceSource(chain, {
    feeds: source.feeds,
    commitment: source.commitment,
    refreshIntervalMs: source.refreshIntervalMs,
    nowMs,
    onError: (error) => log.warn({ err: error.message }, 'could not read the Pyth price accounts'),
  });
}

/**
 * Stale (or wide, or deviating) feeds are reported, but only when no pair has two quotable prices is the
 * service not ready: settlement of running trades does not need prices, and the other pairs still quote.
 */
function pricesReadiness(config: Config, prices: PriceSource, nowMs: number): string {
  const states = feedStates(config, prices, nowMs);
  const fresh = new Set(states.filter((s) => s.status === 'fresh').map((s) => s.asset));
  const unfit = states.filter((s) => s.status !== 'fresh');
  const detail =
    unfit.length === 0
      ? `${states.length} feeds fresh`
      : `${unfit.map((s) => `${s.asset.symbol} ${s.status}`).join(', ')}; ${fresh.size} of ${states.length} fresh`;
  if (!config.pairs.some((pair) => fresh.has(pair.input) && fresh.has(pair.output))) {
    throw new Error(`no pair can be quoted: ${detail}`);
  }
  return detail;
}

function openChain(config: Config, dataDir: string): ChainPort {
  const chain = config.chain;
  if (chain.kind === 'rpc') {
    return createChain({
      kind: 'rpc',
      url: chain.url,
      ...(chain.wsUrl ? { wsUrl: chain.wsUrl } : {}),
      programId: chain.programId,
      makerKeypairPath: chain.makerKeypairPath,
      priorityFeeMicroLamports: chain.priorityFeeMicroLamports,
    });
  }
  return createChain(embeddedChainOptions(dataDir, config));
}

/**
 * How the service opens DATA_DIR's embedded chain: the maker key file beside it, the config's program,
 * mints, and the inventory funded the first time the chain sees each mint. Also for tools and tests that
 * open that chain while no service runs on it.
 */
export function embeddedChainOptions(dataDir: string, config: Config): ChainOptions & { kind: 'embedded' } {
  const pyth = embeddedPyth(config);
  const venue = embeddedVenueOptions(config);
  return {
    kind: 'embedded',
    dataDir: join(dataDir, 'chain'),
    programId: config.chain.programId,
    makerKeypair: loadOrCreateKeypairFile(join(dataDir, 'maker-keypair.json')),
    mints: config.assets.list.map((asset) => ({
      address: asset.mint,
      decimals: asset.decimals,
      symbol: asset.symbol,
    })),
    makerInventory: [...config.inventory].map(([mint, amount]) => ({ mint, amount })),
    ...(pyth ? { pyth } : {}),
    ...(venue ? { venue } : {}),
  };
}

/** How an embedded feed moves when DEFAULT_FEED_SEEDS has no entry for its symbol. */
const OTHER_FEED_SEED = { exponent: -8, confBps: 10, volatilityBps: 10 };

/**
 * The embedded chain's Pyth publisher, from the config's feeds: each at its configured account and feed
 * id, starting from the config's reference price (at the real feed's exponent), moving as DEFAULT_FEED_SEEDS
 * says. None when the source is static or the config names no embedded_publisher.
 */
export function embeddedPyth(config: Config): PythPublisherOptions | null {
  const source = config.priceSource;
  if (source.kind !== 'pyth' || source.embeddedPublisher === null) return null;
  const feeds = source.feeds.map((feed): PythFeedSpec => {
    const symbol = feed.asset.symbol.toUpperCase();
    const seed = DEFAULT_FEED_SEEDS[symbol as keyof typeof DEFAULT_FEED_SEEDS] ?? OTHER_FEED_SEED;
    const reference = config.prices.get(feed.asset.mint);
    // price × 10^-exponent, floored: the reference price as the feed's integer (the seed's when none).
    const price =
      reference === undefined
        ? ((seed as { price?: bigint }).price ?? 10n ** BigInt(-seed.exponent))
        : (reference.usd.num * 10n ** BigInt(Math.max(0, -seed.exponent))) /
          (reference.usd.den * 10n ** BigInt(Math.max(0, seed.exponent)));
    return {
      ...seed,
      symbol,
      account: new PublicKey(feed.account),
      feedId: feed.feedId,
      price: price < 1n ? 1n : price,
    };
  });
  return { feeds, seed: source.embeddedPublisher.seed, intervalMs: source.embeddedPublisher.intervalMs };
}

/**
 * Only classic SPL Token mints are tradable (Token-2022 transfer fees, hooks or permanent delegates would
 * break the escrow's amounts): a mint the chain shows otherwise stops the process at start. So does a mint
 * with a freeze authority the config does not trust: its holder can freeze an escrow vault mid-swap.
 */
async function checkMints(chain: ChainPort, config: Config, log: pino.Logger): Promise<void> {
  for (const [index, asset] of config.assets.list.entries()) {
    const at = `assets[${index}]`;
    let info: Awaited<ReturnType<ChainPort['readMint']>>;
    try {
      info = await chain.readMint(new PublicKey(asset.mint));
    } catch (error) {
      log.warn(
        { err: (error as Error).message, mint: asset.mint },
        'chain unreachable; mint not checked at start',
      );
      return;
    }
    if (info === null) throw new ConfigError(`${at}.mint`, `no mint ${asset.mint} on the chain`);
    if (info.program !== 'spl-token') {
      throw new ConfigError(
        `${at}.mint`,
        `${asset.symbol} is a ${info.program} mint; only classic SPL Token mints are accepted`,
      );
    }
    if (info.decimals !== asset.decimals) {
      throw new ConfigError(`${at}.decimals`, `the chain says ${info.decimals} for ${asset.symbol}`);
    }
    if (info.freezeAuthority !== null) {
      if (asset.trustFreezeAuthority !== true) {
        throw new ConfigError(
          `${at}.trust_freeze_authority`,
          `${asset.symbol}'s mint has freeze authority ${info.freezeAuthority}, which can freeze an escrow vault ` +
            "mid-swap: a colluding taker redeems the maker's side, has its own escrow's vault frozen so the " +
            "maker's redeem fails, and refunds after expiry, keeping both sides. Accept the risk with " +
            'trust_freeze_authority: true on this asset only if you trust its issuer as you already do with your ' +
            'inventory of it; otherwise remove the asset',
        );
      }
      log.info(
        { mint: asset.mint, freezeAuthority: info.freezeAuthority },
        `${asset.symbol}: freeze authority trusted by config (trust_freeze_authority)`,
      );
    }
  }
}

async function part(name: string, check: () => Promise<string>): Promise<ReadinessPart> {
  try {
    return { name, ok: true, detail: await check() };
  } catch (error) {
    return { name, ok: false, detail: (error as Error).message };
  }
}

/** The runtime logs through pino like the HTTP layer (silent when the service runs without logs). */
function runtimeLogger(logger: ServiceOptions['logger']) {
  if (logger === false || logger === undefined) return pino({ level: 'silent' });
  return pino(typeof logger === 'object' ? (logger as pino.LoggerOptions) : {});
}
