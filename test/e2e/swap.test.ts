// The whole atomic swap over HTTP on the embedded defaults, with a real taker keypair.
import { PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { ata } from '../../src/chain/index.ts';
import { createService } from '../../src/service.ts';
import { SOL_MINT as SOL, USDC_MINT as USDC } from '../support/mints.ts';
import { startService, type TestService, testStore } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const start = () => startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000 });

async function lockedTrade(s: TestService, amount = '1.5') {
  const taker = new Taker(s.app);
  await taker.airdrop('SOL', '5');
  const quote = await taker.quote('SOL', 'USDC', amount);
  const secret = newSecret();
  const settled = await taker.settle(quote.quote_id, secret);
  expect(settled.statusCode).toBe(201);
  const settlement = settled.json();
  const locked = await taker.lock(settlement.trade_id, settlement.taker_lock_transaction.transaction_base64);
  expect(locked.statusCode, locked.body).toBe(202);
  return { taker, quote, secret, settlement, tradeId: settlement.trade_id as string, locked: locked.json() };
}

const tokenBalance = (s: TestService, owner: string, mint: string) =>
  s.chain.tokenBalance(new PublicKey(owner), new PublicKey(mint));

describe('the atomic swap over HTTP', () => {
  test('redeemed: lock, maker lock, redeem with the preimage, maker redeem', async () => {
    service = await start();
    const { taker, quote, secret, tradeId, locked, settlement } = await lockedTrade(service);
    expect(settlement.next_action).toEqual({
      type: 'submit_lock',
      method: 'POST',
      path: `/v1/trades/${tradeId}/lock`,
    });
    expect(locked.settlement_status).toBe('initiated');
    const ready = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    expect(ready.next_action).toEqual({
      type: 'redeem',
      method: 'POST',
      path: `/v1/trades/${tradeId}/redeem`,
    });
    expect(ready.redeem_by).toEqual(expect.any(String));
    const redeem = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(redeem.statusCode, redeem.body).toBe(202);
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed' && !t.next_action);
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'maker_lock',
      'taker_redeem',
      'maker_redeem',
    ]);
    expect(done.tx_signatures).toEqual(
      done.tx_signature_kinds.map((s: { signature: string }) => s.signature),
    );
    expect(done.ledger_summary.balanced).toBe(true);
    expect(done.ledger_summary.entry_count).toBeGreaterThanOrEqual(8);
    expect(done.amounts.output).toEqual({
      asset: 'USDC',
      amount_raw: Number(quote.quoted_output_amount_raw),
    });
    // The taker holds exactly the quoted output; the maker holds the taker's input.
    expect(await tokenBalance(service, taker.address, USDC)).toBe(BigInt(quote.output.amount_raw));
    const makerSol = await tokenBalance(service, service.chain.makerWallet.toBase58(), SOL);
    expect(makerSol).toBeGreaterThanOrEqual(BigInt(quote.input.amount_raw));
    // The redeem again is a replay.
    const again = await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    expect(again.statusCode).toBe(202);
    expect(again.json().settlement_status).toBe('redeemed');
  });

  test('refunded: the taker never redeems; both escrows return at their expiries', async () => {
    service = await start();
    const { taker, quote, tradeId } = await lockedTrade(service);
    const locked = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    const makerUsdcBefore = await tokenBalance(service, service.chain.makerWallet.toBase58(), USDC);
    const toMakerExpiry = Date.parse(locked.maker_expires_at as string) / 1000 - Date.now() / 1000;
    await service.devChain?.advanceClock(Math.ceil(toMakerExpiry) + 1);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.awaitingTakerExpiry');
    expect(await tokenBalance(service, service.chain.makerWallet.toBase58(), USDC)).toBe(
      makerUsdcBefore + BigInt(quote.output.amount_raw),
    );
    const toTakerExpiry = Date.parse(locked.expires_at as string) / 1000 - Date.now() / 1000;
    await service.devChain?.advanceClock(Math.ceil(toTakerExpiry) + 1);
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'refunded');
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'maker_lock',
      'maker_refund',
      'taker_refund',
    ]);
    // The taker's input came back into its wrapped-SOL account, which its wallet unwraps.
    const wsol = ata(new PublicKey(taker.address), new PublicKey(SOL));
    expect(await service.chain.tokenBalance(new PublicKey(taker.address), new PublicKey(SOL))).toBe(
      BigInt(quote.input.amount_raw),
    );
    expect(wsol).toBeInstanceOf(PublicKey);
  });

  test('abandon: the settlement hash fails a pending trade; a repeat is the same 202, a wrong hash a 403', async () => {
    service = await start();
    const taker = new Taker(service.app);
    const quote = await taker.quote('SOL', 'USDC', '1');
    const secret = newSecret();
    const { trade_id } = (await taker.settle(quote.quote_id, secret)).json();
    const wrong = await taker.post(`/v1/trades/${trade_id}/abandon`, { secret_hash: newSecret().secretHash });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('secret_hash_mismatch');
    expect((await taker.trade(trade_id)).settlement_status).toBe('pending');
    const abandoned = await taker.post(`/v1/trades/${trade_id}/abandon`, {
      secret_hash: secret.secretHash.toUpperCase(),
    });
    expect(abandoned.statusCode).toBe(202);
    expect(abandoned.json().settlement_status).toBe('failed');
    expect(abandoned.json().failure_reason).toBe('abandoned');
    const again = await taker.post(`/v1/trades/${trade_id}/abandon`, { secret_hash: secret.secretHash });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ ...abandoned.json(), next_action: again.json().next_action });
    // A usable lock for a failed trade is never handed out.
    const retry = await taker.settle(quote.quote_id, secret);
    expect(retry.statusCode).toBe(409);
    expect(retry.json().error.code).toBe('lock_window_closed');
  });

  test('abandon is refused once a lock signature exists', async () => {
    service = await start();
    const { taker, secret, tradeId } = await lockedTrade(service);
    const res = await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('not_abandonable');
  });

  test('settlement retry: same wallet and hash answer 200 with the same trade and a fresh lock; others are refused', async () => {
    service = await start();
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1');
    const secret = newSecret();
    const first = await taker.settle(quote.quote_id, secret);
    expect(first.statusCode).toBe(201);
    // The commitment never appears before the lock is on chain.
    expect(first.body.toLowerCase()).not.toContain(secret.secretHash);
    expect((await taker.get(`/v1/trades/${first.json().trade_id}`)).body).not.toContain(secret.secretHash);
    const retry = await taker.settle(quote.quote_id, secret);
    expect(retry.statusCode).toBe(200);
    expect(retry.json().trade_id).toBe(first.json().trade_id);
    expect(retry.json().expires_at).toBe(first.json().expires_at);
    expect(retry.json().taker_escrow).toBe(first.json().taker_escrow);
    // The rebuilt lock works.
    const locked = await taker.lock(
      retry.json().trade_id,
      retry.json().taker_lock_transaction.transaction_base64,
    );
    expect(locked.statusCode, locked.body).toBe(202);
    // Another commitment on the used quote, and a hash already used, are refused.
    const other = await taker.settle(quote.quote_id, newSecret());
    expect(other.json().error.code).toBe('quote_already_used');
    const quote2 = await taker.quote('SOL', 'USDC', '1');
    const reused = await taker.settle(quote2.quote_id, secret);
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error.code).toBe('secret_hash_reused');
  });

  test('settlement errors: unknown quote 404, wallet mismatch 409', async () => {
    service = await start();
    const taker = new Taker(service.app);
    const quote = await taker.quote('SOL', 'USDC', '1');
    const missing = await taker.settle('00000000-0000-4000-8000-000000000000', newSecret());
    expect(missing.statusCode).toBe(404);
    const stranger = new Taker(service.app);
    const mismatch = await stranger.settle(quote.quote_id, newSecret());
    expect(mismatch.statusCode).toBe(409);
    expect(mismatch.json().error.code).toBe('taker_wallet_mismatch');
  });

  test('restart mid-trade: a new process adopts the trade with its run_id and finishes it', async () => {
    service = await start();
    const { taker, secret, tradeId } = await lockedTrade(service);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    const firstRun = service.runId;
    const { dataDir, config } = service;
    await service.close();
    const next = await createService({ dataDir, config, pollIntervalMs: 50, ...(await testStore(dataDir)) });
    try {
      const t2 = new Taker(next.app);
      const adopted = await t2.trade(tradeId);
      expect(adopted.run_id).toBe(firstRun);
      expect(adopted.current_run).toBe(true);
      expect(adopted.substate).toBe('initiated.makerLocked');
      // The trade rests until something wakes it; the adoption enters its history when the new run first
      // runs it — here the redeem command.
      expect((await t2.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).statusCode).toBe(
        202,
      );
      const events = (await t2.get(`/v1/trades/${tradeId}/events`)).json().events;
      const adoption = events.find((e: { type: string }) => e.type === 'ADOPTED');
      expect(adoption).toMatchObject({ run_id: next.runId, payload: { runId: next.runId } });
      expect(events.findIndex((e: { type: string }) => e.type === 'ADOPTED')).toBeLessThan(
        events.findIndex((e: { type: string }) => e.type === 'REDEEM_REQUESTED'),
      );
      const done = await t2.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
      expect(done.tx_signature_kinds.filter((s: { kind: string }) => s.kind === 'maker_lock')).toHaveLength(
        1,
      );
    } finally {
      await next.close();
    }
  });
});
