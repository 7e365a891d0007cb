// The loopback server answers web3.js Connection the way a validator does: every result below is
// parsed by web3.js's own response schemas, so a shape mistake fails here.

import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferInstruction,
} from '@solana/spl-token';
import {
  type AccountInfo,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type PublicKey,
  SystemProgram,
  Transaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takerEscrowAddress } from '../../src/chain/htlc/index.ts';
import { websocketUrlFor } from '../../src/chain/rpc/feed.ts';
import { ata, TOKEN_PROGRAM_ID } from '../../src/chain/token.ts';
import type { ChainServer } from '../../src/dev-chain/index.ts';
import { type Harness, rpcHarness, SOL, secret, USDC, walletSign } from '../chain/fixtures.ts';

async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('loopback JSON-RPC server', () => {
  let h: Harness & { server: ChainServer };
  let connection: Connection;
  beforeAll(async () => {
    h = await rpcHarness();
    connection = new Connection(h.server.url, 'confirmed');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers the cluster-info methods web3.js uses', async () => {
    expect((await connection.getVersion())['solana-core']).toMatch(/embedded/);
    expect(await connection.getGenesisHash()).toBe(h.server.ledger.genesisHash);
    const slot = await connection.getSlot();
    expect(await connection.getBlockHeight()).toBeGreaterThanOrEqual(slot);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    expect(lastValidBlockHeight).toBeGreaterThanOrEqual(slot + 150);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    expect(await connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    expect((await connection.getEpochInfo()).absoluteSlot).toBeGreaterThanOrEqual(slot);
    const health = await fetch(`${h.server.url}/health`);
    expect(await health.text()).toBe('ok');
  });

  it('serves accounts, balances and fees', async () => {
    // What the ledger holds now (other tests move the maker's funds, in any order).
    const makerAta = ata(h.maker.publicKey, USDC);
    const held = h.server.ledger.tokenAmount(h.maker.publicKey, USDC);
    expect(held).toBeGreaterThan(0n);
    const balance = await connection.getTokenAccountBalance(makerAta);
    expect(balance.value).toMatchObject({
      amount: held.toString(),
      decimals: 6,
      uiAmount: Number(held) / 10 ** 6,
    });
    const [mint, missing] = await connection.getMultipleAccountsInfo([USDC, Keypair.generate().publicKey]);
    expect(mint?.data.length).toBe(82);
    expect(missing).toBeNull();
    expect(await connection.getBalance(h.maker.publicKey)).toBe(
      Number(h.server.ledger.balance(h.maker.publicKey)),
    );
    const tx = new Transaction({
      feePayer: h.maker.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      SystemProgram.transfer({
        fromPubkey: h.maker.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1,
      }),
    );
    expect((await connection.getFeeForMessage(tx.compileMessage())).value).toBe(5_000);
  });

  it('airdrops, sends, reports statuses and returns transactions', async () => {
    const wallet = Keypair.generate();
    const airdrop = await connection.requestAirdrop(wallet.publicKey, LAMPORTS_PER_SOL);
    const [status] = (await connection.getSignatureStatuses([airdrop], { searchTransactionHistory: true }))
      .value;
    expect(status).toMatchObject({ err: null, confirmationStatus: 'finalized' });

    // A token transfer without a token account fails on chain; with skipPreflight it lands and pays its fee.
    const tx = new Transaction({
      feePayer: wallet.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      createTransferInstruction(
        ata(wallet.publicKey, USDC),
        ata(h.maker.publicKey, USDC),
        wallet.publicKey,
        1n,
      ),
    );
    tx.sign(wallet);
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/Simulation failed/);
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const got = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(got?.meta?.err).not.toBeNull();
    expect(got?.meta?.fee).toBe(5_000);
    expect(got?.transaction.message.staticAccountKeys[0]?.equals(wallet.publicKey)).toBe(true);
    expect(await connection.getBalance(wallet.publicKey)).toBe(LAMPORTS_PER_SOL - 5_000);
    const history = await connection.getSignaturesForAddress(wallet.publicKey);
    expect(history.map((s) => s.signature)).toEqual([signature, airdrop]);
    const sim = await connection.simulateTransaction(tx);
    expect(sim.value.err).toBeTruthy();
  });

  it('answers unknown methods with a JSON-RPC error and supports batches', async () => {
    const res = await fetch(h.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'noSuchMethod' },
      ]),
    });
    const [ok, bad] = (await res.json()) as [{ result: number }, { error: { code: number } }];
    expect(typeof ok.result).toBe('number');
    expect(bad.error.code).toBe(-32601);
  });

  it('serves getTransaction token balances in the shape web3.js parses: pre and post, closed and created', async () => {
    const wallet = Keypair.generate();
    const airdrop = h.server.ledger.airdrop(wallet.publicKey, USDC, 123n);
    const minted = await connection.getTransaction(airdrop, { maxSupportedTransactionVersion: 0 });
    const keys = minted?.transaction.message.staticAccountKeys.map((k) => k.toBase58()) ?? [];
    const walletUsdc = ata(wallet.publicKey, USDC);
    const usdc = (amount: string, ui: number | null, uiString: string) => ({
      amount,
      decimals: 6,
      uiAmount: ui,
      uiAmountString: uiString,
    });
    expect(minted?.meta?.preTokenBalances).toEqual([]);
    expect(minted?.meta?.postTokenBalances).toEqual([
      {
        accountIndex: keys.indexOf(walletUsdc.toBase58()),
        mint: USDC.toBase58(),
        owner: wallet.publicKey.toBase58(),
        programId: TOKEN_PROGRAM_ID.toBase58(),
        uiTokenAmount: usdc('123', 0.000123, '0.000123'),
      },
    ]);

    // Empty the account, close it, and open an empty wrapped-SOL one in the same transaction.
    const makerUsdc = ata(h.maker.publicKey, USDC);
    const makerBefore = BigInt((await connection.getTokenAccountBalance(makerUsdc)).value.amount);
    const tx = new Transaction({
      feePayer: wallet.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      createTransferInstruction(walletUsdc, makerUsdc, wallet.publicKey, 123n),
      createCloseAccountInstruction(walletUsdc, wallet.publicKey, wallet.publicKey),
      createAssociatedTokenAccountIdempotentInstruction(
        wallet.publicKey,
        ata(wallet.publicKey, SOL),
        wallet.publicKey,
        SOL,
      ),
    );
    tx.sign(wallet);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const got = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const at = (k: PublicKey) =>
      got?.transaction.message.staticAccountKeys.findIndex((x) => x.equals(k)) ?? -1;
    const byIndex = (a: { accountIndex: number }, b: { accountIndex: number }) =>
      a.accountIndex - b.accountIndex;
    const makerEntry = (amount: bigint) => ({
      accountIndex: at(makerUsdc),
      mint: USDC.toBase58(),
      owner: h.maker.publicKey.toBase58(),
      programId: TOKEN_PROGRAM_ID.toBase58(),
      uiTokenAmount: usdc(String(amount), Number(amount) / 1e6, String(Number(amount) / 1e6)),
    });
    expect(got?.meta?.preTokenBalances?.sort(byIndex)).toEqual(
      [
        makerEntry(makerBefore),
        {
          accountIndex: at(walletUsdc),
          mint: USDC.toBase58(),
          owner: wallet.publicKey.toBase58(),
          programId: TOKEN_PROGRAM_ID.toBase58(),
          uiTokenAmount: usdc('123', 0.000123, '0.000123'),
        },
      ].sort(byIndex),
    );
    // The closed account is absent after; a zero balance has no uiAmount, as validators answer.
    expect(got?.meta?.postTokenBalances?.sort(byIndex)).toEqual(
      [
        makerEntry(makerBefore + 123n),
        {
          accountIndex: at(ata(wallet.publicKey, SOL)),
          mint: SOL.toBase58(),
          owner: wallet.publicKey.toBase58(),
          programId: TOKEN_PROGRAM_ID.toBase58(),
          uiTokenAmount: { amount: '0', decimals: 9, uiAmount: null, uiAmountString: '0' },
        },
      ].sort(byIndex),
    );
  });

  it('derives the websocket endpoint from an RPC URL as web3.js does', () => {
    expect(websocketUrlFor('http://127.0.0.1:8899')).toBe('ws://127.0.0.1:8900');
    expect(websocketUrlFor('https://rpc.example.com/v1?api-key=k')).toBe(
      'wss://rpc.example.com/v1?api-key=k',
    );
    expect(websocketUrlFor('http://[::1]:8899/')).toBe('ws://[::1]:8900/');
  });

  it('serves account and program subscriptions over its websocket as web3.js parses them', async () => {
    const ws = new Connection(h.server.url, { commitment: 'confirmed', wsEndpoint: h.server.wsUrl });
    const wallet = Keypair.generate();
    const walletUsdc = ata(wallet.publicKey, USDC);
    const accountPushes: AccountInfo<Buffer>[] = [];
    const programPushes: { accountId: PublicKey; accountInfo: AccountInfo<Buffer> }[] = [];
    const before = h.server.stats();
    const accountSub = ws.onAccountChange(walletUsdc, (info) => accountPushes.push(info), {
      commitment: 'confirmed',
    });
    // The wallet's token accounts only: a memcmp on the token account's owner field.
    const programSub = ws.onProgramAccountChange(TOKEN_PROGRAM_ID, (keyed) => programPushes.push(keyed), {
      commitment: 'confirmed',
      filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: wallet.publicKey.toBase58() } }],
    });
    const subscribed = () => {
      const ws = h.server.stats().ws;
      return (
        (ws.accountSubscribe ?? 0) > (before.ws.accountSubscribe ?? 0) &&
        (ws.programSubscribe ?? 0) > (before.ws.programSubscribe ?? 0)
      );
    };
    await eventually(subscribed);

    await h.dev.airdrop({ wallet: wallet.publicKey, mint: USDC, amount: 5n });
    await eventually(() => accountPushes.length === 1 && programPushes.length === 1);
    expect(accountPushes[0]?.owner.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(accountPushes[0]?.data.length).toBe(165);
    expect(programPushes[0]?.accountId.equals(walletUsdc)).toBe(true);

    // Closing the account: the account subscription is told it is gone; the program one is not.
    const close = new Transaction({
      feePayer: wallet.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      createTransferInstruction(walletUsdc, ata(h.maker.publicKey, USDC), wallet.publicKey, 5n),
      createCloseAccountInstruction(walletUsdc, wallet.publicKey, wallet.publicKey),
    );
    close.sign(wallet);
    await connection.sendRawTransaction(close.serialize());
    await eventually(() => accountPushes.length === 2);
    expect(accountPushes[1]).toMatchObject({ lamports: 0, executable: false });
    expect(accountPushes[1]?.owner.equals(SystemProgram.programId)).toBe(true);
    expect(accountPushes[1]?.data.length).toBe(0);

    await h.dev.airdrop({ wallet: wallet.publicKey, mint: USDC, amount: 7n });
    await eventually(() => accountPushes.length === 3 && programPushes.length >= 2);
    expect(programPushes).toHaveLength(2);

    await ws.removeAccountChangeListener(accountSub);
    await ws.removeProgramAccountChangeListener(programSub);
    const after = h.server.stats();
    expect((after.ws.accountUnsubscribe ?? 0) - (before.ws.accountUnsubscribe ?? 0)).toBe(1);
    expect((after.ws.programUnsubscribe ?? 0) - (before.ws.programUnsubscribe ?? 0)).toBe(1);
    expect(
      (after.notifications.programNotification ?? 0) - (before.notifications.programNotification ?? 0),
    ).toBe(2);
  });

  it('the rpc chain feed goes down with the websocket and comes back a generation later', async () => {
    const seen = new Set<string>();
    const feed = h.chain.watchAccounts((addresses) => {
      for (const a of addresses) seen.add(a);
    });
    /** A taker lock, as a wallet sends it: it creates a taker escrow of the HTLC program. */
    const takerLock = async () => {
      const taker = Keypair.generate();
      await h.dev.airdrop({ wallet: taker.publicKey, mint: USDC, amount: 10n ** 6n });
      const s = secret();
      const now = await h.chain.now();
      const unsigned = await h.chain.buildTakerLock({
        taker: taker.publicKey,
        inputMint: USDC,
        outputMint: SOL,
        amount: 10n ** 6n,
        hashlock: s.hashlock,
        expiry: now + 600n,
        lockDeadline: now + 60n,
      });
      await h.chain.submitSigned(walletSign(unsigned, taker));
      return takerEscrowAddress(h.chain.programId, taker.publicKey, s.hashlock)[0].toBase58();
    };
    try {
      await eventually(() => feed.live);
      expect(feed.generation).toBe(1);

      await h.server.stopWebSocket();
      await eventually(() => !feed.live);
      const missed = await takerLock();

      await h.server.startWebSocket();
      await eventually(() => feed.live, 10_000);
      // A new generation: what changed while it was down was never pushed, so the watcher sweeps.
      expect(feed.generation).toBe(2);
      expect(seen.has(missed)).toBe(false);
      const pushed = await takerLock();
      await eventually(() => seen.has(pushed));
    } finally {
      feed.close();
    }
    expect(feed.live).toBe(false);
  });
});
