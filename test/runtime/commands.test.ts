// The trade commands on the real runtime (host, watcher, scheduler, commands, queries over a temp store,
// group-committed), with only the chain faked: what each command reads of the chain, what it refuses and
// with which code, and that a refusal or an unreachable chain leaves the store as it was.
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { takerLockTransaction, unsignedBase64 } from '../../src/chain/transactions.ts';
import { isRuntimeError, type RuntimeError } from '../../src/runtime/index.ts';
import {
  FakeChain,
  type Harness,
  lockTransaction,
  newSecret,
  openHarness,
  takerEscrowState,
  turns,
  until,
  walletSign,
} from './fake-chain.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function started(options: { lockWaitMs?: number } = {}) {
  h = await openHarness(new FakeChain('rpc'));
  await h.start(options);
  return h;
}

/** The RuntimeError a command rejected with (fails the test if it resolved or threw something else). */
async function refusal(command: Promise<unknown>): Promise<RuntimeError> {
  const error = await command.then(
    () => new Error('the command was not refused'),
    (e: unknown) => e,
  );
  if (!isRuntimeError(error)) throw error;
  return error;
}

/** What the store holds of a trade: its row and its history (to show a command changed nothing). */
const stored = async (harness: Harness, tradeId: string) => ({
  trade: await harness.store.getTrade(tradeId),
  events: (await harness.store.tradeEvents(tradeId)).map((e) => e.type),
});

type Started = Awaited<ReturnType<Harness['startTrade']>>;

/** A lock of the trade's escrow built with the trade's terms changed by `change`, signed by the taker. */
function lockWith(harness: Harness, trade: Started, change: (terms: LockTerms) => LockTerms): string {
  const { input } = trade;
  const terms = change({
    taker: trade.taker.publicKey,
    inputMint: new PublicKey(input.inputMint),
    outputMint: new PublicKey(input.outputMint),
    amount: BigInt(input.inputAmountRaw),
    hashlock: Buffer.from(input.secretHash, 'hex'),
    expiry: BigInt(input.takerExpiry),
    lockDeadline: BigInt(input.lockDeadline),
  });
  const lifetime = { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1 };
  const tx = takerLockTransaction(harness.chain.programId, harness.chain.makerWallet, lifetime, terms);
  return walletSign(unsignedBase64(tx), trade.taker);
}
type LockTerms = Parameters<typeof takerLockTransaction>[3];

describe('settlement start', () => {
  test('a new trade is born at rest: stored, its escrow watched, no actor in memory', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    expect(harness.runtime.host.isActive(trade.tradeId)).toBe(false);
    expect(harness.runtime.host.activeCount).toBe(0);
    expect(harness.runtime.watcher.size).toBe(1);
    expect(await stored(harness, trade.tradeId)).toMatchObject({
      trade: { status: 'pending', seen: '-', ownerRunId: harness.runId },
      events: ['SETTLEMENT_STARTED'],
    });
    expect(harness.chain.calls.buildTakerLock).toBe(1);
  });

  test('the first sweep after settlement start finds the escrow as stored and wakes no trade', async () => {
    const harness = await started();
    for (let i = 0; i < 3; i++) await harness.startTrade();
    const use = vi.spyOn(harness.runtime.host, 'use');
    await harness.runtime.watcher.sweep();
    await turns();
    expect(use.mock.calls.map(([id]) => id)).toEqual([]);
  });
});

describe('POST /lock: the wallet-signed lock is checked before anything is sent', () => {
  test.each([
    ['another amount', (t: LockTerms) => ({ ...t, amount: t.amount + 1n }), 'data differs from byte 66'],
    ['another expiry', (t: LockTerms) => ({ ...t, expiry: t.expiry + 60n }), 'data differs from byte 74'],
    ['another lock deadline', (t: LockTerms) => ({ ...t, lockDeadline: t.lockDeadline - 1n }), 'byte 82'],
    ['another hashlock', (t: LockTerms) => ({ ...t, hashlock: Buffer.alloc(32, 7) }), 'account 1 is'],
  ])('a lock with %s is refused as lock_mismatch, and nothing is submitted', async (_, change, problem) => {
    const harness = await started();
    const trade = await harness.startTrade();
    const before = await stored(harness, trade.tradeId);
    harness.chain.resetCounts();
    const error = await refusal(
      harness.runtime.commands.submitLock(trade.tradeId, {
        transactionBase64: lockWith(harness, trade, change),
      }),
    );
    expect(error.code).toBe('lock_mismatch');
    expect(error.invalid?.input).toBe('transaction');
    expect(error.invalid?.problem).toMatch(/changes instruction \d \(htlc\)/);
    expect(error.invalid?.problem).toContain(problem);
    expect(harness.chain.calls.submitSigned ?? 0).toBe(0);
    expect(harness.chain.totalCalls).toBe(0);
    expect(await stored(harness, trade.tradeId)).toEqual(before);
  });

  test('the lock as handed out but unsigned is refused as invalid_input, and nothing is submitted', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    harness.chain.resetCounts();
    const error = await refusal(
      harness.runtime.commands.submitLock(trade.tradeId, { transactionBase64: trade.lock }),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.invalid).toEqual({ input: 'transaction', problem: 'is not signed by taker_wallet' });
    expect(harness.chain.totalCalls).toBe(0);
  });

  test('the lock paid for and signed by a stranger is refused as lock_mismatch, and nothing is submitted', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    const tx = Transaction.from(Buffer.from(trade.lock, 'base64'));
    const stranger = Keypair.generate();
    tx.feePayer = stranger.publicKey;
    tx.partialSign(stranger);
    const strangers = tx.serialize({ requireAllSignatures: false }).toString('base64');
    harness.chain.resetCounts();
    const error = await refusal(
      harness.runtime.commands.submitLock(trade.tradeId, { transactionBase64: strangers }),
    );
    expect(error.code).toBe('lock_mismatch');
    expect(error.invalid?.problem).toContain(`is paid for by ${stranger.publicKey.toBase58()}`);
    expect(harness.chain.totalCalls).toBe(0);
  });

  test('the agreed lock is submitted once, and the trade is initiated once the chain shows it final', async () => {
    const harness = await started({ lockWaitMs: 2_000 });
    const trade = await harness.startTrade();
    harness.chain.setEscrow(trade.input.takerEscrow, takerEscrowState(harness.chain, trade.input));
    harness.chain.addTransaction(lockTransaction(trade.input));
    const reading = await harness.runtime.commands.submitLock(trade.tradeId, {
      transactionBase64: walletSign(trade.lock, trade.taker),
    });
    expect(harness.chain.calls.submitSigned).toBe(1);
    expect(reading.status).toBe('initiated');
    expect((await harness.store.tradeEvents(trade.tradeId)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['LOCK_SUBMITTED', 'TAKER_LOCK_FINALIZED']),
    );
  });
});

describe('abandon, redeem and refund', () => {
  test('abandon reads the chain first: a lock seen there refuses it with lock_signature_exists', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    // Landed, not final yet: visible at `confirmed`, which is what abandon reads at.
    harness.chain.setEscrow(trade.input.takerEscrow, takerEscrowState(harness.chain, trade.input), {
      finalized: false,
    });
    const lock = lockTransaction(trade.input);
    harness.chain.addTransaction(lock, { finalized: false });
    harness.chain.resetCounts();
    const error = await refusal(harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash));
    expect(error.code).toBe('lock_signature_exists');
    expect(harness.chain.reads.map((r) => [r.addresses, r.commitment])).toEqual([
      [[trade.input.takerEscrow], 'confirmed'],
    ]);
    expect(harness.chain.calls.signaturesForAddress).toBe(1);
    // What the chain showed is recorded; the abandon is not.
    await turns();
    const after = await stored(harness, trade.tradeId);
    expect(after.events).toEqual(['SETTLEMENT_STARTED', 'TAKER_LOCK_SEEN']);
    expect(after.trade?.substate).toBe('pending.lockSeen');
  });

  test('a refusal caused by a fact just observed is answered only once that fact is durable', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    harness.chain.setEscrow(trade.input.takerEscrow, takerEscrowState(harness.chain, trade.input), {
      finalized: false,
    });
    harness.chain.addTransaction(lockTransaction(trade.input), { finalized: false });
    await refusal(harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash));
    // No turn of the event loop in between: the answer leaves now.
    expect((await stored(harness, trade.tradeId)).events).toEqual(['SETTLEMENT_STARTED', 'TAKER_LOCK_SEEN']);
  });

  test('abandon with nothing on chain fails the trade as abandoned', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    const reading = await harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash);
    expect(reading.status).toBe('failed');
    expect(reading.snapshot.context.failureReason).toBe('abandoned');
    expect((await stored(harness, trade.tradeId)).events).toEqual(['SETTLEMENT_STARTED', 'ABANDON']);
  });

  test('abandon with another commitment is refused as secret_hash_mismatch without reading the chain', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    harness.chain.resetCounts();
    const error = await refusal(harness.runtime.commands.abandon(trade.tradeId, newSecret().secretHash));
    expect(error.code).toBe('secret_hash_mismatch');
    expect(harness.chain.totalCalls).toBe(0);
  });

  test('redeem and refund refusals carry the machine’s refusal codes, and store nothing', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    const before = await stored(harness, trade.tradeId);
    const { commands } = harness.runtime;
    expect((await refusal(commands.redeem(trade.tradeId, trade.secret.preimage))).code).toBe(
      'not_redeemable',
    );
    expect((await refusal(commands.redeem(trade.tradeId, newSecret().preimage))).code).toBe(
      'preimage_mismatch',
    );
    expect((await refusal(commands.refund(trade.tradeId))).code).toBe('not_refundable');
    await turns();
    expect(await stored(harness, trade.tradeId)).toEqual(before);
  });

  test('a command on an unknown trade answers trade_not_found', async () => {
    const harness = await started();
    expect((await refusal(harness.runtime.commands.refund(crypto.randomUUID()))).code).toBe(
      'trade_not_found',
    );
  });
});

describe('the chain unreachable', () => {
  const commands: [string, (harness: Harness, trade: Started) => Promise<unknown>][] = [
    ['settlement start', async (harness) => harness.startTrade()],
    ['abandon', (harness, trade) => harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash)],
    ['redeem', (harness, trade) => harness.runtime.commands.redeem(trade.tradeId, trade.secret.preimage)],
    ['refund', (harness, trade) => harness.runtime.commands.refund(trade.tradeId)],
  ];

  test.each(commands)('%s answers chain_unavailable and changes nothing in the store', async (_, command) => {
    const harness = await started();
    const trade = await harness.startTrade();
    const before = await stored(harness, trade.tradeId);
    const trades = (await harness.store.listTrades({ limit: 100 })).length;
    harness.chain.unreachable();
    expect((await refusal(command(harness, trade))).code).toBe('chain_unavailable');
    await turns();
    expect(await stored(harness, trade.tradeId)).toEqual(before);
    expect(await harness.store.listTrades({ limit: 100 })).toHaveLength(trades);
    expect(harness.chain.submitted).toEqual([]);
  });

  test('a lock handed over while the chain cannot be reached is held and broadcast until it lands', async () => {
    const harness = await started({ lockWaitMs: 100 });
    const trade = await harness.startTrade();
    const signed = walletSign(trade.lock, trade.taker);
    harness.chain.unreachable();
    // Nobody could say whether it arrived: chain_unavailable, but the lock is held (abandon is refused now).
    expect(
      (await refusal(harness.runtime.commands.submitLock(trade.tradeId, { transactionBase64: signed }))).code,
    ).toBe('chain_unavailable');
    expect((await stored(harness, trade.tradeId)).trade).toMatchObject({
      substate: 'pending.broadcastingLock',
    });
    expect(
      (await refusal(harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash))).code,
    ).toBe('chain_unavailable');
    await until(() => (harness.chain.calls.land ?? 0) > 0, 'the held lock to be broadcast');
    expect(harness.chain.submitted).toEqual([]);

    // The chain answers again: the broadcast lands the bytes, and the lock on chain moves the trade on — the
    // taker posted nothing more.
    harness.chain.reachable();
    await until(() => harness.chain.submitted.includes(signed), 'the held lock to reach the chain');
    harness.chain.setEscrow(trade.input.takerEscrow, takerEscrowState(harness.chain, trade.input));
    await harness.runtime.watcher.checkAll([trade.tradeId]);
    await until(
      async () => (await harness.store.getTrade(trade.tradeId))?.status === 'initiated',
      'the trade to see its lock',
    );
    expect((await harness.store.tradeEvents(trade.tradeId)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['LOCK_SUBMITTED', 'TAKER_LOCK_FINALIZED']),
    );
  });

  test('the same lock posted again is broadcast again at once', async () => {
    const harness = await started({ lockWaitMs: 50 });
    const trade = await harness.startTrade();
    const signed = walletSign(trade.lock, trade.taker);
    expect(
      (await refusal(harness.runtime.commands.submitLock(trade.tradeId, { transactionBase64: signed }))).code,
    ).toBe('lock_not_found');
    const sent = harness.chain.submitted.filter((tx) => tx === signed).length;
    expect(
      (await refusal(harness.runtime.commands.submitLock(trade.tradeId, { transactionBase64: signed }))).code,
    ).toBe('lock_not_found');
    expect(harness.chain.submitted.filter((tx) => tx === signed).length).toBeGreaterThan(sent);
  });
});

describe('virtual actors', () => {
  test('a trade at rest has no actor; a command activates it, and it rests again once it waits', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    const { host } = harness.runtime;
    expect(host.isActive(trade.tradeId)).toBe(false);
    const activated: boolean[] = [];
    const use = host.use.bind(host);
    vi.spyOn(host, 'use').mockImplementation((tradeId, fn) =>
      use(tradeId, async (handle) => {
        activated.push(host.isActive(tradeId));
        return fn(handle);
      }),
    );
    await harness.runtime.commands.abandon(trade.tradeId, trade.secret.secretHash);
    expect(activated).toEqual([true]);
    await until(() => !host.isActive(trade.tradeId), 'the trade to be passivated');
    expect(host.activeCount).toBe(0);
  });

  test('a refused command leaves no actor behind', async () => {
    const harness = await started();
    const trade = await harness.startTrade();
    const { host } = harness.runtime;
    await refusal(harness.runtime.commands.redeem(trade.tradeId, newSecret().preimage));
    await until(() => !host.isActive(trade.tradeId), 'the trade to be passivated after a refusal');
    expect(host.activeCount).toBe(0);
  });
});

describe('a new run', () => {
  test('started while the chain cannot be reached, it takes up every earlier trade and acts on each the moment the chain answers, with no command', async () => {
    const harness = await started();
    const a = await harness.startTrade();
    const b = await harness.startTrade();
    harness.chain.unreachable();
    const runtime = await harness.start();
    // Owned, watched and answering at once: nothing waits for /resume.
    expect(runtime.watcher.size).toBe(2);
    for (const { tradeId } of [a, b]) {
      expect(await harness.store.getTrade(tradeId)).toMatchObject({ adoptionError: null });
      expect((await runtime.queries.trade(tradeId)).ownerRunId).toBe(harness.runId);
    }
    // The failed clock read at start made the chain suspect; its own probe confirms the outage.
    await until(() => runtime.reachability.current !== null, 'the outage to be confirmed');

    // Both lock windows pass during the outage. The chain answers again (its own probe finds out): the due
    // deadlines are judged at once, not a tick later.
    harness.chain.setNow(b.input.lockDeadline + 5);
    harness.chain.reachable();
    await until(
      async () =>
        (await Promise.all([a, b].map((t) => harness.store.getTrade(t.tradeId)))).every(
          (t) => t?.status === 'failed',
        ),
      'both trades to fail at their deadline',
    );
    expect(runtime.reachability.current).toBeNull();
    for (const { tradeId } of [a, b]) {
      const events = (await harness.store.tradeEvents(tradeId)).map((e) => e.type);
      // Failed at the deadline, then closed: its window is over too (failed.noLock).
      expect(events).toEqual(['SETTLEMENT_STARTED', 'ADOPTED', 'CHAIN_TIME_ADVANCED', 'CHAIN_TIME_ADVANCED']);
    }
  });

  test('resume is never needed: while the chain is unreachable it answers chain_unavailable and changes nothing', async () => {
    const harness = await started();
    const a = await harness.startTrade();
    harness.chain.unreachable();
    const runtime = await harness.start();
    const before = await stored(harness, a.tradeId);
    expect((await refusal(runtime.commands.resume(a.tradeId))).code).toBe('chain_unavailable');
    await turns();
    expect(await stored(harness, a.tradeId)).toEqual(before);
  });
});
