// The loopback server answers web3.js Connection the way a validator does: every result below is
// parsed by web3.js's own response schemas, so a shape mistake fails here.

import { createTransferInstruction } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainServer } from '../../src/chain/server/index.ts';
import { ata } from '../../src/chain/token.ts';
import { type Harness, rpcHarness, USDC } from './fixtures.ts';

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
    const makerAta = ata(h.maker.publicKey, USDC);
    const balance = await connection.getTokenAccountBalance(makerAta);
    expect(balance.value).toMatchObject({
      amount: (1_000_000n * 10n ** 6n).toString(),
      decimals: 6,
      uiAmount: 1_000_000,
    });
    const [mint, missing] = await connection.getMultipleAccountsInfo([USDC, Keypair.generate().publicKey]);
    expect(mint?.data.length).toBe(82);
    expect(missing).toBeNull();
    expect(await connection.getBalance(h.maker.publicKey)).toBe(100 * LAMPORTS_PER_SOL);
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
});
