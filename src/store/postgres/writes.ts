// How the PostgreSQL engine interprets a repository's writes: for each write kind, its statements on the
// batch's transaction (commit.ts runs them, each write in its own savepoint when one fails), and what the
// batch must know of it before and after — the locks it needs before the first write, the runs whose leases
// its fence relied on (checked again at the COMMIT), the trades whose events it appends and whether it
// changes the desk (the COMMIT notifies the other instances). Each repository (quotes.ts, trades.ts,
// events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts here) gives its own; the store joins them.
import type pg from 'pg';
import type { ReservationDeltas } from '../reservation-buckets.ts';
import type { StoreWrite } from '../writes.ts';

/** One write's part of the batch's transaction. */
export interface WriteContext {
  readonly client: pg.PoolClient;
  /** What this write changes in the reservation buckets (kept only if it succeeds). */
  readonly changes: ReservationDeltas;
  /** What the batch's earlier writes changed, not applied yet, which a reservation check counts. */
  readonly batch: ReservationDeltas;
}

export interface PostgresWrite<W extends StoreWrite> {
  apply(tx: WriteContext, write: W): Promise<void>;
  /** The runs whose live leases the write's fence relies on. */
  fencedRuns?(write: W): readonly string[];
  /** The trades whose events it appends: the batch takes the event log's lock, and its COMMIT notifies them. */
  appendsEventsOf?(write: W): readonly string[];
  /** The output mint whose reservations it checks: the batch takes that mint's lock before its first write. */
  reservesMint?(write: W): string | null;
  /** It changes the desk's settings: the COMMIT notifies the other instances. */
  readonly changesDesk?: true;
}

export type PostgresWrites<W extends StoreWrite> = {
  readonly [K in W['kind']]: PostgresWrite<Extract<W, { kind: K }>>;
};
