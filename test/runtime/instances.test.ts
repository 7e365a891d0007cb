// Several instances over one PostgreSQL, each a real runtime (host, watcher, scheduler, commands, desk) on
// its own store connection, sharing one fake chain: ownership by lease, takeover of a lost run's trades,
// the fence against a run that lost its lease, commands for another instance's trade, and reservations
// that hold across instances.
import { Keypair } from '@solana/web3.js';
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { TradeOwnedElsewhere } from '../../src/cluster/index.ts';
import type { SharedStore } from '../../src/store/index.ts';
import { POSTGRES_TESTS, testDatabaseUrl } from '../support/postgres.ts';
import type { ConfigDocument } from '../support/service.ts';
import {
  FakeChain,
  type Harness,
  lockTransaction,
  newSecret,
  openHarness,
  takerEscrowState,
  until,
} from './fake-chain.ts';

const LEASE_MS = 600;
/**
 * The lease of the test that makes 3,000 trades first: on a loaded machine those writes can hold a's
 * renewals past a 600 ms lease, and a lease lost by accident is not what that test is about.
 */
const BATCHES_LEASE_MS = 3_000;
let open: Harness[] = [];
afterEach(async () => {
  await Promise.allSettled(open.map((h) => h.close()));
  open = [];
});

/** `n` instances of one cluster: one database, one chain, each started (a run with a lease). */
async function cluster(
  n: number,
  chain = new FakeChain('rpc'),
  change: (doc: ConfigDocument) => void = () => {},
  leaseTtlMs = LEASE_MS,
) {
  const databaseUrl = await testDatabaseUrl();
  const instances: Harness[] = [];
  for (let i = 0; i < n; i++) {
    const h = await openHarness(chain, change, { databaseUrl, leaseTtlMs });
    open.push(h);
    await h.start();
    instances.push(h);
  }
  return { chain, databaseUrl, instances };
}

const nth = (xs: Harness[], i: number) => xs[i] as Harness;

/** The error a promise rejected with (fails the test if it resolved). */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe.skipIf(!POSTGRES_TESTS)('several instances over one PostgreSQL', () => {
  test('a command for a trade another live instance owns is refused here, naming the owner to forward to', async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const trade = await a.startTrade();
    const error = await rejection(b.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash));
    expect(error).toBeInstanceOf(TradeOwnedElsewhere);
    expect(error).toMatchObject({ ownerRunId: a.runId, ownerUrl: `http://run-${a.runId}.test` });
    // Nothing moved: the owner still has it pending, and b never wrote to it.
    expect(await a.store.getTrade(trade.tradeId)).toMatchObject({ status: 'pending', ownerRunId: a.runId });
    expect((await b.store.tradeEvents(trade.tradeId)).map((e) => e.runId)).toEqual([a.runId]);
    // Reads are served anywhere, and say who owns the trade (current_run is the owner's alone).
    const atB = await b.runtime.queries.trade(trade.tradeId);
    expect(atB).toMatchObject({ status: 'pending', ownerRunId: a.runId, currentRunId: b.runId });
    expect((await a.runtime.queries.trade(trade.tradeId)).ownerRunId).toBe(a.runId);
  });

  test('a run that stops renewing loses its trades to a live instance within about a lease', async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const trade = await a.startTrade();
    // a is gone without a word (kill -9): no renewal, no stopRun.
    await a.runtime.stop();
    const stoppedAt = Date.now();
    await until(
      async () => (await b.store.getTrade(trade.tradeId))?.ownerRunId === b.runId,
      'b claims the orphan',
      LEASE_MS * 4,
    );
    const tookMs = Date.now() - stoppedAt;
    expect(tookMs).toBeLessThan(LEASE_MS * 2);
    // b acts on it now, and its history says who adopted it.
    await b.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash);
    const events = await b.store.tradeEvents(trade.tradeId);
    expect(events.map((e) => [e.type, e.runId])).toEqual([
      ['SETTLEMENT_STARTED', a.runId],
      ['ADOPTED', b.runId],
      ['ABANDON', b.runId],
    ]);
  });

  test('a lost run holding many batches of trades loses them all to a live instance within about a lease, not a batch per renewal', async () => {
    const { instances } = await cluster(2, new FakeChain('rpc'), () => {}, BATCHES_LEASE_MS);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    // 30 batches (the harness takes 100 a statement): a batch per renewal (a third of a lease) would take
    // ten leases; a drain takes them within about one after a's lapses.
    const count = 3_000;
    // A hundred at a time: the loop must stay free for a's renewals meanwhile.
    for (let made = 0; made < count; made += 100) {
      await Promise.all(Array.from({ length: 100 }, () => a.insertTrade()));
    }
    await a.runtime.stop();
    const stoppedAt = Date.now();
    await until(
      async () => (await b.runtime.ownership.trades.restIndex()).length === count,
      'b owns every one of them',
      BATCHES_LEASE_MS * 10,
    );
    expect(Date.now() - stoppedAt).toBeLessThan(BATCHES_LEASE_MS * 5);
    expect(b.runtime.watcher.size).toBe(count);
    // Making the 3,000 trades first takes most of it: over 30 s on a loaded machine.
  }, 120_000);

  test('what the chain did while a trade had no live owner is read as soon as a run takes it over', async () => {
    const { chain, instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const trade = await a.startTrade();
    await a.runtime.stop();
    // The taker's lock lands while a is dead: its push reaches nobody (b does not watch a's escrows yet).
    chain.setEscrow(trade.input.takerEscrow, takerEscrowState(chain, trade.input));
    chain.addTransaction(lockTransaction(trade.input));
    // b's ticker is a minute away (no sweep): only the takeover itself can notice the lock.
    await until(
      async () =>
        (await b.store.tradeEvents(trade.tradeId)).some(
          (e) => e.type === 'TAKER_LOCK_SEEN' && e.runId === b.runId,
        ),
      'b sees the lock',
      LEASE_MS * 5,
    );
  });

  test("an instance's live streams hear the events other instances make durable", async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const heard: string[] = [];
    b.runtime.onEvents((tradeId) => heard.push(tradeId));
    const trade = await a.startTrade();
    await until(async () => heard.includes(trade.tradeId), "b hears a's new trade");
  });

  test('a graceful stop hands the trades over at once', async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const trade = await a.startTrade();
    await a.runtime.stop();
    await a.store.stopRun(a.runId, new Date().toISOString());
    const stoppedAt = Date.now();
    await until(async () => (await b.store.getTrade(trade.tradeId))?.ownerRunId === b.runId, 'b claims');
    // Within one claim period (a third of a lease), not a whole lease.
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS);
  });

  test('the fence: a run whose lease lapsed mid-command cannot write, and stops acting', async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const trade = await a.startTrade();
    // a freezes where it renews (SIGSTOP, a partition): its lease lapses while it holds the trade's actor.
    vi.spyOn(a.store as SharedStore, 'renewLease').mockImplementation(() => new Promise(() => {}));
    const command = a.runtime.host.use(trade.tradeId, async (handle) => {
      await until(
        async () => (await b.store.getTrade(trade.tradeId))?.ownerRunId === b.runId,
        'b takes the lapsed trade',
        LEASE_MS * 4,
      );
      handle.send({ type: 'ABANDON', secretHash: trade.secret.secretHash });
    });
    await expect(command).rejects.toMatchObject({ code: 'runtime_unavailable' });
    // The store refused a's transition: nothing of a's reached the trade after b took it.
    const stored = await b.store.getTrade(trade.tradeId);
    expect(stored).toMatchObject({ ownerRunId: b.runId, status: 'pending' });
    const events = await b.store.tradeEvents(trade.tradeId);
    expect(events.filter((e) => e.runId === a.runId).map((e) => e.type)).toEqual(['SETTLEMENT_STARTED']);
    // a knows it lost its lease, and its runtime stopped.
    await until(async () => a.leaseLost.length > 0, 'a notices');
    // By the fence, or by its own clock (no renewal confirmed): whichever it meets first.
    expect(a.leaseLost[0]).toMatch(/refused a write|no renewal confirmed/);
    // b serves the trade.
    await b.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash);
    expect((await b.store.getTrade(trade.tradeId))?.status).toBe('failed');
  });

  test('a settlement start by a run whose lease the store no longer honours answers 503 and stops the run', async () => {
    // A lease whose next renewal is far off: the refused write is what notices (with the usual 600 ms lease a
    // renewal could come first on a loaded machine, and give a up for the store's answer instead).
    const { instances } = await cluster(2, new FakeChain('rpc'), () => {}, 30_000);
    const a = nth(instances, 0);
    // The store ends a's lease (as a lapse would) while a still believes in it.
    await a.store.stopRun(a.runId, new Date().toISOString());
    await expect(a.startTrade()).rejects.toMatchObject({ code: 'runtime_unavailable' });
    // Not "secret_hash_reused": the commitment is free, and nothing was stored.
    await until(async () => a.leaseLost.length > 0, 'a notices');
    expect(a.leaseLost[0]).toMatch(/refused a write/);
  });

  test('a settlement retried at the instance that made the quote, after another started it, is the same trade', async () => {
    const { instances } = await cluster(2);
    const [a, b] = [nth(instances, 0), nth(instances, 1)];
    const taker = Keypair.generate().publicKey.toBase58();
    const secret = newSecret();
    const quote = await a.quotes.requestQuote({
      inputAsset: 'SOL',
      outputAsset: 'USDC',
      amount: '1',
      takerWallet: taker,
    });
    if (quote.status !== 'accepted') throw new Error('quote rejected');
    // b starts it (the load balancer sent the first request there); the retry reaches a, which quoted it.
    const first = await b.runtime.commands.startSettlement(quote.quoteId, taker, secret.secretHash);
    const retry = await a.runtime.commands.startSettlement(quote.quoteId, taker, secret.secretHash);
    expect(first.created).toBe(true);
    expect(retry.created).toBe(false);
    expect(retry.trade.snapshot.context.tradeId).toBe(first.trade.snapshot.context.tradeId);
    // a reads it as used, like every instance.
    expect((await a.quotes.getQuote(quote.quoteId))?.state).toBe('used');
  });

  test('reservations hold across instances: concurrent RFQs on three desks never reserve more than the maker holds', async () => {
    const chain = new FakeChain('rpc');
    // 1,000 USDC of inventory: each 1 SOL quote reserves ~187 USDC of it.
    chain.makerBalance = 1_000_000_000n;
    // No budget below the inventory: every quote holds its output in full, as the store checks.
    const { instances } = await cluster(3, chain, (doc) => {
      doc.reservations = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(2), fc.constantFrom('0.5', '1', '2', '3')), { minLength: 3, maxLength: 24 }),
        async (requests) => {
          const answers = await Promise.all(
            requests.map(([i, amount]) =>
              nth(instances, i).quotes.requestQuote({
                inputAsset: 'SOL',
                outputAsset: 'USDC',
                amount,
                takerWallet: Keypair.generate().publicKey.toBase58(),
                expirySeconds: 1,
              }),
            ),
          );
          let accepted = 0n;
          for (const answer of answers) {
            if (answer.status === 'accepted') accepted += answer.outputRaw;
            else expect(answer.reasons.map((r) => r.check)).toContain('inventory');
          }
          expect(accepted).toBeLessThanOrEqual(chain.makerBalance);
          // Let this round's quotes expire before the next.
          await new Promise((resolve) => setTimeout(resolve, 1_100));
        },
      ),
      { numRuns: 6 },
    );
  });
});
