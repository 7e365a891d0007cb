// The SQLite store on its own: what each query answers, which writes are all-or-nothing, and which
// constraints hold however the runtime above it behaves. Trades are built from the machine's real first
// snapshot, as a settlement start builds them.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { initialSnapshot, type TradeInput } from '../../machines/index.ts';
import type { LedgerEntry } from '../../src/ledger/index.ts';
import { newTradeRecord, restColumns } from '../../src/runtime/host.ts';
import {
  type NewTradeEvent,
  openStore,
  type QuoteRecord,
  type Store,
  type TradeRecord,
  timeOrderedUuid,
} from '../../src/store/index.ts';
import { hash32FromBytes } from '../../src/vocabulary/index.ts';
import { SOL_MINT as SOL, USDC_MINT as USDC } from '../support/mints.ts';
import { tempDir } from '../support/service.ts';
import { quoteRecord, wallet } from './fixtures.ts';

const RUN = randomUUID();
const NOW = 1_900_000_000;

let dir: ReturnType<typeof tempDir>;
let store: Store;

beforeEach(() => {
  dir = tempDir('rfq-store-');
  store = openStore({ dataDir: dir.path });
  store.insertRun({ runId: RUN, version: 'test', startedAt: new Date().toISOString(), stoppedAt: null });
});

afterEach(() => {
  store.close();
  dir.remove();
});

const quote = (overrides: Partial<QuoteRecord> = {}) => quoteRecord(RUN, overrides);

/** A quote in the store and a trade born from it at rest, as a settlement start makes them. */
function tradeOf(q: QuoteRecord, overrides: Partial<TradeInput> = {}): TradeRecord {
  const input: TradeInput = {
    tradeId: timeOrderedUuid(),
    quoteId: q.quoteId,
    runId: RUN,
    takerWallet: q.takerWallet,
    makerWallet: wallet(),
    secretHash: hash32FromBytes(randomBytes(32)),
    inputMint: q.inputMint,
    inputAmountRaw: q.inputRaw.toString(),
    outputMint: q.outputMint,
    outputAmountRaw: q.outputRaw.toString(),
    takerExpiry: NOW + 900,
    lockDeadline: NOW + 120,
    takerEscrow: wallet(),
    makerEscrow: wallet(),
    makerTimelock: 300,
    safetyMargin: 300,
    minRedeemWindow: 120,
    landingMargin: 30,
    ...overrides,
  };
  const snapshot = initialSnapshot(input);
  return newTradeRecord(input, snapshot, restColumns(snapshot), new Date().toISOString());
}

const started = (trade: TradeRecord): NewTradeEvent => ({
  tradeId: trade.tradeId,
  runId: RUN,
  at: trade.createdAt,
  type: 'SETTLEMENT_STARTED',
  status: trade.status,
  substate: trade.substate,
  payload: { quote_id: trade.quoteId },
});

/** A quote and its trade, both stored. */
function storedTrade(overrides: Partial<TradeInput> = {}, quoteOverrides: Partial<QuoteRecord> = {}) {
  const q = quote(quoteOverrides);
  store.insertQuote(q);
  const trade = tradeOf(q, overrides);
  store.createTrade(trade, started(trade));
  return trade;
}

describe('quotes', () => {
  test('a quote reads back exactly, amounts as bigints', () => {
    const q = quote({ outputRaw: 2n ** 63n - 1n });
    store.insertQuote(q);
    expect(store.getQuote(q.quoteId)).toEqual(q);
  });

  test('open quotes are the unused ones that have not expired', () => {
    const now = Date.now();
    const open = quote({ expiresAtMs: now + 1_000 });
    const expired = quote({ expiresAtMs: now - 1 });
    const used = quote({ expiresAtMs: now + 1_000 });
    for (const q of [open, expired, used]) store.insertQuote(q);
    const trade = tradeOf(used);
    store.createTrade(trade, started(trade));
    expect(store.openQuotes(now).map((q) => q.quoteId)).toEqual([open.quoteId]);
    expect(store.getQuote(used.quoteId)?.usedByTradeId).toBe(trade.tradeId);
  });
});

describe('creating a trade', () => {
  test('stores the trade, marks its quote used and writes its first event, in one transaction', () => {
    const trade = storedTrade();
    expect(store.getTrade(trade.tradeId)).toEqual(trade);
    expect(store.findTradeByQuote(trade.quoteId)?.tradeId).toBe(trade.tradeId);
    expect(store.findTradeBySecretHash(trade.secretHash)?.tradeId).toBe(trade.tradeId);
    expect(store.tradeEvents(trade.tradeId).map((e) => e.type)).toEqual(['SETTLEMENT_STARTED']);
  });

  test('a second trade of the same quote is refused and leaves nothing behind', () => {
    const first = storedTrade();
    const q = store.getQuote(first.quoteId) as QuoteRecord;
    const second = tradeOf(q);
    expect(() => store.createTrade(second, started(second))).toThrow();
    expect(store.getTrade(second.tradeId)).toBeUndefined();
    expect(store.tradeEvents(second.tradeId)).toEqual([]);
  });

  test('a secret hash is used by one trade only, ever', () => {
    const first = storedTrade();
    const q = quote();
    store.insertQuote(q);
    const again = tradeOf(q, { secretHash: first.secretHash });
    expect(() => store.createTrade(again, started(again))).toThrow();
    expect(store.getQuote(q.quoteId)?.usedByTradeId).toBeNull();
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

  test('the snapshot, its events and its ledger entries land together', () => {
    const trade = storedTrade();
    const update = { ...trade, updatedAt: new Date().toISOString(), substate: 'pending.lockSubmitted' };
    store.saveTransition(update, [{ ...started(trade), type: 'LOCK_SUBMITTED' }], [entry(trade, 'sig-1')]);
    expect(store.getTrade(trade.tradeId)?.substate).toBe('pending.lockSubmitted');
    expect(store.tradeEvents(trade.tradeId).map((e) => e.type)).toEqual([
      'SETTLEMENT_STARTED',
      'LOCK_SUBMITTED',
    ]);
    expect(store.ledger(trade.tradeId)).toHaveLength(1);
  });

  test('a ledger entry posted again is stored once: a replayed transition cannot double-count', () => {
    const trade = storedTrade();
    store.saveTransition(trade, [], [entry(trade, 'sig-1')]);
    store.saveTransition(trade, [], [entry(trade, 'sig-1'), entry(trade, 'sig-2')]);
    expect(store.ledger(trade.tradeId).map((e) => e.signature)).toEqual(['sig-1', 'sig-2']);
  });

  test('a transition that cannot be stored whole leaves no part behind', () => {
    const trade = storedTrade();
    const update = { ...trade, substate: 'pending.lockSubmitted' };
    // An event of a trade that does not exist breaks a foreign key after the snapshot was written.
    const orphan = { ...started(trade), tradeId: randomUUID(), type: 'LOCK_SUBMITTED' };
    expect(() =>
      store.saveTransition(update, [{ ...started(trade), type: 'LOCK_SUBMITTED' }, orphan], []),
    ).toThrow();
    expect(store.getTrade(trade.tradeId)?.substate).toBe(trade.substate);
    expect(store.tradeEvents(trade.tradeId)).toHaveLength(1);
  });
});

describe("the virtual-actor runtime's indexes", () => {
  test('wake times: due trades earliest first, bounded; cleared wakes are never due', () => {
    const trades = [30, 10, 20, 40].map(() => storedTrade());
    trades.forEach((trade, i) => {
      store.setWake(trade.tradeId, [30, 10, 20, 40][i] as number);
    });
    store.setWake((trades[3] as TradeRecord).tradeId, null);
    const ids = trades.map((t) => t.tradeId);
    expect(store.dueTrades(35, 10)).toEqual([ids[1], ids[2], ids[0]]);
    expect(store.dueTrades(35, 2)).toEqual([ids[1], ids[2]]);
    expect(store.dueTrades(9, 10)).toEqual([]);
    expect(store.earliestWake()).toBe(10);
  });

  test('the rest index has what the watcher and the book need of every owned trade, without snapshots', () => {
    const trade = storedTrade();
    store.setSeen(trade.tradeId, 'fingerprint');
    expect(store.restIndex()).toEqual([
      {
        tradeId: trade.tradeId,
        takerWallet: trade.takerWallet,
        takerEscrow: trade.takerEscrow,
        makerEscrow: trade.makerEscrow,
        watch: trade.watch,
        seen: 'fingerprint',
        hold: trade.hold,
      },
    ]);
  });

  test('a run that cannot reach the chain marks every unclosed trade unadoptable; the next run claims them back', () => {
    const trades = [storedTrade(), storedTrade()];
    expect(store.markUnadoptable('chain unreachable')).toBe(2);
    expect(store.restIndex()).toEqual([]);
    expect(store.unadoptableTradeCount()).toBe(2);
    expect(store.getTrade((trades[0] as TradeRecord).tradeId)?.adoptionError).toBe('chain unreachable');
    expect(store.claimUnclosed()).toBe(2);
    expect(
      store
        .restIndex()
        .map((e) => e.tradeId)
        .sort(),
    ).toEqual(trades.map((t) => t.tradeId).sort());
  });

  test('one unadoptable trade is claimed by /resume alone', () => {
    const [a, b] = [storedTrade(), storedTrade()] as [TradeRecord, TradeRecord];
    store.markUnadoptable('chain unreachable');
    store.claimTrade(a.tradeId, RUN);
    expect(store.restIndex().map((e) => e.tradeId)).toEqual([a.tradeId]);
    expect(store.getTrade(b.tradeId)?.adoptionError).toBe('chain unreachable');
  });

  test('a wallet counts its pending and initiated trades only', () => {
    const taker = wallet();
    const pending = storedTrade({ takerWallet: taker }, { takerWallet: taker });
    storedTrade({ takerWallet: taker }, { takerWallet: taker });
    storedTrade();
    expect(store.liveTradeCount(taker)).toBe(2);
    store.saveTransition({ ...pending, status: 'failed', substate: 'failed' }, [], []);
    expect(store.liveTradeCount(taker)).toBe(1);
  });
});

describe('reading trades and events', () => {
  test('pages by creation, filtered by wallet and status, never skipping or repeating a trade', () => {
    const taker = wallet();
    const mine = Array.from({ length: 5 }, () => storedTrade({ takerWallet: taker }, { takerWallet: taker }));
    storedTrade();
    const seen: string[] = [];
    let after: { createdAt: string; tradeId: string } | undefined;
    for (;;) {
      const page = store.listTrades({ takerWallet: taker, status: 'pending', after, limit: 2 });
      if (page.length === 0) break;
      seen.push(...page.map((t) => t.tradeId));
      const last = page[page.length - 1] as TradeRecord;
      after = { createdAt: last.createdAt, tradeId: last.tradeId };
    }
    // The store's order: creation time, then trade id (trades made in the same millisecond sort by id).
    const byCreation = [...mine].sort((a, b) =>
      a.createdAt === b.createdAt
        ? a.tradeId.localeCompare(b.tradeId)
        : a.createdAt.localeCompare(b.createdAt),
    );
    expect(seen).toEqual(byCreation.map((t) => t.tradeId));
    expect(store.listTrades({ takerWallet: taker, status: 'redeemed', limit: 10 })).toEqual([]);
  });

  test('the event log reads in seq order after a position, and knows its newest seq', () => {
    expect(store.lastEventSeq()).toBe(0);
    const trades = [storedTrade(), storedTrade(), storedTrade()];
    const all = store.events(0, 10);
    expect(all.map((e) => e.tradeId)).toEqual(trades.map((t) => t.tradeId));
    expect(store.lastEventSeq()).toBe((all[2] as { seq: number }).seq);
    expect(store.events((all[0] as { seq: number }).seq, 1).map((e) => e.tradeId)).toEqual([
      (trades[1] as TradeRecord).tradeId,
    ]);
  });

  test('reopening the same file keeps everything and applies no migration twice', () => {
    const trade = storedTrade();
    store.close();
    store = openStore({ dataDir: dir.path });
    expect(store.getTrade(trade.tradeId)).toEqual(trade);
    expect(store.listRuns().map((r) => r.runId)).toEqual([RUN]);
  });
});
