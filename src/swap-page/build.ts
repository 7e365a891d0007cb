// The swap page's script: its TypeScript sources (browser/) bundled by esbuild into one ES module for the
// browser. `npm run build` writes it beside the service's bundle; a service run from its sources (tests,
// tsx) bundles it in memory on the first request instead, so the page is never older than its sources.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { rootPath } from '../paths.ts';

/** Where `npm run build` writes the page's script. */
export const SWAP_PAGE_SCRIPT = rootPath('dist', 'swap-page', 'swap.js');

/**
 * One copy of each @solana/* package per version: npm nests a copy of kit's shared packages (errors, codecs)
 * under every kit package that needs them when an older one sits at the top (web3.js 1.x's), and a bundle
 * would carry each (ten copies of @solana/errors' message table, ~34 KB each). Same name and version, same
 * code: every import resolves to the first copy found.
 */
const dedupeSolana: Plugin = {
  name: 'dedupe-solana',
  setup(build) {
    const seen = new Map<string, string>();
    build.onResolve({ filter: /^@solana\// }, async (args) => {
      if (args.pluginData === 'dedupe-solana') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'dedupe-solana',
      });
      if (resolved.errors.length > 0) return resolved;
      const root = resolved.path.slice(0, resolved.path.lastIndexOf('/dist/'));
      const version = root ? await packageVersion(root) : null;
      if (version === null) return resolved;
      const key = `${args.path}@${version}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, resolved.path);
      return { ...resolved, path: first ?? resolved.path };
    });
  },
};

async function packageVersion(root: string): Promise<string | null> {
  try {
    return (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

const OPTIONS: BuildOptions = {
  entryPoints: [rootPath('src', 'swap-page', 'browser', 'main.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // The taker package by name, from its sources (its exports' `@rfq-maker/source` condition): no build of the
  // package comes first. esbuild adds `browser`, `import` and `default` itself.
  conditions: ['@rfq-maker/source'],
  // WebCrypto Ed25519 (the dev wallet) is what sets the floor, not the syntax.
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [dedupeSolana],
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
