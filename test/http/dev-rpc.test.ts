// POST /v1/dev/rpc: the embedded chain as a Solana JSON-RPC endpoint for takers that verify through an RPC —
// the reads and sendTransaction a taker client needs, answered by the loopback chain server's own methods;
// none of the dev controls; and no such route on an rpc chain, like the dev airdrop.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { createService } from '../../src/service.ts';
import { defaultConfigDocument, startService, type TestService, tempDir } from '../support/service.ts';

const SOL_MINT_KEY = new PublicKey('So11111111111111111111111111111111111111112');

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service?.dispose());

const rpc = (payload: unknown, app = service.app) =>
  app.inject({ method: 'POST', url: '/v1/dev/rpc', payload: payload as object });

describe('the dev RPC on the embedded chain', () => {
  test('reads accounts with the Clock sysvar, the latest blockhash and the block height, as a validator answers', async () => {
    const clock = 'SysvarC1ock11111111111111111111111111111111';
    const accounts = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'getMultipleAccounts',
      params: [
        [DEFAULT_HTLC_PROGRAM_ID.toBase58(), clock, Keypair.generate().publicKey.toBase58()],
        { encoding: 'base64' },
      ],
    });
    expect(accounts.statusCode).toBe(200);
    const { id, result } = accounts.json();
    expect(id).toBe(1);
    expect(result.value[0]).toMatchObject({ executable: true });
    expect(result.value[1].data[1]).toBe('base64');
    expect(result.value[2]).toBeNull();
    // The chain's time, as the Clock sysvar has it, is the service's chain time.
    const unix = Buffer.from(result.value[1].data[0], 'base64').readBigInt64LE(32);
    expect(Number(unix)).toBeCloseTo(Number(await service.chain.now()), -1);

    const blockhash = (
      await rpc({ jsonrpc: '2.0', id: 'b', method: 'getLatestBlockhash', params: [] })
    ).json();
    expect(blockhash.result.value.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const height = (await rpc({ jsonrpc: '2.0', id: null, method: 'getBlockHeight' })).json();
    expect(height.result).toBeGreaterThanOrEqual(0);
  });

  test('simulates an unsigned transaction as it would run now, answering the accounts asked for as it leaves them, and changes nothing', async () => {
    const from = Keypair.generate().publicKey;
    const to = Keypair.generate().publicKey;
    const devChain = service.devChain;
    if (!devChain) throw new Error('no dev chain');
    await devChain.airdrop({ wallet: from, mint: SOL_MINT_KEY, amount: 2_000_000_000n });
    const funded = (
      await rpc({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [from.toBase58()] })
    ).json().result.value;
    // An old blockhash of nowhere, and no signature: replaceRecentBlockhash and sigVerify false run it anyway.
    const tx = new Transaction({ feePayer: from, blockhash: to.toBase58(), lastValidBlockHeight: 1 }).add(
      SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 5_000_000 }),
    );
    const unsigned = tx.serialize({ requireAllSignatures: false }).toString('base64');
    const simulated = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'simulateTransaction',
      params: [
        unsigned,
        {
          encoding: 'base64',
          sigVerify: false,
          replaceRecentBlockhash: true,
          accounts: { encoding: 'base64', addresses: [to.toBase58(), from.toBase58()] },
        },
      ],
    });
    const { value } = simulated.json().result;
    expect(value.err).toBeNull();
    expect(value.accounts[0]).toMatchObject({
      lamports: 5_000_000,
      owner: SystemProgram.programId.toBase58(),
    });
    expect(value.accounts[1].lamports).toBeLessThanOrEqual(funded - 5_000_000);
    // Nothing landed.
    const after = await rpc({ jsonrpc: '2.0', id: 3, method: 'getBalance', params: [to.toBase58()] });
    expect(after.json().result.value).toBe(0);
    // Without replaceRecentBlockhash the unknown blockhash fails it, as on a cluster.
    const stale = await rpc({
      jsonrpc: '2.0',
      id: 4,
      method: 'simulateTransaction',
      params: [unsigned, { encoding: 'base64' }],
    });
    expect(stale.json().result.value).toMatchObject({ err: 'BlockhashNotFound', accounts: null });
  });

  test('answers the chain’s genesis hash, the same every time', async () => {
    const first = (await rpc({ jsonrpc: '2.0', id: 1, method: 'getGenesisHash' })).json().result;
    expect(first).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'getGenesisHash', params: [] })).json().result).toBe(
      first,
    );
  });

  test('refuses the dev controls and what a cluster would not offer the public: method not found', async () => {
    for (const method of [
      'dev_advanceClock',
      'dev_airdrop',
      'dev_pyth',
      'requestAirdrop',
      'getTransaction',
    ]) {
      const res = await rpc({ jsonrpc: '2.0', id: 1, method, params: [60] });
      expect(res.statusCode).toBe(200);
      expect(res.json().error).toMatchObject({ code: -32601 });
    }
    const before = await service.chain.now();
    await rpc({ jsonrpc: '2.0', id: 1, method: 'dev_advanceClock', params: [3600] });
    expect((await service.chain.now()) - before).toBeLessThan(60n);
  });

  test('a transaction that cannot land is a JSON-RPC error; a body that is not JSON-RPC, the envelope', async () => {
    const bad = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'sendTransaction',
      params: ['AAAA', { encoding: 'base64' }],
    });
    expect(bad.statusCode).toBe(200);
    expect(bad.json().error.code).toBeLessThan(0);
    const invalid = await rpc({ method: 'getSlot' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.code).toBe('validation_failed');
  });
});

describe('on an rpc chain', () => {
  test('there is no dev RPC: 404 route_not_found, like the dev airdrop', async () => {
    const dir = tempDir();
    const doc = defaultConfigDocument();
    const maker = Keypair.generate();
    const makerPath = join(dir.path, 'maker.json');
    writeFileSync(makerPath, JSON.stringify(Array.from(maker.secretKey)));
    const chain = await startChainServer({
      dataDir: join(dir.path, 'chain'),
      port: 0,
      ...configGenesis(resolveConfig(doc), maker),
    });
    doc.chain = {
      kind: 'rpc',
      url: chain.url,
      ws_url: chain.wsUrl,
      program_id: DEFAULT_HTLC_PROGRAM_ID.toBase58(),
      maker_keypair_path: makerPath,
    };
    const onCluster = await createService({ dataDir: join(dir.path, 'service'), config: resolveConfig(doc) });
    try {
      const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'getSlot' }, onCluster.app);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('route_not_found');
    } finally {
      await onCluster.close();
      await chain.close();
      dir.remove();
    }
  });
});
