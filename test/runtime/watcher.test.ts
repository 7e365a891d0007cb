// The chain watcher on its own: the real ChainWatcher and ChainClock over the fake chain, with a host that
// only records. The watcher's whole contract with the host is "wake this trade and hand me its handle"
// (use) and "it was observed" (markObserved); recording those shows exactly whom it woke and which facts
// it told each, without a trade machine moving on to effects the fake chain would then have to answer.
// (The real host behind the watcher is exercised in commands.test.ts and scheduler.test.ts.)
import { randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, test } from 'vitest';
import {
  initialSnapshot,
  type TradeContext,
  type TradeEvent,
  type TradeInput,
} from '../../machines/index.ts';
import { vaultAddress } from '../../src/chain/index.ts';
import { ChainClock } from '../../src/runtime/clock.ts';
import type { TradeHandle, TradeHost } from '../../src/runtime/host.ts';
import type { RestState } from '../../src/runtime/trade-record.ts';
import { ChainWatcher } from '../../src/runtime/watcher.ts';
import { WATCH_MAKER, WATCH_TAKER } from '../../src/store/index.ts';
import type { SettlementStatus } from '../../src/vocabulary/index.ts';
import {
  FakeChain,
  GENESIS,
  lockTransaction,
  takerEscrowState,
  tradeInput,
  turns,
  until,
} from './fake-chain.ts';

/** A host that hands out fixed trade handles and records every wake and every fact sent. */
class RecordingHost {
  readonly woken: string[] = [];
  readonly told = new Map<string, TradeEvent[]>();
  private readonly handles = new Map<string, TradeHandle>();

  add(input: TradeInput, status: SettlementStatus = 'pending', context: Partial<TradeContext> = {}): void {
    const snapshot = initialSnapshot(input);
    const full = { ...snapshot.context, ...context };
    const told: TradeEvent[] = [];
    this.told.set(input.tradeId, told);
    this.handles.set(input.tradeId, {
      tradeId: input.tradeId,
      meta: {
        tradeId: input.tradeId,
        quoteId: input.quoteId,
        runId: input.runId,
        takerWallet: input.takerWallet,
        createdAt: new Date().toISOString(),
        takerEscrow: input.takerEscrow,
        makerEscrow: input.makerEscrow,
      },
      snapshot: { ...snapshot, context: full },
      context: full,
      status,
      closed: false,
      send: (event) => told.push(event),
    });
  }

  async use<T>(tradeId: string, fn: (trade: TradeHandle) => Promise<T>): Promise<T> {
    this.woken.push(tradeId);
    const handle = this.handles.get(tradeId);
    if (!handle) throw new Error(`no trade ${tradeId}`);
    return fn(handle);
  }

  markObserved(): void {}
}

const silent = { info() {}, warn() {}, error() {} };

function restOf(input: TradeInput, watch = WATCH_TAKER): RestState {
  return {
    tradeId: input.tradeId,
    closed: false,
    takerEscrow: input.takerEscrow,
    makerEscrow: input.makerEscrow,
    watch,
    hold: null,
  };
}

/** N pending trades at rest, each watching its (absent) taker escrow, as settlement start stores them. */
function watching(n: number, options: { tickMs?: number; sweepIntervalMs?: number; live?: boolean } = {}) {
  const chain = new FakeChain();
  chain.setLive(options.live ?? true);
  const host = new RecordingHost();
  const stored: [string, string][] = [];
  const watcher = new ChainWatcher({
    chain,
    clock: new ChainClock(chain, 30_000),
    host: host as unknown as TradeHost,
    log: silent,
    storeSeen: (tradeId, seen) => stored.push([tradeId, seen]),
    tickMs: options.tickMs ?? 1_000,
    sweepIntervalMs: options.sweepIntervalMs ?? 10_000,
  });
  const trades = Array.from({ length: n }, () => tradeInput(chain, { runId: 'run', now: GENESIS }).input);
  for (const input of trades) {
    host.add(input);
    watcher.track(restOf(input), '-');
  }
  watcher.start();
  return { chain, host, watcher, trades, stored };
}

const nth = <T>(xs: readonly T[], i: number): T => {
  const x = xs[i];
  if (x === undefined) throw new Error(`no entry ${i}`);
  return x;
};

/** The trades each batched read covered, in order. */
const readTrades = (chain: FakeChain, trades: readonly TradeInput[]) => {
  const byEscrow = new Map(trades.map((t) => [t.takerEscrow, t.tradeId]));
  return chain.reads.map((read) => read.addresses.map((a) => byEscrow.get(a)));
};

describe('the chain watcher', () => {
  test.each([1, 250, 2_500])(
    'an idle check of %i watched trades costs ceil((N + 1) / 100) calls and wakes nobody',
    async (n) => {
      const { chain, host, watcher } = watching(n);
      await watcher.sweep(); // the first sweep reads everything once
      expect(host.woken).toEqual([]);
      expect(chain.rpc.getMultipleAccounts, `${n} escrows and the clock`).toBe(Math.ceil((n + 1) / 100));
      expect(Object.keys(chain.calls).sort()).toEqual(['readEscrowsAndClock', 'watchAccounts']);
    },
  );

  test('a changed escrow wakes exactly its trade, which is told the lock it shows', async () => {
    const { chain, host, watcher, trades, stored } = watching(250);
    const trade = nth(trades, 17);
    const lock = lockTransaction(trade);
    chain.setEscrow(trade.takerEscrow, takerEscrowState(chain, trade));
    chain.addTransaction(lock);
    await watcher.sweep();
    expect(host.woken).toEqual([trade.tradeId]);
    expect(host.told.get(trade.tradeId)).toEqual([
      { type: 'TAKER_LOCK_SEEN', signature: lock.signature },
      {
        type: 'TAKER_LOCK_FINALIZED',
        signature: lock.signature,
        terms: {
          escrow: trade.takerEscrow,
          initializer: trade.takerWallet,
          recipient: trade.makerWallet,
          mint: trade.inputMint,
          amountRaw: trade.inputAmountRaw,
          hashlock: trade.secretHash,
          expiry: trade.takerExpiry,
          lockDeadline: trade.lockDeadline,
        },
      },
    ]);
    expect(stored).toEqual([[trade.tradeId, 'L']]);
  });

  test('a trade whose fingerprint was stored is not woken again for the same chain state', async () => {
    const { chain, host, watcher, trades } = watching(250, { live: false });
    const trade = nth(trades, 3);
    chain.setEscrow(trade.takerEscrow, takerEscrowState(chain, trade));
    chain.addTransaction(lockTransaction(trade));
    await watcher.sweep();
    await watcher.sweep();
    await watcher.sweep();
    expect(host.woken).toEqual([trade.tradeId]);

    // After a restart the index comes from the store, with the fingerprint the trade last absorbed.
    const again = watching(0, { live: false });
    again.chain.setEscrow(trade.takerEscrow, takerEscrowState(again.chain, trade));
    again.host.add(trade);
    again.watcher.track(restOf(trade), 'L');
    await again.watcher.sweep();
    expect(again.host.woken).toEqual([]);
    expect(again.chain.reads).toHaveLength(1);
  });

  test('a push for an address no trade watches reads nothing and wakes nobody', async () => {
    const { chain, host } = watching(10);
    chain.push(Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58());
    await turns(20);
    expect(chain.totalCalls).toBe(1); // watchAccounts
    expect(host.woken).toEqual([]);
  });

  test('pushes of one event-loop turn are read together in one batched read', async () => {
    const { chain, host, trades } = watching(10);
    const [a, b, c] = [nth(trades, 1), nth(trades, 4), nth(trades, 7)];
    chain.setEscrow(b.takerEscrow, takerEscrowState(chain, b));
    chain.addTransaction(lockTransaction(b));
    chain.push(a.takerEscrow);
    chain.push(b.takerEscrow, Keypair.generate().publicKey.toBase58());
    chain.push(c.takerEscrow);
    await until(() => host.woken.length > 0, 'the pushed change to be delivered');
    await turns(20);
    expect(chain.reads).toHaveLength(1);
    expect(new Set(chain.reads[0]?.addresses)).toEqual(
      new Set([a.takerEscrow, b.takerEscrow, c.takerEscrow]),
    );
    expect(host.woken).toEqual([b.tradeId]);
  });

  test('trades observed at confirmed have their escrows read in one batched read, then each is observed', async () => {
    const { chain, host, watcher, trades } = watching(10);
    const [a, b, c] = [nth(trades, 2), nth(trades, 5), nth(trades, 8)];
    await watcher.observeConfirmed([a.tradeId, b.tradeId, c.tradeId]);
    expect(chain.reads).toEqual([
      {
        method: 'readEscrows',
        addresses: [a.takerEscrow, b.takerEscrow, c.takerEscrow],
        commitment: 'confirmed',
      },
    ]);
    expect(new Set(host.woken)).toEqual(new Set([a.tradeId, b.tradeId, c.tradeId]));
  });

  test('while pushes flow, each sweep reads the slice that completes a pass every sweepIntervalMs', async () => {
    // 250 trades, a tick of 1 s, a pass every 10 s: 25 trades a tick, every trade once per 10 ticks.
    const { chain, watcher, trades } = watching(250, { tickMs: 1_000, sweepIntervalMs: 10_000 });
    await watcher.sweep(); // owed at start: everything once
    expect(nth(chain.reads, 0).addresses).toHaveLength(250);
    chain.resetCounts();
    for (let tick = 0; tick < 10; tick++) await watcher.sweep();
    const slices = readTrades(chain, trades);
    expect(slices.map((slice) => slice.length)).toEqual(Array(10).fill(25));
    const covered = slices.flat();
    expect(new Set(covered).size).toBe(250);
    expect(covered).toHaveLength(250);
    expect(chain.rpc.getMultipleAccounts).toBe(10);

    await watcher.sweep(); // the next pass starts over
    expect(readTrades(chain, trades)[10]).toEqual(nth(slices, 0));
  });

  test('a full sweep lets the event loop serve what waits between its batched reads', async () => {
    // The embedded chain answers without I/O: without a yield, 100,000 trades' sweep held the loop ~0.4 s.
    const { chain, watcher } = watching(2_500);
    chain.withoutIo = true;
    let readsWhenServed = -1;
    setImmediate(() => {
      readsWhenServed = chain.reads.length;
    });
    await watcher.sweep();
    expect(chain.reads.map((read) => read.addresses.length)).toEqual([999, 999, 502]);
    expect(readsWhenServed).toBeGreaterThan(0);
    expect(readsWhenServed).toBeLessThan(3);
  });

  test('while pushes do not flow, every sweep reads every watched escrow', async () => {
    const { chain, watcher } = watching(250, { live: false });
    for (let tick = 0; tick < 3; tick++) await watcher.sweep();
    expect(chain.reads.map((read) => read.addresses.length)).toEqual([250, 250, 250]);
    expect(chain.rpc.getMultipleAccounts).toBe(3 * 3);
  });

  test('a feed whose generation moved (pushes were lost) brings one full sweep, then slices again', async () => {
    const { chain, watcher } = watching(250);
    await watcher.sweep();
    await watcher.sweep();
    chain.reconnect();
    await watcher.sweep();
    await watcher.sweep();
    await watcher.sweep();
    expect(chain.reads.map((read) => read.addresses.length)).toEqual([250, 25, 250, 25, 25]);
  });

  test('an idle tick of 299 escrows costs 1 call with pushes and 3 without: one per hundred or part of one', async () => {
    const n = 299;
    const ticks = 10;
    const perTick = async (live: boolean) => {
      const { chain, watcher } = watching(n, { live });
      await watcher.sweep(); // the first full sweep
      chain.resetCounts();
      for (let tick = 0; tick < ticks; tick++) await watcher.sweep();
      return chain.totalCalls / ticks;
    };
    for (const [live, calls] of [
      [true, await perTick(true)],
      [false, await perTick(false)],
    ] as const) {
      const per100 = calls / (n / 100);
      expect(
        calls,
        `${live ? 'pushes live' : 'no pushes'}: ${calls} calls per idle tick for ${n} escrows ` +
          `(${per100.toFixed(3)} per 100 escrows; bound: ${Math.ceil(n / 100)} calls, one per hundred or part of one)`,
      ).toBeLessThanOrEqual(Math.ceil(n / 100));
      if (live) expect(per100, 'with pushes live').toBeLessThanOrEqual(1);
    }
  });

  test('a held lock is proved dropped only by the finalized bank’s clock, not the confirmed one', async () => {
    const { chain, host, watcher } = watching(0, { live: false });
    const { input: trade } = tradeInput(chain, { runId: 'run', now: GENESIS });
    host.add(trade, 'pending', {
      lockSignature: 'held',
      lockSubmissions: [{ signature: 'held', lastValidBlockHeight: null, transactionBase64: null }],
    });
    watcher.track(restOf(trade), '-');
    const observe = () => host.use(trade.tradeId, (handle) => watcher.observe(handle));
    // Confirmed just before the deadline, not final: the confirmed clock is past the deadline, the finalized
    // bank 13 s behind it.
    chain.setEscrow(trade.takerEscrow, takerEscrowState(chain, trade), { finalized: false });
    chain.setNow(trade.lockDeadline + 5, { finalityLag: 13 });
    await observe();
    expect(host.told.get(trade.tradeId)).toEqual([]);
    // The finalized bank is past the deadline and still shows no escrow: no lock can land any more.
    chain.setEscrow(trade.takerEscrow, null);
    chain.setNow(trade.lockDeadline + 14, { finalityLag: 13 });
    await observe();
    expect(host.told.get(trade.tradeId)).toEqual([
      { type: 'TAKER_LOCK_DROPPED', now: trade.lockDeadline + 1 },
    ]);
  });

  test('the lock signature is the oldest in the escrow history, paged back with `before` however long', async () => {
    const { chain, host, watcher, trades } = watching(1, { live: false });
    const trade = nth(trades, 0);
    const lock = lockTransaction(trade);
    chain.addTransaction(lock);
    // Donations and other transfers touching the escrow after the lock: more than one page of history.
    for (let i = 0; i < 1_200; i++)
      chain.addTransaction(lockTransaction(trade, bs58.encode(randomBytes(64))));
    chain.setEscrow(trade.takerEscrow, takerEscrowState(chain, trade));
    await watcher.sweep();
    expect(host.told.get(trade.tradeId)?.[0]).toEqual({ type: 'TAKER_LOCK_SEEN', signature: lock.signature });
    expect(chain.calls.signaturesForAddress).toBe(2);
  });

  test('a closed taker escrow is reported by where its vault’s tokens went: back to the taker', async () => {
    const { chain, host, watcher } = watching(0, { live: false });
    const { input: trade } = tradeInput(chain, { runId: 'run', now: GENESIS });
    const lock = lockTransaction(trade);
    host.add(trade, 'initiated', { signatures: [{ kind: 'taker_lock', signature: lock.signature }] });
    // Last absorbed: the taker escrow locked, no maker escrow yet.
    watcher.track(restOf(trade, WATCH_TAKER | WATCH_MAKER), 'L-');
    const vault = vaultAddress(chain.programId, new PublicKey(trade.takerEscrow))[0].toBase58();
    const takerAccount = Keypair.generate().publicKey.toBase58();
    const amount = BigInt(trade.inputAmountRaw);
    const balance = (account: string, owner: string, pre: bigint, post: bigint) => ({
      account,
      mint: trade.inputMint,
      owner,
      pre,
      post,
    });
    chain.addTransaction({
      ...lock,
      tokenBalances: [balance(vault, trade.takerEscrow, 0n, amount)],
    });
    const refund = {
      ...lockTransaction(trade),
      accountKeys: [trade.takerWallet, trade.takerEscrow, vault, takerAccount],
      tokenBalances: [
        balance(vault, trade.takerEscrow, amount, 0n),
        balance(takerAccount, trade.takerWallet, 0n, amount),
      ],
    };
    chain.addTransaction(refund);
    // The escrow account itself is gone (closed after the refund): only the history tells.
    await watcher.sweep();
    expect(host.woken).toEqual([trade.tradeId]);
    expect(host.told.get(trade.tradeId)).toEqual([
      { type: 'TAKER_ESCROW_REFUNDED', signature: refund.signature },
    ]);
  });
});
