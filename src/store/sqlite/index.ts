// The SQLite engine of the store (one instance, the embedded default): opening it under DATA_DIR, the store
// itself (store.ts: the batch's commit over the repositories), a repository per aggregate (quotes.ts,
// trades.ts with rest-index.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts; each prepares its own statements)
// and migrations (migrations.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from './store.ts';

export { MIGRATIONS } from './migrations.ts';
export { SqliteStore } from './store.ts';

export function openSqliteStore(options: { dataDir: string } | { path: string }): SqliteStore {
  let path: string;
  if ('dataDir' in options) {
    mkdirSync(options.dataDir, { recursive: true });
    path = join(options.dataDir, 'maker.sqlite');
  } else {
    path = options.path;
  }
  return new SqliteStore(path);
}
