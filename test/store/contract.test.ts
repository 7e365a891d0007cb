// The store port's contract, held by both implementations: what each query answers, which writes are
// all-or-nothing, which constraints hold however the runtime above behaves, and what survives a reopen.
// Every case runs on SQLite (a temp file) and on PostgreSQL (a fresh database on the run's throwaway
// server). Trades are built from the machine's real first snapshot, as a settlement start builds them.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { TradeInput } from '../../machines/index.ts';
import type { LedgerEntry } from '../../src/ledger/index.ts';
import {
  GATEWAY_BURN_EVENT,
  type HedgeRecord,
  type NewDeskChange,
  type NewTradeEvent,
  type OwnedTrades,
  openStore,
  type QuoteRecord,
  type SharedStore,
  type Store,
  type StoreWrite,
  type TradeRecord,
  type TradeUpdate,
  type TransferRecord,
} from '../../src/store/index.ts';
import { hash32FromBytes } from '../../src/vocabulary/index.ts';
import { SOL_MINT as SOL, USDC_MINT as USDC } from '../support/mints.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';
import {
  commitAll,
  LEASE_TTL_MS,
  lapseLease,
  NOW,
  newRun,
  postgresDatabaseWithLocale,
  quoteRecord,
  STORE_ENGINES,
  sleep,
  startedEvent,
  startRun,
  type TestDatabase,
  tradeRecord,
  wallet,
} from './fixtures.ts';

const RUN = randomUUID();

describe.each(STORE_ENGINES.map((engine) => [engine.name, engine] as const))('the %s store', (_, engine) => {
  let database: TestDatabase;
  let store: Store;
  /** Every store a test opened, closed after it. */
  let opened: Store[];

  const open = async () => {
    const next = await database.open();
    opened.push(next);
    return next;
  };
  /** The store as several instances share it: the PostgreSQL cases' leases, claims and acquisitions. */
  const shared = (): SharedStore => {
    if (store.kind !== 'postgres') throw new Error('only several instances share a store');
    return store;
  };
  /** The indexes over the trades a run owns: on SQLite the running run owns them all. */
  const owned = (runId: string): OwnedTrades =>
    store.kind === 'sqlite' ? store.owned : store.ownedBy(runId);
  /** What a new run takes at its start: one instance every unclosed trade, several every orphan at once. */
  const takeUnclosed = (runId: string) =>
    store.kind === 'sqlite' ? store.adoptUnclosed() : store.claimUnclosed(runId);

  beforeEach(async (context) => {
    if (!engine.available) context.skip();
    opened = [];
    database = await engine.database();
    store = await open();
    await startRun(store, RUN);
  });

  afterEach(async () => {
    if (!engine.available) return;
    for (const each of opened) await each.close();
    database.remove();
  });

  const quote = (overrides: Partial<QuoteRecord> = {}) => quoteRecord(RUN, overrides);

  const createTrade = (trade: TradeRecord): StoreWrite => ({
    kind: 'createTrade',
    trade,
    event: startedEvent(trade),
  });

  const transition = (
    update: TradeUpdate,
    events: NewTradeEvent[] = [],
    ledger: LedgerEntry[] = [],
  ): StoreWrite => ({ kind: 'saveTransition', update, events, ledger });

  /** A quote and its trade, both stored. */
  async function storedTrade(
    overrides: Partial<TradeInput> = {},
    quoteOverrides: Partial<QuoteRecord> = {},
  ): Promise<TradeRecord> {
    const q = quote(quoteOverrides);
    const trade = tradeRecord(q, overrides);
    await commitAll(store, { kind: 'insertQuote', quote: q }, createTrade(trade));
    return trade;
  }

  /** The trade after a transition that changes only the given columns (the snapshot stays as it was). */
  async function moved(trade: TradeRecord, change: Partial<TradeUpdate>): Promise<TradeRecord> {
    const update = { ...trade, updatedAt: new Date().toISOString(), ...change };
    await commitAll(store, transition(update));
    return { ...update, adoptionError: null };
  }

  /** The trade's snapshot with its current effect failed `attempts` times in a row. */
  const failing = (trade: TradeRecord, effect: string, attempts: number) => {
    const snapshot = JSON.parse(trade.snapshot) as { context: Record<string, unknown> };
    snapshot.context.effectError = { effect, message: 'chain unreachable', attempts, retryAt: NOW + 60 };
    return moved(trade, { snapshot: JSON.stringify(snapshot), effectAttempts: attempts });
  };

  const ids = (trades: readonly TradeRecord[]) => trades.map((t) => t.tradeId);
  const sorted = (values: readonly string[]) => [...values].sort();

  describe('runs and their leases', () => {
    // PostgreSQL measures leases on its own clock; SQLite has none (one instance: nobody takes its trades).
    const leases = engine.name === 'postgres';
    /** The store's clock and the test's are one machine's; this covers a round trip and a busy CI host. */
    const SLACK_MS = 2_000;
    const leaseOf = async (runId: string) =>
      (await store.listRuns()).find((run) => run.runId === runId)?.leaseExpiresAtMs;

    test('runs list in start order with their url and lease, and a stopped run keeps its stop time', async () => {
      const later = newRun(randomUUID(), { version: 'v2', startedAt: '2999-01-01T00:00:00.000Z' });
      const before = Date.now();
      await store.insertRun(later, LEASE_TTL_MS);
      await store.stopRun(RUN, '2100-01-01T00:00:00.000Z');
      const runs = await store.listRuns();
      expect(runs.map((r) => r.runId)).toEqual([RUN, later.runId]);
      expect(runs[0]?.stoppedAt).toBe('2100-01-01T00:00:00.000Z');
      expect(runs[1]).toEqual({
        ...later,
        stoppedAt: null,
        leaseExpiresAtMs: leases ? expect.any(Number) : null,
      });
      if (leases) {
        expect(runs[1]?.leaseExpiresAtMs).toBeGreaterThanOrEqual(before + LEASE_TTL_MS - SLACK_MS);
        expect(runs[1]?.leaseExpiresAtMs).toBeLessThanOrEqual(Date.now() + LEASE_TTL_MS + SLACK_MS);
      }
    });

    test.runIf(leases)('a live lease renews, to the new length from now', async () => {
      const first = await leaseOf(RUN);
      expect(await shared().renewLease(RUN, 10 * LEASE_TTL_MS)).toBe(true);
      expect(await leaseOf(RUN)).toBeGreaterThan((first as number) + 8 * LEASE_TTL_MS);
    });

    test.runIf(leases)('a lapsed lease cannot be renewed: its run must stop acting', async () => {
      const brief = await startRun(store, randomUUID(), 1);
      await sleep(20);
      expect(await shared().renewLease(brief, LEASE_TTL_MS)).toBe(false);
      expect(await leaseOf(brief)).toBeLessThan(Date.now() + SLACK_MS);
    });

    test('a run listening at an address retires the earlier unstopped runs that advertised it, and only those', async () => {
      const at = 'http://127.0.0.1:8080';
      const predecessor = newRun(randomUUID(), { url: at });
      const elsewhere = newRun(randomUUID(), { url: 'http://127.0.0.1:8081' });
      const successor = newRun(randomUUID(), { url: at });
      for (const run of [predecessor, elsewhere, successor]) await store.insertRun(run, 10 * LEASE_TTL_MS);
      const stoppedAt = new Date().toISOString();
      expect(await store.retireRuns(at, successor.runId, stoppedAt)).toBe(1);
      const runs = new Map((await store.listRuns()).map((run) => [run.runId, run]));
      expect(runs.get(predecessor.runId)?.stoppedAt).toBe(stoppedAt);
      expect(runs.get(elsewhere.runId)?.stoppedAt).toBeNull();
      expect(runs.get(successor.runId)?.stoppedAt).toBeNull();
      if (leases)
        expect(runs.get(predecessor.runId)?.leaseExpiresAtMs).toBeLessThanOrEqual(Date.now() + SLACK_MS);
      // Again: nothing left to retire.
      expect(await store.retireRuns(at, successor.runId, stoppedAt)).toBe(0);
    });

    test('stopping a run ends its lease at once (SQLite: it has none)', async () => {
      const stoppedAt = new Date().toISOString();
      await store.stopRun(RUN, stoppedAt);
      expect((await store.listRuns()).find((run) => run.runId === RUN)?.stoppedAt).toBe(stoppedAt);
      if (store.kind === 'sqlite') return;
      expect(await leaseOf(RUN)).toBeLessThanOrEqual(Date.now() + SLACK_MS);
      expect(await store.renewLease(RUN, LEASE_TTL_MS)).toBe(false);
    });
  });

  describe('quotes', () => {
    test('a quote reads back exactly, amounts as bigints', async () => {
      const q = quote({ outputRaw: 2n ** 63n - 1n });
      await commitAll(store, { kind: 'insertQuote', quote: q });
      expect(await store.getQuote(q.quoteId)).toEqual(q);
    });

    test('amounts above 2^63 round-trip exactly: quotes, recorded prices, holds and ledger entries', async () => {
      const huge = 2n ** 64n + 1n;
      const trade = await storedTrade(
        { outputAmountRaw: (2n ** 64n - 1n).toString() },
        {
          inputRaw: 2n ** 63n,
          outputRaw: 2n ** 64n - 1n,
          inputPrice: {
            source: 'static',
            account: null,
            feedId: null,
            price: huge,
            conf: huge,
            exponent: 0,
            emaPrice: huge,
            publishTime: NOW,
          },
        },
      );
      expect(await store.getQuote(trade.quoteId)).toMatchObject({
        inputRaw: 2n ** 63n,
        outputRaw: 2n ** 64n - 1n,
        inputPrice: { price: huge, conf: huge, emaPrice: huge },
      });
      expect((await store.getTrade(trade.tradeId))?.hold?.raw).toBe(2n ** 64n - 1n);
      expect((await owned(RUN).restIndex())[0]?.hold?.raw).toBe(2n ** 64n - 1n);
      const entry: LedgerEntry = {
        movement: 'taker_lock',
        signature: 'sig',
        mint: USDC,
        account: 'taker',
        side: 'credit',
        amountRaw: 2n ** 128n + 7n,
      };
      await commitAll(store, transition(trade, [], [entry]));
      expect((await store.ledger(trade.tradeId))[0]?.amountRaw).toBe(2n ** 128n + 7n);
    });

    test('open quotes are the unused ones that have not expired', async () => {
      const now = Date.now();
      const open = quote({ expiresAtMs: now + 1_000 });
      const expired = quote({ expiresAtMs: now - 1 });
      const used = quote({ expiresAtMs: now + 1_000 });
      const trade = tradeRecord(used);
      await commitAll(
        store,
        ...[open, expired, used].map((q): StoreWrite => ({ kind: 'insertQuote', quote: q })),
        createTrade(trade),
      );
      expect((await store.openQuotes(now)).map((q) => q.quoteId)).toEqual([open.quoteId]);
      expect((await store.getQuote(used.quoteId))?.usedByTradeId).toBe(trade.tradeId);
    });

    test('an unknown quote reads as undefined', async () => {
      expect(await store.getQuote(randomUUID())).toBeUndefined();
    });
  });

  describe('creating a trade', () => {
    test('stores the trade, marks its quote used and writes its first event, in one write', async () => {
      const trade = await storedTrade();
      expect(await store.getTrade(trade.tradeId)).toEqual(trade);
      expect((await store.findTradeByQuote(trade.quoteId))?.tradeId).toBe(trade.tradeId);
      expect((await store.findTradeBySecretHash(trade.secretHash))?.tradeId).toBe(trade.tradeId);
      expect((await store.tradeEvents(trade.tradeId)).map((e) => e.type)).toEqual(['SETTLEMENT_STARTED']);
    });

    test('the snapshot comes back as the exact string written', async () => {
      const trade = await storedTrade();
      // Keys out of order and spacing JSON.stringify would never write: a store that parses it changes it.
      const snapshot = '{"value":{"pending":"awaitingLock"},  "context":{"b":1,"a":"\\u0000é"}}';
      await commitAll(store, transition({ ...trade, snapshot }));
      expect((await store.getTrade(trade.tradeId))?.snapshot).toBe(snapshot);
    });

    test('a second trade of the same quote is refused as a conflict and leaves nothing behind', async () => {
      const first = await storedTrade();
      const q = (await store.getQuote(first.quoteId)) as QuoteRecord;
      const second = tradeRecord(q);
      const [outcome] = await store.commit([createTrade(second)]);
      expect(outcome).toEqual({
        ok: false,
        message: `quote ${q.quoteId} is already used`,
        conflict: 'quote_used',
      });
      expect(await store.getTrade(second.tradeId)).toBeUndefined();
      expect(await store.tradeEvents(second.tradeId)).toEqual([]);
      expect((await store.getQuote(q.quoteId))?.usedByTradeId).toBe(first.tradeId);
    });

    test('a trade of an unknown quote is refused', async () => {
      const orphan = tradeRecord(quote());
      const [outcome] = await store.commit([createTrade(orphan)]);
      expect(outcome).toMatchObject({ ok: false, message: `quote ${orphan.quoteId} is already used` });
      expect(await store.getTrade(orphan.tradeId)).toBeUndefined();
    });

    test('a secret hash is used by one trade only, ever: a second is refused as a conflict', async () => {
      const first = await storedTrade();
      const q = quote();
      await commitAll(store, { kind: 'insertQuote', quote: q });
      const again = tradeRecord(q, { secretHash: first.secretHash });
      const [outcome] = await store.commit([createTrade(again)]);
      expect(outcome).toMatchObject({ ok: false, conflict: 'secret_hash_used' });
      expect((await store.getQuote(q.quoteId))?.usedByTradeId).toBeNull();
      expect(await store.getTrade(again.tradeId)).toBeUndefined();
    });

    test('an unknown trade, secret hash or quote finds nothing', async () => {
      await storedTrade();
      expect(await store.getTrade(randomUUID())).toBeUndefined();
      expect(await store.findTradeBySecretHash(hash32FromBytes(randomBytes(32)))).toBeUndefined();
      expect(await store.findTradeByQuote(randomUUID())).toBeUndefined();
    });
  });

  describe('transitions', () => {
    const entry = (trade: TradeRecord, signature: string): LedgerEntry => ({
      movement: 'taker_lock',
      signature,
      mint: trade.snapshot.includes(SOL) ? SOL : USDC,
      account: 'taker',
      side: 'credit',
      amountRaw: 5n,
    });

    test('the snapshot, its events and its ledger entries land together', async () => {
      const trade = await storedTrade();
      const update = { ...trade, updatedAt: new Date().toISOString(), substate: 'pending.lockSubmitted' };
      await commitAll(
        store,
        transition(update, [{ ...startedEvent(trade), type: 'LOCK_SUBMITTED' }], [entry(trade, 'sig-1')]),
      );
      expect((await store.getTrade(trade.tradeId))?.substate).toBe('pending.lockSubmitted');
      expect((await store.tradeEvents(trade.tradeId)).map((e) => e.type)).toEqual([
        'SETTLEMENT_STARTED',
        'LOCK_SUBMITTED',
      ]);
      const [stored] = await store.ledger(trade.tradeId);
      expect(stored).toEqual({
        ...entry(trade, 'sig-1'),
        entryId: expect.any(Number),
        tradeId: trade.tradeId,
        at: update.updatedAt,
      });
    });

    test('a transition by the run that took the trade over names it the owner', async () => {
      const trade = await storedTrade();
      await store.stopRun(RUN, new Date().toISOString());
      const next = await startRun(store);
      await takeUnclosed(next);
      const after = await moved(trade, { ownerRunId: next, watch: 3, running: true, nextDeadline: NOW + 5 });
      expect(await store.getTrade(trade.tradeId)).toEqual(after);
    });

    test('a ledger entry posted again is stored once: a replayed transition cannot double-count', async () => {
      const trade = await storedTrade();
      await commitAll(store, transition(trade, [], [entry(trade, 'sig-1')]));
      await commitAll(store, transition(trade, [], [entry(trade, 'sig-1'), entry(trade, 'sig-2')]));
      expect((await store.ledger(trade.tradeId)).map((e) => e.signature)).toEqual(['sig-1', 'sig-2']);
    });

    test('entries posted apart from a transition (a fee the chain showed later) are stored once, a closed trade’s too', async () => {
      const trade = await storedTrade();
      await commitAll(store, transition(trade, [], [entry(trade, 'sig-1')]));
      await moved(trade, { status: 'redeemed', substate: 'redeemed.closed', closed: true });
      const at = new Date().toISOString();
      const late = {
        kind: 'appendLedger' as const,
        tradeId: trade.tradeId,
        at,
        entries: [entry(trade, 'sig-2')],
      };
      await commitAll(store, late);
      await commitAll(store, late, { ...late, entries: [entry(trade, 'sig-1'), entry(trade, 'sig-2')] });
      const ledger = await store.ledger(trade.tradeId);
      expect(ledger.map((e) => e.signature)).toEqual(['sig-1', 'sig-2']);
      expect(ledger[1]).toMatchObject({ tradeId: trade.tradeId, at });
    });

    test('the whole ledger reads in posting order across trades', async () => {
      const [a, b] = [await storedTrade(), await storedTrade()];
      await commitAll(store, transition(a, [], [entry(a, 'a-1')]));
      await commitAll(store, transition(b, [], [entry(b, 'b-1')]));
      await commitAll(store, transition(a, [], [entry(a, 'a-2')]));
      const ledger = await store.ledger();
      expect(ledger.map((e) => e.signature)).toEqual(['a-1', 'b-1', 'a-2']);
      expect(ledger.map((e) => e.tradeId)).toEqual([a.tradeId, b.tradeId, a.tradeId]);
      expect(
        ledger.every((e, i) => i === 0 || e.entryId > (ledger[i - 1] as { entryId: number }).entryId),
      ).toBe(true);
    });

    test('a transition that cannot be stored whole leaves no part behind', async () => {
      const trade = await storedTrade();
      const update = { ...trade, substate: 'pending.lockSubmitted' };
      // An event of a trade that does not exist breaks a foreign key after the snapshot was written.
      const orphan = { ...startedEvent(trade), tradeId: randomUUID(), type: 'LOCK_SUBMITTED' };
      const [outcome] = await store.commit([
        transition(
          update,
          [{ ...startedEvent(trade), type: 'LOCK_SUBMITTED' }, orphan],
          [entry(trade, 'sig-1')],
        ),
      ]);
      expect(outcome?.ok).toBe(false);
      expect((await store.getTrade(trade.tradeId))?.substate).toBe(trade.substate);
      expect(await store.tradeEvents(trade.tradeId)).toHaveLength(1);
      expect(await store.ledger(trade.tradeId)).toEqual([]);
    });

    test('a transition of a trade that does not exist is refused', async () => {
      const ghost = tradeRecord(quote());
      const [outcome] = await store.commit([transition(ghost)]);
      expect(outcome).toEqual({ ok: false, message: `trade ${ghost.tradeId} does not exist` });
    });

    test('notes about a trade append events without touching it', async () => {
      const trade = await storedTrade();
      const intent = {
        ...startedEvent(trade),
        type: 'TX_INTENT',
        payload: { effect: 'makerLock', n: 2 ** 53 - 1 },
      };
      await commitAll(store, { kind: 'appendEvents', events: [intent, { ...intent, type: 'TX_SENT' }] });
      const events = await store.tradeEvents(trade.tradeId);
      expect(events.map((e) => e.type)).toEqual(['SETTLEMENT_STARTED', 'TX_INTENT', 'TX_SENT']);
      expect(events[1]).toEqual({ ...intent, seq: expect.any(Number) });
      expect(await store.getTrade(trade.tradeId)).toEqual(trade);
    });

    test('setting what a trade saw, or its wake time, changes that alone; unknown trades change nothing', async () => {
      const trade = await storedTrade();
      await commitAll(
        store,
        { kind: 'setSeen', tradeId: trade.tradeId, runId: RUN, seen: 'fingerprint' },
        { kind: 'setWake', tradeId: trade.tradeId, runId: RUN, at: NOW + 42 },
        { kind: 'setSeen', tradeId: randomUUID(), runId: RUN, seen: 'x' },
        { kind: 'setWake', tradeId: randomUUID(), runId: RUN, at: 1 },
        { kind: 'claimTrade', tradeId: randomUUID(), runId: RUN },
      );
      expect(await store.getTrade(trade.tradeId)).toEqual({
        ...trade,
        seen: 'fingerprint',
        nextDeadline: NOW + 42,
      });
    });
  });

  describe('one batch, one transaction', () => {
    test('a write failing inside a batch rolls back alone; the writes around it are stored', async () => {
      const first = quote();
      const after = quote();
      const duplicate = { ...quote(), quoteId: first.quoteId };
      const outcomes = await store.commit([
        { kind: 'insertQuote', quote: first },
        { kind: 'insertQuote', quote: duplicate },
        { kind: 'insertQuote', quote: after },
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
      expect(await store.getQuote(first.quoteId)).toEqual(first);
      expect(await store.getQuote(after.quoteId)).toEqual(after);
    });

    test('a write of several statements failing mid-way leaves none of them, and its neighbours stand', async () => {
      const taken = await storedTrade();
      const q = quote();
      // Marks its quote used, then meets the taken secret hash: the mark must go with it.
      const clash = tradeRecord(q, { secretHash: taken.secretHash });
      const fineQuote = quote();
      const fine = tradeRecord(fineQuote);
      const outcomes = await store.commit([
        { kind: 'insertQuote', quote: q },
        createTrade(clash),
        { kind: 'insertQuote', quote: fineQuote },
        createTrade(fine),
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, true]);
      expect((await store.getQuote(q.quoteId))?.usedByTradeId).toBeNull();
      expect(await store.getTrade(clash.tradeId)).toBeUndefined();
      expect(await store.tradeEvents(clash.tradeId)).toEqual([]);
      expect(await store.getTrade(fine.tradeId)).toEqual(fine);
    });

    test('every write of a batch fails: the commit still resolves, with every failure', async () => {
      const ghost = tradeRecord(quote());
      const outcomes = await store.commit([transition(ghost), createTrade(ghost)]);
      expect(outcomes.map((o) => o.ok)).toEqual([false, false]);
    });

    test('an empty batch commits nothing and answers nothing', async () => {
      expect(await store.commit([])).toEqual([]);
    });

    test('a closed store refuses a commit, storing nothing', async () => {
      const q = quote();
      await store.close();
      expect(store.isOpen).toBe(false);
      await expect(store.commit([{ kind: 'insertQuote', quote: q }])).rejects.toThrow();
      store = await open();
      expect(await store.getQuote(q.quoteId)).toBeUndefined();
    });
  });

  describe('two stores over one database', () => {
    test('racing starts of one quote: one trade wins, the other is a conflict', async () => {
      const other = await open();
      const q = quote();
      await commitAll(store, { kind: 'insertQuote', quote: q });
      const [a, b] = [tradeRecord(q), tradeRecord(q)];
      const outcomes = await Promise.all([store.commit([createTrade(a)]), other.commit([createTrade(b)])]);
      const wins = outcomes.flat().filter((o) => o.ok);
      expect(wins).toHaveLength(1);
      expect(outcomes.flat().find((o) => !o.ok)).toMatchObject({ conflict: 'quote_used' });
      const winner = outcomes[0]?.[0]?.ok ? a : b;
      expect((await other.getQuote(q.quoteId))?.usedByTradeId).toBe(winner.tradeId);
    });

    test('racing starts with one secret hash: one trade wins, the other is a conflict', async () => {
      const other = await open();
      const [qa, qb] = [quote(), quote()];
      await commitAll(store, { kind: 'insertQuote', quote: qa }, { kind: 'insertQuote', quote: qb });
      const secretHash = hash32FromBytes(randomBytes(32));
      const [a, b] = [tradeRecord(qa, { secretHash }), tradeRecord(qb, { secretHash })];
      const outcomes = await Promise.all([store.commit([createTrade(a)]), other.commit([createTrade(b)])]);
      expect(
        outcomes
          .flat()
          .map((o) => o.ok)
          .sort(),
      ).toEqual([false, true]);
      expect(outcomes.flat().find((o) => !o.ok)).toMatchObject({ conflict: 'secret_hash_used' });
      expect((await store.findTradeBySecretHash(secretHash))?.tradeId).toBeDefined();
    });
  });

  describe("the virtual-actor runtime's indexes", () => {
    test('wake times: due trades earliest first, bounded; cleared wakes are never due', async () => {
      const wakes = [30, 10, 20, 40];
      const trades: TradeRecord[] = [];
      for (const _ of wakes) trades.push(await storedTrade());
      await commitAll(
        store,
        ...trades.map(
          (trade, i): StoreWrite => ({
            kind: 'setWake',
            tradeId: trade.tradeId,
            runId: RUN,
            at: wakes[i] ?? null,
          }),
        ),
        { kind: 'setWake', tradeId: (trades[3] as TradeRecord).tradeId, runId: RUN, at: null },
      );
      const [t30, t10, t20] = ids(trades);
      expect(await owned(RUN).dueTrades(35, 10)).toEqual([t10, t20, t30]);
      expect(await owned(RUN).dueTrades(35, 2)).toEqual([t10, t20]);
      expect(await owned(RUN).dueTrades(9, 10)).toEqual([]);
      expect(await owned(RUN).earliestWake()).toBe(10);
    });

    test('closed trades are never due, and no wake at all reads as null', async () => {
      const [open, closing] = [await storedTrade(), await storedTrade()];
      await moved(closing, { status: 'failed', substate: 'failed', closed: true, nextDeadline: 5 });
      await commitAll(store, { kind: 'setWake', tradeId: open.tradeId, runId: RUN, at: 7 });
      expect(await owned(RUN).dueTrades(NOW, 10)).toEqual([open.tradeId]);
      expect(await owned(RUN).earliestWake()).toBe(7);
      await commitAll(store, { kind: 'setWake', tradeId: open.tradeId, runId: RUN, at: null });
      expect(await owned(RUN).dueTrades(NOW, 10)).toEqual([]);
      expect(await owned(RUN).earliestWake()).toBeNull();
    });

    test('the rest index has what the watcher and the book need of every owned trade, without snapshots', async () => {
      const trade = await storedTrade();
      const closed = await storedTrade();
      await moved(closed, { status: 'failed', substate: 'failed', closed: true, hold: null });
      await commitAll(store, { kind: 'setSeen', tradeId: trade.tradeId, runId: RUN, seen: 'fingerprint' });
      expect(await owned(RUN).restIndex()).toEqual([
        {
          tradeId: trade.tradeId,
          takerEscrow: trade.takerEscrow,
          makerEscrow: trade.makerEscrow,
          watch: trade.watch,
          seen: 'fingerprint',
          hold: trade.hold,
        },
      ]);
    });

    test('trades stored with an effect in flight are the running ones, owned and unclosed', async () => {
      const [running, idle, closed] = [await storedTrade(), await storedTrade(), await storedTrade()];
      await moved(running, { running: true });
      await moved(closed, { running: true, closed: true, status: 'redeemed', substate: 'redeemed' });
      expect(await owned(RUN).runningTrades()).toEqual([running.tradeId]);
      expect(idle.running).toBe(false);
    });

    test('a wallet counts its pending and initiated trades only', async () => {
      const taker = wallet();
      const pending = await storedTrade({ takerWallet: taker }, { takerWallet: taker });
      const initiated = await storedTrade({ takerWallet: taker }, { takerWallet: taker });
      await moved(initiated, { status: 'initiated', substate: 'initiated.awaitingMakerLock' });
      await storedTrade();
      expect(await store.liveTradeCount(taker)).toBe(2);
      await moved(pending, { status: 'failed', substate: 'failed' });
      expect(await store.liveTradeCount(taker)).toBe(1);
      expect(await store.liveTradeCount(wallet())).toBe(0);
    });

    test('owned trades count by status and substate, in that order; closed ones do not count', async () => {
      const [a, b, c, d] = [
        await storedTrade(),
        await storedTrade(),
        await storedTrade(),
        await storedTrade(),
      ];
      await moved(a, { status: 'initiated', substate: 'initiated.redeeming.makerLocked' });
      await moved(b, { status: 'initiated', substate: 'initiated.awaitingMakerLock' });
      await moved(c, { status: 'redeemed', substate: 'redeemed', closed: true });
      expect(await owned(RUN).ownedTradeCounts()).toEqual([
        { status: 'initiated', substate: 'initiated.awaitingMakerLock', count: 1 },
        { status: 'initiated', substate: 'initiated.redeeming.makerLocked', count: 1 },
        { status: 'pending', substate: d.substate, count: 1 },
      ]);
    });

    test('failing trades: owned ones whose effect failed often enough, worst first, bounded, counted by effect', async () => {
      const trades: TradeRecord[] = [];
      for (let i = 0; i < 5; i++) trades.push(await storedTrade());
      const [twice, often, oftenToo, once, closed] = trades as [
        TradeRecord,
        TradeRecord,
        TradeRecord,
        TradeRecord,
        TradeRecord,
      ];
      await failing(twice, 'makerLock', 2);
      await failing(often, 'makerRedeem', 7);
      await failing(oftenToo, 'makerLock', 7);
      await failing(once, 'makerLock', 1);
      const closedFailing = await failing(closed, 'makerRefund', 9);
      await moved(closedFailing, { closed: true, status: 'refunded', substate: 'refunded' });

      const worst = await owned(RUN).failingTrades(2, 10);
      expect(ids(worst)).toEqual([...sorted([often.tradeId, oftenToo.tradeId]), twice.tradeId]);
      expect(worst[2]?.effectAttempts).toBe(2);
      expect(JSON.parse(worst[2]?.snapshot ?? '{}').context.effectError.effect).toBe('makerLock');
      expect(await owned(RUN).failingTrades(2, 1)).toHaveLength(1);
      const byEffect = async (min: number) =>
        (await owned(RUN).failingEffectCounts(min)).sort((a, b) => a.effect.localeCompare(b.effect));
      expect(await byEffect(2)).toEqual([
        { effect: 'makerLock', count: 2 },
        { effect: 'makerRedeem', count: 1 },
      ]);
      expect(await owned(RUN).failingEffectCounts(8)).toEqual([]);
    });

    test('settling snapshots are those of unclosed trades past pending, as written', async () => {
      const [pending, initiated, failedOpen, closed] = [
        await storedTrade(),
        await storedTrade(),
        await storedTrade(),
        await storedTrade(),
      ];
      const snapshotOf = (trade: TradeRecord) =>
        JSON.stringify({ ...JSON.parse(trade.snapshot), tag: trade.tradeId });
      await moved(initiated, {
        status: 'initiated',
        substate: 'initiated.redeeming.makerLocked',
        snapshot: snapshotOf(initiated),
      });
      // Failed with the taker's funds still in escrow: not closed, so it still counts.
      await moved(failedOpen, { status: 'failed', substate: 'failed', snapshot: snapshotOf(failedOpen) });
      await moved(closed, {
        status: 'redeemed',
        substate: 'redeemed',
        closed: true,
        snapshot: snapshotOf(closed),
      });
      expect(pending.status).toBe('pending');
      expect(sorted(await owned(RUN).settlingSnapshots())).toEqual(
        sorted([snapshotOf(initiated), snapshotOf(failedOpen)]),
      );
    });
  });

  describe.runIf(engine.name === 'sqlite')(
    'one instance (SQLite): the running run owns every adoptable trade',
    () => {
      test('a new run takes every unclosed trade by starting: nothing to claim, acquire or fence', async () => {
        const [earlier, closed] = [await storedTrade(), await storedTrade()];
        await moved(closed, { status: 'redeemed', substate: 'redeemed', closed: true });
        await store.stopRun(RUN, new Date().toISOString());
        const next = await startRun(store);
        expect(await takeUnclosed(next)).toBe(1);
        expect((await owned(next).restIndex()).map((e) => e.tradeId)).toEqual([earlier.tradeId]);
        // No row was rewritten: the record still names the run that last wrote it.
        expect((await store.getTrade(earlier.tradeId))?.ownerRunId).toBe(RUN);
        // Writes name the running run, and nothing fences them.
        await commitAll(store, { kind: 'setWake', tradeId: earlier.tradeId, runId: next, at: NOW });
        expect(await owned(next).dueTrades(NOW, 10)).toEqual([earlier.tradeId]);
      });

      test('per run: trades it created, and trades it owns (the running run: every unclosed adoptable one) or owned last', async () => {
        const current = await startRun(store);
        const open = await storedTrade();
        const closedEarlier = await storedTrade();
        await moved(closedEarlier, { status: 'redeemed', substate: 'redeemed', closed: true });
        const mine = await storedTrade({ runId: current });
        const counts = async () =>
          Object.fromEntries((await store.tradeCounts(current)).map(({ runId, ...c }) => [runId, c]));
        expect(await counts()).toEqual({
          [RUN]: { created: 2, owned: 1 },
          [current]: { created: 1, owned: 2 },
        });

        await commitAll(store, { kind: 'claimTrade', tradeId: open.tradeId, runId: current });
        expect(await counts()).toEqual({
          [RUN]: { created: 2, owned: 1 },
          [current]: { created: 1, owned: 2 },
        });
        expect(mine.ownerRunId).toBe(current);
      });

      test('filters by the run that owns a trade: the running run owns every unclosed adoptable one', async () => {
        const other = await startRun(store);
        const ours = await storedTrade();
        const theirs = await storedTrade({ runId: other });
        const closedByThem = await storedTrade();
        await moved(closedByThem, { ownerRunId: other, status: 'failed', substate: 'failed', closed: true });
        const closedByUs = await storedTrade();
        await moved(closedByUs, { status: 'failed', substate: 'failed', closed: true });
        expect(sorted(ids(await store.listTrades({ runId: other, limit: 10 })))).toEqual([theirs.tradeId]);
        // Owned by RUN: every unclosed adoptable trade, and the closed ones it owned.
        expect(sorted(ids(await store.listTrades({ ownedBy: RUN, limit: 10 })))).toEqual(
          sorted([ours.tradeId, theirs.tradeId, closedByUs.tradeId]),
        );
      });

      test('a quote is stored whatever it reserves: the one desk keeps an exact book in memory', async () => {
        const q = quote({ outputRaw: 10n });
        await commitAll(store, {
          kind: 'insertQuote',
          quote: q,
          reserve: { balanceRaw: 0n, nowMs: Date.now() },
        });
        expect(await store.getQuote(q.quoteId)).toEqual(q);
      });

      test('no other process writes: watching events hears nothing, and stops', async () => {
        const heard: string[] = [];
        const stop = await store.watchEvents((tradeIds) => heard.push(...tradeIds));
        await storedTrade();
        await stop();
        expect(heard).toEqual([]);
      });
    },
  );

  describe('reading trades and events', () => {
    test('pages by creation, filtered by wallet and status, never skipping or repeating a trade', async () => {
      const taker = wallet();
      const mine: TradeRecord[] = [];
      for (let i = 0; i < 5; i++)
        mine.push(await storedTrade({ takerWallet: taker }, { takerWallet: taker }));
      await storedTrade();
      const seen: string[] = [];
      let after: { createdAt: string; tradeId: string } | undefined;
      for (;;) {
        const page = await store.listTrades({ takerWallet: taker, status: 'pending', after, limit: 2 });
        if (page.length === 0) break;
        seen.push(...ids(page));
        const last = page[page.length - 1] as TradeRecord;
        after = { createdAt: last.createdAt, tradeId: last.tradeId };
      }
      // The store's order: creation time, then trade id (trades made in the same millisecond sort by id).
      const byCreation = [...mine].sort((a, b) =>
        a.createdAt === b.createdAt
          ? a.tradeId.localeCompare(b.tradeId)
          : a.createdAt.localeCompare(b.createdAt),
      );
      expect(seen).toEqual(ids(byCreation));
      expect(await store.listTrades({ takerWallet: taker, status: 'redeemed', limit: 10 })).toEqual([]);
    });

    test('one creation time: trades order by id, compared bytewise, and pages resume inside the tie', async () => {
      const createdAt = '2030-01-01T00:00:00.000Z';
      // Ids whose bytewise order differs from a locale's (case, punctuation): the store must keep bytes.
      // (ASCII: JavaScript's default sort, by UTF-16 code units, is their byte order.)
      const tradeIds = ['b-1', 'B-2', 'a_3', 'A.4', '_5', 'a-6'];
      for (const tradeId of tradeIds) {
        const q = quote();
        await commitAll(
          store,
          { kind: 'insertQuote', quote: q },
          createTrade({ ...tradeRecord(q), tradeId, createdAt }),
        );
      }
      const bytewise = [...tradeIds].sort();
      expect(bytewise).toEqual(['A.4', 'B-2', '_5', 'a-6', 'a_3', 'b-1']);
      expect(ids(await store.listTrades({ limit: 10 }))).toEqual(bytewise);
      const page = await store.listTrades({ after: { createdAt, tradeId: bytewise[2] as string }, limit: 2 });
      expect(ids(page)).toEqual(bytewise.slice(3, 5));
    });

    test('filters by the run that created a trade', async () => {
      const other = await startRun(store);
      await storedTrade();
      const theirs = await storedTrade({ runId: other });
      expect(ids(await store.listTrades({ runId: other, limit: 10 }))).toEqual([theirs.tradeId]);
    });

    test('the event log reads in seq order after a position, bounded, and knows its newest seq', async () => {
      expect(await store.lastEventSeq()).toBe(0);
      expect(await store.events(0, 10)).toEqual([]);
      const trades = [await storedTrade(), await storedTrade(), await storedTrade()];
      const all = await store.events(0, 10);
      expect(all.map((e) => e.tradeId)).toEqual(ids(trades));
      const seqs = all.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs.every(Number.isSafeInteger)).toBe(true);
      expect(await store.lastEventSeq()).toBe(seqs[2]);
      expect((await store.events(seqs[0] as number, 1)).map((e) => e.tradeId)).toEqual([trades[1]?.tradeId]);
      expect(await store.events(seqs[0] as number, 5)).toEqual(all.slice(1));
      expect(await store.events(seqs[2] as number, 5)).toEqual([]);
      expect(all[0]).toEqual({ ...startedEvent(trades[0] as TradeRecord), seq: seqs[0] });
    });

    test("a trade's events read in seq order, only its own", async () => {
      const [a, b] = [await storedTrade(), await storedTrade()];
      const note = (trade: TradeRecord, type: string) => ({ ...startedEvent(trade), type });
      await commitAll(store, { kind: 'appendEvents', events: [note(a, 'A1'), note(b, 'B1'), note(a, 'A2')] });
      expect((await store.tradeEvents(a.tradeId)).map((e) => e.type)).toEqual([
        'SETTLEMENT_STARTED',
        'A1',
        'A2',
      ]);
    });
  });

  describe('hedges', () => {
    /** A hedge of SOL sold for USDC, triggered by `trade`, by `runId`, its swap signed and stored. */
    const hedgeOf = (trade: TradeRecord, overrides: Partial<HedgeRecord> = {}): HedgeRecord => ({
      hedgeId: randomUUID(),
      tradeId: trade.tradeId,
      runId: RUN,
      ownerRunId: RUN,
      asset: SOL,
      side: 'sell',
      inputMint: SOL,
      outputMint: USDC,
      amountInRaw: 25_000_000_000n,
      quotedOutRaw: 4_650_000_000n,
      minOutRaw: 4_640_000_000n,
      midOutRaw: 4_685_500_000n,
      inputUsd: '18742/100',
      outputUsd: '1/1',
      maxSlippageBps: 100,
      status: 'sending',
      attempt: 1,
      signature: randomBytes(64).toString('hex'),
      transactionBase64: randomBytes(300).toString('base64'),
      lastValidBlockHeight: 1_234_567,
      expiredSignatures: [],
      landedInRaw: null,
      landedOutRaw: null,
      feeLamports: null,
      slot: null,
      error: null,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      landedAt: null,
      ...overrides,
    });
    const insert = (hedge: HedgeRecord): StoreWrite => ({ kind: 'insertHedge', hedge });
    const update = (hedge: HedgeRecord, ledger: LedgerEntry[] = []): StoreWrite => {
      const { tradeId: _t, runId: _r, asset: _a, side: _s, createdAt: _c, ...rest } = hedge;
      return { kind: 'updateHedge', update: rest, ledger };
    };
    const conflictOf = async (...writes: StoreWrite[]) => {
      const outcomes = await store.commit(writes);
      return outcomes.map((o) => (o.ok ? 'ok' : (o.conflict ?? o.message)));
    };

    test('a hedge reads back exactly, its signed swap and amounts above 2^64 included', async () => {
      const trade = await storedTrade();
      const hedge = hedgeOf(trade, { amountInRaw: 2n ** 64n + 7n, midOutRaw: 2n ** 70n });
      await commitAll(store, insert(hedge));
      expect(await store.getHedge(hedge.hedgeId)).toEqual(hedge);
      expect(await store.hedgesOfTrades([trade.tradeId])).toEqual([hedge]);
      expect(await store.getHedge(randomUUID())).toBeUndefined();
    });

    test('one hedge per asset in flight: a second is refused until the first has landed', async () => {
      const trade = await storedTrade();
      const first = hedgeOf(trade);
      await commitAll(store, insert(first));
      const second = hedgeOf(trade);
      expect(await conflictOf(insert(second))).toEqual(['hedge_in_flight']);
      // Requoting is in flight too.
      await commitAll(
        store,
        update({
          ...first,
          status: 'requoting',
          signature: null,
          transactionBase64: null,
          lastValidBlockHeight: null,
        }),
      );
      expect(await conflictOf(insert(second))).toEqual(['hedge_in_flight']);
      // Another asset is free, and so is SOL once the first hedge ended.
      expect(
        await conflictOf(insert(hedgeOf(trade, { asset: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN' }))),
      ).toEqual(['ok']);
      await commitAll(
        store,
        update({
          ...first,
          status: 'cancelled',
          signature: null,
          transactionBase64: null,
          lastValidBlockHeight: null,
        }),
      );
      expect(await conflictOf(insert(second))).toEqual(['ok']);
      expect((await owned(RUN).hedgesInFlight()).map((h) => h.hedgeId)).toEqual(
        expect.arrayContaining([second.hedgeId]),
      );
    });

    test('a sending hedge always holds its signed swap, and a signature is never stored twice', async () => {
      const trade = await storedTrade();
      expect(await conflictOf(insert(hedgeOf(trade, { transactionBase64: null })))).toEqual([
        expect.stringMatching(/CHECK|check/),
      ]);
      const hedge = hedgeOf(trade);
      await commitAll(store, insert(hedge));
      await commitAll(store, update({ ...hedge, status: 'failed' }));
      const again = hedgeOf(trade, { signature: hedge.signature });
      expect(await conflictOf(insert(again))).toEqual([expect.stringMatching(/UNIQUE|unique|duplicate/)]);
    });

    test('a hedge needs its trade', async () => {
      expect(await conflictOf(insert(hedgeOf({ tradeId: randomUUID() } as TradeRecord)))).toEqual([
        expect.stringMatching(/FOREIGN|foreign/),
      ]);
    });

    test('landing posts its ledger entries to its trade with the update, once, all or nothing', async () => {
      const trade = await storedTrade();
      const hedge = hedgeOf(trade);
      await commitAll(store, insert(hedge));
      const landed: HedgeRecord = {
        ...hedge,
        status: 'landed',
        landedInRaw: hedge.amountInRaw,
        landedOutRaw: 4_651_234_567n,
        feeLamports: 5_000n,
        slot: 42,
        landedAt: new Date().toISOString(),
      };
      const entries: LedgerEntry[] = [
        {
          movement: 'aggregator_swap',
          signature: hedge.signature as string,
          mint: SOL,
          account: 'venue',
          side: 'debit',
          amountRaw: hedge.amountInRaw,
        },
        {
          movement: 'aggregator_swap',
          signature: hedge.signature as string,
          mint: SOL,
          account: 'maker',
          side: 'credit',
          amountRaw: hedge.amountInRaw,
        },
      ];
      await commitAll(store, update(landed, entries));
      await commitAll(store, update(landed, entries));
      expect(await store.getHedge(hedge.hedgeId)).toEqual(landed);
      const ledger = await store.ledger(trade.tradeId);
      expect(ledger.map((e) => [e.movement, e.account, e.side, e.amountRaw])).toEqual([
        ['aggregator_swap', 'venue', 'debit', hedge.amountInRaw],
        ['aggregator_swap', 'maker', 'credit', hedge.amountInRaw],
      ]);
      expect(ledger.every((e) => e.tradeId === trade.tradeId)).toBe(true);
      // An update of an unknown hedge fails and posts nothing.
      const ghost = { ...landed, hedgeId: randomUUID(), signature: 'ghost' };
      expect(
        await conflictOf(update(ghost, [{ ...(entries[0] as LedgerEntry), signature: 'ghost' }])),
      ).toEqual([expect.stringMatching(/does not exist/)]);
      expect(await store.ledger(trade.tradeId)).toHaveLength(2);
    });

    test('hedges list by trade oldest first, and the newest of all first', async () => {
      const [a, b] = [await storedTrade(), await storedTrade()];
      const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();
      const h1 = hedgeOf(a, { createdAt: at(1), status: 'landed' });
      const h2 = hedgeOf(b, { createdAt: at(2), status: 'failed' });
      const h3 = hedgeOf(a, { createdAt: at(3) });
      await commitAll(store, insert(h1), insert(h2), insert(h3));
      expect((await store.hedgesOfTrades([a.tradeId])).map((h) => h.hedgeId)).toEqual([
        h1.hedgeId,
        h3.hedgeId,
      ]);
      expect((await store.hedgesOfTrades([a.tradeId, b.tradeId])).map((h) => h.hedgeId)).toEqual([
        h1.hedgeId,
        h2.hedgeId,
        h3.hedgeId,
      ]);
      expect(await store.hedgesOfTrades([])).toEqual([]);
      expect((await store.recentHedges(2)).map((h) => h.hedgeId)).toEqual([h3.hedgeId, h2.hedgeId]);
      expect((await owned(RUN).hedgesInFlight()).map((h) => h.hedgeId)).toEqual([h3.hedgeId]);
    });

    test.runIf(engine.name === 'sqlite')(
      'SQLite: the running run owns every hedge in flight; there is nothing to claim',
      async () => {
        const hedge = hedgeOf(await storedTrade());
        await commitAll(store, insert(hedge));
        await store.stopRun(RUN, new Date().toISOString());
        const next = await startRun(store);
        expect((await owned(next).hedgesInFlight()).map((h) => h.hedgeId)).toEqual([hedge.hedgeId]);
        await commitAll(store, update({ ...hedge, ownerRunId: next, attempt: 2 }));
        expect((await store.getHedge(hedge.hedgeId))?.ownerRunId).toBe(next);
      },
    );

    test.runIf(engine.name === 'postgres')(
      'PostgreSQL: a gone run’s hedges in flight are claimed by a live run, and its writes are fenced',
      async () => {
        const trade = await storedTrade();
        const gone = await startRun(store);
        const inFlight = hedgeOf(trade, { runId: gone, ownerRunId: gone });
        const done = hedgeOf(trade, {
          runId: gone,
          ownerRunId: gone,
          asset: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
          status: 'landed',
        });
        await commitAll(store, insert(inFlight), insert(done));
        // Its owner is live: nobody may take it, and only the owner writes it.
        expect(await shared().claimHedges(RUN)).toEqual([]);
        expect(await conflictOf(update({ ...inFlight, ownerRunId: RUN, attempt: 2 }))).toEqual(['fenced']);
        expect((await owned(gone).hedgesInFlight()).map((h) => h.hedgeId)).toEqual([inFlight.hedgeId]);
        expect(await owned(RUN).hedgesInFlight()).toEqual([]);
        // Every instance's, for the operator's view.
        expect((await store.hedgesInFlight()).map((h) => h.hedgeId)).toEqual([inFlight.hedgeId]);

        await lapseLease(database.url as string, gone);
        // The gone run can neither write the hedge nor record a new one.
        expect(await conflictOf(update({ ...inFlight, attempt: 2 }))).toEqual(['fenced']);
        expect(
          await conflictOf(insert(hedgeOf(trade, { runId: gone, ownerRunId: gone, asset: 'x' }))),
        ).toEqual(['fenced']);
        // A live run takes the one in flight (not the landed one), once.
        const claimed = await shared().claimHedges(RUN);
        expect(claimed).toEqual([{ ...inFlight, ownerRunId: RUN }]);
        expect(await shared().claimHedges(RUN)).toEqual([]);
        expect((await owned(RUN).hedgesInFlight()).map((h) => h.hedgeId)).toEqual([inFlight.hedgeId]);
        await commitAll(store, update({ ...inFlight, ownerRunId: RUN, attempt: 2 }));
        expect((await store.getHedge(inFlight.hedgeId))?.attempt).toBe(2);
        // A run whose lease lapsed claims nothing.
        const other = await startRun(store);
        await lapseLease(database.url as string, RUN);
        await lapseLease(database.url as string, other);
        expect(await shared().claimHedges(other)).toEqual([]);
      },
    );
  });

  describe('gateway transfers', () => {
    const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();
    /** A trade's transfer as its attestation left it. */
    const transferOf = (
      trade: TradeRecord | null,
      overrides: Partial<TransferRecord> = {},
    ): TransferRecord => ({
      transferId: `0x${randomBytes(32).toString('hex')}`,
      gatewayTransferId: randomUUID(),
      tradeId: trade?.tradeId ?? null,
      purpose: 'trade_mint',
      sourceDomain: 6,
      valueRaw: 2n ** 64n + 123n,
      maxFeeRaw: 2_010_000n,
      feeRaw: 2_000_001n,
      status: 'attested',
      mintSignature: null,
      burnTx: null,
      attestedAt: at(1),
      mintedAt: null,
      burnedAt: null,
      expiredAt: null,
      ...overrides,
    });
    const mintedOf = (transfer: TransferRecord, s = 2): TransferRecord => ({
      ...transfer,
      status: 'minted',
      mintSignature: randomBytes(64).toString('hex'),
      mintedAt: at(s),
    });
    /** The trade's transition that stored the transfer, as the runtime writes it. */
    const transitionWith = (trade: TradeRecord, transfer: TransferRecord): StoreWrite => ({
      kind: 'saveTransition',
      update: { ...trade, updatedAt: new Date().toISOString() },
      events: [],
      ledger: [],
      transfers: [transfer],
    });
    const burn = (transfer: TransferRecord, burnTx: string, runId: string = RUN): StoreWrite => ({
      kind: 'burnTransfer',
      transferId: transfer.transferId,
      tradeId: transfer.tradeId,
      burnTx,
      runId,
      at: at(9),
    });
    const burnEvents = async (tradeId: string) =>
      (await store.tradeEvents(tradeId))
        .filter((e) => e.type === GATEWAY_BURN_EVENT)
        .map((e) => ({ runId: e.runId, status: e.status, substate: e.substate, payload: e.payload }));
    const outcomesOf = async (...writes: StoreWrite[]) =>
      (await store.commit(writes)).map((o) => (o.ok ? 'ok' : o.message));

    test('a transfer reads back exactly with its transition, amounts above 2^64 included', async () => {
      const trade = await storedTrade();
      const transfer = transferOf(trade);
      await commitAll(store, transitionWith(trade, transfer));
      expect(await store.getTransfer(transfer.transferId)).toEqual(transfer);
      expect(await store.transfersOfTrades([trade.tradeId])).toEqual([transfer]);
      expect(await store.openTransfers()).toEqual([transfer]);
      expect(await store.getTransfer(`0x${'00'.repeat(32)}`)).toBeUndefined();
    });

    test('a transition and its transfer commit whole: a refused transition stores no transfer', async () => {
      const trade = await storedTrade();
      const ghost = { ...trade, tradeId: randomUUID() };
      const transfer = transferOf(trade);
      expect(await outcomesOf(transitionWith(ghost, transfer))).toEqual([
        expect.stringMatching(/does not exist/),
      ]);
      expect(await store.getTransfer(transfer.transferId)).toBeUndefined();
    });

    test('a transfer only moves forward: attested again keeps the mint, and its first times stay', async () => {
      const trade = await storedTrade();
      const attested = transferOf(trade);
      const minted = mintedOf(attested);
      await commitAll(store, transitionWith(trade, attested), transitionWith(trade, minted));
      // The spec attested again (a lapsed mint signed anew) and a mint seen twice change nothing stored.
      await commitAll(store, transitionWith(trade, { ...attested, attestedAt: at(5) }));
      await commitAll(store, transitionWith(trade, mintedOf({ ...attested, attestedAt: at(6) }, 7)));
      expect(await store.getTransfer(attested.transferId)).toEqual(minted);
      expect(await store.openTransfers()).toEqual([minted]);
    });

    test('a burn seen is the transfer burned and its trade’s GATEWAY_BURN event, once, in one write', async () => {
      const trade = await storedTrade();
      const minted = mintedOf(transferOf(trade));
      await commitAll(store, transitionWith(trade, minted));
      await commitAll(store, burn(minted, '0xburn'));
      // Seen again (another instance, a later period): nothing more is written.
      await commitAll(store, burn(minted, '0xburn'));
      expect(await store.getTransfer(minted.transferId)).toEqual({
        ...minted,
        status: 'burned',
        burnTx: '0xburn',
        burnedAt: at(9),
      });
      expect(await burnEvents(trade.tradeId)).toEqual([
        {
          runId: RUN,
          status: trade.status,
          substate: trade.substate,
          payload: { signature: '0xburn', transfer_id: minted.gatewayTransferId },
        },
      ]);
      expect(await store.openTransfers()).toEqual([]);
      // A mint stored after the burn does not undo it.
      await commitAll(store, transitionWith(trade, minted));
      expect((await store.getTransfer(minted.transferId))?.status).toBe('burned');
      // An unknown transfer's burn fails alone, and writes no event.
      const ghost = transferOf(trade);
      expect(await outcomesOf(burn(ghost, '0xghost'))).toEqual([expect.stringMatching(/does not exist/)]);
      expect(await burnEvents(trade.tradeId)).toHaveLength(1);
    });

    test('a burn is recorded on a closed trade, by a run that never owned it', async () => {
      const trade = await storedTrade();
      const minted = mintedOf(transferOf(trade));
      await commitAll(store, transitionWith(trade, minted));
      await moved(trade, { status: 'redeemed', substate: 'redeemed', closed: true, nextDeadline: null });
      const later = await startRun(store, randomUUID());
      await commitAll(store, burn(minted, '0xlate', later));
      expect(await burnEvents(trade.tradeId)).toEqual([
        expect.objectContaining({ runId: later, status: 'redeemed', substate: 'redeemed' }),
      ]);
    });

    test('Gateway giving a transfer up closes it; a burned one stays burned', async () => {
      const trade = await storedTrade();
      const [given, burned] = [transferOf(trade), mintedOf(transferOf(trade))];
      await commitAll(
        store,
        transitionWith(trade, given),
        transitionWith(trade, burned),
        burn(burned, '0xb'),
      );
      for (const transfer of [given, burned]) {
        await commitAll(store, { kind: 'expireTransfer', transferId: transfer.transferId, at: at(20) });
      }
      expect(await store.getTransfer(given.transferId)).toEqual({
        ...given,
        status: 'expired',
        expiredAt: at(20),
      });
      expect((await store.getTransfer(burned.transferId))?.status).toBe('burned');
      expect(await store.openTransfers()).toEqual([]);
    });

    test('a transfer of no trade (the maker’s own) is kept, and a trade’s must name a stored trade', async () => {
      const own = transferOf(null);
      await commitAll(store, { kind: 'saveTransfer', transfer: own });
      await commitAll(store, burn(own, '0xown'));
      expect(await store.getTransfer(own.transferId)).toEqual(
        expect.objectContaining({ tradeId: null, status: 'burned', burnTx: '0xown' }),
      );
      expect(
        await outcomesOf({
          kind: 'saveTransfer',
          transfer: transferOf({ tradeId: randomUUID() } as TradeRecord),
        }),
      ).toEqual([expect.stringMatching(/FOREIGN|foreign/)]);
      expect(
        await outcomesOf({ kind: 'saveTransfer', transfer: { ...transferOf(null), status: 'minted' } }),
      ).toEqual([expect.stringMatching(/CHECK|check/)]);
    });

    test('open transfers list oldest first, a trade’s oldest first, and the newest of all first', async () => {
      const [a, b] = [await storedTrade(), await storedTrade()];
      const t1 = mintedOf(transferOf(a, { attestedAt: at(1) }));
      const t2 = transferOf(b, { attestedAt: at(2) });
      const t3 = mintedOf(transferOf(a, { attestedAt: at(3) }));
      await commitAll(store, transitionWith(a, t3), transitionWith(b, t2), transitionWith(a, t1));
      await commitAll(store, burn(t3, '0x3'));
      const ids = (transfers: readonly TransferRecord[]) => transfers.map((t) => t.transferId);
      expect(ids(await store.openTransfers())).toEqual([t1.transferId, t2.transferId]);
      expect(ids(await store.transfersOfTrades([a.tradeId]))).toEqual([t1.transferId, t3.transferId]);
      expect(ids(await store.transfersOfTrades([]))).toEqual([]);
      expect(ids(await store.recentTransfers(2))).toEqual([t3.transferId, t2.transferId]);
    });

    test('the trades that minted before the transfers table get theirs at the upgrade', async () => {
      /** A trade stored with a context as minting left it: attested, minted, its burn seen. */
      const mintedTrade = async (step: 'attested' | 'minted' | 'burned' | 'none') => {
        const trade = await storedTrade();
        const snapshot = JSON.parse(trade.snapshot) as { context: Record<string, unknown> };
        const specHash = `0x${randomBytes(32).toString('hex')}`;
        if (step !== 'none') {
          snapshot.context.mintIntent = {
            burnIntent: {
              maxBlockHeight: '1100',
              maxFee: '5000000',
              spec: { sourceDomain: 6, value: '43000001' },
            },
            signature: '0x00',
            transferSpecHash: specHash,
            valueRaw: '43000001',
            maxBlockHeight: '1100',
            attestation: {
              transferId: `gw-${specHash}`,
              attestation: '0x01',
              signature: '0x02',
              feeRaw: '2000001',
              expirationBlock: '900',
            },
            transaction: {
              signature: `mint-${specHash}`,
              lastValidBlockHeight: 5,
              transactionBase64: 'AA==',
              lapsed: false,
            },
          };
        }
        if (step === 'minted' || step === 'burned') {
          snapshot.context.signatures = [{ kind: 'gateway_mint', signature: `mint-${specHash}` }];
        }
        const at = new Date().toISOString();
        await commitAll(store, transition({ ...trade, updatedAt: at, snapshot: JSON.stringify(snapshot) }));
        if (step === 'burned') {
          await commitAll(store, {
            kind: 'appendEvents',
            events: [
              {
                tradeId: trade.tradeId,
                runId: RUN,
                at: '2030-01-01T00:00:09.000Z',
                type: GATEWAY_BURN_EVENT,
                status: trade.status,
                substate: trade.substate,
                payload: { signature: '0xburned', transfer_id: `gw-${specHash}` },
              },
            ],
          });
        }
        return { tradeId: trade.tradeId, specHash, at };
      };
      const [attested, minted, burned, none] = [
        await mintedTrade('attested'),
        await mintedTrade('minted'),
        await mintedTrade('burned'),
        await mintedTrade('none'),
      ];
      await database.undoLastMigration('DROP TABLE gateway_transfers');
      const upgraded = await open();
      const of = async (t: { tradeId: string }) => upgraded.transfersOfTrades([t.tradeId]);
      const common = (t: { tradeId: string; specHash: string; at: string }) => ({
        transferId: t.specHash,
        gatewayTransferId: `gw-${t.specHash}`,
        tradeId: t.tradeId,
        purpose: 'trade_mint',
        sourceDomain: 6,
        valueRaw: 43_000_001n,
        maxFeeRaw: 5_000_000n,
        feeRaw: 2_000_001n,
        attestedAt: t.at,
        expiredAt: null,
      });
      expect(await of(attested)).toEqual([
        {
          ...common(attested),
          status: 'attested',
          mintSignature: null,
          burnTx: null,
          mintedAt: null,
          burnedAt: null,
        },
      ]);
      expect(await of(minted)).toEqual([
        {
          ...common(minted),
          status: 'minted',
          mintSignature: `mint-${minted.specHash}`,
          burnTx: null,
          mintedAt: minted.at,
          burnedAt: null,
        },
      ]);
      expect(await of(burned)).toEqual([
        {
          ...common(burned),
          status: 'burned',
          mintSignature: `mint-${burned.specHash}`,
          burnTx: '0xburned',
          mintedAt: burned.at,
          burnedAt: '2030-01-01T00:00:09.000Z',
        },
      ]);
      expect(await of(none)).toEqual([]);
      expect((await upgraded.openTransfers()).map((t) => t.tradeId).sort()).toEqual(
        [attested.tradeId, minted.tradeId].sort(),
      );
    });

    test('transfers survive a reopen', async () => {
      const trade = await storedTrade();
      const minted = mintedOf(transferOf(trade));
      await commitAll(store, transitionWith(trade, minted));
      const again = await open();
      expect(await again.openTransfers()).toEqual([minted]);
    });
  });

  describe('the desk’s live settings', () => {
    const change = (over: Partial<NewDeskChange> = {}): NewDeskChange => ({
      at: '2026-12-01T10:00:00.000Z',
      actor: 'alice',
      runId: RUN,
      target: 'pair:SOL-USDC',
      field: 'base_spread_bps',
      before: 8,
      after: 12,
      override: 12,
      ...over,
    });

    test('a change is logged in order and leaves its override set; null removes it; the log pages newest first', async () => {
      await commitAll(store, {
        kind: 'changeDesk',
        changes: [
          change(),
          change({ target: 'desk', field: 'paused', before: false, after: true, override: true }),
        ],
      });
      await commitAll(store, {
        kind: 'changeDesk',
        changes: [change({ before: 12, after: 8, override: null, actor: 'bob' })],
      });
      const log = await store.deskChanges(10);
      expect(log.map((c) => [c.seq, c.actor, c.target, c.field, c.before, c.after, c.override])).toEqual([
        [3, 'bob', 'pair:SOL-USDC', 'base_spread_bps', 12, 8, null],
        [2, 'alice', 'desk', 'paused', false, true, true],
        [1, 'alice', 'pair:SOL-USDC', 'base_spread_bps', 8, 12, 12],
      ]);
      expect(log[0]).toMatchObject({ runId: RUN, at: '2026-12-01T10:00:00.000Z' });
      expect(await store.deskChanges(1, 3)).toEqual([log[1]]);
      expect(await store.deskOverrides()).toEqual([
        {
          target: 'desk',
          field: 'paused',
          value: true,
          seq: 2,
          at: '2026-12-01T10:00:00.000Z',
          actor: 'alice',
        },
      ]);
      // A decimal override keeps its text exactly; a later one replaces it in place.
      await commitAll(store, {
        kind: 'changeDesk',
        changes: [
          change({ field: 'min_input', before: '0.010000000', after: '0.500000000', override: '0.50' }),
          change({ field: 'min_input', before: '0.500000000', after: '0.700000000', override: '0.7' }),
        ],
      });
      const overrides = await store.deskOverrides();
      expect(overrides.map((o) => [o.target, o.field, o.value, o.seq])).toEqual([
        ['desk', 'paused', true, 2],
        ['pair:SOL-USDC', 'min_input', '0.7', 5],
      ]);
      // Kept across a reopen.
      await store.close();
      store = await open();
      expect(await store.deskOverrides()).toEqual(overrides);
      expect((await store.deskChanges(10)).map((c) => c.seq)).toEqual([5, 4, 3, 2, 1]);
    });

    test('a batch of changes is all or nothing', async () => {
      const outcomes = await store.commit([
        { kind: 'changeDesk', changes: [change(), change({ runId: 'no-such-run' })] },
      ]);
      expect(outcomes[0]?.ok).toBe(false);
      expect(await store.deskChanges(10)).toEqual([]);
      expect(await store.deskOverrides()).toEqual([]);
    });
  });

  describe('the store itself', () => {
    test('names its kind, and where it lives without a password', async () => {
      expect(store.kind).toBe(engine.name);
      expect(store.location).not.toMatch(/:[^/@:]+@/);
      expect(store.isOpen).toBe(true);
      expect(await store.ping()).toBe(true);
      await store.close();
      await store.close();
      expect(store.isOpen).toBe(false);
    });

    test('reopening keeps everything and applies no migration twice', async () => {
      const trade = await storedTrade();
      const entry: LedgerEntry = {
        movement: 'taker_lock',
        signature: 'sig',
        mint: SOL,
        account: 'taker',
        side: 'credit',
        amountRaw: 2n ** 70n,
      };
      const later = await moved(trade, { substate: 'pending.lockSubmitted', running: true });
      await commitAll(
        store,
        transition(later, [{ ...startedEvent(trade), type: 'LOCK_SUBMITTED' }], [entry]),
      );
      await store.stopRun(RUN, '2100-01-01T00:00:00.000Z');
      const before = {
        trade: await store.getTrade(trade.tradeId),
        quote: await store.getQuote(trade.quoteId),
        events: await store.events(0, 100),
        ledger: await store.ledger(),
        runs: await store.listRuns(),
      };
      await store.close();
      store = await open();
      expect({
        trade: await store.getTrade(trade.tradeId),
        quote: await store.getQuote(trade.quoteId),
        events: await store.events(0, 100),
        ledger: await store.ledger(),
        runs: await store.listRuns(),
      }).toEqual(before);
      expect(before.trade).toEqual(later);
      // New rows continue the sequences after a reopen, written by the run that took the trade over.
      const next = await startRun(store);
      await takeUnclosed(next);
      await commitAll(store, {
        kind: 'appendEvents',
        events: [{ ...startedEvent(trade), runId: next, type: 'AFTER_REOPEN' }],
      });
      expect(await store.lastEventSeq()).toBeGreaterThan(before.events.at(-1)?.seq ?? 0);
    });

    test('a database migrated by a newer build is refused', async () => {
      await store.close();
      await database.bumpSchemaVersion();
      await expect(database.open()).rejects.toThrow(/newer than this build knows/);
    });

    test('stores opened at once on a fresh database apply each migration once, and share one schema', async () => {
      const fresh = await engine.database();
      const stores = await Promise.all([1, 2, 3, 4].map(() => fresh.open()));
      const [first, ...rest] = stores as [Store, ...Store[]];
      await startRun(first, RUN);
      const q = quote();
      await commitAll(first, { kind: 'insertQuote', quote: q });
      for (const each of rest) expect(await each.getQuote(q.quoteId)).toEqual(q);
      // A fifth open, later, finds nothing left to do.
      stores.push(await fresh.open());
      expect(await stores[4]?.getQuote(q.quoteId)).toEqual(q);
      for (const each of stores) await each.close();
      const versions = Array.from({ length: engine.migrations }, (_, i) => i + 1);
      expect(await fresh.appliedMigrations()).toEqual(versions);
      fresh.remove();
    });
  });
});

describe.skipIf(!POSTGRES_TESTS)('the postgres store', () => {
  test('gives its location without the password of its URL', async () => {
    // The throwaway server trusts local connections, so any password opens it.
    const url = new URL(await testDatabaseUrl());
    url.password = 'hunter2';
    const store = await openStore({ databaseUrl: url.toString() });
    try {
      expect(store.location).not.toContain('hunter2');
      expect(new URL(store.location).pathname).toBe(url.pathname);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!POSTGRES_TESTS)('the postgres store beside other instances', () => {
  test('the event log is appended in commit order: a reader paging by seq never skips an event', async () => {
    const databaseUrl = await testDatabaseUrl();
    const writers = [await openStore({ databaseUrl }), await openStore({ databaseUrl })];
    const reader = await openStore({ databaseUrl });
    try {
      const [first] = writers as [Store, Store];
      await startRun(first, RUN);
      const q = quoteRecord(RUN);
      const trade = tradeRecord(q);
      await commitAll(
        first,
        { kind: 'insertQuote', quote: q },
        { kind: 'createTrade', trade, event: startedEvent(trade) },
      );
      let writing = true;
      const seen: number[] = [];
      const follow = async () => {
        let after = 0;
        for (let done = false; !done; ) {
          done = !writing;
          const page = await reader.events(after, 1_000);
          seen.push(...page.map((e) => e.seq));
          after = page.at(-1)?.seq ?? after;
        }
      };
      const following = follow();
      // Eight commits in flight at a time, over two instances, each appending one event.
      await Promise.all(
        writers.flatMap((writer) =>
          [1, 2, 3, 4].map(async () => {
            for (let i = 0; i < 40; i++) {
              const event = { ...startedEvent(trade), type: 'NOTE', payload: { i } };
              await commitAll(writer, { kind: 'appendEvents', events: [event] });
            }
          }),
        ),
      );
      writing = false;
      await following;
      expect(seen).toEqual((await reader.events(0, 10_000)).map((e) => e.seq));
      expect(seen).toHaveLength(1 + 2 * 4 * 40);
    } finally {
      for (const each of [...writers, reader]) await each.close();
    }
  });

  test("a column added by a newer build's migration breaks none of the statements it prepared", async () => {
    const databaseUrl = await testDatabaseUrl();
    const store = await openStore({ databaseUrl });
    const newer = new pg.Client({ connectionString: databaseUrl });
    try {
      await startRun(store, RUN);
      const q = quoteRecord(RUN);
      const trade = tradeRecord(q);
      await commitAll(
        store,
        { kind: 'insertQuote', quote: q },
        { kind: 'createTrade', trade, event: startedEvent(trade) },
      );
      const reads = async () => [
        await store.getQuote(q.quoteId),
        await store.getTrade(trade.tradeId),
        await store.tradeEvents(trade.tradeId),
        await store.ledger(),
      ];
      const before = await reads();
      await newer.connect();
      for (const table of ['quotes', 'trades', 'trade_snapshots', 'trade_events', 'ledger_entries']) {
        await newer.query(`ALTER TABLE ${table} ADD COLUMN added_later TEXT`);
      }
      expect(await reads()).toEqual(before);
    } finally {
      await newer.end();
      await store.close();
    }
  });
});

describe.skipIf(!POSTGRES_TESTS)("the postgres store on a database with a locale's collation", () => {
  test('orders and pages as SQLite does: text compares bytewise, whatever the locale', async () => {
    const store = await openStore({ databaseUrl: await postgresDatabaseWithLocale() });
    try {
      await startRun(store, RUN);
      const createdAt = '2030-01-01T00:00:00.000Z';
      const tradeIds = ['b-1', 'B-2', 'a_3', 'A.4', '_5', 'a-6'];
      for (const [i, tradeId] of tradeIds.entries()) {
        const q = quoteRecord(RUN);
        const trade = { ...tradeRecord(q), tradeId, createdAt, substate: `pending.${tradeIds[5 - i]}` };
        await commitAll(
          store,
          { kind: 'insertQuote', quote: q },
          { kind: 'createTrade', trade, event: startedEvent(trade) },
        );
      }
      const bytewise = ['A.4', 'B-2', '_5', 'a-6', 'a_3', 'b-1'];
      expect((await store.listTrades({ limit: 10 })).map((t) => t.tradeId)).toEqual(bytewise);
      const page = await store.listTrades({ after: { createdAt, tradeId: 'B-2' }, limit: 2 });
      expect(page.map((t) => t.tradeId)).toEqual(['_5', 'a-6']);
      expect((await store.ownedBy(RUN).ownedTradeCounts()).map((c) => c.substate)).toEqual(
        bytewise.map((id) => `pending.${id}`),
      );
    } finally {
      await store.close();
    }
  });
});
