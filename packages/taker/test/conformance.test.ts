// Conformance: the package drives whole swaps against the real service (the embedded chain, its dev RPC as
// the taker's RPC), as any front end would — redeemed straight on chain from the wallet, redeemed through the
// service, and refunded on chain after the taker escrow's expiry.

import { createHash } from 'node:crypto';
import { createApproveInstruction } from '@solana/spl-token';
import { ComputeBudgetProgram, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ata } from '../../../src/chain/token.ts';
import { unsignedBase64 } from '../../../src/chain/transactions.ts';
import { USDC_MINT, USDT_MINT } from '../../../test/support/mints.ts';
import {
  listenOnLoopback,
  SHORT_SETTLEMENT,
  startService,
  type TestService,
} from '../../../test/support/service.ts';
import {
  CHECK_NAMES,
  cryptoKeyWallet,
  generateWalletKeys,
  MemorySwapStore,
  type Quote,
  TakerClient,
  type TakerWallet,
} from '../src/index.ts';

let service: TestService;
let base: string;

beforeAll(async () => {
  service = await startService(
    (doc) => {
      doc.settlement = { ...doc.settlement, ...SHORT_SETTLEMENT };
    },
    // The runtime's own timer is slow here, so that what refunds an expired escrow is the taker's refund.
    { pollIntervalMs: 60_000, lockWaitMs: 5_000 },
  );
  base = `http://127.0.0.1:${await listenOnLoopback(service)}`;
});
afterAll(async () => {
  await service?.dispose();
});

async function taker(): Promise<{ client: TakerClient; wallet: TakerWallet; store: MemorySwapStore }> {
  const keys = await generateWalletKeys();
  if (!keys) throw new Error('no WebCrypto Ed25519 on this Node');
  const wallet = await cryptoKeyWallet(keys);
  const store = new MemorySwapStore();
  const client = new TakerClient({
    serviceUrl: base,
    rpcUrl: `${base}/v1/dev/rpc`,
    store,
    rpcPollMs: 50,
  });
  await client.service.airdrop({ wallet: wallet.address, asset: 'USDC', amount: '100' });
  return { client, wallet, store };
}

const balance = (owner: string, mint: string) =>
  service.chain.tokenBalance(new PublicKey(owner), new PublicKey(mint));

async function quote(client: TakerClient, wallet: TakerWallet, amount: string): Promise<Quote> {
  const answer = await client.quote({
    input_asset: 'USDC',
    output_asset: 'USDT',
    amount,
    taker_wallet: wallet.address,
  });
  if (answer.status !== 'accepted') throw new Error(`rejected: ${JSON.stringify(answer.reasons)}`);
  return answer;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out at ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the taker client against the running service', () => {
  test('a whole swap, redeemed on chain from the wallet: every check passes, the preimage never reaches the service', async () => {
    const { client, wallet, store } = await taker();
    const sent: string[] = [];
    const q = await quote(client, wallet, '20');
    const before = {
      usdc: await balance(wallet.address, USDC_MINT),
      usdt: await balance(wallet.address, USDT_MINT),
    };
    const record = await client.start(q, { address: wallet.address, name: 'test' });
    expect((await store.get(record.secretHash))?.preimage).toBe(record.preimage);
    await client.lock(record, wallet);
    await until(
      () => client.refresh(record),
      (t) => t.next_action?.type === 'redeem',
    );

    const verification = await client.verify(record);
    expect(verification.ok).toBe(true);
    expect(verification.checks.map((c) => c.name)).toEqual([...CHECK_NAMES]);

    // Every request the service gets from here on is recorded: the redeem goes to the chain only.
    const recorded = new TakerClient({
      serviceUrl: base,
      rpcUrl: `${base}/v1/dev/rpc`,
      store,
      rpcPollMs: 50,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const body = await request.clone().text();
        if (!request.url.includes('/v1/dev/rpc')) sent.push(`${request.url} ${body}`);
        return fetch(request);
      },
    });
    const outcome = await recorded.redeem(record, { via: 'chain', wallet });
    expect(outcome.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect((await store.get(record.secretHash))?.revealed).toMatchObject({
      via: 'chain',
      signature: outcome.signature,
    });
    // Asked again (a second click, a crash before the answer): the same redeem, nothing sent twice.
    expect((await recorded.redeem(record, { via: 'chain', wallet })).signature).toBe(outcome.signature);
    const done = await until(
      () => client.refresh(record),
      (t) => t.settlement_status === 'redeemed',
    );
    expect(done.tx_signature_kinds.find((s) => s.kind === 'taker_redeem')?.signature).toBe(outcome.signature);
    expect(sent.some((line) => line.toLowerCase().includes(record.preimage))).toBe(false);
    expect((await balance(wallet.address, USDT_MINT)) - before.usdt).toBe(BigInt(q.output.amount_raw));
    expect(before.usdc - (await balance(wallet.address, USDC_MINT))).toBe(BigInt(q.input.amount_raw));
  });

  test('the secret is in the store before the settlement request leaves; a lost answer is recovered by the same request', async () => {
    const { wallet } = await taker();
    const store = new MemorySwapStore();
    const seen: { stored: boolean; status: number }[] = [];
    let drop = true;
    const client = new TakerClient({
      serviceUrl: base,
      rpcUrl: `${base}/v1/dev/rpc`,
      store,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (!request.url.endsWith('/wallet-settlement')) return fetch(request);
        const { secret_hash } = (await request.clone().json()) as { secret_hash: string };
        const record = await store.get(secret_hash);
        const stored =
          !!record &&
          createHash('sha256').update(Buffer.from(record.preimage, 'hex')).digest('hex') === secret_hash;
        const response = await fetch(request);
        seen.push({ stored, status: response.status });
        // The first answer is lost on its way back, as on a dropped connection.
        if (drop) {
          drop = false;
          throw new TypeError('network connection lost');
        }
        return response;
      },
    });
    const q = await quote(client, wallet, '3');
    await expect(client.start(q, { address: wallet.address })).rejects.toMatchObject({
      name: 'NetworkError',
    });
    const [record] = await store.list();
    if (!record) throw new Error('no record');
    expect(record.tradeId).toBeNull();
    await client.settle(record);
    expect(seen).toEqual([
      { stored: true, status: 201 },
      { stored: true, status: 200 },
    ]);
    expect(record.tradeId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('redeemed through the service when the front end chooses, followed over the trade stream', async () => {
    const { client, wallet } = await taker();
    const record = await client.start(await quote(client, wallet, '10'), { address: wallet.address });
    const modes: string[] = [];
    const events: string[] = [];
    const follower = client.follow(
      record,
      { onMode: (mode) => modes.push(mode), onTrade: (_t, event) => event && events.push(event.type) },
      { refreshMs: 500 },
    );
    try {
      await client.lock(record, wallet);
      await until(
        async () => record.trade,
        (t) => t?.next_action?.type === 'redeem',
      );
      const outcome = await client.redeem(record, { via: 'service', fallback: wallet });
      expect(outcome.via).toBe('service');
      await until(
        async () => record.status,
        (s) => s === 'redeemed',
      );
      expect(modes[0]).toBe('stream');
      expect(events.length).toBeGreaterThan(2);
    } finally {
      follower.stop();
    }
  });

  test('the lock is reviewed before the wallet signs it: on the service’s own chain, trusting the service, and saying so', async () => {
    const { client, wallet } = await taker();
    expect(client.trust).toBeNull();
    const q = await quote(client, wallet, '7');
    const record = await client.start(q, { address: wallet.address });
    expect(client.trust).toBe('embedded-service');
    const review = await client.reviewLock(record);
    expect(review.check.checks.filter((c) => !c.ok)).toEqual([]);
    expect(review.check.lock?.counterparty).toBe(review.summary.maker);
    expect(review.check.checks.find((c) => c.name === 'counterparty')?.detail).toContain('embedded service');
    expect(review.simulation.ok).toBe(true);
    expect(review.summary).toMatchObject({
      input: { amountRaw: BigInt(q.input.amount_raw), asset: 'USDC', mint: USDC_MINT },
      output: { amountRaw: BigInt(q.output.amount_raw), asset: 'USDT', mint: USDT_MINT },
      trust: 'embedded-service',
    });
    await client.lock(record, wallet);
    expect(record.status).toBe('initiated');
  });

  test('SOL as the input: the wrap into the wallet’s own account passes the checks and the simulation', async () => {
    const { client, wallet } = await taker();
    await client.service.airdrop({ wallet: wallet.address, asset: 'SOL', amount: '3' });
    const q = await client.quote({
      input_asset: 'SOL',
      output_asset: 'USDC',
      amount: '1.5',
      taker_wallet: wallet.address,
    });
    if (q.status !== 'accepted') throw new Error(`rejected: ${JSON.stringify(q.reasons)}`);
    const record = await client.start(q, { address: wallet.address });
    const review = await client.reviewLock(record);
    expect(review.check.checks.find((c) => c.name === 'wrap')).toMatchObject({ ok: true });
    expect(review.simulation.checks.find((c) => c.name === 'sol_spent')).toMatchObject({ ok: true });
    const lamports = review.simulation.changes.find((c) => c.mint === null);
    expect((lamports?.before ?? 0n) - (lamports?.after ?? 0n)).toBeGreaterThanOrEqual(
      BigInt(q.input.amount_raw),
    );
    await client.lock(record, wallet);
  });

  test('a wallet that changes what it signs: within the checks its own lock is sent and its signature posted; beyond them nothing is sent', async () => {
    /** The taker's wallet, which adds an instruction of its own to whatever it signs. */
    const adding = (wallet: TakerWallet, ix: (owner: PublicKey) => TransactionInstruction): TakerWallet => ({
      address: wallet.address,
      signTransaction: async (unsigned) => {
        const tx = Transaction.from(Buffer.from(unsigned, 'base64'));
        tx.instructions.unshift(ix(new PublicKey(wallet.address)));
        return wallet.signTransaction(unsignedBase64(tx));
      },
    });
    const posted: string[] = [];
    const { wallet } = await taker();
    const client = new TakerClient({
      serviceUrl: base,
      rpcUrl: `${base}/v1/dev/rpc`,
      store: new MemorySwapStore(),
      rpcPollMs: 50,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.url.endsWith('/lock')) posted.push(await request.clone().text());
        return fetch(request);
      },
    });
    const before = await balance(wallet.address, USDC_MINT);

    const priced = await client.start(await quote(client, wallet, '4'), { address: wallet.address });
    await client.lock(
      priced,
      adding(wallet, () => ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 })),
    );
    expect(priced.status).toBe('initiated');
    expect(posted.map((body) => Object.keys(JSON.parse(body)))).toEqual([['signature']]);
    expect(before - (await balance(wallet.address, USDC_MINT))).toBe(4_000_000n);

    const approving = await client.start(await quote(client, wallet, '4'), { address: wallet.address });
    const refused = await client
      .lock(
        approving,
        adding(wallet, (owner) =>
          createApproveInstruction(ata(owner, new PublicKey(USDC_MINT)), owner, owner, 1n),
        ),
      )
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'LockRefusedError' });
    expect((refused as { checks: { name: string }[] }).checks.map((c) => c.name)).toEqual(['no_delegate']);
    expect(posted).toHaveLength(1);
    expect(before - (await balance(wallet.address, USDC_MINT))).toBe(4_000_000n);
  });

  test('a client that will not trust the service refuses to start without its own pins, even on the service’s chain', async () => {
    const { wallet } = await taker();
    const client = new TakerClient({
      serviceUrl: base,
      rpcUrl: `${base}/v1/dev/rpc`,
      store: new MemorySwapStore(),
      trustEmbeddedService: false,
    });
    await expect(
      client.start(await quote(client, wallet, '2'), { address: wallet.address }),
    ).rejects.toMatchObject({
      name: 'TrustNotPinnedError',
      missing: ['programId', 'maker', 'mints.USDC', 'mints.USDT'],
    });
    expect(client.trust).toBe('pinned');
  });

  test('refund on chain after the taker escrow expired, refused before', async () => {
    const { client, wallet } = await taker();
    const before = await balance(wallet.address, USDC_MINT);
    const record = await client.start(await quote(client, wallet, '5'), { address: wallet.address });
    const locked = await client.lock(record, wallet);
    await expect(client.refund(record, { via: 'chain', wallet })).rejects.toMatchObject({
      name: 'NotRefundableError',
    });
    const dev = service.devChain;
    if (!dev) throw new Error('no dev chain');
    await dev.advanceClock(Math.ceil((Date.parse(locked.expires_at as string) - Date.now()) / 1000) + 5);
    const { signature } = await client.refund(record, { via: 'chain', wallet });
    const refunded = await until(
      () => client.refresh(record),
      (t) => t.settlement_status === 'refunded',
    );
    expect(refunded.tx_signature_kinds.find((s) => s.kind === 'taker_refund')?.signature).toBe(signature);
    expect(await balance(wallet.address, USDC_MINT)).toBe(before);
  });
});
