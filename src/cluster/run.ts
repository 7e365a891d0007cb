// A run, from its record to its end: recorded in the store when the service starts, owning its trades through
// the ownership port in the store's shape (one instance on SQLite, leases on PostgreSQL), retiring runs that
// held its address before it, and marked stopped when the service closes.
import type { NewRun, Store } from '../store/index.ts';
import { LeasedOwnership } from './leased.ts';
import type { ClusterLog, Ownership } from './port.ts';
import { SingleInstance } from './single-instance.ts';

/** How a run owns its trades over a shared store (config: cluster.lease_ttl_seconds, cluster.claim_batch). */
export interface OwnershipOptions {
  /** How long a run owns its trades without renewing its lease. */
  ttlMs: number;
  /** Orphans taken per statement (a drain takes batch after batch). */
  claimBatch: number;
  log: ClusterLog;
}

/** Defaults of the lease (config: cluster.lease_ttl_seconds, cluster.claim_batch). */
export const DEFAULT_LEASE = { ttlMs: 10_000, claimBatch: 500 } as const;

/**
 * Records a new run and starts owning for it: on PostgreSQL its lease runs from the insert, kept alive until
 * the runtime keeps it (a start on a slow chain can outlast a lease).
 */
export async function startRun(store: Store, run: NewRun, options: OwnershipOptions): Promise<Ownership> {
  // Before the insert: the lease it starts is counted from no later than this.
  const insertedAt = performance.now();
  await store.insertRun(run, options.ttlMs);
  return ownershipOf(store, run.runId, options, insertedAt);
}

/**
 * The ownership of a run the store has recorded already; `confirmedAt`: when (performance.now()) its lease was
 * last confirmed (default: now).
 */
export function ownershipOf(
  store: Store,
  runId: string,
  options: OwnershipOptions,
  confirmedAt: number = performance.now(),
): Ownership {
  return store.kind === 'postgres'
    ? new LeasedOwnership(store, runId, options, confirmedAt)
    : new SingleInstance(store, runId, options);
}

/**
 * Marks stopped every other unstopped run that advertised url (their processes are gone: a live one would
 * still hold the address), and answers how many.
 */
export async function retireEarlierRuns(
  store: Pick<Store, 'retireRuns'>,
  runId: string,
  url: string,
  log: ClusterLog,
): Promise<number> {
  const retired = await store.retireRuns(url, runId, new Date().toISOString());
  if (retired > 0) log.info({ run_id: runId, runs: retired, url }, 'retired earlier runs at this address');
  return retired;
}

/** Marks the run stopped; a store that refuses (a full disk) is logged: the next run retires this one anyway. */
export async function endRun(store: Pick<Store, 'stopRun'>, runId: string, log: ClusterLog): Promise<void> {
  await store
    .stopRun(runId, new Date().toISOString())
    .catch((error: unknown) => log.warn({ err: (error as Error).message }, 'could not mark the run stopped'));
}
