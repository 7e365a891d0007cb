// POST /v1/dev/rpc: the embedded chain as a Solana JSON-RPC endpoint for takers that verify through an RPC —
// the reads and sendTransaction a taker client needs, answered by the loopback chain server's own methods;
// none of the dev controls; and no such route on an rpc chain, like the dev airdrop.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { createService } from '../../src/service.ts';
import { defaultConfigDocument, startService, type TestService, tempDir } from '../support/service.ts';

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
