// What both shapes of ownership do with a run's record: how it owns (the options), retiring the runs that held
// its address before it, and marking it stopped when the service closes.
import type { Store } from '../store/index.ts';
import type { ClusterLog } from './port.ts';

/** How a run owns its trades over a shared store (config: cluster.lease_ttl_seconds, cluster.claim_batch). */
export interface OwnershipOptions {
  /** How long a run owns its trades without renewing its lease. */
  ttlMs: number;
  /** Orphans taken per statement (a drain takes batch after batch). */
  claimBatch: number;
  log: ClusterLog;
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
