// A run's lease and the service's start: the run (and the lease it holds from its insert) begins only once the
// embedded chain is open. Opening it is synchronous — programs loaded, keys derived, the venue's pools seeded
// on a fresh DATA_DIR — and holds the event loop for a second, for several on a loaded machine, when no
// renewal can run: a lease started before it was lost at the start-up keeper's first beat (the kill -9 model
// case's service exited at start with "no renewal confirmed within the lease" while other processes used both
// cores).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ChainStore } from '../../src/chain/embedded/store.ts';
import { startService } from '../support/service.ts';

test("a run starts, and its lease with it, only once the embedded chain's genesis is done", async () => {
  const service = await startService();
  const run = (await service.store.listRuns()).find((r) => r.runId === service.runId);
  await service.close();
  const chain = new ChainStore(join(service.dataDir, 'chain'));
  const genesisMs = Number(chain.meta('genesis_ms'));
  chain.close();
  rmSync(service.dataDir, { recursive: true, force: true });
  expect(run).toBeDefined();
  expect(genesisMs).toBeGreaterThan(0);
  expect(Date.parse(run?.startedAt ?? '')).toBeGreaterThanOrEqual(genesisMs);
});
