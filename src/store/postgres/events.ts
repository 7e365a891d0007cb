// Events and the ledger on PostgreSQL: the event log keeps seqs in commit order across instances (the batch
// takes EVENT_LOG_LOCK before it appends), every event is fenced on its trade, and the commit that appends
// events notifies the other instances (notifications.ts). A transition's own events and entries ride in its
// trade's statement (trades.ts).
import type pg from 'pg';
import type { EventsRepository, EventWrite } from '../events.ts';
import type { NewTradeEvent, StoredLedgerEntry, TradeEventRecord } from '../records.ts';
import { type EventRow, eventFromRow, type LedgerRow, ledgerFromRow } from '../rows.ts';
import { FENCE, refused } from './fence.ts';
import { columns, runner } from './sql.ts';
import type { PostgresWrites } from './writes.ts';

/**
 * The event log's lock: a commit that appends events takes it first, so seqs are handed out in commit order
 * across instances, as SQLite's single writer does. Without it, one instance could commit seq 12 while
 * another has yet to commit 11: a reader that saw 12 pages on with events(afterSeq = 12) and never sees 11.
 * (0x7266715f6c6f67: 'rfq_log' in ASCII.)
 */
export const EVENT_LOG_LOCK = '32200784463294311';

const EVENT_COLUMNS = columns<EventRow>([
  'seq',
  'trade_id',
  'run_id',
  'at',
  'type',
  'status',
  'substate',
  'payload',
]);

const LEDGER_COLUMNS = columns<LedgerRow>([
  'entry_id',
  'trade_id',
  'movement',
  'signature',
  'mint',
  'account',
  'side',
  'amount_raw',
  'at',
]);

/** Events' and the ledger's statements. */
const SQL = {
  // Entries learnt outside a transition, each posted once.
  appendLedger: `
    INSERT INTO ledger_entries (trade_id, movement, signature, mint, account, side, amount_raw, at)
    SELECT $1, l.movement, l.signature, l.mint, l.account, l.side, l.amount_raw, $2
    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[])
      WITH ORDINALITY AS l (movement, signature, mint, account, side, amount_raw, n)
    ORDER BY l.n
    ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING`,
  // An event of the trade this write has just updated or created, fenced there.
  insertEvent: `
    INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  // Any other event: fenced on its trade, whose row it locks (FOR SHARE) so no claim overtakes the commit.
  insertEventFenced: `
    INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
    SELECT t.trade_id, t.owner_run_id, $3, $4, $5, $6, $7 FROM trades t WHERE ${FENCE}
    FOR SHARE OF t`,
  tradeEvents: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE trade_id = $1 ORDER BY seq`,
  events: `SELECT ${EVENT_COLUMNS} FROM trade_events WHERE seq > $1 ORDER BY seq LIMIT $2`,
  lastEventSeq: 'SELECT coalesce(max(seq), 0) AS seq FROM trade_events',
  ledgerAll: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries ORDER BY entry_id`,
  ledgerOf: `SELECT ${LEDGER_COLUMNS} FROM ledger_entries WHERE trade_id = $1 ORDER BY entry_id`,
} as const;

export const EVENT_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresEvents implements EventsRepository {
  constructor(
    private readonly pool: pg.Pool,
    /** LISTENs for other instances' events (notifications.ts), on a connection of its own. */
    private readonly watch: (listener: (tradeIds: readonly string[]) => void) => Promise<() => Promise<void>>,
  ) {}

  readonly writes: PostgresWrites<EventWrite> = {
    appendEvents: {
      fencedRuns: ({ events }) => events.map((event) => event.runId),
      appendsEventsOf: ({ events }) => events.map((event) => event.tradeId),
      apply: async ({ client }, { events }) => {
        for (const event of events) await this.insertEvent(client, event);
      },
    },
    // Nothing to fence: it records what happened on chain, whoever owns the trade now.
    appendLedger: {
      apply: async ({ client }, { tradeId, at, entries }) => {
        await run(client, 'appendLedger', [
          tradeId,
          at,
          entries.map((e) => e.movement),
          entries.map((e) => e.signature),
          entries.map((e) => e.mint),
          entries.map((e) => e.account),
          entries.map((e) => e.side),
          entries.map((e) => e.amountRaw.toString()),
        ]);
      },
    },
  };

  /**
   * One event, fenced on its trade — unless it is the first event of the trade `fenced` names, whose own
   * write (its creation) was fenced already.
   */
  async insertEvent(
    client: pg.PoolClient,
    event: NewTradeEvent,
    fenced?: { tradeId: string; runId: string },
  ): Promise<void> {
    const values = [
      event.tradeId,
      event.runId,
      event.at,
      event.type,
      event.status,
      event.substate,
      JSON.stringify(event.payload),
    ];
    if (event.tradeId === fenced?.tradeId && event.runId === fenced.runId) {
      await run(client, 'insertEvent', values);
      return;
    }
    const { rowCount } = await run(client, 'insertEventFenced', values);
    if (rowCount !== 1) await refused(client, event.tradeId, event.runId);
  }

  async tradeEvents(tradeId: string): Promise<TradeEventRecord[]> {
    return (await run<EventRow>(this.pool, 'tradeEvents', [tradeId])).rows.map(eventFromRow);
  }

  async events(afterSeq: number, limit: number): Promise<TradeEventRecord[]> {
    return (await run<EventRow>(this.pool, 'events', [afterSeq, limit])).rows.map(eventFromRow);
  }

  async lastEventSeq(): Promise<number> {
    return (await run<{ seq: number }>(this.pool, 'lastEventSeq')).rows[0]?.seq ?? 0;
  }

  async ledger(tradeId?: string): Promise<StoredLedgerEntry[]> {
    const { rows } =
      tradeId === undefined
        ? await run<LedgerRow>(this.pool, 'ledgerAll')
        : await run<LedgerRow>(this.pool, 'ledgerOf', [tradeId]);
    return rows.map(ledgerFromRow);
  }

  watchEvents(listener: (tradeIds: readonly string[]) => void): Promise<() => Promise<void>> {
    return this.watch(listener);
  }
}
