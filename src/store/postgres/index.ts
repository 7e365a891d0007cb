// The PostgreSQL engine of the store (several instances over one database): opening it (a pool whose
// connections end a transaction left idle before any lease would lapse, migrations applied at open), the
// store itself (store.ts), a repository per aggregate with its named statements (quotes.ts, trades.ts,
// rest-index.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts; the conditions they share in sql.ts and fence.ts),
// commits (commit.ts), notifications between instances (notifications.ts) and migrations (migrations.ts).
import pg from 'pg';
import { migratePostgres } from './migrations.ts';
import { PostgresStore } from './store.ts';

export { POSTGRES_MIGRATIONS } from './migrations.ts';
export { POSTGRES_STATEMENTS } from './statements.ts';
export { PostgresStore } from './store.ts';

export interface PostgresStoreOptions {
  /** Connections in the pool (default 10): one carries the commit in flight, the rest serve reads. */
  poolSize?: number;
  /**
   * The runs' lease TTL. A transaction left idle by its client (a frozen process, a cut network) holds the
   * event log's lock, its mints' locks and its trades' rows, and so stalls every instance: the server ends
   * one idle for half a lease (at least a second), before any other instance would take the trades over.
   */
  leaseTtlMs?: number;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const idleInTransactionMs = Math.max(1_000, Math.floor((options.leaseTtlMs ?? 10_000) / 2));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    // A peer that vanished (a cut network) is noticed by TCP keepalive, not after the kernel's two hours.
    keepAlive: true,
    options: `-c idle_in_transaction_session_timeout=${idleInTransactionMs}`,
    application_name: 'rfq-maker',
    types: TYPES,
  });
  // An idle client whose connection dies (a server restart) is dropped by the pool, which then emits the
  // error here; without a listener it would end the process. The next query opens a new connection.
  pool.on('error', () => {});
  const location = withoutPassword(url);
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, location);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, location, url);
}

/** The URL for logs: its password removed. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres (unparsable URL)';
  }
}

const INT8_OID = 20;
/**
 * int8 (BIGINT columns, count(*)) read as numbers: every one we store is a seq, an entry id, a count or a
 * time in seconds or milliseconds, far below 2^53. NUMERIC keeps pg's default, a decimal string.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? Number
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
