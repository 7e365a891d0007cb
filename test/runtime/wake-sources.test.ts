import { afterEach, describe, expect, test } from 'vitest';
import { createChain } from '../../src/chain/index.ts';
import { createService, embeddedChainOptions, type Service } from '../../src/service.ts';
import { startService, type TestService, testStore } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';

let service: TestService | undefined;
let next: Service | undefined;
afterEach(async () => {
  await next?.close();
  await service?.dispose();
  service = undefined;
  next = undefined;
});

const start = () => startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000 });

/** Polls until the trade's actor has gone to rest (passivated), or fails. */
async function atRest(s: Service, tradeId: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (s.runtime.host.isActive(tradeId)) {
    if (Date.now() > until) throw new Error(`trade ${tradeId} never went to rest`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A trade in initiated.makerLocked, at rest: both escrows funded, waiting for the taker's redeem. */
async function makerLockedTrade(s: Service) {
  const taker = new Taker(s.app);
  await taker.airdrop('SOL', '3');
  const quote = await taker.quote('SOL', 'USDC', '1');
  const secret = newSecret();
  const settlement = (await taker.settle(quote.quote_id, secret)).json();
  const tradeId = settlement.trade_id as string;
  expect((await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64)).statusCode).toBe(
    202,
  );
  const locked = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
  await atRest(s, tradeId);
  return { taker, tradeId, secret, locked };
}

describe('virtual actors: each wake source activates a trade at rest', () => {
  test('a new trade is born at rest; a command activates it, and it rests again once it waits', async () => {
    service = await start();
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1');
    const settlement = (await taker.settle(quote.quote_id, newSecret())).json();
    const tradeId = settlement.trade_id as string;
    expect(service.runtime.host.isActive(tradeId)).toBe(false);
    expect(service.runtime.host.activeCount).toBe(0);
    expect((await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64)).statusCode).toBe(
      202,
    );
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    await atRest(service, tradeId);
    expect(service.runtime.host.activeCount).toBe(0);
    const events = (await taker.get(`/v1/trades/${tradeId}/events`))
      .json()
      .events.map((e: { type: string }) => e.type);
    expect(events).toContain('LOCK_SUBMITTED');
    expect(events).toContain('TAKER_LOCK_FINALIZED');
  });

  test('a change on chain: the taker redeems the maker escrow itself; the push wakes the trade and the maker redeems', async () => {
    service = await start();
    const { taker, tradeId, secret } = await makerLockedTrade(service);
    const wallet = await taker.post(`/v1/trades/${tradeId}/redeem?mode=wallet`, {
      preimage: secret.preimage,
    });
    expect(wallet.statusCode).toBe(200);
    expect(service.runtime.host.isActive(tradeId)).toBe(false);
    await service.chain.submitSigned(
      signAsWallet(wallet.json().transaction.transaction_base64, taker.wallet),
    );
    const done = await taker.waitFor(
      tradeId,
      (t) => t.settlement_status === 'redeemed' && t.substate === 'redeemed.closed',
    );
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'maker_lock',
      'taker_redeem',
      'maker_redeem',
    ]);
    expect(done.ledger_summary.balanced).toBe(true);
  });

  test('a due deadline: a pending trade at rest fails when its lock window ends, with no command', async () => {
    service = await start();
    const taker = new Taker(service.app);
    const quote = await taker.quote('SOL', 'USDC', '1');
    const settlement = (await taker.settle(quote.quote_id, newSecret())).json();
    const tradeId = settlement.trade_id as string;
    expect(service.runtime.host.isActive(tradeId)).toBe(false);
    const toDeadline = Date.parse(settlement.lock_deadline) / 1000 - Date.now() / 1000;
    await service.devChain?.advanceClock(Math.ceil(toDeadline) + 2);
    const failed = await taker.waitFor(tradeId, (t) => t.settlement_status === 'failed');
    expect(failed.failure_reason).toBe('lock_window_expired');
    await atRest(service, tradeId);
  });

  test('a restart: a trade whose escrow changed while no process ran is found by the first sweep', async () => {
    service = await start();
    const { taker, tradeId, secret } = await makerLockedTrade(service);
    const wallet = await taker.post(`/v1/trades/${tradeId}/redeem?mode=wallet`, {
      preimage: secret.preimage,
    });
    const signed = signAsWallet(wallet.json().transaction.transaction_base64, taker.wallet);
    await service.close();

    // While the service is down, the taker redeems the maker escrow on the (persistent) chain.
    const chain = createChain(embeddedChainOptions(service.dataDir, service.config));
    await chain.submitSigned(signed);
    await chain.close();

    next = await createService({
      dataDir: service.dataDir,
      config: service.config,
      pollIntervalMs: 50,
      // TEST_STORE=postgres: the same database as the first run's.
      ...(await testStore(service.dataDir)),
    });
    const t2 = new Taker(next.app);
    const done = await t2.waitFor(tradeId, (t) => t.substate === 'redeemed.closed');
    expect(done.run_id).toBe(service.runId);
    expect(done.current_run).toBe(true);
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toContain('maker_redeem');
    const events = (await t2.get(`/v1/trades/${tradeId}/events`))
      .json()
      .events.map((e: { type: string }) => e.type);
    expect(events).toContain('ADOPTED');
    expect(events).toContain('MAKER_ESCROW_REDEEMED');
  });
});
