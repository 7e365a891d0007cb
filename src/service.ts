// The composition root: opens the store, starts a run, opens the chain, builds the quote desk, the trade
// runtime and the HTTP app from one config. main.ts runs it as a process; tests run it in process.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import type { FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { type AggregatorPort, openAggregator } from './aggregator/index.ts';
import type { GenesisExtension } from './chain/embedded/extension.ts';
import type { EmbeddedLedger } from './chain/embedded/ledger.ts';
import {
  type ChainOptions,
  type ChainPort,
  createChain,
  DEFAULT_FEED_SEEDS,
  type DevChain,
  finalOnLanding,
  isEmbeddedChain,
  loadOrCreateKeypairFile,
  meterChain,
  type PythFeedSpec,
  type PythPublisherOptions,
} from './chain/index.ts';
import { type Ownership, startRun } from './cluster/index.ts';
import { type Config, type ConfigError, loadConfig } from './config/index.ts';
import { ControlPlane } from './control/index.ts';
import { Hedger, positions, readInventory } from './hedging/index.ts';
import { buildHttpApp, type TypeBoxApp } from './http/app.ts';
import { ServiceMetrics } from './metrics/index.ts';
import { MintCheck } from './mint-check.ts';
import { rootPath } from './paths.ts';
import {
  feedStates,
  type PriceSource,
  PythPriceSource,
  QuoteDesk,
  StaticPriceSource,
} from './quotes/index.ts';
import {
  chainPart,
  evaluateReadiness,
  feeBalancePart,
  makerBalancesPart,
  mintsPart,
  pricesPart,
  runtimePart,
  storePart,
} from './readiness.ts';
import {
  type EmbeddedGatewayPrep,
  type GatewayRuntime,
  openGateway,
  prepareEmbeddedGateway,
} from './runtime/gateway.ts';
import { GatewayBurns } from './runtime/gateway-burns.ts';
import { ChainReachability, MakerInventory, TradeRuntime, withUnifiedBalance } from './runtime/index.ts';
import { GroupCommit, isStorageFull, openStore, StorageWatch, type Store } from './store/index.ts';
import { embeddedVenueOptions } from './venue/config.ts';
import type { EmbeddedVenue } from './venue/embedded.ts';
import { VenueGenesis } from './venue/genesis.ts';

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
  onOwnershipLost?: (reason: string) => void;
  config?: Config;
  configPath?: string;
  logger?: FastifyServerOptions['logger'] | false;
  /** Replaces the price source the config selects (a test's stale one, say). */
  prices?: PriceSource;
  nowMs?: () => number;
  /**
   * A configured mint found unfit after the start (the chain did not answer at start, and answered later):
   * the service takes no quote; main.ts exits.
   */
  onMintRefused?: (error: ConfigError) => void;
  /**
   * The embedded chain's wall clock in ms (Date.now by default; its clock follows it plus advanceClock):
   * a fixed one for tests whose chain time moves only when they warp it, whatever the machine's load.
   */
  chainClock?: () => number;
  /** Wraps the chain the config opens (tests use it to make the chain unreachable for a while). */
  wrapChain?: (chain: ChainPort) => ChainPort;
  /** Wraps the store it opens (tests use it to make its commits fail as on a full disk). */
  wrapStore?: (store: Store) => Store;
  /** How the storage watch probes a full store and how long it holds (storage-full.ts), for tests. */
  storageWatch?: { probeMs?: number; holdMs?: number };
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
  /** The embedded venue the embedded chain carries (config venue): its pools, keeper and API; else null. */
  readonly venue: EmbeddedVenue | null;
  readonly quotes: QuoteDesk;
  /** Where quotes take their prices from (the config's source unless options.prices replaced it). */
  readonly prices: PriceSource;
  readonly runtime: TradeRuntime;
  /**
   * The aggregator port (Jupiter's Swap API v1, or the embedded venue's), signing for the maker through the
   * service's metered chain; null on an embedded chain without a venue and without aggregator.base_url.
   */
  readonly aggregator: AggregatorPort | null;
  /** Keeps inventory within its bands (config hedging); null without a hedging section or an aggregator. */
  readonly hedger: Hedger | null;
  /** Circle Gateway (config gateway): the port, the unified balance followed, the embedded parts; null: off. */
  readonly gateway: GatewayRuntime | null;
  /** The desk's live settings (/v1/desk): the config's pairs, hedging and sourcing, changed by an operator. */
  readonly control: ControlPlane;
  readonly runId: string;
  /** Which trades this run owns (src/cluster/); told where the service listens once it does. */
  readonly ownership: Ownership;
  close(): Promise<void>;
}

export async function createService(options: ServiceOptions): Promise<Service> {
  const config = options.config ?? loadConfig(options.configPath);
  const leaseTtlMs = config.cluster.leaseTtlSeconds * 1000;
  const openedStore = await openStore(
    options.databaseUrl !== undefined
      ? { databaseUrl: options.databaseUrl, leaseTtlMs }
      : { dataDir: options.dataDir },
  );
  const store = options.wrapStore ? options.wrapStore(openedStore) : openedStore;
  // Made before the run exists, as the chain is opened: the logger's first stack trace (pino reads its
  // callers) parses the bundle's source map, and the embedded chain's genesis (programs, keys, the venue's
  // pools) is synchronous; each holds the event loop for a second or more on a loaded machine, and a lease
  // started before them could not be renewed meanwhile (a start that lost its 3 s test lease and exited).
  const log = runtimeLogger(options.logger);
  // The embedded Gateway's minter is deployed with the chain; its EVM node boots meanwhile.
  const gatewayPrep =
    config.gateway?.mode === 'embedded' ? prepareEmbeddedGateway(config.gateway, options.dataDir) : null;
  let opened: ChainPort;
  let venue: EmbeddedVenue | null;
  try {
    ({ chain: opened, venue } = openChain(
      config,
      options.dataDir,
      options.chainClock,
      gatewayPrep ? [gatewayPrep.genesis] : [],
    ));
  } catch (error) {
    await gatewayPrep?.abort();
    await store.close();
    throw error;
  }
  // The Gateway's setup (its contracts deployed on anvil, the dev Gateway's API, the maker's deposit) runs
  // beside the rest of the start; it is awaited after the mint check.
  const gatewayStart = settled(
    startGateway(config, {
      dataDir: options.dataDir,
      prep: gatewayPrep,
      ledger: isEmbeddedChain(opened) ? opened.ledger : null,
      maker: opened.makerWallet,
      log,
    }),
  );
  const abandonGateway = async () => {
    const started = await gatewayStart;
    if (started.ok) await started.value?.close();
  };
  const runId = randomUUID();
  const startedAt = new Date();
  // The rest of the start can outlast a lease on a slow chain: the run's ownership keeps it alive until the
  // runtime keeps it.
  let ownership: Ownership;
  try {
    ownership = await startRun(
      store,
      { runId, version: VERSION, startedAt: startedAt.toISOString(), url: options.url ?? null },
      { ttlMs: leaseTtlMs, claimBatch: config.cluster.claimBatch, log },
    );
  } catch (error) {
    await abandonGateway();
    await opened.close();
    await store.close();
    throw error;
  }

  const devChain = isEmbeddedChain(opened) ? opened : null;
  const chain = options.wrapChain ? options.wrapChain(opened) : opened;
  const metrics = new ServiceMetrics({ version: VERSION, chain: chain.kind });
  // Every call the service makes to the chain is metered and tells whether the chain answers.
  const reachability = new ChainReachability({
    probe: () => port.now(),
    maxProbeMs: options.pollIntervalMs ?? (chain.kind === 'embedded' ? 250 : 2_000),
  });
  const port = meterChain(chain, {
    chainCall: (method, seconds, failure) => {
      metrics.chainCall(method, seconds, failure);
      reachability.chainCall(method, seconds, failure);
    },
  });
  const inventory = new MakerInventory(
    port,
    config.assets.list.map((asset) => asset.mint),
  );
  // The chain is followed every second (embedded) or five (rpc): balances, and the mint check's retries.
  const followMs = port.kind === 'embedded' ? 1_000 : 5_000;
  const mints = new MintCheck(port, config, log, {
    retryMs: followMs,
    ...(options.onMintRefused ? { onRefused: options.onMintRefused } : {}),
  });
  let gateway: GatewayRuntime | null = null;
  try {
    await mints.start();
    const started = await gatewayStart;
    if (!started.ok) throw started.error;
    gateway = started.value;
  } catch (error) {
    mints.stop();
    await abandonGateway();
    ownership.stop();
    await opened.close();
    await store.close();
    throw error;
  }
  // A chain that is down at start does not stop the service: quotes wait for the mint check, trades for /resume.
  await inventory
    .refresh()
    .catch((error: unknown) =>
      log.warn({ err: (error as Error).message }, 'could not read maker balances at start'),
    );

  const nowMs = options.nowMs ?? Date.now;
  // The Pyth source reads once before the first RFQ can come, then keeps its snapshot current in the background.
  const prices = options.prices ?? openPriceSource(config, port, nowMs, log);
  await prices.start?.();

  // Every durable write of the running service joins the group commit: one fsync per event-loop turn. Its
  // outcomes tell whether the store takes writes (a full disk: readiness, new work refused, trades taken up
  // again once a write succeeds).
  const storage = new StorageWatch({
    probe: () => durable.write({ kind: 'probe', runId, at: new Date().toISOString() }),
    ...options.storageWatch,
  });
  const durable = new GroupCommit(
    store,
    (stats) => {
      metrics.storeCommitted(stats);
      storage.committed();
    },
    (failure) => {
      metrics.storeFailed(failure);
      storage.failed(failure.error);
      if (isStorageFull(failure.error)) {
        log.error(
          { err: failure.error.message, writes: failure.size },
          'the store cannot write: its disk is full',
        );
      }
    },
  );
  // The desk's live settings: the config file is the boot default, the stored overrides win.
  const control = await ControlPlane.open({
    boot: config,
    store,
    durable,
    runId,
    log,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  });
  const quotes = await QuoteDesk.open({
    config,
    store,
    durable,
    runId,
    prices,
    // With gateway.count_unified_in_quotes, the unified USDC balance (less fees and the reserve) is output too.
    inventory:
      gateway?.config.countUnifiedInQuotes === true
        ? withUnifiedBalance(inventory, gateway.config.asset.mint, () => gateway.inventory.counted())
        : inventory,
    live: control,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  });

  // Swaps through the aggregator are signed by the maker through the metered port, like its escrow transactions.
  const aggregator =
    config.aggregator.baseUrl !== null || venue !== null
      ? await openAggregator({ config: config.aggregator, chain: port, venue })
      : null;
  let hedger: Hedger | null = null;
  // Just in time: an RFQ larger than the free inventory prices the rest from the aggregator's route, while
  // sourcing is on (the operator switches it live).
  const sourceQuotes = (enabled: boolean) =>
    quotes.setSourcing(
      aggregator && enabled
        ? {
            aggregator,
            maxSlippageBps: config.sourcing.maxSlippageBps,
            aggregatorMaxSlippageBps: config.aggregator.maxSlippageBps,
          }
        : null,
    );
  sourceQuotes(control.current.config.sourcing.enabled);
  control.onChange((settings) => sourceQuotes(settings.config.sourcing.enabled));

  // The source-chain burns that follow the trades' Gateway mints, shown as their gateway_burn.
  let burns: GatewayBurns | null = null;
  const runtime = new TradeRuntime({
    store,
    durable,
    chain: port,
    config,
    quotes,
    runId,
    log,
    onTransition: (transition) => {
      metrics.tradeTransition(transition);
      const { tradeId, inputMint, outputMint } = transition.context;
      if (hedger && tradeId !== undefined) {
        hedger.tradeMoved({
          from: transition.from,
          to: transition.to,
          tradeId,
          mints: [inputMint, outputMint].filter((mint): mint is string => mint !== undefined),
        });
      }
    },
    ownership,
    onTakeover: (count) => metrics.tradesTakenOver(count),
    reachability,
    aggregator,
    minting: gateway?.minting ?? null,
    storage,
    ...(options.onOwnershipLost ? { onOwnershipLost: options.onOwnershipLost } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
  });
  if (gateway?.minting) {
    burns = new GatewayBurns({
      port: gateway.port,
      store,
      write: (write) => durable.write(write),
      runId,
      eventsStored: (tradeId) => runtime.eventsStored(tradeId),
      intervalMs: gateway.config.refreshIntervalMs,
      log,
    });
    burns.start();
  }
  await runtime.start();
  if (config.hedging && aggregator) {
    // A hedge is quoted against the live mid only: a price that is not fresh (stale, wide, deviating) is none.
    const freshPrice = (mint: string) => {
      const state = feedStates(config, prices, nowMs()).find((feed) => feed.asset.mint === mint);
      return state?.status === 'fresh' ? (prices.latest(mint)?.usd ?? null) : null;
    };
    hedger = new Hedger({
      config: control.current.config.hedging ?? config.hedging,
      aggregatorMaxSlippageBps: config.aggregator.maxSlippageBps,
      routeToleranceBps: config.aggregator.routeToleranceBps,
      durable,
      chain: port,
      aggregator,
      freshPrice,
      reservations: quotes.reservations,
      cachedBalance: (mint) => inventory.balance(mint),
      refreshInventory: () => inventory.refresh(),
      runId,
      log,
      observer: metrics,
      landTimeoutMs: finalOnLanding(port) ? 5_000 : 90_000,
      tickMs: followMs,
      ownership,
      nowMs,
    });
    await hedger.start();
    const live = hedger;
    control.onChange((settings) => {
      if (!settings.config.hedging) return;
      live
        .setConfig(settings.config.hedging)
        .catch((error: unknown) =>
          log.warn({ err: (error as Error).message }, 'the hedger could not take the new settings'),
        );
    });
  }
  await control.start();
  const reservedNow = (mint: string) => {
    quotes.reservations.expire(nowMs());
    return quotes.reservations.reserved(mint);
  };
  const inventorySources = {
    assets: config.assets,
    // The bands in force: the operator changes them live.
    get hedging() {
      return control.current.config.hedging;
    },
    hedger,
    store,
    balance: (mint: string) => inventory.balance(mint),
    reserved: reservedNow,
    balancesReadAtMs: () => inventory.lastReadAtMs,
  };
  const balancesFailed = (error: unknown) =>
    log.warn({ err: (error as Error).message }, 'could not refresh maker balances');
  inventory.follow(followMs, balancesFailed);
  gateway?.inventory.follow((error) =>
    log.warn({ err: (error as Error).message }, 'could not read the Gateway unified balance'),
  );
  // Quotes wait for the balances after an outage: read them as soon as the chain answers, not a period later.
  reachability.onRecovered(() => void inventory.refresh().catch(balancesFailed));

  // Small named parts, none of them a chain call: a probe reads what the timers following the chain know.
  const readinessChecks = [
    storePart(store, storage),
    chainPart({
      lastReadAtMs: () => inventory.lastReadAtMs,
      clockReading: (maxAgeMs) => runtime.clock.fresh(maxAgeMs),
      staleAfterMs: 3 * followMs + 2_000,
      reachability,
      settlingSnapshots: () => ownership.trades.settlingSnapshots(),
      chainNow: () => runtime.clock.estimate(),
    }),
    runtimePart(runtime),
    makerBalancesPart(inventory),
    feeBalancePart(inventory, MIN_FEE_BALANCE_LAMPORTS),
    pricesPart(config, prices, nowMs),
    mintsPart(mints, config),
  ];
  const readiness = () => evaluateReadiness(readinessChecks);
  metrics.watch({
    config,
    owned: ownership.trades,
    activeActors: () => runtime.host.activeCount,
    feedLive: () => runtime.watcher.live,
    leaseRemainingSeconds: () => ownership.remainingSeconds,
    chainNow: () => runtime.clock.estimate(),
    chainUnreachableSeconds: () => reachability.unreachableSeconds,
    balance: (mint) => inventory.balance(mint),
    reserved: reservedNow,
    chain: port,
    minFeeLamports: MIN_FEE_BALANCE_LAMPORTS,
    prices: () => feedStates(config, prices, nowMs()),
    inventory: () => positions(inventorySources),
    desk: () => ({
      paused: control.current.paused,
      pausedPairs: control.livePairs().filter((pair) => pair.paused).length,
    }),
    confirmedLocks: () => runtime.exposure.view(),
    storageFull: () => storage.full,
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
      readiness,
      tradable: () => mints.checked,
      writable: () => !storage.full,
      metrics,
      makerWallet: chain.makerWallet.toBase58(),
      inventory: () => readInventory(inventorySources),
      gateway: gateway ? () => gateway.inventory.reading() : null,
      control,
      confirmedLocks: () => runtime.exposure.view(),
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
    venue,
    quotes,
    prices,
    runtime,
    aggregator,
    hedger,
    gateway,
    control,
    runId,
    ownership,
    async close() {
      if (closed) return;
      closed = true;
      mints.stop();
      await app.close();
      prices.stop?.();
      inventory.stop();
      await control.stop();
      await hedger?.stop();
      await burns?.stop();
      await runtime.stop();
      storage.stop();
      // The dev Gateway reads the chain: it stops first (and anvil with it).
      await gateway?.close();
      await opened.close();
      await durable.close();
      if (store.isOpen) {
        // A full disk may refuse it: the next run retires this one all the same (SQLite at its start;
        // PostgreSQL once the lease lapses).
        await ownership.end();
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
    clockToleranceMs: source.clockToleranceSeconds * 1000,
    volatilityHalfLifeSeconds: config.pricing.option.volatilityHalfLifeSeconds,
    nowMs,
    onError: (error) => log.warn({ err: error.message }, 'could not read the Pyth price accounts'),
  });
}

/** A promise's outcome as a value: awaited later, its failure is not unhandled meanwhile. */
function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/**
 * The Gateway the config names, its unified balance read once (a Gateway that does not answer at start counts
 * 0 until it does); null when off.
 */
async function startGateway(
  config: Config,
  ctx: {
    dataDir: string;
    prep: EmbeddedGatewayPrep | null;
    ledger: EmbeddedLedger | null;
    maker: PublicKey;
    log: pino.Logger;
  },
): Promise<GatewayRuntime | null> {
  if (config.gateway === null) return null;
  const gateway = await openGateway(config.gateway, {
    dataDir: ctx.dataDir,
    prep: ctx.prep,
    ledger: ctx.ledger,
    maker: ctx.maker,
    log: ctx.log,
  });
  await gateway.inventory
    .refresh()
    .catch((error: unknown) =>
      ctx.log.warn({ err: (error as Error).message }, 'could not read the Gateway unified balance at start'),
    );
  return gateway;
}

function openChain(
  config: Config,
  dataDir: string,
  clock?: () => number,
  extensions: readonly GenesisExtension[] = [],
): { chain: ChainPort; venue: EmbeddedVenue | null } {
  const chain = config.chain;
  if (chain.kind === 'rpc') {
    const rpc = createChain({
      kind: 'rpc',
      urls: chain.urls,
      ...(chain.wsUrl ? { wsUrl: chain.wsUrl } : {}),
      maxSlotLag: chain.maxSlotLag,
      programId: chain.programId,
      makerKeypairPath: chain.makerKeypairPath,
      priorityFeeMicroLamports: chain.priorityFeeMicroLamports,
      maxPriorityFeeMicroLamports: chain.maxPriorityFeeMicroLamports,
      priorityFeeRampSeconds: chain.priorityFeeRampSeconds,
    });
    return { chain: rpc, venue: null };
  }
  const venue = embeddedVenueGenesis(config);
  const base = embeddedChainOptions(dataDir, config, venue);
  const options = { ...base, extensions: [...(base.extensions ?? []), ...extensions] };
  return { chain: createChain(clock ? { ...options, clock } : options), venue: venue?.venue ?? null };
}

/**
 * How the service opens DATA_DIR's embedded chain: the maker key file beside it, the config's program,
 * mints, the inventory funded the first time the chain sees each mint, and the venue the config names
 * (one of its own unless given: keep it to reach the venue once the chain is created). Also for tools and
 * tests that open that chain while no service runs on it.
 */
export function embeddedChainOptions(
  dataDir: string,
  config: Config,
  venue: VenueGenesis | null = embeddedVenueGenesis(config),
): ChainOptions & { kind: 'embedded' } {
  const pyth = embeddedPyth(config);
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
    ...(config.chain.kind === 'embedded' && config.chain.timing ? { timing: config.chain.timing } : {}),
    ...(pyth ? { pyth } : {}),
    ...(venue ? { extensions: [venue] } : {}),
  };
}

/** The embedded venue the config names, as the embedded chain's genesis extension; null without one. */
function embeddedVenueGenesis(config: Config): VenueGenesis | null {
  const options = embeddedVenueOptions(config);
  return options ? new VenueGenesis(options) : null;
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

/** The runtime logs through pino like the HTTP layer (silent when the service runs without logs). */
function runtimeLogger(logger: ServiceOptions['logger']) {
  if (logger === false || logger === undefined) return pino({ level: 'silent' });
  if (typeof logger !== 'object') return pino({});
  // Fastify takes the destination inside its options; pino beside them.
  const { stream, ...options } = logger as pino.LoggerOptions & { stream?: pino.DestinationStream };
  return stream ? pino(options, stream) : pino(options);
}
