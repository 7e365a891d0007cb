// Every route group, registered in one place; HttpDeps is all a route may reach.
import type { Config } from '../../config/index.ts';
import type { QuoteDesk } from '../../quotes/index.ts';
import type { TypeBoxApp } from '../app.ts';
import { assetRoutes } from './assets.ts';
import { healthRoutes, type ReadinessPart } from './health.ts';
import { rfqRoutes } from './rfq.ts';

export type { ReadinessPart } from './health.ts';

export interface HttpDeps {
  config: Config;
  version: string;
  run: { runId: string; startedAt: Date };
  quotes: QuoteDesk;
  readiness: () => Promise<ReadinessPart[]>;
}

export async function registerRoutes(app: TypeBoxApp, deps: HttpDeps): Promise<void> {
  await healthRoutes(app, deps);
  await assetRoutes(app, deps);
  await rfqRoutes(app, deps);
}
