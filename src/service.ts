// The composition root: opens the store, starts a run, builds the quote desk and the HTTP app from one
// config. main.ts runs it as a process; tests run it in process on a temp DATA_DIR.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyServerOptions } from 'fastify';
import { type Config, loadConfig } from './config/index.ts';
import { buildHttpApp, type TypeBoxApp } from './http/app.ts';
import type { ReadinessPart } from './http/routes/index.ts';
import { type PriceSource, QuoteDesk, StaticPriceSource } from './quotes/index.ts';
import { openStore, type Store } from './store/index.ts';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface ServiceOptions {
  dataDir: string;
  config?: Config;
  configPath?: string;
  logger?: FastifyServerOptions['logger'] | false;
  /** Replaces the config's static prices (a live source, or a test's stale one). */
  prices?: PriceSource;
  nowMs?: () => number;
}

export interface Service {
  readonly app: TypeBoxApp;
  readonly config: Config;
  readonly store: Store;
  readonly quotes: QuoteDesk;
  readonly runId: string;
  close(): Promise<void>;
}

export async function createService(options: ServiceOptions): Promise<Service> {
  const config = options.config ?? loadConfig(options.configPath);
  const store = openStore({ dataDir: options.dataDir });
  const runId = randomUUID();
  const startedAt = new Date();
  store.insertRun({ runId, version: VERSION, startedAt: startedAt.toISOString(), stoppedAt: null });

  const quotes = new QuoteDesk({
    config,
    store,
    runId,
    prices: options.prices ?? new StaticPriceSource(config.prices),
    inventory: { balance: (mint) => config.inventory.get(mint) ?? 0n },
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  });

  const readiness = async (): Promise<ReadinessPart[]> => {
    let storeOk = false;
    let detail = 'ok';
    try {
      storeOk = store.ping();
    } catch (error) {
      detail = (error as Error).message;
    }
    return [{ name: 'store', ok: storeOk, detail }];
  };

  const app = await buildHttpApp(
    { config, version: VERSION, run: { runId, startedAt }, quotes, readiness },
    { logger: options.logger ?? false },
  );

  let closed = false;
  return {
    app,
    config,
    store,
    quotes,
    runId,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      if (store.isOpen) {
        store.stopRun(runId, new Date().toISOString());
        store.close();
      }
    },
  };
}
