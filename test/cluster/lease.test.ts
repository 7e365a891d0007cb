// The run's lease keeper on its own, over a scripted store: it renews every third of a lease, drains the
// orphans batch after batch after each confirmed renewal (without holding renewals up), and gives the run
// up — once — when the store says the lease lapsed, when no renewal was confirmed within a lease, or when a
// write was fenced. A single instance has none of it.
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { type Ownership, RunLease, SingleInstance, StartupLease } from '../../src/cluster/index.ts';
import type { ClaimedTrade, SharedStore, SingleInstanceStore } from '../../src/store/index.ts';

const TTL = 300;
const quiet = { info() {}, warn() {}, error() {} };

// The keepers' clock (their timers and performance.now) is Vitest's fake one, moved by each test: on a
// loaded machine real timers fire late, and a renewal that came late by the real clock made these tests count
// too few renewals, or lose a lease that was never meant to lapse.
beforeEach(() => {
  vi.useFakeTimers();
});
/** Time passes: every timer due meanwhile fires, with the promises they settle. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);
/** A store statement that takes this long (on the fake clock). */
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let lease: RunLease | undefined;
afterEach(() => {
  lease?.stop();
  vi.useRealTimers();
});

function keeper(store: Pick<SharedStore, 'renewLease' | 'claimOrphans'>, canAct?: () => Promise<boolean>) {
  const lost: string[] = [];
  const adopted: string[] = [];
  lease = new RunLease({
    store,
    runId: 'run-a',
    ttlMs: TTL,
    claimBatch: 7,
    log: quiet,
    adopt: (claimed) => adopted.push(...claimed.map((c) => c.tradeId)),
    onLost: (reason) => lost.push(reason),
    ...(canAct ? { canAct } : {}),
  });
  return { lease, lost, adopted };
}

const orphan = (tradeId: string): ClaimedTrade => ({
  tradeId,
  takerEscrow: 'e1',
  makerEscrow: 'e2',
  watch: 1,
  seen: '',
  hold: null,
  running: false,
});

test('renews every third of a lease and adopts the orphans each claim takes', async () => {
  const renewals: number[] = [];
  const claims: number[] = [];
  const { lease, lost, adopted } = keeper({
    renewLease: async (_run, ttl) => {
      renewals.push(ttl);
      return true;
    },
    claimOrphans: async (_run, limit) => {
      claims.push(limit);
      return claims.length === 2 ? [orphan('t1'), orphan('t2')] : [];
    },
  });
  lease.start();
  await pass(TTL * 1.2);
  expect(renewals.length).toBeGreaterThanOrEqual(3);
  expect(renewals.every((ttl) => ttl === TTL)).toBe(true);
  expect(claims.every((limit) => limit === 7)).toBe(true);
  expect(adopted).toEqual(['t1', 't2']);
  expect(lease.live).toBe(true);
  expect(lost).toEqual([]);
});

/** A store holding `count` orphans, taken `limit` at a time, each statement taking `delayMs`. */
function orphanPool(count: number, delayMs = 0) {
  const pool = Array.from({ length: count }, (_, i) => orphan(`t${i}`));
  const statements: number[] = [];
  const renewals: number[] = [];
  return {
    pool,
    statements,
    renewals,
    store: {
      renewLease: async () => {
        renewals.push(performance.now());
        return true;
      },
      claimOrphans: async (_run: string, limit: number) => {
        statements.push(performance.now());
        if (delayMs > 0) await delay(delayMs);
        return pool.splice(0, limit);
      },
    },
  };
}

test('a claim takes every orphan, batch after batch, not one batch per renewal', async () => {
  // 50 orphans at 7 a statement: one renewal period would take 7 of them; a drain takes all 50 at once.
  const orphans = orphanPool(50);
  const { lease, adopted } = keeper(orphans.store);
  await lease.claim();
  expect(adopted).toEqual(Array.from({ length: 50 }, (_, i) => `t${i}`));
  // Seven full batches, then a short one that ends the drain.
  expect(orphans.statements).toHaveLength(8);
  expect(orphans.renewals).toEqual([]);
});

test('orphans that appear while a drain runs are taken by it when it is asked again meanwhile', async () => {
  const orphans = orphanPool(3);
  const { lease, adopted } = keeper({
    renewLease: orphans.store.renewLease,
    claimOrphans: async (run, limit) => {
      const taken = await orphans.store.claimOrphans(run, limit);
      // A predecessor retired during the last statement: its trades are orphans now, and the run asks.
      if (orphans.statements.length === 1) {
        orphans.pool.push(orphan('late'));
        void lease.claim();
      }
      return taken;
    },
  });
  await lease.claim();
  expect(adopted).toEqual(['t0', 't1', 't2', 'late']);
});

test('a long drain does not hold renewals up: the lease stays live while it runs', async () => {
  // Each statement takes half a renewal period and there are many batches: the drain outlasts two leases.
  const orphans = orphanPool(7 * 12, TTL / 6);
  const { lease, lost, adopted } = keeper(orphans.store);
  lease.start();
  const draining = lease.claim();
  await pass(TTL * 1.5);
  expect(orphans.renewals.length).toBeGreaterThanOrEqual(4);
  expect(lost).toEqual([]);
  expect(lease.live).toBe(true);
  // The drain's statements take fake time too, each after a real turn: time passes until it is done.
  let drained = false;
  void draining.then(() => {
    drained = true;
  });
  while (!drained) await pass(TTL / 6);
  expect(adopted).toHaveLength(7 * 12);
});

test('a run that cannot reach the chain takes no orphan: they wait for one that can; once it can, it drains them', async () => {
  const orphans = orphanPool(10);
  let reachable = false;
  const { lease, adopted } = keeper(orphans.store, async () => reachable);
  await lease.claim();
  expect(orphans.statements).toEqual([]);
  expect(adopted).toEqual([]);
  reachable = true;
  await lease.claim();
  expect(adopted).toHaveLength(10);
});

test('a drain stops when the lease is lost', async () => {
  const orphans = orphanPool(7 * 10, 10);
  const { lease, lost, adopted } = keeper(orphans.store);
  const draining = lease.claim();
  await pass(25);
  lease.fenced();
  await pass(20);
  await draining;
  expect(lost).toHaveLength(1);
  expect(adopted.length).toBeLessThan(7 * 10);
  const statements = orphans.statements.length;
  await lease.claim();
  expect(orphans.statements).toHaveLength(statements);
});

test('a renewal the store refuses gives the run up, once, and claims nothing more', async () => {
  let claims = 0;
  const { lease, lost } = keeper({
    renewLease: async () => false,
    claimOrphans: async () => {
      claims++;
      return [];
    },
  });
  lease.start();
  await pass(TTL);
  expect(lost).toEqual(['the store says the lease lapsed']);
  expect(claims).toBe(0);
  expect(lease.live).toBe(false);
});

test('no renewal confirmed within a lease (a store that hangs) gives the run up by its own clock', async () => {
  let calls = 0;
  const { lease, lost } = keeper({
    // The first renewal answers; every later one hangs, as a partitioned connection would.
    renewLease: () => (++calls === 1 ? Promise.resolve(true) : new Promise<boolean>(() => {})),
    claimOrphans: async () => [],
  });
  lease.start();
  await pass(TTL * 0.5);
  expect(lease.live).toBe(true);
  await pass(TTL * 1.2);
  expect(lease.live).toBe(false);
  expect(lost).toEqual([`no renewal confirmed within the lease (${TTL} ms)`]);
  // Given up once: a fenced write later changes nothing.
  lease.fenced();
  expect(lost).toHaveLength(1);
});

test('a failing renewal (the store unreachable) is retried; the lease is given up only when it runs out', async () => {
  let calls = 0;
  const { lease, lost } = keeper({
    renewLease: async () => {
      calls++;
      throw new Error('connection refused');
    },
    claimOrphans: async () => [],
  });
  lease.start();
  await pass(TTL * 0.9);
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(lost).toEqual([]);
  await pass(TTL * 0.6);
  expect(lost).toEqual([`no renewal confirmed within the lease (${TTL} ms)`]);
});

test('a start that outlasts the lease keeps it: the start-up keeper renews until the runtime takes over, counting from its last renewal', async () => {
  const renewals: number[] = [];
  const store = {
    renewLease: async () => {
      renewals.push(performance.now());
      return true;
    },
    claimOrphans: async () => [] as ClaimedTrade[],
  };
  const insertedAt = performance.now();
  const startup = new StartupLease(store, 'run-a', TTL, insertedAt);
  // A slow start: two leases long, with nothing else renewing.
  await pass(TTL * 2);
  expect(renewals.length).toBeGreaterThanOrEqual(4);
  const confirmedAt = startup.handOver();
  expect(confirmedAt).toBeGreaterThan(insertedAt + TTL);
  const handedOver = renewals.length;
  await pass(TTL * 0.5);
  // Handed over: the start-up keeper is silent; the run's keeper renews from here, its lease still live.
  expect(renewals.length).toBe(handedOver);
  const { lease, lost } = keeper(store);
  lease.start(confirmedAt);
  expect(lease.live).toBe(true);
  await pass(TTL * 1.5);
  expect(lost).toEqual([]);
  expect(lease.live).toBe(true);
  expect(renewals.length).toBeGreaterThan(handedOver);
});

test('without the start-up keeper the same slow start would lose the lease at the first renewal', async () => {
  const { lease, lost } = keeper({
    renewLease: async () => false,
    claimOrphans: async () => [],
  });
  // Counted from the insert two leases ago: already lapsed, so given up at once.
  lease.start(performance.now() - TTL * 2);
  await pass(20);
  expect(lost).toEqual([`no renewal confirmed within the lease (${TTL} ms)`]);
});

test('a single instance has no lease: a stall past any lease gives nothing up, nothing is claimed, and every trade is its own without asking the store', async () => {
  const asked: string[] = [];
  const store = {
    adoptUnclosed: async () => {
      asked.push('adoptUnclosed');
      return 3;
    },
    retireRuns: async () => 0,
    stopRun: async () => {},
  };
  const ownership = new SingleInstance(store as unknown as SingleInstanceStore, 'run-a', {
    ttlMs: TTL,
    log: quiet,
  });
  const lost: string[] = [];
  const adopted: string[] = [];
  await ownership.takeOver();
  ownership.keep({
    adopt: (claimed) => adopted.push(...claimed.map((c) => c.tradeId)),
    reachesChain: async () => true,
    lost: (reason) => lost.push(reason),
  });
  // An event loop held for many leases: over PostgreSQL this run would be lost.
  await pass(TTL * 10);
  await ownership.claim();
  expect(await (ownership as Ownership).acquire('t-1')).toBe('ours');
  expect(await ownership.takeOrphanedHedges()).toEqual([]);
  expect(ownership.live).toBe(true);
  expect(ownership.remainingSeconds).toBe(TTL / 1000);
  expect(lost).toEqual([]);
  expect(adopted).toEqual([]);
  expect(asked).toEqual(['adoptUnclosed']);
});
