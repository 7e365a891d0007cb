// Every route group, registered in one place; HttpDeps is all a route may reach.
import type { DevChain } from '../../chain/index.ts';
import type { Config } from '../../config/index.ts';
import type { ServiceMetrics } from '../../metrics/index.ts';
import type { QuoteDesk } from '../../quotes/index.ts';
import type { TradeRuntime } from '../../runtime/index.ts';
import type { TypeBoxApp } from '../app.ts';
import { assetRoutes } from './assets.ts';
import { devRoutes } from './dev.ts';
import { healthRoutes, type ReadinessPart } from './health.ts';
import { metricsRoutes } from './metrics.ts';
import { rfqRoutes } from './rfq.ts';
import { runtimeRoutes } from './runtime.ts';
import { tradeRoutes } from './trades.ts';

export type { ReadinessPart } from './health.ts';

export interface HttpDeps {
  config: Config;
  version: string;
  run: { runId: string; startedAt: Date };
  quotes: QuoteDesk;
  runtime: TradeRuntime;
  /** The embedded chain's dev controls; absent on real clusters. */
  devChain: DevChain | null;
  /** Listening beyond loopback: the operator token is required on operator routes. */
  operatorTokenRequired: boolean;
  readiness: () => Promise<ReadinessPart[]>;
  /** This service's metrics: routes record into them, GET /metrics serves them. */
  metrics: ServiceMetrics;
}

export async function registerRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  await healthRoutes(app, deps);
  await assetRoutes(app, deps);
  await rfqRoutes(app, deps);
  await tradeRoutes(app, deps);
  await devRoutes(app, deps);
  await runtimeRoutes(app, deps);
  await metricsRoutes(app, deps);
}
