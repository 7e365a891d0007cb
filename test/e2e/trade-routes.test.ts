// The settlement and trade routes beyond the happy path: lock validation, wallet-mode exits, a maker that
// cannot serve, a late lock after abandon, and the trade list.
import { join } from 'node:path';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferInstruction,
} from '@solana/spl-token';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { ata, loadKeypairFile } from '../../src/chain/index.ts';
import { SOL_MINT as SOL, USDC_MINT as USDC } from '../support/mints.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

const start = () => startService(undefined, { pollIntervalMs: 50, lockWaitMs: 1_000 });

async function settledTrade(s: TestService, amount = '1') {
  const taker = new Taker(s.app);
  await taker.airdrop('SOL', '3');
  const quote = await taker.quote('SOL', 'USDC', amount);
  const secret = newSecret();
  const settlement = (await taker.settle(quote.quote_id, secret)).json();
  return { taker, quote, secret, settlement, tradeId: settlement.trade_id as string };
}

describe('POST /v1/trades/{id}/lock', () => {
  test('a lock without the taker’s signature, or for another escrow, is a 400 and changes nothing', async () => {
    service = await start();
    const a = await settledTrade(service);
    const b = await settledTrade(service);
    const unsigned = await a.taker.post(`/v1/trades/${a.tradeId}/lock`, {
      transaction_base64: a.settlement.taker_lock_transaction.transaction_base64,
    });
    expect(unsigned.statusCode).toBe(400);
    expect(unsigned.json().error.details).toEqual(['body.transaction_base64: is not signed by taker_wallet']);
    const otherEscrow = await a.taker.post(`/v1/trades/${a.tradeId}/lock`, {
      transaction_base64: signAsWallet(
        b.settlement.taker_lock_transaction.transaction_base64,
        b.taker.wallet,
      ),
    });
    expect(otherEscrow.statusCode).toBe(400);
    const garbage = await a.taker.post(`/v1/trades/${a.tradeId}/lock`, {
      transaction_base64: 'bm90IGEgdHg=',
    });
    expect(garbage.statusCode).toBe(400);
    const trade = await a.taker.trade(a.tradeId);
    expect(trade.substate).toBe('pending.awaitingLock');
    expect(trade.tx_signatures).toEqual([]);
  });

  test('a lock of this escrow with other terms is a 400 lock_mismatch and is never submitted', async () => {
    service = await start();
    const { taker, tradeId, settlement } = await settledTrade(service);
    const tx = Transaction.from(Buffer.from(settlement.taker_lock_transaction.transaction_base64, 'base64'));
    const lock = tx.instructions.find((ix) => ix.programId.toBase58() === settlement.program_id);
    if (!lock) throw new Error('no lock instruction');
    // One raw unit less than agreed (amount: u64 at byte 66 of the lock data, whose lowest byte always changes).
    lock.data.writeBigUInt64LE(lock.data.readBigUInt64LE(66) - 1n, 66);
    tx.partialSign(taker.wallet);
    const res = await taker.post(`/v1/trades/${tradeId}/lock`, {
      transaction_base64: tx.serialize().toString('base64'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('lock_mismatch');
    expect(res.json().error.details).toEqual([
      // SOL in: the output account, the wrapped-SOL account, the transfer and the sync come first.
      'body.transaction_base64: changes instruction 4 (htlc): data differs from byte 66',
    ]);
    expect(await service.chain.readEscrow(new PublicKey(settlement.taker_escrow), 'confirmed')).toBeNull();
    expect((await taker.trade(tradeId)).substate).toBe('pending.awaitingLock');
  });

  test('a signature that never appears is a retryable 409 lock_not_found', async () => {
    service = await start();
    const { taker, tradeId } = await settledTrade(service);
    const sig = '5'.repeat(87);
    const res = await taker.post(`/v1/trades/${tradeId}/lock`, { signature: sig });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('lock_not_found');
  });

  test('a lock the wallet sent itself is accepted by its signature', async () => {
    service = await start();
    const { taker, tradeId, settlement } = await settledTrade(service);
    const signed = signAsWallet(settlement.taker_lock_transaction.transaction_base64, taker.wallet);
    const { signature } = await service.chain.submitSigned(signed);
    const res = await taker.post(`/v1/trades/${tradeId}/lock`, { signature });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().tx_signature_kinds[0]).toEqual({ kind: 'taker_lock', signature });
    // The same command again is a replay.
    const again = await taker.post(`/v1/trades/${tradeId}/lock`, { signature });
    expect(again.statusCode).toBe(202);
  });
});

describe('wallet-mode exits', () => {
  test('the taker redeems on chain itself; the maker follows with its own redeem', async () => {
    service = await start();
    const { taker, tradeId, settlement, secret, quote } = await settledTrade(service);
    await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    const wrong = await taker.post(`/v1/trades/${tradeId}/redeem?mode=wallet`, {
      preimage: newSecret().preimage,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('preimage_mismatch');
    const res = await taker.post(`/v1/trades/${tradeId}/redeem?mode=wallet`, { preimage: secret.preimage });
    expect(res.statusCode).toBe(200);
    expect(res.json().trade.substate).toBe('initiated.makerLocked');
    await service.chain.submitSigned(signAsWallet(res.json().transaction.transaction_base64, taker.wallet));
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'redeemed');
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'maker_lock',
      'taker_redeem',
      'maker_redeem',
    ]);
    expect(await service.chain.tokenBalance(new PublicKey(taker.address), new PublicKey(USDC))).toBe(
      BigInt(quote.output.amount_raw),
    );
  });

  test('a refund before the taker expiry is a 409 not_refundable, in either mode', async () => {
    service = await start();
    const { taker, tradeId, settlement } = await settledTrade(service);
    await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    for (const url of [`/v1/trades/${tradeId}/refund`, `/v1/trades/${tradeId}/refund?mode=wallet`]) {
      const res = await taker.post(url);
      expect(res.statusCode, url).toBe(409);
      expect(res.json().error.code).toBe('not_refundable');
    }
  });

  test('after the taker expiry the wallet can refund itself', async () => {
    service = await start();
    const { taker, tradeId, settlement, quote } = await settledTrade(service);
    await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    const locked = await taker.waitFor(tradeId, (t) => t.substate === 'initiated.makerLocked');
    // The runtime would refund by itself; stopped (as if the service were down), the wallet still can.
    await service.runtime.stop();
    await service.devChain?.advanceClock(
      Math.ceil(Date.parse(locked.expires_at) / 1000 - Date.now() / 1000) + 2,
    );
    const res = await service.runtime.commands.walletRefund(tradeId);
    const before = await service.chain.solBalance(new PublicKey(taker.address));
    await service.chain.submitSigned(signAsWallet(res.transaction.transactionBase64, taker.wallet));
    // The wallet-mode refund also unwraps: the input comes back as native SOL, less the network fee.
    const after = await service.chain.solBalance(new PublicKey(taker.address));
    expect(after - before).toBeGreaterThan(BigInt(quote.input.amount_raw) - 10_000n);
    expect(await service.chain.tokenBalance(new PublicKey(taker.address), new PublicKey(SOL))).toBe(0n);
  });
});

describe('the maker protects the taker when it cannot serve', () => {
  test('inventory gone before the maker locks: the taker escrow is released at once by cancel', async () => {
    service = await start();
    const { taker, tradeId, settlement, quote } = await settledTrade(service);
    // The maker's USDC leaves its account (an operator moves it) before the taker's lock lands.
    const maker = loadKeypairFile(join(service.dataDir, 'maker-keypair.json'));
    const sink = Keypair.generate().publicKey;
    const balance = await service.chain.tokenBalance(maker.publicKey, new PublicKey(USDC));
    const { blockhash } = await service.chain.latestBlockhash();
    const drain = new Transaction({ feePayer: maker.publicKey, recentBlockhash: blockhash }).add(
      createAssociatedTokenAccountIdempotentInstruction(
        maker.publicKey,
        ata(sink, new PublicKey(USDC)),
        sink,
        new PublicKey(USDC),
      ),
      createTransferInstruction(
        ata(maker.publicKey, new PublicKey(USDC)),
        ata(sink, new PublicKey(USDC)),
        maker.publicKey,
        balance,
      ),
    );
    drain.sign(maker);
    await service.chain.submitSigned(drain.serialize().toString('base64'));

    await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    const done = await taker.waitFor(tradeId, (t) => t.settlement_status === 'refunded');
    expect(done.failure_reason).toBe('inventory_unavailable');
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'taker_refund',
    ]);
    expect(await service.chain.tokenBalance(new PublicKey(taker.address), new PublicKey(SOL))).toBe(
      BigInt(quote.input.amount_raw),
    );
  });

  test('a lock that lands after abandon is released at once; the trade stays failed', async () => {
    service = await start();
    const { taker, tradeId, settlement, secret, quote } = await settledTrade(service);
    expect(
      (await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash })).statusCode,
    ).toBe(202);
    await service.chain.submitSigned(
      signAsWallet(settlement.taker_lock_transaction.transaction_base64, taker.wallet),
    );
    const done = await taker.waitFor(tradeId, (t) => t.substate === 'failed.released');
    expect(done.settlement_status).toBe('failed');
    expect(done.tx_signature_kinds.map((s: { kind: string }) => s.kind)).toEqual([
      'taker_lock',
      'taker_refund',
    ]);
    expect(await service.chain.tokenBalance(new PublicKey(taker.address), new PublicKey(SOL))).toBe(
      BigInt(quote.input.amount_raw),
    );
  });
});

describe('inventory held by trades', () => {
  test('a pending trade holds its output until it ends; it counts once against the wallet limit', async () => {
    service = await startService(
      (doc) => {
        doc.inventory[1] = { asset: 'USDC', amount: '400' };
        doc.risk.max_open_per_wallet = 2;
        // No budget below the inventory: what the trade holds is all that stands in the way.
        doc.reservations = { client_share_bps: 10_000, wallet_share_bps: 10_000, unfunded_share_bps: 10_000 };
      },
      { pollIntervalMs: 50 },
    );
    const { taker, tradeId, secret } = await settledTrade(service); // ~187 USDC held by the trade
    const tooMuch = await taker.post('/v1/rfq', {
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount: '1.2',
      taker_wallet: taker.address,
    });
    // The trade's hold is unfunded (no lock landed): with every share at the whole inventory the budget
    // says what the inventory says.
    expect(tooMuch.json().reasons.map((r: { check: string }) => r.check)).toEqual([
      'inventory',
      'reservation_budget',
    ]);
    expect(
      (await taker.post(`/v1/trades/${tradeId}/abandon`, { secret_hash: secret.secretHash })).statusCode,
    ).toBe(202);
    const now = await taker.post('/v1/rfq', {
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount: '1.2',
      taker_wallet: taker.address,
    });
    expect(now.json().status).toBe('accepted');
  });
});

describe('GET /v1/trades', () => {
  test('filters by wallet and status and pages with a cursor', async () => {
    service = await start();
    const a = await settledTrade(service);
    const b = await settledTrade(service);
    const c = await settledTrade(service);
    await a.taker.post(`/v1/trades/${a.tradeId}/abandon`, { secret_hash: a.secret.secretHash });
    const first = (await a.taker.get('/v1/trades?limit=2')).json();
    expect(first.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual([a.tradeId, b.tradeId]);
    const second = (await a.taker.get(`/v1/trades?limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual([c.tradeId]);
    expect(second.next_cursor).toBeNull();
    const failed = (await a.taker.get('/v1/trades?status=failed')).json();
    expect(failed.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual([a.tradeId]);
    const byWallet = (await a.taker.get(`/v1/trades?taker_wallet=${b.taker.address}`)).json();
    expect(byWallet.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual([b.tradeId]);
    const bad = await a.taker.get('/v1/trades?cursor=nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('validation_failed');
  });

  test('an unknown trade is a 404 on every trade route', async () => {
    service = await start();
    const taker = new Taker(service.app);
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [url, body] of [
      [`/v1/trades/${id}/lock`, { signature: '5'.repeat(87) }],
      [`/v1/trades/${id}/abandon`, { secret_hash: 'a'.repeat(64) }],
      [`/v1/trades/${id}/redeem`, { preimage: 'a'.repeat(64) }],
      [`/v1/trades/${id}/refund`, undefined],
      [`/v1/trades/${id}/resume`, undefined],
    ] as const) {
      const res = await taker.post(url, body);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('trade_not_found');
    }
    expect((await taker.get(`/v1/trades/${id}`)).statusCode).toBe(404);
    expect((await taker.get(`/v1/trades/${id}/events`)).statusCode).toBe(404);
  });
});
