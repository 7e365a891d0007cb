// A batch's commit on PostgreSQL: one transaction on one pooled client, first without savepoints and, if a
// write fails, once more with a savepoint per write so the others still commit. Every write of a trade or a
// hedge is fenced in its own statement and the fenced runs' leases are checked again in the COMMIT's own
// message; a quote's reservation is checked under its mint's lock against every instance's reservations;
// the event log's lock keeps seqs in commit order across instances; the notices ride with the COMMIT.
import type pg from 'pg';
import type { LedgerEntry } from '../../ledger/index.ts';
import {
  HEDGE_COLUMNS,
  HEDGE_UPDATE_COLUMNS,
  type HedgeRecord,
  type HedgeUpdate,
  hedgeRow,
  hedgeUpdateRow,
} from '../hedges.ts';
import type { NewTradeEvent, QuoteRecord, TradeRecord, TradeUpdate } from '../records.ts';
import { currentSecond, holdReservation, ReservationDeltas } from '../reservation-buckets.ts';
import { holdFromRow, priceText, type TradeRow } from '../rows.ts';
import { StoreConflict, type StoreWrite, type WriteOutcome } from '../writes.ts';
import { postgresNoSpace } from './no-space.ts';
import { EVENTS_CHANNEL, eventsNotices, tradesWithEvents } from './notifications.ts';
import { EVENT_LOG_LOCK, liveRow, runStatement, type Statement } from './sql.ts';

const UNIQUE_VIOLATION = '23505';

/** A write that appends to the event log (see EVENT_LOG_LOCK). */
const appendsEvents = (write: StoreWrite): boolean =>
  write.kind === 'createTrade' ||
  write.kind === 'appendEvents' ||
  (write.kind === 'saveTransition' && write.events.length > 0);

/** The runs whose leases a write's fence relied on. */
function fencedRuns(write: StoreWrite): string[] {
  switch (write.kind) {
    case 'createTrade':
      return [write.trade.ownerRunId];
    case 'saveTransition':
      return [write.update.ownerRunId];
    case 'appendEvents':
      return write.events.map((event) => event.runId);
    case 'setSeen':
    case 'setWake':
    case 'claimTrade':
      return [write.runId];
    case 'insertHedge':
      return [write.hedge.ownerRunId];
    case 'updateHedge':
      return [write.update.ownerRunId];
    case 'insertQuote':
    case 'appendLedger':
    case 'probe':
      return [];
  }
}

/**
 * What the commit's lease re-check raises when a run's lease lapsed: a division by zero, computed from the
 * count (a constant 1 / 0 the planner would fold and raise every time), so no function need be created.
 */
const DIVISION_BY_ZERO = '22012';

/** The output mints a batch's quotes are checked against: whose reservation locks it takes. */
const reservingMints = (batch: readonly StoreWrite[]): string[] =>
  [
    ...new Set(batch.flatMap((w) => (w.kind === 'insertQuote' && w.reserve ? [w.quote.outputMint] : []))),
  ].sort();

/** Commits batches of writes for one store instance (its id tags the notices it sends). */
export class BatchCommit {
  constructor(
    private readonly pool: pg.Pool,
    private readonly instanceId: string,
  ) {}

  private query(name: Statement, values: unknown[], on: pg.PoolClient): Promise<pg.QueryResult> {
    return runStatement(on, name, values);
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
      return (
        (await this.attempt(client, batch, false)) ??
        ((await this.attempt(client, batch, true)) as WriteOutcome[])
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
    batch: readonly StoreWrite[],
    savepoints: boolean,
  ): Promise<WriteOutcome[] | null> {
    // Savepoint commands ride with the statement before them, so a write costs one round trip beyond its
    // own statements (and none without savepoints). ROLLBACK TO keeps the savepoint, ready for the next write.
    const lock = batch.some(appendsEvents) ? `SELECT pg_advisory_xact_lock(${EVENT_LOG_LOCK}); ` : '';
    const mints = reservingMints(batch);
    if (mints.length === 0) {
      await client.query(`BEGIN; ${lock}${savepoints ? 'SAVEPOINT each_write' : ''}`);
    } else {
      // Outside any savepoint: a lock taken inside one would go with its rollback.
      await client.query(`BEGIN; ${lock}`);
      await this.query('lockReservations', [mints], client);
      if (savepoints) await client.query('SAVEPOINT each_write');
    }
    const outcomes: WriteOutcome[] = [];
    const notified = new Set<string>();
    // What the batch's writes that held change in the reservation buckets, applied before the commit.
    const reservations = new ReservationDeltas();
    // The runs whose live leases the batch's stored writes relied on (a write the fence refused relied on none).
    const leased = new Set<string>();
    let used = false;
    for (const write of batch) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write; SAVEPOINT each_write');
      try {
        const changes = new ReservationDeltas();
        await this.apply(client, write, changes, reservations);
        reservations.merge(changes);
        for (const runId of fencedRuns(write)) leased.add(runId);
        outcomes.push({ ok: true });
        for (const tradeId of tradesWithEvents(write)) notified.add(tradeId);
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
    const { mints: bucketMints, seconds, raws } = reservations.rows(Date.now());
    if (bucketMints.length > 0) {
      if (used && savepoints) await client.query('RELEASE SAVEPOINT each_write');
      await this.query('applyReservations', [bucketMints, seconds, raws], client);
    }
    // The notifications ride with the COMMIT, which delivers them (and none if it rolls back).
    const notify = eventsNotices(this.instanceId, notified)
      .map((notice) => `NOTIFY ${EVENTS_CHANNEL}, ${client.escapeLiteral(notice)}; `)
      .join('');
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
    if (command !== 'COMMIT') throw new Error(`the commit of ${batch.length} writes was rolled back`);
    return outcomes;
  }

  /**
   * One write. `changes` collects what it changes in the reservation buckets (kept only if it succeeds);
   * `batch` is what the batch's earlier writes changed, not applied yet, which a reservation check counts.
   */
  private async apply(
    client: pg.PoolClient,
    write: StoreWrite,
    changes: ReservationDeltas,
    batch: ReservationDeltas,
  ): Promise<void> {
    switch (write.kind) {
      case 'insertQuote':
        if (write.reserve) await this.checkReservation(client, write.quote, write.reserve, batch);
        return this.insertQuote(client, write.quote, changes);
      case 'createTrade':
        return this.createTrade(client, write.trade, write.event, changes);
      case 'saveTransition':
        return this.saveTransition(client, write.update, write.events, write.ledger, changes);
      case 'appendEvents':
        for (const event of write.events) await this.insertEvent(client, event);
        return;
      case 'appendLedger':
        await this.query(
          'appendLedger',
          [
            write.tradeId,
            write.at,
            write.entries.map((e) => e.movement),
            write.entries.map((e) => e.signature),
            write.entries.map((e) => e.mint),
            write.entries.map((e) => e.account),
            write.entries.map((e) => e.side),
            write.entries.map((e) => e.amountRaw.toString()),
          ],
          client,
        );
        return;
      case 'setSeen': {
        const { rowCount } = await this.query('setSeen', [write.tradeId, write.runId, write.seen], client);
        // An unknown trade changes nothing, as it always did.
        if (rowCount !== 1) await this.refused(client, write.tradeId, write.runId, { unknown: 'ok' });
        return;
      }
      case 'setWake': {
        const { rowCount } = await this.query('setWake', [write.tradeId, write.runId, write.at], client);
        if (rowCount !== 1) await this.refused(client, write.tradeId, write.runId, { unknown: 'ok' });
        return;
      }
      case 'claimTrade': {
        const { rowCount } = await this.query('claimTrade', [write.tradeId, write.runId], client);
        // An unknown or closed trade has nothing to claim, as before.
        if (rowCount !== 1) {
          await this.refused(client, write.tradeId, write.runId, { unknown: 'ok', closed: 'ok' });
        }
        return;
      }
      case 'probe':
        await this.query('probe', [write.runId, write.at], client);
        return;
      case 'insertHedge':
        return this.insertHedge(client, write.hedge);
      case 'updateHedge':
        return this.updateHedge(client, write.update, write.ledger);
    }
  }

  private async insertHedge(client: pg.PoolClient, hedge: HedgeRecord): Promise<void> {
    const row = hedgeRow(hedge);
    let rowCount: number | null;
    try {
      ({ rowCount } = await this.query(
        'insertHedge',
        HEDGE_COLUMNS.map((column) => row[column]),
        client,
      ));
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === 'hedges_in_flight') {
        throw new StoreConflict('hedge_in_flight', `a hedge of ${hedge.asset} is already in flight`);
      }
      throw error;
    }
    if (rowCount !== 1) {
      throw new StoreConflict('fenced', `run ${hedge.ownerRunId} has no live lease to record a hedge`);
    }
  }

  private async updateHedge(
    client: pg.PoolClient,
    update: HedgeUpdate,
    ledger: readonly LedgerEntry[],
  ): Promise<void> {
    const row = hedgeUpdateRow(update);
    const { rowCount } = await this.query(
      'updateHedge',
      [
        ...HEDGE_UPDATE_COLUMNS.map((column) => row[column as keyof typeof row]),
        ledger.map((l) => l.movement),
        ledger.map((l) => l.signature),
        ledger.map((l) => l.mint),
        ledger.map((l) => l.account),
        ledger.map((l) => l.side),
        ledger.map((l) => l.amountRaw.toString()),
      ],
      client,
    );
    if (rowCount === 1) return;
    const [owner] = (await this.query('hedgeOwner', [update.hedgeId], client)).rows as {
      owner_run_id: string;
    }[];
    if (owner === undefined) throw new Error(`hedge ${update.hedgeId} does not exist`);
    throw new StoreConflict(
      'fenced',
      `run ${update.ownerRunId} does not own hedge ${update.hedgeId}, or its lease lapsed`,
    );
  }

  /**
   * A fenced write changed nothing: says why (after the fact, only to choose the error — the write itself
   * decided in its own statement). Trades are never deleted nor reopened, so the answer cannot go stale.
   */
  private async refused(
    client: pg.PoolClient,
    tradeId: string,
    runId: string,
    allowed: { unknown?: 'ok'; closed?: 'ok' } = {},
  ): Promise<void> {
    const [row] = (await this.query('tradeState', [tradeId], client)).rows as { closed: boolean }[];
    if (row === undefined) {
      if (allowed.unknown === 'ok') return;
      throw new Error(`trade ${tradeId} does not exist`);
    }
    if (row.closed && allowed.closed === 'ok') return;
    throw new StoreConflict('fenced', `run ${runId} does not own trade ${tradeId}, or its lease lapsed`);
  }

  /** The quote's columns, in the order of the insert statements' parameters. */
  private quoteValues(quote: QuoteRecord): unknown[] {
    return [
      quote.quoteId,
      quote.runId,
      quote.takerWallet,
      quote.inputMint,
      quote.outputMint,
      quote.inputRaw.toString(),
      quote.outputRaw.toString(),
      quote.spreadBps,
      quote.inputUsd,
      quote.outputUsd,
      priceText(quote.inputPrice ?? null),
      priceText(quote.outputPrice ?? null),
      quote.createdAt,
      quote.expiresAtMs,
      quote.htlcExpiresAtMs,
      JSON.stringify(quote.riskChecks),
      quote.usedByTradeId,
      quote.sourcing ? JSON.stringify(quote.sourcing) : null,
    ];
  }

  private async insertQuote(
    client: pg.PoolClient,
    quote: QuoteRecord,
    changes: ReservationDeltas,
  ): Promise<void> {
    await this.query('insertQuote', this.quoteValues(quote), client);
    if (quote.usedByTradeId === null) {
      changes.add({ mint: quote.outputMint, raw: quote.outputRaw, untilMs: quote.expiresAtMs });
    }
  }

  /**
   * Refuses the quote (StoreConflict 'inventory') unless its output fits under the balance beside every
   * instance's reservations of its mint at reserve.nowMs. The batch holds the mint's lock (taken before its
   * first write), so this statement's snapshot (READ COMMITTED: one per statement) sees every reservation the
   * lock's earlier holders committed; `batch` adds this batch's own, not applied yet.
   */
  private async checkReservation(
    client: pg.PoolClient,
    quote: QuoteRecord,
    reserve: { balanceRaw: bigint; nowMs: number },
    batch: ReservationDeltas,
  ): Promise<void> {
    const { rows } = await this.query(
      'reservedSum',
      [quote.outputMint, reserve.nowMs, currentSecond(reserve.nowMs)],
      client,
    );
    const reserved = BigInt((rows[0] as { raw: string }).raw) + batch.ahead(quote.outputMint, reserve.nowMs);
    if (reserved + quote.outputRaw > reserve.balanceRaw) {
      throw new StoreConflict(
        'inventory',
        `quote ${quote.quoteId} would reserve ${quote.outputRaw} of ${quote.outputMint} beside ` +
          `${reserved} reserved, over the balance of ${reserve.balanceRaw}`,
      );
    }
  }

  private async createTrade(
    client: pg.PoolClient,
    trade: TradeRecord,
    event: NewTradeEvent,
    changes: ReservationDeltas,
  ): Promise<void> {
    const { rowCount, rows } = await this.query('markQuoteUsed', [trade.quoteId, trade.tradeId], client);
    if (rowCount !== 1) throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
    // The quote's reservation becomes the trade's hold.
    const used = rows[0] as { output_mint: string; output_raw: string; expires_at_ms: number };
    changes.move(
      { mint: used.output_mint, raw: BigInt(used.output_raw), untilMs: used.expires_at_ms },
      holdReservation(trade),
    );
    await this.insertTradeRow(client, trade);
    await this.query('insertSnapshot', [trade.tradeId, trade.machineVersion, trade.snapshot], client);
    await this.insertEvent(client, event, trade.tradeId, trade.ownerRunId);
  }

  private async insertTradeRow(client: pg.PoolClient, trade: TradeRecord): Promise<void> {
    let rowCount: number | null;
    try {
      ({ rowCount } = await this.query(
        'insertTrade',
        [
          trade.tradeId,
          trade.quoteId,
          trade.runId,
          trade.ownerRunId,
          trade.takerWallet,
          trade.secretHash,
          trade.createdAt,
          trade.updatedAt,
          trade.status,
          trade.substate,
          trade.closed,
          trade.nextDeadline,
          trade.adoptionError,
          trade.takerEscrow,
          trade.makerEscrow,
          trade.watch,
          trade.seen,
          trade.hold?.mint ?? null,
          trade.hold?.raw.toString() ?? null,
          trade.hold?.untilMs ?? null,
          trade.running,
          trade.effectAttempts,
        ],
        client,
      ));
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === 'trades_secret_hash_key') {
        throw new StoreConflict('secret_hash_used', `secret hash ${trade.secretHash} belongs to a trade`);
      }
      if (code === UNIQUE_VIOLATION && constraint === 'trades_quote_id_key') {
        throw new StoreConflict('quote_used', `quote ${trade.quoteId} is already used`);
      }
      throw error;
    }
    if (rowCount !== 1) {
      throw new StoreConflict(
        'fenced',
        `run ${trade.ownerRunId} has no live lease to create trade ${trade.tradeId}`,
      );
    }
  }

  private async saveTransition(
    client: pg.PoolClient,
    update: TradeUpdate,
    events: readonly NewTradeEvent[],
    ledger: readonly LedgerEntry[],
    changes: ReservationDeltas,
  ): Promise<void> {
    // Every event of a transition is its trade's, by the run that moved it (see the runtime's persist).
    if (events.some((event) => event.tradeId !== update.tradeId || event.runId !== update.ownerRunId)) {
      throw new Error(`a transition of trade ${update.tradeId} carries another trade's or run's event`);
    }
    const { rowCount, rows } = await this.query(
      'saveTransition',
      [
        update.tradeId,
        update.ownerRunId,
        update.updatedAt,
        update.status,
        update.substate,
        update.closed,
        update.nextDeadline,
        update.watch,
        update.hold?.mint ?? null,
        update.hold?.raw.toString() ?? null,
        update.hold?.untilMs ?? null,
        update.running,
        update.effectAttempts,
        update.machineVersion,
        update.snapshot,
        events.map((e) => e.at),
        events.map((e) => e.type),
        events.map((e) => e.status),
        events.map((e) => e.substate),
        events.map((e) => JSON.stringify(e.payload)),
        ledger.map((l) => l.movement),
        ledger.map((l) => l.signature),
        ledger.map((l) => l.mint),
        ledger.map((l) => l.account),
        ledger.map((l) => l.side),
        ledger.map((l) => l.amountRaw.toString()),
      ],
      client,
    );
    if (rowCount !== 1) await this.refused(client, update.tradeId, update.ownerRunId);
    const before = rows[0] as Pick<TradeRow, 'closed' | 'hold_mint' | 'hold_raw' | 'hold_until_ms'>;
    changes.move(
      holdReservation({ closed: Boolean(before.closed), hold: holdFromRow(before) }),
      holdReservation(update),
    );
  }

  private async insertEvent(
    client: pg.PoolClient,
    event: NewTradeEvent,
    fencedTrade?: string,
    fencedRun?: string,
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
    if (event.tradeId === fencedTrade && event.runId === fencedRun) {
      await this.query('insertEvent', values, client);
      return;
    }
    const { rowCount } = await this.query('insertEventFenced', values, client);
    if (rowCount !== 1) await this.refused(client, event.tradeId, event.runId);
  }
}
