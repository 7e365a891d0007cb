// The group commit over each store: every write of a turn in one transaction (one fsync), each write in its
// own savepoint, and a write's promise settled only once its batch is durable.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  type CommitFailure,
  type CommitStats,
  GroupCommit,
  type QuoteRecord,
  StorageFull,
  type Store,
  StoreConflict,
} from '../../src/store/index.ts';
import {
  quoteRecord,
  STORE_ENGINES,
  startedEvent,
  startRun,
  type TestDatabase,
  tradeRecord,
} from './fixtures.ts';

const RUN = randomUUID();

const quote = (overrides: Partial<QuoteRecord> = {}) => quoteRecord(RUN, overrides);

describe.each(STORE_ENGINES)('group commit on the $name store', (engine) => {
  let database: TestDatabase;
  let store: Store;
  let commits: CommitStats[];
  let durable: GroupCommit;

  beforeEach(async (context) => {
    if (!engine.available) context.skip();
    database = await engine.database();
    store = await database.open();
    await startRun(store, RUN);
    commits = [];
    durable = new GroupCommit(store, (stats) => commits.push(stats));
  });

  afterEach(async () => {
    if (!engine.available) return;
    await store?.close();
    database.remove();
  });

  test('the writes of one event-loop turn share one transaction', async () => {
    const quotes = Array.from({ length: 5 }, () => quote());
    await Promise.all(quotes.map((q) => durable.write({ kind: 'insertQuote', quote: q })));
    expect(commits.map((c) => c.size)).toEqual([5]);
    for (const q of quotes) expect((await store.getQuote(q.quoteId))?.quoteId).toBe(q.quoteId);
  });

  /** The group commit over a store whose commits wait until the test opens the gate. */
  function heldCommits() {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The group commit calls nothing of its store but commit.
    const held: Pick<Store, 'commit'> = {
      async commit(batch) {
        await gate;
        return store.commit(batch);
      },
    };
    return { durable: new GroupCommit(held as Store, (stats) => commits.push(stats)), open };
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  test('a write is not stored — and its promise not settled — before its batch commits', async () => {
    const held = heldCommits();
    const q = quote();
    let settled = false;
    const written = held.durable.write({ kind: 'insertQuote', quote: q }).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(held.durable.pending).toBe(1);
    await nextTurn();
    // The turn ended: the batch went to the store, which has not committed it yet.
    expect(held.durable.pending).toBe(0);
    expect(settled).toBe(false);
    expect(await store.getQuote(q.quoteId)).toBeUndefined();
    held.open();
    await written;
    expect(await store.getQuote(q.quoteId)).toBeDefined();
  });

  test('one commit is in flight at a time: writes of the turns it takes form the next batch', async () => {
    const held = heldCommits();
    const first = held.durable.write({ kind: 'insertQuote', quote: quote() });
    await nextTurn();
    const later: Promise<void>[] = [];
    for (let turn = 0; turn < 3; turn++) {
      later.push(held.durable.write({ kind: 'insertQuote', quote: quote() }));
      await nextTurn();
    }
    expect(commits).toEqual([]);
    held.open();
    await Promise.all([first, ...later]);
    expect(commits.map((c) => c.size)).toEqual([1, 3]);
  });

  test('a write that fails rolls back alone; the rest of its batch is durable', async () => {
    const first = quote();
    const duplicate = { ...quote(), quoteId: first.quoteId };
    const other = quote();
    const results = await Promise.allSettled([
      durable.write({ kind: 'insertQuote', quote: first }),
      durable.write({ kind: 'insertQuote', quote: duplicate }),
      durable.write({ kind: 'insertQuote', quote: other }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(commits).toHaveLength(1);
    expect((await store.getQuote(first.quoteId))?.outputRaw).toBe(first.outputRaw);
    expect(await store.getQuote(other.quoteId)).toBeDefined();
  });

  test('a write refused by a uniqueness rule rejects with the conflict', async () => {
    const q = quote();
    await durable.write({ kind: 'insertQuote', quote: q });
    const [a, b] = [tradeRecord(q), tradeRecord(q)];
    const results = await Promise.allSettled([
      durable.write({ kind: 'createTrade', trade: a, event: startedEvent(a) }),
      durable.write({ kind: 'createTrade', trade: b, event: startedEvent(b) }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    const refusal = (results[1] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(StoreConflict);
    expect(refusal).toMatchObject({ conflict: 'quote_used', message: `quote ${q.quoteId} is already used` });
  });

  test('a commit that fails fails every write of its batch, and none is stored', async () => {
    const q = quote();
    const written = durable.write({ kind: 'insertQuote', quote: q });
    const closing = store.close(); // the turn's commit meets a closed store
    await expect(written).rejects.toThrow();
    await closing;
    expect(commits).toHaveLength(0);
    store = await database.open();
    expect(await store.getQuote(q.quoteId)).toBeUndefined();
  });

  test('a commit that fails takes with it the writes queued before their writers heard of it; later ones commit', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const full = new StorageFull(engine.name, 'test', 'the disk is full');
    let failNext = true;
    const failures: CommitFailure[] = [];
    const failing: Pick<Store, 'commit'> = {
      async commit(batch) {
        await gate;
        if (failNext) {
          failNext = false;
          throw full;
        }
        return store.commit(batch);
      },
    };
    const group = new GroupCommit(
      failing as Store,
      (stats) => commits.push(stats),
      (failure) => failures.push(failure),
    );
    const [a, b, c] = [quote(), quote(), quote()];
    const first = group.write({ kind: 'insertQuote', quote: a });
    await nextTurn();
    // Queued while the first batch commits: it may follow a write of the first (a trade's next transition).
    const behind = group.write({ kind: 'insertQuote', quote: b });
    open();
    await expect(first).rejects.toBe(full);
    await expect(behind).rejects.toBe(full);
    // Queued once the failure was heard: committed.
    await group.write({ kind: 'insertQuote', quote: c });
    expect(failures).toEqual([{ size: 1, error: full }]);
    expect(commits.map((stats) => stats.size)).toEqual([1]);
    expect(group.committed).toBe(1);
    expect(await store.getQuote(a.quoteId)).toBeUndefined();
    expect(await store.getQuote(b.quoteId)).toBeUndefined();
    expect(await store.getQuote(c.quoteId)).toBeDefined();
  });

  test('the barrier waits for what was queued before it, and never rejects', async () => {
    const q = quote();
    const failing = durable.write({ kind: 'insertQuote', quote: { ...q } });
    const duplicate = durable.write({ kind: 'insertQuote', quote: { ...q } }).catch(() => 'refused');
    await durable.barrier();
    await expect(failing).resolves.toBeUndefined();
    await expect(duplicate).resolves.toBe('refused');
    expect(durable.pending).toBe(0);
    await expect(durable.barrier()).resolves.toBeUndefined();
  });

  test('writes queued while a batch commits join the next batch', async () => {
    const first = durable.write({ kind: 'insertQuote', quote: quote() });
    await first;
    const second = [quote(), quote()].map((q) => durable.write({ kind: 'insertQuote', quote: q }));
    await Promise.all(second);
    expect(commits.map((c) => c.size)).toEqual([1, 2]);
  });

  test('after close, writes are refused', async () => {
    await durable.write({ kind: 'insertQuote', quote: quote() });
    await durable.close();
    await expect(durable.write({ kind: 'insertQuote', quote: quote() })).rejects.toThrow('closed');
  });

  test('close commits what is queued before it resolves', async () => {
    const q = quote();
    const written = durable.write({ kind: 'insertQuote', quote: q });
    await durable.close();
    await written;
    expect(await store.getQuote(q.quoteId)).toEqual(q);
  });
});
