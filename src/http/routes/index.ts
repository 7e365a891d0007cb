// Every route group, registered in one place as a Fastify plugin under its prefix, with what it may reach
// passed as its options; HttpDeps is all the routes may reach. Operator groups guard themselves with one
// hook (operator.ts).
import type { FastifyRequest } from 'fastify';
import { DEFAULT_HTLC_PROGRAM_ID, type DevChain } from '../../chain/index.ts';
import type { Config } from '../../config/index.ts';
import type { ControlPlane } from '../../control/index.ts';
import type { UnifiedReading } from '../../gateway/inventory.ts';
import type { InventoryReading } from '../../hedging/index.ts';
import type { ServiceMetrics } from '../../metrics/index.ts';
import type { PriceSource, QuoteDesk } from '../../quotes/index.ts';
import type { ExposureView, TradeRuntime } from '../../runtime/index.ts';
import type { TypeBoxApp } from '../typebox-app.ts';
import { assetRoutes } from './assets.ts';
import { deskRoutes } from './desk.ts';
import { devRoutes } from './dev.ts';
import { devRpcLedger, devRpcRoutes } from './dev-rpc.ts';
import type { ReadinessPart } from './health.schema.ts';
import { healthRoutes } from './health.ts';
import { inventoryRoutes } from './inventory.ts';
import { metricsRoutes } from './metrics.ts';
import type { OperatorAccess, OperatorRoutes } from './operator.ts';
import { priceRoutes } from './prices.ts';
import { rfqRoutes } from './rfq.ts';
import { runtimeRoutes } from './runtime.ts';
import { settlementRoutes } from './settlement.ts';
import { swapPageRoutes } from './swap-page.ts';
import { tradeOperatorRoutes, tradeRoutes } from './trades.ts';
import { vizRoutes } from './viz.ts';

export type { ReadinessPart } from './health.schema.ts';

export interface HttpDeps {
  config: Config;
  version: string;
  run: { runId: string; startedAt: Date };
  quotes: QuoteDesk;
  /** The price source quotes read: GET /v1/prices shows it. */
  prices: PriceSource;
  /** The service's clock (tests may set it): a price's age is measured on it. */
  nowMs?: () => number;
  runtime: TradeRuntime;
  /** The embedded chain's dev controls; absent on real clusters. */
  devChain: DevChain | null;
  /** Every readiness part, with the operator's detail (the public route shows only the words). */
  readiness: () => Promise<ReadinessPart[]>;
  /** Whether new quotes and settlements may start (every configured mint checked on the chain). */
  tradable: () => boolean;
  /**
   * Whether the store takes writes (its disk is not full): new work (an RFQ, a settlement start, a taker's
   * lock) waits meanwhile. Default: always.
   */
  writable?: () => boolean;
  /** This service's metrics: routes record into them, GET /metrics serves them. */
  metrics: ServiceMetrics;
  /** The maker's public key (base58): the swap page pins it off the embedded chain. */
  makerWallet: string;
  /** The maker's inventory, targets and hedges (GET /v1/inventory); absent: the route is not served. */
  inventory?: () => Promise<InventoryReading>;
  /** The control plane (/v1/desk): the settings changed live; absent: the config's, and no route. */
  control?: ControlPlane;
  /** The commitment policy's book, shown with the inventory (GET /v1/inventory's confirmed_locks). */
  confirmedLocks?: () => ExposureView;
  /** The Gateway unified balance, shown with the inventory (GET /v1/inventory's gateway); null: no Gateway. */
  gateway?: (() => UnifiedReading) | null;
}

/**
 * Registers every group. `operatorRoutes` collects the operator routes as they are added (app.ts refuses
 * CORS preflights for them).
 */
export async function registerRoutes(
  app: TypeBoxApp,
  deps: HttpDeps,
  operatorRoutes: OperatorRoutes,
  clientOf?: (request: FastifyRequest) => string,
): Promise<void> {
  const { config } = deps;
  const writable = deps.writable ?? (() => true);
  const operator: OperatorAccess = {
    token: config.http.operatorToken,
    tokens: config.http.operatorTokens,
    routes: operatorRoutes,
  };
  // The embedded chain as a public JSON-RPC endpoint, for takers that verify through an RPC.
  const ledger = devRpcLedger(deps.devChain);
  await registerPublicRoutes(app, deps, writable, clientOf);
  await registerOperatorRoutes(app, deps, operator, ledger);
  await registerSwapPage(app, deps, ledger);
}

/** Public: the interface's routes. */
async function registerPublicRoutes(
  app: TypeBoxApp,
  deps: HttpDeps,
  writable: () => boolean,
  clientOf: ((request: FastifyRequest) => string) | undefined,
): Promise<void> {
  const { config, version, run, quotes, prices, runtime, readiness, tradable, metrics, control } = deps;
  const { assets, pairs } = config;
  await app.register(healthRoutes, { prefix: '/v1/health', version, run, readiness });
  await app.register(assetRoutes, {
    prefix: '/v1',
    assets,
    pairs: control ? () => control.livePairs() : () => pairs,
  });
  await app.register(priceRoutes, { prefix: '/v1/prices', config, prices, nowMs: deps.nowMs ?? Date.now });
  await app.register(rfqRoutes, {
    prefix: '/v1',
    quotes,
    metrics,
    tradable,
    writable,
    ...(clientOf ? { clientOf } : {}),
  });
  await app.register(settlementRoutes, {
    prefix: '/v1/quotes',
    runtime,
    assets,
    metrics,
    tradable,
    writable,
  });
  await app.register(tradeRoutes, {
    prefix: '/v1/trades',
    runtime,
    assets,
    writable,
    streams: metrics.eventStreams('trade'),
  });
}

/**
 * The operator's: each group guarded by the operator token. The embedded chain's public JSON-RPC endpoint is
 * registered among them, after the dev group, where it always was (the OpenAPI document keeps its order).
 */
async function registerOperatorRoutes(
  app: TypeBoxApp,
  deps: HttpDeps,
  operator: OperatorAccess,
  ledger: ReturnType<typeof devRpcLedger>,
): Promise<void> {
  const { config, version, run, runtime, devChain, readiness, metrics, control } = deps;
  const { assets } = config;
  await app.register(tradeOperatorRoutes, { prefix: '/v1/trades', runtime, assets, operator });
  if (devChain) await app.register(devRoutes, { prefix: '/v1/dev', devChain, assets, operator });
  if (ledger) await app.register(devRpcRoutes, { prefix: '/v1/dev', ledger });
  await app.register(runtimeRoutes, {
    prefix: '/v1/runtime',
    runtime,
    run,
    version,
    assets,
    operator,
    readiness,
    streams: metrics.eventStreams('runtime'),
  });
  if (deps.inventory) {
    await app.register(inventoryRoutes, {
      prefix: '/v1/inventory',
      assets,
      read: deps.inventory,
      ...(deps.confirmedLocks ? { confirmedLocks: deps.confirmedLocks } : {}),
      ...(deps.gateway ? { gateway: { read: deps.gateway, config: deps.config.gateway } } : {}),
      operator,
    });
  }
  if (control) {
    await app.register(deskRoutes, {
      prefix: '/v1/desk',
      control,
      operator,
      changed: (changes) => metrics.deskChanged(changes),
    });
  }
  await app.register(vizRoutes, { prefix: '/v1/viz', operator });
  await app.register(metricsRoutes, { prefix: '/metrics', operator, metrics });
}

/** The taker's swap page, static, at the root. Off the embedded chain its client pins the maker and the mints. */
async function registerSwapPage(
  app: TypeBoxApp,
  deps: HttpDeps,
  ledger: ReturnType<typeof devRpcLedger>,
): Promise<void> {
  const { config, devChain } = deps;
  await app.register(swapPageRoutes, {
    devWallet: devChain !== null,
    rpcUrl: ledger ? '/v1/dev/rpc' : config.swapPage.rpcUrl,
    programId: config.chain.programId ?? DEFAULT_HTLC_PROGRAM_ID.toBase58(),
    pins: ledger
      ? null
      : {
          maker: deps.makerWallet,
          mints: Object.fromEntries(config.assets.list.map((asset) => [asset.symbol, asset.mint])),
        },
  });
}
