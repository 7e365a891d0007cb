// A run's start: recorded in the store, owning its trades through the ownership port in the store's shape (one
// instance on SQLite, leases on PostgreSQL).
import type { NewRun, Store } from '../store/index.ts';
import { LeasedOwnership } from './leased.ts';
import type { Ownership } from './port.ts';
import type { OwnershipOptions } from './run.ts';
import { SingleInstance } from './single-instance.ts';

/**
 * Records a new run and starts owning for it: on PostgreSQL its lease runs from the insert, kept alive until
 * the runtime keeps it (a start on a slow chain can outlast a lease).
 */
export async function startRun(store: Store, run: NewRun, options: OwnershipOptions): Promise<Ownership> {
  // Before the insert: the lease it starts is counted from no later than this.
  const insertedAt = performance.now();
  if (store.kind === 'postgres') await store.insertRun(run, options.ttlMs);
  else await store.insertRun(run);
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
