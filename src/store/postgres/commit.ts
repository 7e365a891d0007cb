// A batch's commit on PostgreSQL: one transaction on one pooled client, first without savepoints and, if a
// write fails, once more with a savepoint per write so the others still commit. Each write runs as its
// repository interprets it (writes.ts; quotes.ts, trades.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts): every
// write of a trade or a hedge is fenced in its own statement, and the fenced runs' leases are checked again
// here, in the COMMIT's own message; a quote's reservation is checked under its mint's lock against every
// instance's reservations; the event log's lock keeps seqs in commit order across instances; the notices
// ride with the COMMIT.
import type pg from 'pg';
import { ReservationDeltas } from '../reservation-buckets.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from '../writes.ts';
import { EVENT_LOG_LOCK } from './events.ts';
import { postgresNoSpace } from './no-space.ts';
import { DESK_CHANNEL, EVENTS_CHANNEL, eventsNotices } from './notifications.ts';
import type { PostgresQuotes } from './quotes.ts';
import { liveRow } from './sql.ts';
import type { PostgresWrite, PostgresWrites } from './writes.ts';

/**
 * What the commit's lease re-check raises when a run's lease lapsed: a division by zero, computed from the
 * count (a constant 1 / 0 the planner would fold and raise every time), so no function need be created.
 */
const DIVISION_BY_ZERO = '22012';

/** What the batch knows of each write before and after it runs (writes.ts). */
interface Planned {
  write: StoreWrite;
  handler: PostgresWrite<StoreWrite>;
}

/**
 * Commits batches of writes for one store instance (its id tags the notices it sends), each write by the
 * repository whose write kind it is.
 */
export class BatchCommit {
  constructor(
    private readonly pool: pg.Pool,
    private readonly instanceId: string,
    /** Every write kind, interpreted by the repository it writes. */
    private readonly writes: PostgresWrites<StoreWrite>,
    /** The reservations' locks and buckets, which span the batch. */
    private readonly quotes: PostgresQuotes,
  ) {}

  /** The write with its repository's interpretation. */
  private plan(write: StoreWrite): Planned {
    // The entry of write.kind takes that kind's write: the map's type says so, which a lookup by the union's
    // kind cannot.
    return { write, handler: this.writes[write.kind] as PostgresWrite<StoreWrite> };
  }

  async commit(batch: readonly StoreWrite[]): Promise<WriteOutcome[]> {
    if (batch.length === 0) return [];
    const client = await this.pool.connect();
    // The server may end the connection while no query runs on it (a transaction left idle too long: see
    // leaseTtlMs); the client then emits the error, which with no listener would end the process. The
    // commit's next query fails instead, and the batch with it.
    const onError = () => {};
    client.on('error', onError);
    let failed = false;
    try {
      // First without a savepoint per write, one round trip less each: when every write succeeds, the common
      // case, the batch commits as it is. When one fails, the transaction is rolled back whole (so nothing of
      // that run is kept) and the batch runs again with a savepoint per write, so that the others still commit
      // and the failed one answers its own error.
      const planned = batch.map((write) => this.plan(write));
      return (
        (await this.attempt(client, planned, false)) ??
        ((await this.attempt(client, planned, true)) as WriteOutcome[])
      );
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => {});
      // A full disk fails the whole batch, whichever statement met it (see attempt).
      throw postgresNoSpace(error) ?? error;
    } finally {
      // A destroyed client may still report its end: leave it the listener.
      if (!failed) client.off('error', onError);
      // After a failed commit the connection itself may be what broke: never hand it out again.
      client.release(failed);
    }
  }

  /**
   * One run of a batch in a transaction of its own, committed. With `savepoints`, each write in its own: a
   * failed one is undone alone and answers its error. Without, the first failure rolls the transaction back
   * and answers null (the caller runs the batch again with them).
   */
  private async attempt(
    client: pg.PoolClient,
    batch: readonly Planned[],
    savepoints: boolean,
  ): Promise<WriteOutcome[] | null> {
    await this.begin(client, batch, savepoints);
    const outcomes: WriteOutcome[] = [];
    const notified = new Set<string>();
    let deskChanged = false;
    // What the batch's writes that held change in the reservation buckets, applied before the commit.
    const reservations = new ReservationDeltas();
    // The runs whose live leases the batch's stored writes relied on (a write the fence refused relied on none).
    const leased = new Set<string>();
    let used = false;
    for (const { write, handler } of batch) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write; SAVEPOINT each_write');
      try {
        const changes = new ReservationDeltas();
        await handler.apply({ client, changes, batch: reservations }, write);
        reservations.merge(changes);
        for (const runId of handler.fencedRuns?.(write) ?? []) leased.add(runId);
        outcomes.push({ ok: true });
        for (const tradeId of handler.appendsEventsOf?.(write) ?? []) notified.add(tradeId);
        if (handler.changesDesk) deskChanged = true;
        used = true;
      } catch (error) {
        // A full disk is no write's own failure: the others would meet it too, or take space one needs.
        if (postgresNoSpace(error)) throw error;
        if (!savepoints) {
          await client.query('ROLLBACK');
          return null;
        }
        await client.query('ROLLBACK TO SAVEPOINT each_write');
        const { message } = error as Error;
        outcomes.push(
          error instanceof StoreConflict
            ? { ok: false, message, conflict: error.conflict }
            : { ok: false, message },
        );
        used = false;
      }
    }
    const buckets = reservations.rows(Date.now());
    if (buckets.mints.length > 0) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write');
      await this.quotes.applyReservations(client, buckets);
    }
    await this.commitWith(client, { notified, deskChanged, leased }, batch.length);
    return outcomes;
  }
  /**
   * Opens the batch's transaction with the locks its writes need, outside any savepoint (a lock taken inside
   * one would go with its rollback): the event log's, the reserved mints'.
   */
  private async begin(client: pg.PoolClient, batch: readonly Planned[], savepoints: boolean): Promise<void> {
    // Savepoint commands ride with the statement before them, so a write costs one round trip beyond its
    // own statements (and none without savepoints). ROLLBACK TO keeps the savepoint, ready for the next write.
    const appends = batch.some(({ write, handler }) => (handler.appendsEventsOf?.(write).length ?? 0) > 0);
    const lock = appends ? `SELECT pg_advisory_xact_lock(${EVENT_LOG_LOCK}); ` : '';
    // The output mints the batch's quotes are checked against: whose reservation locks it takes.
    const mints = [
      ...new Set(batch.flatMap(({ write, handler }) => handler.reservesMint?.(write) ?? [])),
    ].sort();
    if (mints.length === 0) {
      await client.query(`BEGIN; ${lock}${savepoints ? 'SAVEPOINT each_write' : ''}`);
    } else {
      await client.query(`BEGIN; ${lock}`);
      await this.quotes.lockReservations(client, mints);
      if (savepoints) await client.query('SAVEPOINT each_write');
    }
  }

  /**
   * The COMMIT, with in its own message the notices it delivers and the re-check of the leases the stored
   * writes' fences relied on.
   */
  private async commitWith(
    client: pg.PoolClient,
    { notified, deskChanged, leased }: { notified: Set<string>; deskChanged: boolean; leased: Set<string> },
    size: number,
  ): Promise<void> {
    // The notifications ride with the COMMIT, which delivers them (and none if it rolls back).
    const notify =
      eventsNotices(this.instanceId, notified)
        .map((notice) => `NOTIFY ${EVENTS_CHANNEL}, ${client.escapeLiteral(notice)}; `)
        .join('') + (deskChanged ? `NOTIFY ${DESK_CHANNEL}, ${client.escapeLiteral(this.instanceId)}; ` : '');
    // Each fenced write passed its fence when it ran; this process may have been frozen since. Checked
    // again in the COMMIT's own message (no pause of ours can come between): a run whose lease lapsed
    // meanwhile commits nothing (its rows were locked, so no claim has overtaken it yet).
    const runs = [...leased];
    const recheck =
      runs.length === 0
        ? ''
        : `SELECT 1 / (CASE WHEN count(*) > 0 THEN 0 ELSE 1 END) FROM runs r WHERE r.run_id IN (${runs
            .map((runId) => client.escapeLiteral(runId))
            .join(', ')}) AND NOT ${liveRow('r')}; `;
    let results: pg.QueryResult | pg.QueryResult[];
    try {
      results = await client.query(`${recheck}${notify}COMMIT`);
    } catch (error) {
      if ((error as { code?: string }).code === DIVISION_BY_ZERO) {
        await client.query('ROLLBACK');
        throw new StoreConflict('fenced', `the lease of run ${runs.join(', ')} lapsed before its commit`);
      }
      throw error;
    }
    // COMMIT of a transaction in the aborted state answers ROLLBACK instead of failing.
    const { command } = [results].flat().at(-1) as pg.QueryResult;
    if (command !== 'COMMIT') throw new Error(`the commit of ${size} writes was rolled back`);
  }
}
