// Where the service's own files are (the committed program, the default config, the visualiser's assets,
// package.json): found from the repository root, so the code can run from its sources or from a bundle.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'programs', 'htlc'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no service root above ${from}`);
  }
}

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the repository, from its root. */
export const rootPath = (...parts: string[]) => join(ROOT, ...parts);
