// How the PostgreSQL store writes SQL: every fixed statement is named, in the catalogue of the repository
// that runs it (quotes.ts, trades.ts, rest-index.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts; each
// connection prepares a statement once), its values passed as parameters ($1…), never spliced in. Here: the
// conditions those catalogues share — the database's clock, whether a run is live — and how a statement of a
// catalogue is run. Columns are listed from the row types of rows.ts and hedges.ts.
import type pg from 'pg';

/**
 * Columns are named, never `*`: a named statement's result shape is fixed when it is prepared, so once a
 * newer instance's migration adds a column, a star would fail on every connection of the instances still
 * running ("cached plan must not change result type") until they reconnect.
 */
export const columns = <Row>(names: readonly (keyof Row & string)[], table = ''): string =>
  names.map((name) => `${table}${name}`).join(', ');

/** Now on the database's clock, in unix ms: every lease is measured by that one clock, never an instance's. */
export const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Whether the runs row under `alias` is live: not stopped, and its lease not lapsed (NULL: never had one). */
export const liveRow = (alias: string) =>
  `(${alias}.stopped_at IS NULL AND ${alias}.lease_expires_at_ms > ${NOW_MS})`;
export const deadRow = (alias: string) =>
  `(${alias}.stopped_at IS NOT NULL OR ${alias}.lease_expires_at_ms IS NULL OR ${alias}.lease_expires_at_ms <= ${NOW_MS})`;

/** Whether the run whose id the SQL expression `runId` gives is live, as a condition of another statement. */
export const isLive = (runId: string, alias = 'live') =>
  `EXISTS (SELECT 1 FROM runs ${alias} WHERE ${alias}.run_id = ${runId} AND ${liveRow(alias)})`;

/** A repository's fixed statements, by name: the names are one namespace per connection (statements.ts). */
export type Catalogue = Readonly<Record<string, string>>;

/** Where a statement runs: a pooled connection for a read, the batch's client for a write. */
export type Queryable = pg.Pool | pg.PoolClient;

/**
 * Runs a catalogue's statements by name (each prepared on a connection the first time it runs there);
 * `rowMode: 'array'` reads rows as arrays (the rest index's many rows, single columns).
 */
export function runner<C extends Catalogue>(catalogue: C) {
  return <R extends pg.QueryResultRow = pg.QueryResultRow>(
    on: Queryable,
    name: keyof C & string,
    values: unknown[] = [],
    rowMode?: 'array',
  ): Promise<pg.QueryResult<R>> =>
    on.query<R>({ name, text: catalogue[name] as string, values, ...(rowMode ? { rowMode } : {}) });
}
