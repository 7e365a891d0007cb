// Several service instances over one PostgreSQL, as the store sees them: each instance a store of its own on
// one database, each start a run with a lease. Ownership of trades by run, orphans claimed without waiting,
// the fence that refuses every write of a run that lost its lease, reservations summed across instances
// under one lock per mint, and the events one instance commits heard by the others.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { TradeInput } from '../../machines/index.ts';
import type { LedgerEntry } from '../../src/ledger/index.ts';
import {
  type NewTradeEvent,
  openStore,
  type QuoteRecord,
  type Store,
  type StoreWrite,
  type TradeRecord,
  type TradeUpdate,
  type WriteOutcome,
} from '../../src/store/index.ts';
import { POSTGRES_MIGRATIONS, POSTGRES_STATEMENTS } from '../../src/store/postgres/index.ts';
import { USDC_MINT } from '../support/mints.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';
import {
  commitAll,
  LEASE_TTL_MS,
  lapseLease,
  NOW,
  quoteRecord,
  sleep,
  sql,
  startedEvent,
  startRun,
  tradeRecord,
  wallet,
} from './fixtures.ts';

describe.skipIf(!POSTGRES_TESTS)('several instances over one PostgreSQL', () => {
  let databaseUrl: string;
  let opened: Store[];

  /** Another service instance: a store of its own (its own pool) on the one database. */
  const instance = async () => {
    const store = await openStore({ databaseUrl });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    databaseUrl = await testDatabaseUrl();
    opened = [];
  });

  afterEach(async () => {
    for (const store of opened) await store.close();
  });

  const createTrade = (trade: TradeRecord): StoreWrite => ({
    kind: 'createTrade',
    trade,
    event: startedEvent(trade),
  });

  /** A trade the run creates (and so owns), stored through `store`. */
  async function tradeOf(
    store: Store,
    runId: string,
    overrides: Partial<TradeInput> = {},
    quoteOverrides: Partial<QuoteRecord> = {},
  ): Promise<TradeRecord> {
    const q = quoteRecord(runId, quoteOverrides);
    const trade = tradeRecord(q, overrides);
    await commitAll(store, { kind: 'insertQuote', quote: q }, createTrade(trade));
    return trade;
  }

  /** `n` trades the run creates in one commit, in creation order. */
  async function tradesOf(store: Store, runId: string, n: number): Promise<TradeRecord[]> {
    const trades: TradeRecord[] = [];
    const writes: StoreWrite[] = [];
    for (let i = 0; i < n; i++) {
      const q = quoteRecord(runId);
      // Distinct creation times, so "oldest first" has one answer.
      const trade = { ...tradeRecord(q), createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString() };
      trades.push(trade);
      writes.push({ kind: 'insertQuote', quote: q }, createTrade(trade));
    }
    await commitAll(store, ...writes);
    return trades;
  }

  /** The trade's next record, written by `runId` (which must own it). */
  const update = (trade: TradeRecord, runId: string, change: Partial<TradeUpdate> = {}): TradeUpdate => ({
    ...trade,
    ownerRunId: runId,
    updatedAt: new Date().toISOString(),
    ...change,
  });

  const note = (trade: TradeRecord, runId: string, type: string): NewTradeEvent => ({
    ...startedEvent(trade),
    runId,
    type,
  });

  const entry = (signature: string): LedgerEntry => ({
    movement: 'taker_lock',
    signature,
    mint: USDC_MINT,
    account: 'taker',
    side: 'credit',
    amountRaw: 5n,
  });

  /** Each kind of write a run makes of a trade it owns, one write each. */
  const everyWrite = (trade: TradeRecord, runId: string): StoreWrite[] => [
    {
      kind: 'saveTransition',
      update: update(trade, runId, { substate: 'pending.lockSubmitted', running: true }),
      events: [note(trade, runId, 'LOCK_SUBMITTED')],
      ledger: [entry(`sig-${runId}`)],
    },
    { kind: 'appendEvents', events: [note(trade, runId, 'TX_INTENT')] },
    { kind: 'setWake', tradeId: trade.tradeId, runId, at: NOW + 60 },
    { kind: 'setSeen', tradeId: trade.tradeId, runId, seen: `seen-by-${runId}` },
  ];

  /** Everything a write of the trade could change. */
  const stateOf = async (store: Store, trade: TradeRecord) => ({
    trade: await store.getTrade(trade.tradeId),
    events: await store.tradeEvents(trade.tradeId),
    ledger: await store.ledger(trade.tradeId),
  });

  const ids = (trades: readonly { tradeId: string }[]) => trades.map((t) => t.tradeId);
  const sorted = (values: readonly string[]) => [...values].sort();
  const ownerOf = async (store: Store, tradeId: string) => (await store.getTrade(tradeId))?.ownerRunId;

  describe('runs and leases', () => {
    test('every instance lists every run, with where it answers and when its lease lapses', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      for (const store of [a, b]) {
        const runs = await store.listRuns();
        expect(sorted(runs.map((r) => r.runId))).toEqual(sorted([runA, runB]));
        for (const run of runs) {
          expect(run.url).toBe(`http://run-${run.runId}.test`);
          expect(run.leaseExpiresAtMs).toBeGreaterThan(Date.now() + LEASE_TTL_MS / 2);
        }
      }
    });

    test('an unknown run has no lease to renew', async () => {
      const store = await instance();
      expect(await store.renewLease(randomUUID(), LEASE_TTL_MS)).toBe(false);
    });

    test('runs of the single-instance build, upgraded, have no lease: their unclosed trades are orphans', async () => {
      // The database as the build before leases left it: its first migration, and a run without a lease.
      await sql(databaseUrl, POSTGRES_MIGRATIONS[0] as string);
      await sql(
        databaseUrl,
        `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
         INSERT INTO schema_migrations (version) VALUES (1);
         INSERT INTO runs (run_id, version, started_at) VALUES ('before-leases', 'v1', '2030-01-01T00:00:00.000Z')`,
      );
      const store = await instance();
      expect((await store.listRuns())[0]).toEqual({
        runId: 'before-leases',
        version: 'v1',
        startedAt: '2030-01-01T00:00:00.000Z',
        stoppedAt: null,
        url: null,
        leaseExpiresAtMs: null,
      });
      const runId = await startRun(store);
      const trade = await tradeOf(store, runId);
      await sql(databaseUrl, "UPDATE trades SET owner_run_id = 'before-leases'");
      expect(await store.renewLease('before-leases', LEASE_TTL_MS)).toBe(false);
      expect(ids(await store.claimOrphans(runId, 10))).toEqual([trade.tradeId]);
    });

    test('a lease lapses on its own, measured by the database: the run then owns nothing', async () => {
      const [store, other] = [await instance(), await instance()];
      const brief = await startRun(store, randomUUID(), 300);
      const trade = await tradeOf(store, brief);
      const taker = await startRun(other);
      expect(await other.acquireTrade(trade.tradeId, taker)).toMatchObject({ acquired: false });
      await sleep(400);
      expect(await store.renewLease(brief, LEASE_TTL_MS)).toBe(false);
      expect(ids(await other.claimOrphans(taker, 10))).toEqual([trade.tradeId]);
    });
  });

  describe('orphans', () => {
    test("a stopped or lapsed owner's unclosed trades are orphans a live run claims; a live owner's never", async () => {
      const [a, b] = [await instance(), await instance()];
      const [live, stopped, lapsed] = [await startRun(a), await startRun(a), await startRun(a)];
      const claimer = await startRun(b);
      const kept = await tradesOf(a, live, 2);
      const [ofStopped, running, closed] = await tradesOf(a, stopped, 3);
      const ofLapsed = await tradesOf(a, lapsed, 2);
      await commitAll(
        a,
        {
          kind: 'saveTransition',
          update: update(running as TradeRecord, stopped, { running: true }),
          events: [],
          ledger: [],
        },
        {
          kind: 'saveTransition',
          update: update(closed as TradeRecord, stopped, {
            status: 'failed',
            substate: 'failed',
            closed: true,
          }),
          events: [],
          ledger: [],
        },
      );
      await a.stopRun(stopped, new Date().toISOString());
      await lapseLease(databaseUrl, lapsed);

      const claimed = await b.claimOrphans(claimer, 100);
      // Oldest first: the stopped run's trades were made first (tradesOf dates them in order, per run).
      const orphans = [ofStopped, running, ...ofLapsed] as TradeRecord[];
      expect(sorted(ids(claimed))).toEqual(sorted(ids(orphans)));
      const byId = new Map(claimed.map((c) => [c.tradeId, c]));
      for (const trade of orphans) {
        expect(byId.get(trade.tradeId)).toEqual({
          tradeId: trade.tradeId,
          takerEscrow: trade.takerEscrow,
          makerEscrow: trade.makerEscrow,
          watch: trade.watch,
          seen: trade.seen,
          hold: trade.hold,
          running: trade === running,
        });
        expect(await ownerOf(a, trade.tradeId)).toBe(claimer);
      }
      for (const trade of kept) expect(await ownerOf(a, trade.tradeId)).toBe(live);
      // A closed trade is nobody's to claim: it keeps the run it closed under.
      expect(await ownerOf(a, (closed as TradeRecord).tradeId)).toBe(stopped);
      expect(await b.claimOrphans(claimer, 100)).toEqual([]);
    });

    test('orphans are claimed oldest first, up to the limit', async () => {
      const store = await instance();
      const dead = await startRun(store);
      const trades = await tradesOf(store, dead, 5);
      await store.stopRun(dead, new Date().toISOString());
      // Another run's trade, stored last but created first: the oldest orphan.
      const other = await startRun(store);
      const q = quoteRecord(other);
      const oldest = { ...tradeRecord(q), createdAt: '2020-01-01T00:00:00.000Z' };
      await commitAll(store, { kind: 'insertQuote', quote: q }, createTrade(oldest));
      await store.stopRun(other, new Date().toISOString());
      const next = await startRun(store);
      expect(ids(await store.claimOrphans(next, 3))).toEqual([oldest.tradeId, ...ids(trades.slice(0, 2))]);
      expect(ids(await store.claimOrphans(next, 3))).toEqual(ids(trades.slice(2)));
    });

    test('instances claiming at once share the orphans: disjoint sets that together are every orphan', async () => {
      const stores = [await instance(), await instance(), await instance()];
      const dead = await startRun(stores[0] as Store);
      const orphans = await tradesOf(stores[0] as Store, dead, 90);
      await (stores[0] as Store).stopRun(dead, new Date().toISOString());
      const claims = await Promise.all(
        stores.map(async (store) => {
          const runId = await startRun(store);
          const taken: string[] = [];
          // Several claims in flight per instance too: SKIP LOCKED lets none wait for another.
          await Promise.all(
            [1, 2, 3].map(async () => {
              for (;;) {
                const claimed = await store.claimOrphans(runId, 4);
                if (claimed.length === 0) return;
                taken.push(...ids(claimed));
              }
            }),
          );
          return { runId, taken };
        }),
      );
      const all = claims.flatMap((c) => c.taken);
      expect(new Set(all).size).toBe(all.length);
      expect(sorted(all)).toEqual(sorted(ids(orphans)));
      for (const { runId, taken } of claims) {
        for (const tradeId of taken) expect(await ownerOf(stores[0] as Store, tradeId)).toBe(runId);
      }
    });

    test('an orphan whose row another transaction holds is skipped, not waited for, and claimed later', async () => {
      const store = await instance();
      const dead = await startRun(store);
      const [held, free] = (await tradesOf(store, dead, 2)) as [TradeRecord, TradeRecord];
      await store.stopRun(dead, new Date().toISOString());
      const claimer = await startRun(store);
      const other = new pg.Client({ connectionString: databaseUrl });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT 1 FROM trades WHERE trade_id = $1 FOR SHARE', [held.tradeId]);
        expect(ids(await store.claimOrphans(claimer, 10))).toEqual([free.tradeId]);
        await other.query('COMMIT');
      } finally {
        await other.end();
      }
      expect(ids(await store.claimOrphans(claimer, 10))).toEqual([held.tradeId]);
    });

    test('a run whose own lease lapsed claims nothing, by any means', async () => {
      const store = await instance();
      const dead = await startRun(store);
      const trade = await tradeOf(store, dead);
      await store.stopRun(dead, new Date().toISOString());
      const late = await startRun(store);
      await lapseLease(databaseUrl, late);
      expect(await store.claimOrphans(late, 10)).toEqual([]);
      expect(await store.claimUnclosed(late)).toBe(0);
      expect(await store.acquireTrade(trade.tradeId, late)).toEqual({
        acquired: false,
        ownerRunId: dead,
        ownerUrl: null,
      });
      const [outcome] = await store.commit([{ kind: 'claimTrade', tradeId: trade.tradeId, runId: late }]);
      expect(outcome).toMatchObject({ ok: false, conflict: 'fenced' });
      expect(await ownerOf(store, trade.tradeId)).toBe(dead);
    });

    test('at start a run claims every orphan, and counts every trade it owns then', async () => {
      const [a, b] = [await instance(), await instance()];
      const [dead, lapsed, live] = [await startRun(a), await startRun(a), await startRun(a)];
      const orphans = [...(await tradesOf(a, dead, 30)), ...(await tradesOf(a, lapsed, 20))];
      const kept = await tradesOf(a, live, 5);
      await a.stopRun(dead, new Date().toISOString());
      await lapseLease(databaseUrl, lapsed);
      const next = await startRun(b);
      const own = await tradeOf(b, next);
      expect(await b.claimUnclosed(next)).toBe(orphans.length + 1);
      expect(sorted(ids(await b.ownedBy(next).restIndex()))).toEqual(sorted([...ids(orphans), own.tradeId]));
      for (const trade of kept) expect(await ownerOf(b, trade.tradeId)).toBe(live);
      expect(await b.claimUnclosed(next)).toBe(orphans.length + 1);
    });
  });

  describe('acquiring one trade', () => {
    test('a trade a live run owns stays its own: the answer names that run and where it answers', async () => {
      const [a, b] = [await instance(), await instance()];
      const [owner, asker] = [await startRun(a), await startRun(b)];
      const trade = await tradeOf(a, owner);
      expect(await b.acquireTrade(trade.tradeId, asker)).toEqual({
        acquired: false,
        ownerRunId: owner,
        ownerUrl: `http://run-${owner}.test`,
      });
      expect(await ownerOf(b, trade.tradeId)).toBe(owner);
    });

    test('a trade whose owner stopped or let its lease lapse is taken: its row names the new owner', async () => {
      const [a, b] = [await instance(), await instance()];
      const [stopped, lapsed, asker] = [await startRun(a), await startRun(a), await startRun(b)];
      const [ofStopped, ofLapsed] = [await tradeOf(a, stopped), await tradeOf(a, lapsed)];
      await a.stopRun(stopped, new Date().toISOString());
      await lapseLease(databaseUrl, lapsed);
      for (const trade of [ofStopped, ofLapsed]) {
        expect(await b.acquireTrade(trade.tradeId, asker)).toEqual({ acquired: true });
        expect(await ownerOf(a, trade.tradeId)).toBe(asker);
      }
      // The former owner, asking again, is sent to the new one.
      expect(await a.acquireTrade(ofStopped.tradeId, stopped)).toEqual({
        acquired: false,
        ownerRunId: asker,
        ownerUrl: `http://run-${asker}.test`,
      });
    });

    test('its own trade, a closed one and an unknown one are "acquired", and nothing changes', async () => {
      const [a, b] = [await instance(), await instance()];
      const [mine, theirs] = [await startRun(a), await startRun(b)];
      const own = await tradeOf(a, mine);
      const closed = await tradeOf(b, theirs);
      await commitAll(b, {
        kind: 'saveTransition',
        update: update(closed, theirs, { status: 'failed', substate: 'failed', closed: true }),
        events: [],
        ledger: [],
      });
      await b.stopRun(theirs, new Date().toISOString());
      expect(await a.acquireTrade(own.tradeId, mine)).toEqual({ acquired: true });
      expect(await a.acquireTrade(closed.tradeId, mine)).toEqual({ acquired: true });
      expect(await a.acquireTrade(randomUUID(), mine)).toEqual({ acquired: true });
      expect(await ownerOf(a, closed.tradeId)).toBe(theirs);
    });

    test('one trade is resumed by a run that owns it or finds it orphaned, never taken from a live owner', async () => {
      const store = await instance();
      const [owner, dead, resumer] = [await startRun(store), await startRun(store), await startRun(store)];
      const [owned, orphan, mine] = [
        await tradeOf(store, owner),
        await tradeOf(store, dead),
        await tradeOf(store, resumer),
      ];
      await store.stopRun(dead, new Date().toISOString());
      const outcomes = await store.commit(
        [owned, orphan, mine].map(
          (t): StoreWrite => ({ kind: 'claimTrade', tradeId: t.tradeId, runId: resumer }),
        ),
      );
      expect(outcomes).toEqual([
        {
          ok: false,
          conflict: 'fenced',
          message: `run ${resumer} does not own trade ${owned.tradeId}, or its lease lapsed`,
        },
        { ok: true },
        { ok: true },
      ]);
      expect(await ownerOf(store, owned.tradeId)).toBe(owner);
      expect(await ownerOf(store, orphan.tradeId)).toBe(resumer);
    });
  });

  describe('the fence', () => {
    /**
     * Runs `hook` just before the next COMMIT a pool client sends, once: a process frozen (or its lease
     * lapsing) between a batch's writes and its commit.
     */
    function beforeNextCommit(hook: () => Promise<void>): void {
      const connect = pg.Pool.prototype.connect;
      const spy = vi.spyOn(pg.Pool.prototype, 'connect').mockImplementation(function (
        this: pg.Pool,
        ...args: unknown[]
      ) {
        // pool.query connects with a callback: leave those alone.
        if (args.length > 0) return (connect as (...a: unknown[]) => unknown).apply(this, args) as never;
        return (connect as () => Promise<pg.PoolClient>).call(this).then((client) => {
          const query = client.query;
          client.query = (async (...queryArgs: unknown[]) => {
            const text = queryArgs[0];
            if (typeof text === 'string' && text.endsWith('COMMIT') && !text.startsWith('BEGIN')) {
              client.query = query;
              await hook();
            }
            return (query as (...a: unknown[]) => unknown).apply(client, queryArgs);
          }) as typeof client.query;
          spy.mockRestore();
          return client;
        }) as never;
      });
    }

    test("a batch whose run's lease lapses between its fenced writes and its COMMIT commits nothing", async () => {
      const store = await instance();
      const runA = await startRun(store);
      const trade = await tradeOf(store, runA);
      beforeNextCommit(() => lapseLease(databaseUrl, runA));
      const batch = store.commit([
        {
          kind: 'saveTransition',
          update: update(trade, runA, { status: 'failed', substate: 'failed.abandoned' }),
          events: [note(trade, runA, 'ABANDON')],
          ledger: [],
        },
      ]);
      await expect(batch).rejects.toMatchObject({ conflict: 'fenced' });
      expect((await store.getTrade(trade.tradeId))?.status).toBe('pending');
      expect((await store.tradeEvents(trade.tradeId)).map((e) => e.type)).toEqual(['SETTLEMENT_STARTED']);
    });

    test("a transaction its process leaves idle (frozen) is ended by the server within half a lease; the other instances' commits go on", async () => {
      // A 2 s lease: the server ends a transaction idle for 1 s.
      const frozen = await openStore({ databaseUrl, leaseTtlMs: 2_000 });
      opened.push(frozen);
      const other = await instance();
      const [runF, runO] = [await startRun(frozen), await startRun(other)];
      const [stuckTrade, otherTrade] = [await tradeOf(frozen, runF), await tradeOf(other, runO)];
      const transition = (trade: TradeRecord, runId: string): StoreWrite => ({
        kind: 'saveTransition',
        update: update(trade, runId, { status: 'failed', substate: 'failed.abandoned' }),
        events: [note(trade, runId, 'ABANDON')],
        ledger: [],
      });
      let thaw = () => {};
      const thawed = new Promise<void>((resolve) => {
        thaw = resolve;
      });
      let froze = () => {};
      const frozenBeforeCommit = new Promise<void>((resolve) => {
        froze = resolve;
      });
      beforeNextCommit(() => {
        froze();
        return thawed;
      });
      // Frozen before its COMMIT, holding the event log's lock every transition needs: the other instance
      // commits only once it is there (a fixed pause could end before it got there on a loaded machine, and
      // the test would then prove nothing).
      const stuck = frozen.commit([transition(stuckTrade, runF)]);
      await frozenBeforeCommit;
      // The server ends the idle transaction after a second; the ceiling is for a loaded server.
      const stalled = sleep(15_000).then(() => 'stalled');
      const result = await Promise.race([
        commitAll(other, transition(otherTrade, runO)).then(() => 'committed'),
        stalled,
      ]);
      thaw();
      expect(result).toBe('committed');
      // The frozen one's transaction was ended: nothing of it was stored.
      await expect(stuck).rejects.toBeDefined();
      expect((await other.getTrade(stuckTrade.tradeId))?.status).toBe('pending');
      expect((await other.getTrade(otherTrade.tradeId))?.status).toBe('failed');
    }, 30_000);

    /** Every write's outcome is a refusal by the fence. */
    const fenced = (outcomes: WriteOutcome[]) => {
      expect(outcomes.length).toBeGreaterThan(0);
      for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, conflict: 'fenced' });
    };

    test("once its lease lapsed and another run claimed its trade, the former owner's every write is refused and changes nothing; the new owner's land", async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const trade = await tradeOf(a, runA);
      await lapseLease(databaseUrl, runA);
      expect(ids(await b.claimOrphans(runB, 10))).toEqual([trade.tradeId]);
      const before = await stateOf(a, trade);

      // Each refused alone: a write of the same batch for another trade still lands.
      const bystander = await tradeOf(b, runB);
      const outcomes = await a.commit([
        ...everyWrite(trade, runA),
        { kind: 'setSeen', tradeId: bystander.tradeId, runId: runB, seen: 'landed' },
      ]);
      fenced(outcomes.slice(0, -1));
      expect(outcomes.at(-1)).toEqual({ ok: true });
      expect(await stateOf(a, trade)).toEqual(before);
      expect((await a.getTrade(bystander.tradeId))?.seen).toBe('landed');

      expect(await b.commit(everyWrite(trade, runB))).toEqual(
        everyWrite(trade, runB).map(() => ({ ok: true })),
      );
      expect(await b.getTrade(trade.tradeId)).toMatchObject({
        ownerRunId: runB,
        substate: 'pending.lockSubmitted',
        running: true,
        nextDeadline: NOW + 60,
        seen: `seen-by-${runB}`,
      });
      expect((await b.tradeEvents(trade.tradeId)).map((e) => [e.type, e.runId])).toEqual([
        ['SETTLEMENT_STARTED', runA],
        ['LOCK_SUBMITTED', runB],
        ['TX_INTENT', runB],
      ]);
      expect((await b.ledger(trade.tradeId)).map((e) => e.signature)).toEqual([`sig-${runB}`]);
    });

    test('a lapsed lease fences its run before anyone claims its trades', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const trade = await tradeOf(store, runA);
      await lapseLease(databaseUrl, runA);
      const before = await stateOf(store, trade);
      fenced(await store.commit(everyWrite(trade, runA)));
      expect(await stateOf(store, trade)).toEqual(before);
      expect(before.trade?.ownerRunId).toBe(runA);
    });

    test("a stopped run's writes are refused", async () => {
      const store = await instance();
      const runA = await startRun(store);
      const trade = await tradeOf(store, runA);
      await store.stopRun(runA, new Date().toISOString());
      fenced(await store.commit(everyWrite(trade, runA)));
    });

    test('a live run writing a trade another live run owns is refused', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const trade = await tradeOf(a, runA);
      const before = await stateOf(a, trade);
      fenced(await b.commit(everyWrite(trade, runB)));
      expect(await stateOf(a, trade)).toEqual(before);
    });

    test('a run without a live lease creates no trade, and its quote stays unused', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const q = quoteRecord(runA);
      await commitAll(store, { kind: 'insertQuote', quote: q });
      await lapseLease(databaseUrl, runA);
      const trade = tradeRecord(q);
      const [outcome] = await store.commit([createTrade(trade)]);
      expect(outcome).toEqual({
        ok: false,
        conflict: 'fenced',
        message: `run ${runA} has no live lease to create trade ${trade.tradeId}`,
      });
      expect(await store.getTrade(trade.tradeId)).toBeUndefined();
      expect((await store.getQuote(q.quoteId))?.usedByTradeId).toBeNull();
    });

    test('an event naming another run than the trade it creates is refused with the trade', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const q = quoteRecord(runA);
      await commitAll(a, { kind: 'insertQuote', quote: q });
      const trade = tradeRecord(q);
      const [outcome] = await a.commit([{ kind: 'createTrade', trade, event: note(trade, runB, 'STARTED') }]);
      expect(outcome).toMatchObject({ ok: false, conflict: 'fenced' });
      expect(await a.getTrade(trade.tradeId)).toBeUndefined();
    });

    test('a missing trade keeps its errors: a transition or an event is refused as missing, a wake or a fingerprint changes nothing', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const ghost = tradeRecord(quoteRecord(runA));
      const outcomes = await store.commit(everyWrite(ghost, runA));
      expect(outcomes).toEqual([
        { ok: false, message: `trade ${ghost.tradeId} does not exist` },
        { ok: false, message: `trade ${ghost.tradeId} does not exist` },
        { ok: true },
        { ok: true },
      ]);
    });
  });

  describe('reservations across instances', () => {
    /** A quote of `amount` of the mint, reserving it against `balance` at `nowMs`. */
    const reserving = (
      runId: string,
      mint: string,
      amount: bigint,
      balance: bigint,
      nowMs = Date.now(),
    ): StoreWrite => ({
      kind: 'insertQuote',
      quote: quoteRecord(runId, { outputMint: mint, outputRaw: amount }),
      reserve: { balanceRaw: balance, nowMs },
    });

    test('three instances quoting at once never reserve more than the balance, and refuse only what does not fit', async () => {
      const stores = [await instance(), await instance(), await instance()];
      const runs = await Promise.all(stores.map((store) => startRun(store)));
      const amount = fc.bigInt({ min: 1n, max: 4_000n });
      const batches = fc.array(fc.array(amount, { minLength: 1, maxLength: 5 }), {
        minLength: 1,
        maxLength: 4,
      });
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 0n, max: 20_000n }),
          fc.tuple(batches, batches, batches),
          async (balance, perInstance) => {
            // A mint of its own per case: reservations are summed per output mint.
            const mint = wallet();
            const results = await Promise.all(
              perInstance.map((instanceBatches, i) =>
                Promise.all(
                  instanceBatches.map(async (amounts) => {
                    const outcomes = await (stores[i] as Store).commit(
                      amounts.map((a) => reserving(runs[i] as string, mint, a, balance)),
                    );
                    return amounts.map((a, j) => ({ amount: a, outcome: outcomes[j] as WriteOutcome }));
                  }),
                ),
              ),
            );
            const all = results.flat(2);
            const accepted = all.filter((r) => r.outcome.ok).reduce((sum, r) => sum + r.amount, 0n);
            expect(accepted).toBeLessThanOrEqual(balance);
            for (const { amount: refused, outcome } of all.filter((r) => !r.outcome.ok)) {
              expect(outcome).toMatchObject({ ok: false, conflict: 'inventory' });
              // Reservations only grew meanwhile: what was refused does not fit beside the final total.
              expect(accepted + refused).toBeGreaterThan(balance);
            }
            const stored = (await (stores[0] as Store).openQuotes(Date.now())).filter(
              (q) => q.outputMint === mint,
            );
            expect(stored.reduce((sum, q) => sum + q.outputRaw, 0n)).toBe(accepted);
          },
        ),
        { numRuns: 25 },
      );
    });

    test("open quotes and unclosed trades' live holds reserve; expired quotes, used quotes and closed trades do not", async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const mint = wallet();
      const now = Date.now();
      const quoted = (runId: string, amount: bigint, change: Partial<QuoteRecord> = {}) =>
        quoteRecord(runId, { outputMint: mint, outputRaw: amount, ...change });
      await commitAll(
        a,
        { kind: 'insertQuote', quote: quoted(runA, 900n, { expiresAtMs: now - 1 }) },
        { kind: 'insertQuote', quote: quoted(runA, 300n) },
      );
      // A trade holds its output once its quote is used (the quote then reserves nothing).
      const holding = await tradeOf(
        b,
        runB,
        { outputMint: mint, outputAmountRaw: '400' },
        { outputMint: mint, outputRaw: 400n },
      );
      expect(holding.hold).toMatchObject({ mint, raw: 400n });
      const outcome = async (store: Store, runId: string, amount: bigint, nowMs = now) =>
        (await store.commit([reserving(runId, mint, amount, 1_000n, nowMs)]))[0];

      // Reserved: 300 quoted + 400 held = 700, of a balance of 1000.
      expect(await outcome(a, runA, 301n)).toMatchObject({ ok: false, conflict: 'inventory' });
      expect(await outcome(b, runB, 300n)).toEqual({ ok: true });
      expect(await outcome(a, runA, 1n)).toMatchObject({ ok: false, conflict: 'inventory' });

      // The trade closes: its hold no longer counts.
      await commitAll(b, {
        kind: 'saveTransition',
        update: update(holding, runB, { status: 'redeemed', substate: 'redeemed', closed: true }),
        events: [],
        ledger: [],
      });
      expect(await outcome(a, runA, 400n)).toEqual({ ok: true });
      expect(await outcome(a, runA, 1n)).toMatchObject({ ok: false, conflict: 'inventory' });
      // Later, every quote has expired: the whole balance is free again.
      expect(await outcome(a, runA, 1_000n, now + 3_600_000)).toEqual({ ok: true });
    });

    test('a hold counts until its time, and only against its own mint', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const mint = wallet();
      const trade = await tradeOf(
        store,
        runA,
        { outputMint: mint, outputAmountRaw: '600' },
        { outputMint: mint, outputRaw: 600n },
      );
      const untilMs = (trade.hold as { untilMs: number }).untilMs;
      const fits = async (amount: bigint, nowMs: number, outputMint = mint) =>
        (await store.commit([reserving(runA, outputMint, amount, 1_000n, nowMs)]))[0]?.ok;
      // Quotes reserving at the hold's end, so that they expire (30 s later) before the next check.
      expect(await fits(401n, untilMs - 1)).toBe(false);
      expect(await fits(401n, untilMs)).toBe(true);
      expect(await fits(1_000n, Date.now(), wallet())).toBe(true);
    });

    test('a refused reservation is not stored; the writes around it in its batch are', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const mint = wallet();
      const writes = [600n, 600n, 400n].map((amount) => reserving(runA, mint, amount, 1_000n));
      const outcomes = await store.commit(writes);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
      expect(outcomes[1]).toMatchObject({
        conflict: 'inventory',
        message: expect.stringContaining('over the balance of 1000'),
      });
      const stored = (await store.openQuotes(Date.now())).filter((q) => q.outputMint === mint);
      expect(stored.map((q) => q.outputRaw).sort()).toEqual([400n, 600n]);
    });
    /** The reservations of `mint` at `nowMs` as the check sums them: the running sums and the current second. */
    const reserved = async (mint: string, nowMs: number) =>
      (
        await sql<{ raw: string }>(databaseUrl, POSTGRES_STATEMENTS.reservedSum, [
          mint,
          nowMs,
          Math.ceil(nowMs / 1000),
        ])
      )[0]?.raw;
    // What the check summed before the running sums: every open quote and live hold, row by row.
    const exact = async (mint: string, nowMs: number) =>
      (
        await sql<{ raw: string }>(
          databaseUrl,
          `SELECT ((SELECT coalesce(sum(output_raw), 0) FROM quotes
                     WHERE output_mint = $1 AND used_by_trade_id IS NULL AND expires_at_ms > $2)
                 + (SELECT coalesce(sum(hold_raw), 0) FROM trades
                     WHERE hold_mint = $1 AND NOT closed AND hold_until_ms > $2))::text AS raw`,
          [mint, nowMs],
        )
      )[0]?.raw;

    test('the running sums agree with every open quote and live hold at any millisecond, across moves, releases and closes', async () => {
      const store = await instance();
      const runA = await startRun(store);
      // Whole seconds ahead of the clock, so no bucket is settled yet; every time below is ms-precise around it.
      const base = (Math.floor(Date.now() / 1000) + 600) * 1000;
      const ms = fc.integer({ min: -3_000, max: 3_000 });
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              amount: fc.bigInt({ min: 1n, max: 1_000n }),
              expiry: ms,
              trade: fc.constantFrom('none', 'hold', 'move', 'release', 'close'),
              hold: ms,
              moved: ms,
              // Which batch the trade's later transition lands in (several, as the group commit makes them).
              batch: fc.nat(2),
            }),
            { minLength: 1, maxLength: 8 },
          ),
          fc.array(fc.integer({ min: -4_000, max: 4_000 }), { minLength: 1, maxLength: 6 }),
          async (items, probes) => {
            const mint = wallet();
            const first: StoreWrite[] = [];
            const later: StoreWrite[][] = [[], [], []];
            for (const item of items) {
              const q = quoteRecord(runA, {
                outputMint: mint,
                outputRaw: item.amount,
                expiresAtMs: base + item.expiry,
              });
              first.push({ kind: 'insertQuote', quote: q });
              if (item.trade === 'none') continue;
              const trade: TradeRecord = {
                ...tradeRecord(q),
                hold: { mint, raw: item.amount, untilMs: base + item.hold },
              };
              first.push(createTrade(trade));
              const change: Partial<TradeUpdate> | null =
                item.trade === 'move'
                  ? { hold: { mint, raw: item.amount, untilMs: base + item.moved } }
                  : item.trade === 'release'
                    ? { hold: null }
                    : item.trade === 'close'
                      ? { status: 'redeemed', substate: 'redeemed', closed: true }
                      : null;
              if (change === null) continue;
              later[item.batch]?.push({
                kind: 'saveTransition',
                update: update(trade, runA, change),
                events: [],
                ledger: [],
              });
            }
            await commitAll(store, ...first);
            for (const batch of later) if (batch.length > 0) await commitAll(store, ...batch);
            for (const probe of [...probes, 0, -1, 1, 999, 1_000]) {
              expect(await reserved(mint, base + probe), `at base${probe >= 0 ? '+' : ''}${probe} ms`).toBe(
                await exact(mint, base + probe),
              );
            }
          },
        ),
        { numRuns: 40 },
      );
      // Forty runs of PostgreSQL writes: well over 30 s on a loaded machine.
    }, 120_000);

    test('batches quoting several mints in opposite orders on two instances never deadlock', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const [m1, m2, m3] = [wallet(), wallet(), wallet()];
      const quotes = (runId: string, mints: string[]) =>
        mints.map((mint) => reserving(runId, mint, 1n, 1_000_000n));
      for (let round = 0; round < 20; round++) {
        const outcomes = await Promise.all([
          a.commit(quotes(runA, [m1, m2, m3])),
          b.commit(quotes(runB, [m3, m2, m1])),
          a.commit(quotes(runA, [m2, m1])),
          b.commit(quotes(runB, [m1, m3])),
        ]);
        expect(outcomes.flat().every((outcome) => outcome.ok)).toBe(true);
      }
    });

    test('an upgraded database starts its running sums from the quotes and holds it has', async () => {
      const store = await instance();
      const runA = await startRun(store);
      const mint = wallet();
      const base = (Math.floor(Date.now() / 1000) + 600) * 1000;
      const quoted = (amount: bigint, expiresAtMs: number) =>
        quoteRecord(runA, { outputMint: mint, outputRaw: amount, expiresAtMs });
      const used = quoted(50n, base + 100);
      const holding: TradeRecord = { ...tradeRecord(used), hold: { mint, raw: 50n, untilMs: base + 2_500 } };
      const closing = quoted(70n, base + 200);
      const closed: TradeRecord = {
        ...tradeRecord(closing),
        hold: { mint, raw: 70n, untilMs: base + 3_000 },
      };
      await commitAll(
        store,
        { kind: 'insertQuote', quote: quoted(11n, base + 1_500) },
        { kind: 'insertQuote', quote: quoted(13n, base - 700) },
        { kind: 'insertQuote', quote: quoted(17n, Date.now() - 600_000) },
        { kind: 'insertQuote', quote: used },
        createTrade(holding),
        { kind: 'insertQuote', quote: closing },
        createTrade(closed),
      );
      await commitAll(store, {
        kind: 'saveTransition',
        update: update(closed, runA, { status: 'redeemed', substate: 'redeemed', closed: true }),
        events: [],
        ledger: [],
      });
      // The database as the build before the running sums left it (and so before every later migration:
      // the hedges, the quotes' sourcing plans, the storage watch's probes, the desk's live settings, the
      // Gateway's transfers); the next instance to open it migrates.
      const buckets =
        POSTGRES_MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE reservation_buckets')) + 1;
      expect(POSTGRES_MIGRATIONS.slice(buckets)).toEqual([
        expect.stringContaining('CREATE TABLE hedges'),
        expect.stringContaining('ADD COLUMN sourcing'),
        expect.stringContaining('CREATE TABLE store_probes'),
        expect.stringContaining('CREATE TABLE desk_changes'),
        expect.stringContaining('CREATE TABLE gateway_transfers'),
      ]);
      await sql(
        databaseUrl,
        'DROP TABLE gateway_transfers; DROP TABLE desk_overrides; DROP TABLE desk_changes; DROP TABLE store_probes; DROP TABLE hedges; DROP TABLE reservation_buckets; ' +
          'ALTER TABLE quotes DROP COLUMN sourcing; ' +
          `DELETE FROM schema_migrations WHERE version >= ${buckets}`,
      );
      await instance();
      for (const probe of [-1_000, -701, -700, 0, 1_499, 1_500, 2_499, 2_500, 3_000]) {
        expect(await reserved(mint, base + probe), `at base${probe >= 0 ? '+' : ''}${probe} ms`).toBe(
          await exact(mint, base + probe),
        );
      }
      expect(await reserved(mint, base)).toBe('61');
    });
  });

  describe('events heard across instances', () => {
    /** Waits until the condition holds (notifications are asynchronous), looking again after each poll. */
    async function until(
      condition: () => boolean,
      timeoutMs = 15_000,
      poll: () => Promise<unknown> = () => sleep(10),
    ): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (await poll(); !condition(); await poll()) {
        if (Date.now() > deadline) throw new Error('timed out waiting');
        await sleep(10);
      }
    }

    /** Waits until this many listening connections are left (a backend leaves a moment after its client). */
    async function listeners(expected: number): Promise<void> {
      let n = -1;
      await until(
        () => n === expected,
        5_000,
        async () => {
          const [row] = await sql<{ n: string }>(
            databaseUrl,
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'rfq-maker-events' AND datname = current_database()",
          );
          n = Number(row?.n);
        },
      );
    }

    test('an instance hears the trades whose events other instances committed, never its own nor refused ones', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const heard: string[] = [];
      const stop = await b.watchEvents((tradeIds) => heard.push(...tradeIds));
      const [ofA, ofB] = [await tradeOf(a, runA), await tradeOf(b, runB)];
      await commitAll(b, { kind: 'appendEvents', events: [note(ofB, runB, 'NOTE')] });
      // Refused by the fence: no event, nothing to hear.
      await a.commit([{ kind: 'appendEvents', events: [note(ofB, runA, 'NOTE')] }]);
      const later = await tradeOf(a, runA);
      await commitAll(a, {
        kind: 'saveTransition',
        update: update(ofA, runA),
        events: [note(ofA, runA, 'MOVED')],
        ledger: [],
      });
      await until(() => heard.filter((id) => id === ofA.tradeId).length === 2);
      expect(heard).toEqual([ofA.tradeId, later.tradeId, ofA.tradeId]);
      await stop();
    });

    test('a commit of many trades is heard whole, in notifications under the size NOTIFY takes', async () => {
      const [a, b] = [await instance(), await instance()];
      const runA = await startRun(a);
      const heard = new Set<string>();
      let notifications = 0;
      const stop = await b.watchEvents((tradeIds) => {
        notifications++;
        for (const id of tradeIds) heard.add(id);
      });
      const trades = await tradesOf(a, runA, 600);
      await until(() => heard.size === trades.length);
      expect(sorted([...heard])).toEqual(sorted(ids(trades)));
      expect(notifications).toBeGreaterThan(1);
      await stop();
    });

    test('stopping ends the listening connection, and so does closing the store', async () => {
      const store = await instance();
      const stop = await store.watchEvents(() => {});
      await store.watchEvents(() => {});
      await listeners(2);
      await stop();
      await stop();
      await listeners(1);
      await store.close();
      await listeners(0);
    });

    test('a listening connection that dies is swallowed: nothing throws, the store goes on, stop still resolves', async () => {
      const [a, b] = [await instance(), await instance()];
      const runA = await startRun(a);
      const heard: string[] = [];
      const stop = await b.watchEvents((tradeIds) => heard.push(...tradeIds));
      await sql(
        databaseUrl,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rfq-maker-events' AND datname = current_database()",
      );
      await tradeOf(a, runA);
      await sleep(100);
      expect(heard).toEqual([]);
      expect(await b.ping()).toBe(true);
      await stop();
    });

    test('a listener that throws is its own affair', async () => {
      const [a, b] = [await instance(), await instance()];
      const runA = await startRun(a);
      let calls = 0;
      const stop = await b.watchEvents(() => {
        calls++;
        throw new Error('listener failed');
      });
      await tradeOf(a, runA);
      await tradeOf(a, runA);
      await until(() => calls === 2);
      await stop();
    });
  });

  describe("the runtime's indexes, per owner", () => {
    test("every index of owned trades answers the owner's trades only", async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      /** Per run: one trade at rest, one due and running, one failing past pending, one closed. */
      const spread = async (store: Store, runId: string) => {
        const [rest, due, failing, closed] = (await tradesOf(store, runId, 4)) as [
          TradeRecord,
          TradeRecord,
          TradeRecord,
          TradeRecord,
        ];
        const parsed = JSON.parse(failing.snapshot) as { context: Record<string, unknown> };
        parsed.context.effectError = { effect: `lock-${runId}`, message: 'x', attempts: 3, retryAt: NOW };
        const snapshot = JSON.stringify(parsed);
        const move = (trade: TradeRecord, change: Partial<TradeUpdate>): StoreWrite => ({
          kind: 'saveTransition',
          update: update(trade, runId, change),
          events: [],
          ledger: [],
        });
        await commitAll(
          store,
          move(due, { running: true, nextDeadline: NOW }),
          move(failing, {
            status: 'initiated',
            substate: 'initiated.redeeming.makerLocked',
            effectAttempts: 3,
            snapshot,
          }),
          move(closed, { status: 'redeemed', substate: 'redeemed', closed: true }),
        );
        return { rest, due, failing, closed, snapshot };
      };
      const mine = { [runA]: await spread(a, runA), [runB]: await spread(b, runB) };
      for (const [runId, t] of Object.entries(mine)) {
        // Asked of the other instance's store: the answers depend on the owner alone.
        const store = runId === runA ? b : a;
        expect(sorted(ids(await store.ownedBy(runId).restIndex()))).toEqual(
          sorted(ids([t.rest, t.due, t.failing])),
        );
        expect(await store.ownedBy(runId).runningTrades()).toEqual([t.due.tradeId]);
        expect(await store.ownedBy(runId).dueTrades(NOW, 10)).toEqual([t.due.tradeId]);
        expect(await store.ownedBy(runId).earliestWake()).toBe(NOW);
        expect((await store.ownedBy(runId).ownedTradeCounts()).map((c) => c.count)).toEqual([1, 2]);
        expect(ids(await store.ownedBy(runId).failingTrades(1, 10))).toEqual([t.failing.tradeId]);
        expect(await store.ownedBy(runId).failingEffectCounts(1)).toEqual([
          { effect: `lock-${runId}`, count: 1 },
        ]);
        expect(await store.ownedBy(runId).settlingSnapshots()).toEqual([t.snapshot]);
        expect(sorted(ids(await store.listTrades({ ownedBy: runId, limit: 10 })))).toEqual(
          sorted(ids([t.rest, t.due, t.failing, t.closed])),
        );
      }
    });

    test('per run: trades it created, and trades naming it their owner, whichever instance asks', async () => {
      const [a, b] = [await instance(), await instance()];
      const [runA, runB] = [await startRun(a), await startRun(b)];
      const [open, closed] = await tradesOf(a, runA, 2);
      await commitAll(a, {
        kind: 'saveTransition',
        update: update(closed as TradeRecord, runA, { status: 'failed', substate: 'failed', closed: true }),
        events: [],
        ledger: [],
      });
      await tradeOf(b, runB);
      const counts = async (store: Store, current: string) =>
        Object.fromEntries((await store.tradeCounts(current)).map(({ runId, ...c }) => [runId, c]));
      const before = { [runA]: { created: 2, owned: 2 }, [runB]: { created: 1, owned: 1 } };
      expect(await counts(a, runA)).toEqual(before);
      expect(await counts(b, runB)).toEqual(before);

      await a.stopRun(runA, new Date().toISOString());
      expect(ids(await b.claimOrphans(runB, 10))).toEqual([(open as TradeRecord).tradeId]);
      expect(await counts(b, runB)).toEqual({
        [runA]: { created: 2, owned: 1 },
        [runB]: { created: 1, owned: 2 },
      });
      expect(ids(await b.listTrades({ ownedBy: runA, limit: 10 }))).toEqual([
        (closed as TradeRecord).tradeId,
      ]);
    });
  });
});
