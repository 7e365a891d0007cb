// `npm start` runs the service from one bundle (dist/main.mjs), built here by esbuild in about a second
// (`npm run build` alone; `npm start` builds first), with the swap page's script beside it (dist/swap-page/).
// From the bundle the process is ready in well under a second; loading the TypeScript sources module by
// module through tsx costs about two, most of it the loader's per-module round trips — and a restart is
// part of the maker's safety margin. Modules with native code, file assets or worker threads stay outside
// the bundle and load from node_modules.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeSwapPage } from '../src/swap-page/build.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The service's entry point as `npm start` runs it. */
export const SERVICE_BUNDLE = resolve(ROOT, 'dist/main.mjs');

const EXTERNAL = [
  'better-sqlite3', // native
  'litesvm', // native
  'bufferutil', // native (optional, ws)
  'utf-8-validate', // native (optional, ws)
  'pino', // transports run in worker threads that load files by path
  'pino-pretty',
  'thread-stream',
  '@fastify/swagger-ui', // serves its static assets from its own folder
  'esbuild', // bundles the swap page's script from its sources; the bundle ships it prebuilt instead
];

export async function buildService(): Promise<string> {
  // The taker's swap page (GET /): its script beside the bundle, which then serves the file.
  await writeSwapPage();
  await build({
    entryPoints: [resolve(ROOT, 'src/main.ts')],
    outfile: SERVICE_BUNDLE,
    bundle: true,
    external: EXTERNAL,
    platform: 'node',
    format: 'esm',
    target: 'node22', // the oldest Node the project supports (package.json engines)
    sourcemap: 'linked',
    logLevel: 'warning',
    define: { __SWAP_PAGE_PREBUILT__: 'true' },
    // Bundled CommonJS still calls require() for the modules left outside.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return SERVICE_BUNDLE;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await buildService();
