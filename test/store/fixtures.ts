// What the store suites share: both engines behind one factory, runs with leases, quote records (a quote needs
// only its run in the store), and a commit that throws when a write of it failed.
import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { initialSnapshot, type TradeInput } from '../../machines/index.ts';
import { newTradeRecord, restColumns } from '../../src/runtime/trade-record.ts';
import {
  type NewRun,
  type NewTradeEvent,
  openStore,
  type QuoteRecord,
  type Store,
  type StoreWrite,
  type TradeRecord,
  timeOrderedUuid,
} from '../../src/store/index.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/index.ts';
import { MIGRATIONS } from '../../src/store/sqlite/index.ts';
import { hash32FromBytes } from '../../src/vocabulary/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';
import { SOL_PYTH_PRICE } from '../support/prices.ts';
import { tempDir } from '../support/service.ts';

/** One database of one engine, empty at first, that stores can be opened on (again, and several at once). */
export interface TestDatabase {
  open(): Promise<Store>;
  /** The schema versions recorded as applied, in order. */
  appliedMigrations(): Promise<number[]>;
  /** Marks the database as migrated by a newer build than this one. */
  bumpSchemaVersion(): Promise<void>;
  /** Takes the newest migration back: runs `undo` (SQL that drops what it made) and forgets it was applied. */
  undoLastMigration(undo: string): Promise<void>;
  /** PostgreSQL: the database's URL (other instances open stores on it); SQLite: null. */
  url: string | null;
  remove(): void;
}

export interface StoreEngine {
  name: 'sqlite' | 'postgres';
  /** False when this run has no PostgreSQL (PG_TESTS=0): its suites skip. */
  available: boolean;
  /** How many migrations this build has for the engine. */
  migrations: number;
  database(): Promise<TestDatabase>;
}

const sqlite: StoreEngine = {
  name: 'sqlite',
  available: true,
  migrations: MIGRATIONS.length,
  async database() {
    const dir = tempDir('rfq-store-');
    const path = `${dir.path}/maker.sqlite`;
    const userVersion = (set?: number) => {
      const db = new Database(path);
      try {
        if (set !== undefined) db.pragma(`user_version = ${set}`);
        return db.pragma('user_version', { simple: true }) as number;
      } finally {
        db.close();
      }
    };
    return {
      open: () => openStore({ path }),
      // SQLite records only the newest version: every one up to it was applied, in order.
      appliedMigrations: async () => Array.from({ length: userVersion() }, (_, i) => i + 1),
      bumpSchemaVersion: async () => void userVersion(99),
      undoLastMigration: async (undo) => {
        const db = new Database(path);
        try {
          db.exec(undo);
          db.pragma(`user_version = ${(db.pragma('user_version', { simple: true }) as number) - 1}`);
        } finally {
          db.close();
        }
      },
      url: null,
      remove: dir.remove,
    };
  },
};

const postgres: StoreEngine = {
  name: 'postgres',
  available: POSTGRES_TESTS,
  migrations: POSTGRES_MIGRATIONS.length,
  async database() {
    const databaseUrl = await testDatabaseUrl();
    const query = <Row extends pg.QueryResultRow>(text: string) => sql<Row>(databaseUrl, text);
    return {
      open: () => openStore({ databaseUrl }),
      appliedMigrations: async () =>
        (await query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).map(
          (row) => row.version,
        ),
      bumpSchemaVersion: async () =>
        void (await query('INSERT INTO schema_migrations (version) VALUES (99)')),
      undoLastMigration: async (undo) =>
        void (await query(
          `${undo}; DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`,
        )),
      url: databaseUrl,
      // Each test's database lives as long as the run's throwaway server.
      remove: () => {},
    };
  },
};

export const STORE_ENGINES: readonly StoreEngine[] = [sqlite, postgres];

/**
 * A fresh PostgreSQL database whose default collation is a locale's (ICU en-US: case and punctuation
 * weigh less than letters), as a production server's may be; returns its URL.
 */
export async function postgresDatabaseWithLocale(): Promise<string> {
  const url = new URL(await testDatabaseUrl());
  const name = `${url.pathname.slice(1)}_en_us`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(
      `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE template0
       LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.utf8'`,
    );
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** A lease long enough to outlive any test: leases lapse in these suites only when a test makes them. */
export const LEASE_TTL_MS = 60_000;

/** A run as a service start records it, answering at a URL of its own. */
export const newRun = (runId: string = randomUUID(), overrides: Partial<NewRun> = {}): NewRun => ({
  runId,
  version: 'test',
  startedAt: new Date().toISOString(),
  url: `http://run-${runId}.test`,
  ...overrides,
});

/** Records a live run (its lease LEASE_TTL_MS long, unless told) and answers its id. */
export async function startRun(
  store: Store,
  runId: string = randomUUID(),
  leaseTtlMs = LEASE_TTL_MS,
): Promise<string> {
  if (store.kind === 'postgres') await store.insertRun(newRun(runId), leaseTtlMs);
  else await store.insertRun(newRun(runId));
  return runId;
}

/** Runs SQL on a PostgreSQL database over a connection of its own. */
export async function sql<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  databaseUrl: string,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Lets the run's lease lapse now, on the database's clock — as when the run stalls (a pause, a partition)
 * longer than its lease — without the test waiting out a lease.
 */
export async function lapseLease(databaseUrl: string, runId: string): Promise<void> {
  await sql(
    databaseUrl,
    `UPDATE runs SET lease_expires_at_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1
     WHERE run_id = $1`,
    [runId],
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Commits the writes as one batch, and throws the first failed write's message. */
export async function commitAll(store: Store, ...writes: StoreWrite[]): Promise<void> {
  const outcomes = await store.commit(writes);
  const failed = outcomes.find((outcome) => !outcome.ok);
  if (failed && !failed.ok) throw new Error(failed.message);
}

/** A base58-looking wallet, different each time. */
export const wallet = () => randomBytes(32).toString('base64url').slice(0, 43);

/** 1 SOL for 187 USDC, open for 30 s, for a fresh wallet. */
export function quoteRecord(runId: string, overrides: Partial<QuoteRecord> = {}): QuoteRecord {
  return {
    quoteId: timeOrderedUuid(),
    runId,
    takerWallet: wallet(),
    inputMint: SOL_MINT,
    outputMint: USDC_MINT,
    inputRaw: 1_000_000_000n,
    outputRaw: 187_000_000n,
    spreadBps: 10,
    inputUsd: '18742/100',
    outputUsd: '1/1',
    inputPrice: SOL_PYTH_PRICE,
    outputPrice: null,
    createdAt: new Date().toISOString(),
    expiresAtMs: Date.now() + 30_000,
    htlcExpiresAtMs: Date.now() + 930_000,
    riskChecks: ['inventory'],
    usedByTradeId: null,
    ...overrides,
  };
}

/** Chain time (unix seconds) the trades of the store suites start at. */
export const NOW = 1_900_000_000;

/** A trade born from the quote at rest, as a settlement start makes it, from the machine's first snapshot. */
export function tradeRecord(q: QuoteRecord, overrides: Partial<TradeInput> = {}): TradeRecord {
  const input: TradeInput = {
    tradeId: timeOrderedUuid(),
    quoteId: q.quoteId,
    runId: q.runId,
    takerWallet: q.takerWallet,
    makerWallet: wallet(),
    secretHash: hash32FromBytes(randomBytes(32)),
    inputMint: q.inputMint,
    inputAmountRaw: q.inputRaw.toString(),
    outputMint: q.outputMint,
    outputAmountRaw: q.outputRaw.toString(),
    takerExpiry: NOW + 900,
    lockDeadline: NOW + 120,
    takerEscrow: wallet(),
    makerEscrow: wallet(),
    makerTimelock: 300,
    safetyMargin: 300,
    minRedeemWindow: 120,
    landingMargin: 30,
    sourcing: null,
    ...overrides,
  };
  const snapshot = initialSnapshot(input);
  return newTradeRecord(input, snapshot, restColumns(snapshot), new Date().toISOString());
}

/** The trade's first event, as a settlement start writes it. */
export const startedEvent = (trade: TradeRecord): NewTradeEvent => ({
  tradeId: trade.tradeId,
  runId: trade.runId,
  at: trade.createdAt,
  type: 'SETTLEMENT_STARTED',
  status: trade.status,
  substate: trade.substate,
  payload: { quote_id: trade.quoteId },
});
