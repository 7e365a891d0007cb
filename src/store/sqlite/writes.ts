// How the SQLite engine interprets a repository's writes: one function per write kind, run synchronously
// within the batch's transaction, in the write's own savepoint (store.ts). Each repository (quotes.ts,
// trades.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts here) gives its own; the store joins them.
import type { StoreWrite } from '../writes.ts';

export type SqliteWrites<W extends StoreWrite> = {
  readonly [K in W['kind']]: (write: Extract<W, { kind: K }>) => void;
};
