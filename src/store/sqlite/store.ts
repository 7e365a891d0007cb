// The SQLite store: better-sqlite3 in WAL mode with synchronous=FULL, the embedded default (one file under
// DATA_DIR). Each repository (quotes.ts, trades.ts with rest-index.ts, events.ts, hedges.ts, transfers.ts,
// desk.ts, runs.ts) prepares its statements once and runs them synchronously; the port's promises only wrap
// them, so a batch's commit (one transaction, one fsync, whichever repositories its writes touch) holds the
// event loop once per turn, not once per write. One instance serves it: the running run owns every unclosed trade it could adopt, without
// leases, fences or claims (the owner named by the runtime's queries and writes is that run).
import Database from 'better-sqlite3';
import { ComposedStore } from '../composed.ts';
import type { OwnedTrades, SingleInstanceStore } from '../port.ts';
import type { NewRun } from '../records.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from '../writes.ts';
import { SqliteDesk } from './desk.ts';
import { SqliteEvents } from './events.ts';
import { SqliteHedges } from './hedges.ts';
import { MIGRATIONS } from './migrations.ts';
import { sqliteNoSpace } from './no-space.ts';
import { SqliteQuotes } from './quotes.ts';
import { SqliteRestIndex } from './rest-index.ts';
import { SqliteRuns } from './runs.ts';
import { SqliteTrades } from './trades.ts';
import { SqliteTransfers } from './transfers.ts';
import type { SqliteWrites } from './writes.ts';

/** The database at `location`, migrated: what the repositories prepare their statements on. */
function openDatabase(location: string): Database.Database {
  const db = new Database(location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    db.close();
    throw new Error(
      `store ${location} has schema version ${current}, newer than this build knows (${MIGRATIONS.length})`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return db;
}

/** The repositories of one database. */
function repositories(db: Database.Database) {
  const quotes = new SqliteQuotes(db);
  const events = new SqliteEvents(db);
  const transfers = new SqliteTransfers(db);
  return {
    quotes,
    events,
    trades: new SqliteTrades(db, quotes, events, transfers),
    restIndex: new SqliteRestIndex(db),
    hedges: new SqliteHedges(db),
    transfers,
    desk: new SqliteDesk(db),
    runs: new SqliteRuns(db),
  };
}

export class SqliteStore extends ComposedStore implements SingleInstanceStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly parts: ReturnType<typeof repositories>;
  /** Every write kind, interpreted by the repository it writes. */
  private readonly writes: SqliteWrites<StoreWrite>;
  /** What the running run owns: every unclosed adoptable trade, and every hedge in flight. */
  readonly owned: OwnedTrades;

  constructor(readonly location: string) {
    const db = openDatabase(location);
    const parts = repositories(db);
    super(parts);
    this.db = db;
    this.parts = parts;
    this.writes = {
      ...parts.quotes.writes,
      ...parts.trades.writes,
      ...parts.events.writes,
      ...parts.hedges.writes,
      ...parts.transfers.writes,
      ...parts.desk.writes,
      ...parts.runs.writes,
    };
    this.owned = { ...parts.restIndex.owned, ...parts.hedges.owned };
  }

  /**
   * A full disk fails the whole batch, as a StorageFull: SQLite may have rolled the transaction back already
   * (SQLITE_FULL can end it), and the writes after it would then each commit on their own — as after any error
   * that ends the transaction, which fails the batch too. The connection stays usable: once space is back the
   * next batch commits (tried on a full tmpfs).
   */
  async commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]> {
    try {
      return this.db.transaction(() =>
        batch.map((write): WriteOutcome => {
          try {
            this.db.transaction(() => this.apply(write))();
            return { ok: true };
          } catch (error) {
            // No write's own failure: a full disk, or any error after which SQLite ended the transaction
            // itself (the writes after it would each commit alone).
            if (sqliteNoSpace(error, this.location) || !this.db.inTransaction) throw error;
            const { message } = error as Error;
            return error instanceof StoreConflict
              ? { ok: false, message, conflict: error.conflict }
              : { ok: false, message };
          }
        }),
      )();
    } catch (error) {
      throw sqliteNoSpace(error, this.location) ?? error;
    }
  }

  private apply(write: StoreWrite): void {
    // The handler of write.kind takes that kind's write: the map's type says so, which a call through the
    // union cannot.
    (this.writes[write.kind] as (write: StoreWrite) => void)(write);
  }

  /** Records a run (not stopped). */
  insertRun(run: NewRun): Promise<void> {
    return this.parts.runs.insertRun(run);
  }

  /** The new run adopts every unclosed trade by starting: only earlier unadoptable marks are cleared. */
  async adoptUnclosed(): Promise<number> {
    return this.parts.restIndex.adoptUnclosed();
  }

  async ping(): Promise<boolean> {
    return (this.db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
