// The taker's swap page (GET /): an HTML page, its styles and one bundled script (browser/) that runs the
// whole swap in the browser: quote, secret, wallet, lock, live progress, redeem or refund, "my trades".
import { readFile } from 'node:fs/promises';
import { rootPath } from '../paths.ts';
import { bundleSwapPage, SWAP_PAGE_SCRIPT } from './build.ts';

// Set by scripts/build-service.ts in the service's bundle, which ships the page's script prebuilt.
declare const __SWAP_PAGE_PREBUILT__: boolean | undefined;
const prebuilt = typeof __SWAP_PAGE_PREBUILT__ !== 'undefined' && __SWAP_PAGE_PREBUILT__;

export interface SwapPageOptions {
  /** The embedded chain's faucet is there: the page offers its built-in dev wallet. */
  devWallet: boolean;
  /**
   * The Solana JSON-RPC the page reads the maker's lock through before revealing: the service's dev RPC on
   * the embedded chain, `swap_page.rpc_url` on a cluster; null when none is configured (the page then
   * refuses to reveal).
   */
  rpcUrl: string | null;
  /** The HTLC program the page's escrows are derived under. */
  programId: string;
  /**
   * Off the embedded chain: the maker's key and the mints of the configured assets, which the page's taker
   * client pins (it holds the service's answers to them instead of taking its word). Null on the embedded chain,
   * where the client knows the service's own chain by its genesis hash and trusts the service, and says so.
   */
  pins: SwapPagePins | null;
}

export interface SwapPagePins {
  maker: string;
  /** Mint by asset symbol. */
  mints: Record<string, string>;
}

export interface SwapPageAssets {
  html: string;
  script: string;
  style: string;
}

const asset = (name: string) => readFile(rootPath('src', 'swap-page', name), 'utf8');

let script: Promise<string> | undefined;

/** The page's script: the prebuilt file from the bundle, or bundled once per process from the sources. */
function pageScript(): Promise<string> {
  script ??= prebuilt ? readFile(SWAP_PAGE_SCRIPT, 'utf8') : bundleSwapPage();
  // A failed build is tried again on the next request rather than remembered.
  script.catch(() => {
    script = undefined;
  });
  return script;
}

/** The page, its script and styles; the HTML carries the page's config as inline JSON. */
export async function swapPageAssets(options: SwapPageOptions): Promise<SwapPageAssets> {
  const [template, style, code] = await Promise.all([asset('page.html'), asset('swap.css'), pageScript()]);
  // `</` cannot close the inline JSON script early once escaped.
  const json = JSON.stringify({
    devWallet: options.devWallet,
    rpcUrl: options.rpcUrl,
    programId: options.programId,
    pins: options.pins,
  }).replaceAll('</', '<\\/');
  return { html: template.replace('"@CONFIG@"', () => json), script: code, style };
}
