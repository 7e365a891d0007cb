// Which RPC the swap page verifies through: the service's dev RPC on the embedded chain; on a cluster the one
// the operator configures (swap_page.rpc_url), whose origin alone joins the page's connect-src; none
// configured, none given (the page then refuses to reveal).
import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { swapPageRoutes } from '../../src/http/routes/swap-page.ts';
import { defaultConfigDocument, startService } from '../support/service.ts';

const PROGRAM = 'FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh';

/** The page's inline config and its Content-Security-Policy, as served with these options. */
async function served(rpcUrl: string | null) {
  const app = Fastify();
  await app.register(swapPageRoutes, { devWallet: false, rpcUrl, programId: PROGRAM });
  const res = await app.inject('/');
  await app.close();
  const json = /<script id="swap-config" type="application\/json">([^<]*)<\/script>/.exec(res.body)?.[1];
  return { config: JSON.parse(json ?? 'null'), csp: String(res.headers['content-security-policy']) };
}

describe('the swap page’s RPC', () => {
  test('on the embedded chain: the service’s own dev RPC, nothing beyond self', async () => {
    const service = await startService();
    try {
      const res = await service.app.inject('/');
      expect(res.body).toContain('"rpcUrl":"/v1/dev/rpc"');
      expect(String(res.headers['content-security-policy'])).toContain("connect-src 'self';");
    } finally {
      await service.dispose();
    }
  });

  test('on a cluster: the configured RPC, its origin admitted by the policy', async () => {
    const { config, csp } = await served('https://rpc.example.org:8899/key/abc');
    expect(config).toEqual({
      devWallet: false,
      rpcUrl: 'https://rpc.example.org:8899/key/abc',
      programId: PROGRAM,
    });
    expect(csp).toContain("connect-src 'self' https://rpc.example.org:8899;");
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
