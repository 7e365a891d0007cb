// Which RPC the swap page verifies through: the service's dev RPC on the embedded chain; on a cluster the one
// the operator configures (swap_page.rpc_url), whose origin alone joins the page's connect-src; none
// configured, none given (the page then refuses to reveal). And whom its taker client trusts for the maker's
// key and the mints: the service on its own embedded chain; on a cluster what the page pins.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { configGenesis, startChainServer } from '../../src/dev-chain/index.ts';
import { swapPageRoutes } from '../../src/http/routes/swap-page.ts';
import { createService } from '../../src/service.ts';
import type { SwapPagePins } from '../../src/swap-page/index.ts';
import { defaultConfigDocument, startService, tempDir } from '../support/service.ts';

const PROGRAM = 'FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh';

const inlineConfig = (html: string) =>
  JSON.parse(/<script id="swap-config" type="application\/json">([^<]*)<\/script>/.exec(html)?.[1] ?? 'null');

/** The page's inline config and its Content-Security-Policy, as served with these options. */
async function served(rpcUrl: string | null, pins: SwapPagePins | null = null) {
  const app = Fastify();
  await app.register(swapPageRoutes, { devWallet: false, rpcUrl, programId: PROGRAM, pins });
  const res = await app.inject('/');
  await app.close();
  return { config: inlineConfig(res.body), csp: String(res.headers['content-security-policy']) };
}

describe('the swap page’s RPC', () => {
  test('on the embedded chain: the service’s own dev RPC, nothing beyond self', async () => {
    const service = await startService();
    try {
      const res = await service.app.inject('/');
      expect(res.body).toContain('"rpcUrl":"/v1/dev/rpc"');
      // The page's client trusts the service there (its own chain, known by the genesis hash): nothing pinned.
      expect(inlineConfig(res.body).pins).toBeNull();
      expect(String(res.headers['content-security-policy'])).toContain("connect-src 'self';");
    } finally {
      await service.dispose();
    }
  });

  test('on a cluster: the configured RPC, its origin admitted by the policy', async () => {
    const pins = { maker: Keypair.generate().publicKey.toBase58(), mints: { USDC: PROGRAM } };
    const { config, csp } = await served('https://rpc.example.org:8899/key/abc', pins);
    expect(config).toEqual({
      devWallet: false,
      rpcUrl: 'https://rpc.example.org:8899/key/abc',
      programId: PROGRAM,
      pins,
    });
    expect(csp).toContain("connect-src 'self' https://rpc.example.org:8899;");
  });

  test('a service on an rpc chain pins its maker key and its configured mints in the page', async () => {
    const dir = tempDir();
    const doc = defaultConfigDocument();
    const maker = Keypair.generate();
    const makerPath = join(dir.path, 'maker.json');
    writeFileSync(makerPath, JSON.stringify(Array.from(maker.secretKey)));
    const config = resolveConfig(doc);
    const chain = await startChainServer({
      dataDir: join(dir.path, 'chain'),
      port: 0,
      ...configGenesis(config, maker),
    });
    doc.chain = {
      kind: 'rpc',
      url: chain.url,
      ws_url: chain.wsUrl,
      program_id: PROGRAM,
      maker_keypair_path: makerPath,
    };
    doc.swap_page = { rpc_url: chain.url };
    const onCluster = await createService({ dataDir: join(dir.path, 'service'), config: resolveConfig(doc) });
    try {
      const page = inlineConfig((await onCluster.app.inject('/')).body);
      expect(page.pins).toEqual({
        maker: maker.publicKey.toBase58(),
        mints: Object.fromEntries(config.assets.list.map((a) => [a.symbol, a.mint])),
      });
      expect(Object.keys(page.pins.mints)).toContain('USDC');
    } finally {
      await onCluster.close();
      await chain.close();
      dir.remove();
    }
  });

  test('none configured: none given, and nothing beyond self', async () => {
    const { config, csp } = await served(null);
    expect(config.rpcUrl).toBeNull();
    expect(csp).toContain("connect-src 'self';");
  });

  test('swap_page.rpc_url must be an http(s) URL', () => {
    const doc = defaultConfigDocument();
    doc.swap_page = { rpc_url: 'https://rpc.example.org' };
    expect(resolveConfig(doc).swapPage.rpcUrl).toBe('https://rpc.example.org');
    doc.swap_page = { rpc_url: 'javascript:alert(1)' };
    expect(() => resolveConfig(doc)).toThrow(/swap_page/);
    expect(resolveConfig(defaultConfigDocument()).swapPage.rpcUrl).toBeNull();
  });
});
