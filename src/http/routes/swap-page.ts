// Swap page group (/): the taker's swap page (src/swap-page) and its two assets. Static for the browser,
// not part of the API, so hidden from the OpenAPI document; the page itself speaks only the public /v1
// routes. Its script is bundled on the first request when the service runs from its sources.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type SwapPageAssets, type SwapPagePins, swapPageAssets } from '../../swap-page/index.ts';

export interface SwapPageRoutesOptions {
  /** The embedded chain's faucet is registered: the page offers its dev wallet. */
  devWallet: boolean;
  /** The RPC the page verifies the maker's lock through (see SwapPageOptions). */
  rpcUrl: string | null;
  programId: string;
  /** What the page's client pins off the embedded chain (see SwapPageOptions). */
  pins: SwapPagePins | null;
}

export const SWAP_PAGE_SCRIPT_PATH = '/swap-page/swap.js';
export const SWAP_PAGE_STYLE_PATH = '/swap-page/swap.css';

/** The page's policy; `rpcOrigin`, a cluster RPC of the operator's choosing, is the one other origin it may reach. */
const contentSecurityPolicy = (rpcOrigin: string | null) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${rpcOrigin ? ` ${rpcOrigin}` : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** The origin of an absolute RPC URL (a relative one is the service's own). */
function rpcOrigin(rpcUrl: string | null): string | null {
  if (!rpcUrl || rpcUrl.startsWith('/')) return null;
  return new URL(rpcUrl).origin;
}

export const swapPageRoutes: FastifyPluginAsyncTypebox<SwapPageRoutesOptions> = async (app, opts) => {
  let assets: Promise<SwapPageAssets> | undefined;
  const load = () => {
    assets ??= swapPageAssets({
      devWallet: opts.devWallet,
      rpcUrl: opts.rpcUrl,
      programId: opts.programId,
      pins: opts.pins,
    });
    assets.catch(() => {
      assets = undefined;
    });
    return assets;
  };
  const hidden = { schema: { hide: true } };
  const policy = contentSecurityPolicy(rpcOrigin(opts.rpcUrl));
  // The page holds preimages and the dev wallet's key: only its own script runs, it talks only to this
  // service (and the cluster RPC it verifies through), and no other site may frame it (a hidden swap button
  // under someone else's page).
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', policy);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
  });

  app.get('/', hidden, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send((await load()).html),
  );
  app.get(SWAP_PAGE_SCRIPT_PATH, hidden, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send((await load()).script),
  );
  app.get(SWAP_PAGE_STYLE_PATH, hidden, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send((await load()).style),
  );
};
