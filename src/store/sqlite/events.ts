// Events and the ledger on SQLite: the event log (its seq is the rowid order of SQLite's single writer) and
// the ledger's entries, each posted once (its unique key). A transition's own events and entries are written
// by its trade's write (trades.ts) through insertEvent and insertLedger.
import type Database from 'better-sqlite3';
import type { LedgerEntry } from '../../ledger/index.ts';
import type { EventsRepository, EventWrite } from '../events.ts';
import type { NewTradeEvent, StoredLedgerEntry, TradeEventRecord } from '../records.ts';
import { type EventRow, eventFromRow, type LedgerRow, ledgerFromRow } from '../rows.ts';
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    insertEvent: db.prepare(`
      INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
      VALUES (@tradeId, @runId, @at, @type, @status, @substate, @payload)`),
    insertLedger: db.prepare(`
      INSERT OR IGNORE INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
      VALUES (@tradeId, @movement, @signature, @mint, @account, @side, @amountRaw, @at)`),
    tradeEvents: db.prepare('SELECT * FROM trade_events WHERE trade_id = ? ORDER BY seq'),
    events: db.prepare('SELECT * FROM trade_events WHERE seq > ? ORDER BY seq LIMIT ?'),
    lastEventSeq: db.prepare('SELECT max(seq) AS seq FROM trade_events'),
    ledgerAll: db.prepare('SELECT * FROM ledger_entries ORDER BY entry_id'),
    ledgerOf: db.prepare('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY entry_id'),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteEvents implements EventsRepository {
  private readonly statements: Statements;

  constructor(private readonly db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<EventWrite> = {
    appendEvents: ({ events }) =>
      this.db.transaction(() => {
        for (const event of events) this.insertEvent(event);
      })(),
    appendLedger: ({ tradeId, entries, at }) => this.insertLedger(tradeId, entries, at),
  };

  insertEvent(event: NewTradeEvent): void {
    this.statements.insertEvent.run({
      tradeId: event.tradeId,
      runId: event.runId,
      at: event.at,
      type: event.type,
      status: event.status,
      substate: event.substate,
      payload: JSON.stringify(event.payload),
    });
  }

  /** Each entry once (the ledger's unique key): a movement reported twice is posted once. */
  insertLedger(tradeId: string, entries: readonly LedgerEntry[], at: string): void {
    for (const entry of entries) {
      this.statements.insertLedger.run({ ...entry, tradeId, amountRaw: entry.amountRaw.toString(), at });
    }
  }

  async tradeEvents(tradeId: string): Promise<TradeEventRecord[]> {
    return (this.statements.tradeEvents.all(tradeId) as EventRow[]).map(eventFromRow);
  }

  async events(afterSeq: number, limit: number): Promise<TradeEventRecord[]> {
    return (this.statements.events.all(afterSeq, limit) as EventRow[]).map(eventFromRow);
  }

  async lastEventSeq(): Promise<number> {
    return (this.statements.lastEventSeq.get() as { seq: number | null }).seq ?? 0;
  }

  async ledger(tradeId?: string): Promise<StoredLedgerEntry[]> {
    const rows =
      tradeId === undefined ? this.statements.ledgerAll.all() : this.statements.ledgerOf.all(tradeId);
    return (rows as LedgerRow[]).map(ledgerFromRow);
  }

  /** One process writes: there are never events of another to hear. */
  async watchEvents(_listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    return async () => {};
  }
}
