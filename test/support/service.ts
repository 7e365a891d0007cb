// Test factories: a real service (real store on a temp DATA_DIR, real HTTP pipeline through inject) built
// from the default config with per-test overrides.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG_PATH, resolveConfig } from '../../src/config/index.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { testDatabaseUrl } from './postgres.ts';

/**
 * The store the services of a test run use: SQLite under a temp DATA_DIR, or with TEST_STORE=postgres
 * (npm run test:postgres) a fresh PostgreSQL database per service — the suites that run both ways.
 */
export const TEST_STORE: 'sqlite' | 'postgres' =
  process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * On PostgreSQL a run's lease: short, so a service started again after a kill -9 takes over its
 * predecessor's trades within some eight seconds; yet long enough (renewed every two seconds) that a service
 * on a runner with both cores busy keeps it through a stall of four (three seconds, renewed every second,
 * was lost there: the desk and swap suites then saw their own run fenced). These suites do not test losing
 * it: the ones that do (runtime/instances, store/instances, failover, cluster-doors) set their own leases
 * and assert the loss. At most a third of the test timings' safety margin (30 s).
 */
export const TEST_LEASE_SECONDS = 6;

export type ConfigDocument = Record<string, unknown> & {
  assets: Record<string, unknown>[];
  pairs: Record<string, unknown>[];
  prices: Record<string, unknown>[];
  inventory: Record<string, unknown>[];
  risk: Record<string, unknown>;
  quotes: Record<string, unknown>;
  http: Record<string, unknown>;
  settlement: Record<string, unknown>;
};

/**
 * A fresh copy of config/default.json as a plain document, for a test to change — with the static price
 * source, so that quotes have fixed numbers; a test of the live Pyth source sets price_source itself
 * (shippedPriceSource()).
 */
export function defaultConfigDocument(): ConfigDocument {
  const doc = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as ConfigDocument;
  doc.price_source = { kind: 'static' };
  // The embedded venue seeds its pools at genesis (some 25 transactions) and keeps a keeper: only the tests
  // that trade through it ask for it (doc.venue = { … }), and hedging swaps through it (doc.hedging too).
  delete doc.venue;
  delete doc.hedging;
  // The embedded Gateway starts anvil and deploys its contracts: only the tests of it ask (doc.gateway = { … }).
  delete doc.gateway;
  if (TEST_STORE === 'postgres') doc.cluster = { lease_ttl_seconds: TEST_LEASE_SECONDS };
  return doc;
}

/** With TEST_STORE=postgres: each DATA_DIR's database, the same across restarts of its service. */
const databases = new Map<string, string>();

/**
 * What a service on dataDir uses as its store in this test run: SQLite under the dir (nothing to add), or
 * with TEST_STORE=postgres the dir's own database — the same one when the test starts a service there again.
 */
export async function testStore(dataDir: string): Promise<{ databaseUrl?: string }> {
  if (TEST_STORE !== 'postgres') return {};
  let databaseUrl = databases.get(dataDir);
  if (databaseUrl === undefined) {
    databaseUrl = await testDatabaseUrl();
    databases.set(dataDir, databaseUrl);
  }
  return { databaseUrl };
}

/** config/default.json's own price_source (the Pyth feeds and the embedded publisher). */
export function shippedPriceSource(): Record<string, unknown> {
  return (JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as ConfigDocument).price_source as Record<
    string,
    unknown
  >;
}

export function tempDir(prefix = 'rfq-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestService extends Service {
  dataDir: string;
  dispose(): Promise<void>;
}

export async function startService(
  change: (doc: ConfigDocument) => void = () => {},
  options: Partial<ServiceOptions> = {},
): Promise<TestService> {
  const doc = defaultConfigDocument();
  change(doc);
  const dir = tempDir();
  const service = await createService({
    dataDir: dir.path,
    config: resolveConfig(doc),
    ...(await testStore(dir.path)),
    ...options,
  });
  return Object.assign(service, {
    dataDir: dir.path,
    async dispose() {
      await service.close();
      dir.remove();
    },
  });
}

/** A valid base58 32-byte wallet address (not a real key: quotes need none). */
export const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
export const OTHER_WALLET = 'GokivDYuQXPZCWRkwMhdH2h91KpDQXBEmpgBgs55bnpH';

/** xs[i], which must exist: for tests that edit a known entry of a config document. */
export function nth<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new Error(`no entry ${i}`);
  return x;
}

/**
 * Settlement timings of a few chain seconds, for tests that drive the clock past expiries (the config's
 * `settlement` section; resolveTiming's constraints hold).
 */
export const SHORT_SETTLEMENT = {
  lock_window_seconds: 30,
  taker_timelock_seconds: 150,
  maker_timelock_seconds: 50,
  safety_margin_seconds: 30,
  min_redeem_window_seconds: 20,
  landing_margin_seconds: 5,
} as const;

/** Listens on a free loopback port, for clients over a real socket (SSE, a browser); answers the port. */
export async function listenOnLoopback(service: Pick<TestService, 'app'>): Promise<number> {
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  return (service.app.server.address() as AddressInfo).port;
}
