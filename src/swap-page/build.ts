// The swap page's script: its TypeScript sources (browser/) bundled by esbuild into one ES module for the
// browser. `npm run build` writes it beside the service's bundle; a service run from its sources (tests,
// tsx) bundles it in memory on the first request instead, so the page is never older than its sources.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { rootPath } from '../paths.ts';

/** Where `npm run build` writes the page's script. */
export const SWAP_PAGE_SCRIPT = rootPath('dist', 'swap-page', 'swap.js');

const OPTIONS: BuildOptions = {
  entryPoints: [rootPath('src', 'swap-page', 'browser', 'main.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // WebCrypto Ed25519 (the dev wallet) is what sets the floor, not the syntax.
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** The page's script, bundled in memory. */
export async function bundleSwapPage(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({ ...OPTIONS, write: false });
  const file = result.outputFiles?.[0];
  if (!file) throw new Error('esbuild wrote no swap page script');
  return file.text;
}

/** `npm run build`: the page's script as a file beside dist/main.mjs. */
export async function writeSwapPage(path = SWAP_PAGE_SCRIPT): Promise<string> {
  const text = await bundleSwapPage();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}
