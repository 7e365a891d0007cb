// The group commit: every write of a turn in one transaction (one fsync), each write in its own savepoint,
// and a write's promise settled only once its batch is on disk.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  type CommitStats,
  GroupCommit,
  openStore,
  type QuoteRecord,
  type Store,
} from '../../src/store/index.ts';
import { tempDir } from '../support/service.ts';
import { quoteRecord } from './fixtures.ts';

let dir: ReturnType<typeof tempDir>;
let store: Store;
let commits: CommitStats[];
let durable: GroupCommit;
const RUN = randomUUID();

const quote = (overrides: Partial<QuoteRecord> = {}) => quoteRecord(RUN, overrides);

beforeEach(() => {
  dir = tempDir('group-commit-');
  store = openStore({ dataDir: dir.path });
  store.insertRun({ runId: RUN, version: 'test', startedAt: new Date().toISOString(), stoppedAt: null });
  commits = [];
  durable = new GroupCommit(store, (stats) => commits.push(stats));
});
afterEach(() => {
  store.close();
  dir.remove();
});

describe('group commit', () => {
  test('the writes of one event-loop turn share one transaction', async () => {
    const quotes = Array.from({ length: 5 }, () => quote());
    await Promise.all(quotes.map((q) => durable.write({ kind: 'insertQuote', quote: q })));
    expect(commits.map((c) => c.size)).toEqual([5]);
    for (const q of quotes) expect(store.getQuote(q.quoteId)?.quoteId).toBe(q.quoteId);
  });

  test('a write is not on disk — and its promise not settled — before its turn ends', async () => {
    const q = quote();
    let settled = false;
    const written = durable.write({ kind: 'insertQuote', quote: q }).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(store.getQuote(q.quoteId)).toBeUndefined();
    await written;
    expect(store.getQuote(q.quoteId)).toBeDefined();
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
    expect(store.getQuote(first.quoteId)?.outputRaw).toBe(first.outputRaw);
    expect(store.getQuote(other.quoteId)).toBeDefined();
  });

  test('a commit that fails fails every write of its batch, and none is stored', async () => {
    const q = quote();
    const written = durable.write({ kind: 'insertQuote', quote: q });
    store.close(); // the turn's commit meets a closed database
    await expect(written).rejects.toThrow();
    expect(commits).toHaveLength(0);
    store = openStore({ dataDir: dir.path });
    expect(store.getQuote(q.quoteId)).toBeUndefined();
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
    durable.close();
    await expect(durable.write({ kind: 'insertQuote', quote: quote() })).rejects.toThrow('closed');
  });
});
