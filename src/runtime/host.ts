// The actor host: trades as virtual actors. A trade with nothing to do is at rest in the store (its
// snapshot, its wake time, the escrows it waits on); the host activates its actor when a command, a chain
// change or a due deadline reaches it, serializes everything done to it, persists each transition, and
// passivates the actor once it waits again. Memory follows activity; ownership stays with the run.
//
// Invariants kept here:
// - a transition is written (snapshot, event, ledger entries, the Gateway transfer it moved) in the group
//   commit of its turn, and whoever acts on it — an HTTP answer, an effect about to send — waits for that
//   commit;
// - one actor per trade, one operation on it at a time (a per-trade mutex);
// - every actor runs the one provided machine; a live trade keeps one copy of its snapshot (the actor's);
// - a trade whose write failed stops where it is ("broken"): nothing it does afterwards is stored or acted on,
//   and it answers 503 until it is taken up again from its last stored snapshot, as a restart would take it up:
//   by /resume, or by itself once a commit succeeded after the failure (a disk full for a while).
import { type Actor, type AnyEventObject, createActor, type Snapshot } from 'xstate';
import {
  isClosed,
  settlementStatusOf,
  substateOf,
  type TradeContext,
  type TradeEvent,
  type TradeSignature,
  type TradeSnapshotLike,
  tradeMachine,
} from '../../machines/index.ts';
import { isFenced, type Ownership } from '../cluster/index.ts';
import { rollbackPostings, transitionPostings } from '../ledger/index.ts';
import {
  type GroupCommit,
  isStorageFull,
  type NewTradeEvent,
  type StoreWrite,
  type TradeRecord,
  type TradesRepository,
} from '../store/index.ts';
import type { SettlementStatus } from '../vocabulary/index.ts';
import type { ChainClock } from './clock.ts';
import type { EffectActors } from './effects/index.ts';
import { RuntimeError } from './errors.ts';
import type { RuntimeLogger } from './logger.ts';
import {
  effectRunning,
  eventPayload,
  type HoldTiming,
  metaOf,
  type RestState,
  restColumns,
  storedSnapshot,
  type TradeMeta,
  tradeUpdate,
} from './trade-record.ts';
import { transferMoved } from './transfer-record.ts';
import type { TradeTransition } from './transitions.ts';

type ProvidedMachine = ReturnType<typeof tradeMachine.provide>;
type TradeActor = Actor<ProvidedMachine>;

/** A trade as a command, the watcher or a view sees it, live or closed. */
export interface TradeHandle {
  readonly tradeId: string;
  readonly meta: TradeMeta;
  /** The snapshot now ({ value, context }). */
  readonly snapshot: TradeSnapshotLike;
  readonly context: TradeContext;
  readonly status: SettlementStatus;
  /** Closed trades have no actor: they answer replays and refusals, never transition. */
  readonly closed: boolean;
  send(event: TradeEvent): void;
}

interface ActiveTrade {
  readonly meta: TradeMeta;
  readonly actor: TradeActor;
  /** The snapshot last written (by reference): a macrostep that changed nothing is not written again. */
  written: unknown;
  /** The movements the ledger has posted (a fork may take some back: they are then reversed). */
  posted: readonly TradeSignature[];
  status: SettlementStatus;
  alert: boolean;
  /** The state value (as a key) the last observation of the chain was made in. */
  observedIn: string | null;
  /** Set when a write failed: the trade answers 503 until taken up again (see the invariants). */
  broken: string | null;
  /** What failed the write (a StorageFull when the disk is full), and the commits that had succeeded then. */
  brokenBy: { error: unknown; commits: number } | null;
  /** Writes queued and not yet durable. */
  pending: number;
}

export interface HostOptions {
  store: Pick<TradesRepository, 'getTrade'>;
  durable: GroupCommit;
  runId: string;
  log: RuntimeLogger;
  clock: ChainClock;
  effects: EffectActors;
  /** How long a pending trade without a landed lock holds its output; absent: its whole lock window. */
  holds?: HoldTiming;
  /**
   * Index updates (watched escrows, held output) after every stored transition or new trade; `seen` is
   * the new trade's fingerprint of its escrows (undefined: unchanged).
   */
  onRest(rest: RestState, seen?: string): void;
  /** New events of this trade are durable (live streams read them). */
  onEventsStored(tradeId: string): void;
  /**
   * Which trades the run owns: asked before acting on a trade another run's record names, told of a write
   * the store refused because the run no longer owns its trades.
   */
  ownership: Pick<Ownership, 'acquire' | 'fenced'>;
  /** A command took over a trade whose owner run was gone (several instances). */
  onAcquired?(tradeId: string): void;
  /** Every stored transition, for its listeners (the log, metrics, the hedger). */
  onTransition?(transition: TradeTransition): void;
  /** The guards the runtime decides (the commitment policy's exposure book); absent: the machine's own. */
  guards?: Partial<RuntimeGuards>;
}

/** The machine's guards whose answer the runtime gives: the commitment policy's admission. */
export interface RuntimeGuards {
  confirmedLockAdmitted: (args: { context: TradeContext }) => boolean;
}

/**
 * What a stored transition posts to the ledger: a movement for each signature it added, and the reversal of
 * each one a fork took back (gone from the trade's signatures since the last transition).
 */
function ledgerChange(posted: readonly TradeSignature[], context: TradeContext) {
  const same = (a: TradeSignature) => (b: TradeSignature) => a.kind === b.kind && a.signature === b.signature;
  const added = context.signatures.filter((s) => !posted.some(same(s)));
  const removed = posted.filter((s) => !context.signatures.some(same(s)));
  const postings = transitionPostings(added, context);
  return removed.length === 0 ? postings : [...postings, ...rollbackPostings(removed, context)];
}

const valueKey = (snapshot: Pick<TradeSnapshotLike, 'value'>) => JSON.stringify(snapshot.value);

export class TradeHost {
  private readonly active = new Map<string, ActiveTrade>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly passivating = new Set<string>();
  private readonly machine: ProvidedMachine;
  private observer: (trade: TradeHandle) => Promise<void> = async () => {};
  private stopped = false;

  constructor(private readonly options: HostOptions) {
    this.machine = tradeMachine.provide({
      actors: options.effects,
      ...(options.guards ? { guards: options.guards } : {}),
    });
  }

  get runId(): string {
    return this.options.runId;
  }

  /** The watcher observes a trade before it is passivated (facts it ignored while busy are seen again). */
  setObserver(observe: (trade: TradeHandle) => Promise<void>): void {
    this.observer = observe;
  }

  // ── Use: activation, the per-trade mutex, passivation ──────────────────────────────────────────

  /**
   * Runs fn on the trade with its mutex held: activates its actor if it is at rest (closed trades get a
   * read-only handle), and after fn — also when it throws, since a refusal may follow a fact it just
   * observed — waits until what it caused is durable. The trade is passivated afterwards if it waits
   * again, so a refused command leaves no actor behind either.
   */
  async use<T>(tradeId: string, fn: (trade: TradeHandle) => Promise<T>): Promise<T> {
    try {
      return await this.exclusive(tradeId, async () => {
        let trade = this.active.get(tradeId);
        // Broken, and the store took a commit since: taken up again from the store, as after a restart.
        const retaken = trade !== undefined && this.retakable(trade);
        if (retaken) trade = this.drop(tradeId);
        const handle = trade ? this.liveHandle(trade) : await this.activate(tradeId, retaken);
        let value: T;
        try {
          value = await fn(handle);
        } catch (error) {
          await this.settled(tradeId).catch(() => undefined);
          throw error;
        }
        await this.settled(tradeId);
        return value;
      });
    } finally {
      this.schedulePassivation(tradeId);
    }
  }

  /**
   * Resolves once the trade's queued writes are durable; throws if one failed. An effect waits on it before
   * it acts: what started it is on disk (a transition that was not stored is never acted on).
   */
  async settled(tradeId: string): Promise<void> {
    const trade = this.active.get(tradeId);
    if (trade && trade.pending > 0) await this.options.durable.barrier();
    if (trade?.broken) throw unavailable(trade);
  }

  private async exclusive<T>(tradeId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(tradeId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(fn);
    this.locks.set(tradeId, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(tradeId) === run) this.locks.delete(tradeId);
    }
  }

  /**
   * The trade's actor from its stored snapshot, adopted into this run the first time this run runs it.
   * `reindex`: the indexes are told the stored rest state first (they followed a transition that was not stored).
   */
  private async activate(tradeId: string, reindex = false): Promise<TradeHandle> {
    let record = await this.options.store.getTrade(tradeId);
    if (!record) throw new RuntimeError('trade_not_found');
    if (reindex) this.options.onRest(storedRest(record), record.seen);
    // Another run's trade: taken over if that run is gone, else served by it (acquire throws
    // TradeOwnedElsewhere). Taken, it changed hands (or closed meanwhile): read the row the store has now.
    if (
      !record.closed &&
      record.ownerRunId !== this.runId &&
      (await this.options.ownership.acquire(tradeId)) === 'taken'
    ) {
      this.options.onAcquired?.(tradeId);
      record = (await this.options.store.getTrade(tradeId)) ?? record;
    }
    if (record.closed) return this.closedHandle(record);
    const snapshot = storedSnapshot(record);
    const trade = this.register(metaOf(record), snapshot);
    if (trade.actor.getSnapshot().context.currentRunId !== this.runId) {
      this.sendTo(trade, { type: 'ADOPTED', runId: this.runId, now: this.options.clock.estimate() });
    }
    return this.liveHandle(trade);
  }

  private register(meta: TradeMeta, snapshot: TradeSnapshotLike): ActiveTrade {
    let trade: ActiveTrade | undefined;
    const actor = createActor(this.machine, {
      snapshot: snapshot as unknown as Snapshot<unknown>,
      inspect: (inspection) => {
        if (
          inspection.type === '@xstate.snapshot' &&
          trade !== undefined &&
          inspection.actorRef === trade.actor
        ) {
          this.persist(trade, inspection.event);
        }
      },
    } as Parameters<typeof createActor<ProvidedMachine>>[1]) as TradeActor;
    trade = {
      meta,
      actor,
      written: null,
      posted: snapshot.context.signatures,
      status: settlementStatusOf(snapshot),
      alert: snapshot.context.alert,
      observedIn: null,
      broken: null,
      brokenBy: null,
      pending: 0,
    };
    this.active.set(meta.tradeId, trade);
    actor.start();
    trade.written = actor.getSnapshot();
    return trade;
  }

  private schedulePassivation(tradeId: string): void {
    if (!this.active.has(tradeId) || this.stopped || this.passivating.has(tradeId)) return;
    this.passivating.add(tradeId);
    setImmediate(() => {
      this.passivating.delete(tradeId);
      void this.exclusive(tradeId, () => this.passivate(tradeId)).catch((error: unknown) =>
        this.options.log.warn({ trade_id: tradeId, err: (error as Error).message }, 'passivation failed'),
      );
    });
  }

  /** Puts a waiting trade to rest: observed in its resting state, durable, actor stopped. */
  private async passivate(tradeId: string): Promise<void> {
    const trade = this.active.get(tradeId);
    if (!trade || trade.broken || this.stopped) return;
    const now = trade.actor.getSnapshot();
    if (effectRunning(now)) return;
    if (!isClosed(now) && trade.observedIn !== valueKey(now)) {
      await this.observer(this.liveHandle(trade));
      if (effectRunning(trade.actor.getSnapshot())) return;
    }
    await this.options.durable.barrier();
    if (trade.pending > 0 || trade.broken || this.active.get(tradeId) !== trade) return;
    this.active.delete(tradeId);
    trade.actor.stop();
  }

  /** Records that the chain was just observed in the trade's current state. */
  markObserved(trade: TradeHandle): void {
    const active = this.active.get(trade.tradeId);
    if (active) active.observedIn = valueKey(active.actor.getSnapshot());
  }

  // ── Sending and persisting ───────────────────────────────────────────────────────────────────────

  private sendTo(trade: ActiveTrade, event: TradeEvent): void {
    trade.actor.send(event);
    if (trade.broken) throw unavailable(trade);
  }

  private liveHandle(trade: ActiveTrade): TradeHandle {
    if (trade.broken) throw unavailable(trade);
    return {
      tradeId: trade.meta.tradeId,
      meta: trade.meta,
      get snapshot() {
        return trade.actor.getSnapshot() as unknown as TradeSnapshotLike;
      },
      get context() {
        return trade.actor.getSnapshot().context;
      },
      get status() {
        return settlementStatusOf(trade.actor.getSnapshot());
      },
      closed: false,
      send: (event) => this.sendTo(trade, event),
    };
  }

  private closedHandle(record: TradeRecord): TradeHandle {
    const snapshot = storedSnapshot(record);
    return {
      tradeId: record.tradeId,
      meta: metaOf(record),
      snapshot,
      context: snapshot.context,
      status: settlementStatusOf(snapshot),
      closed: true,
      send: () => {
        throw new RuntimeError('runtime_unavailable', 'The trade is closed; no actor owns it.');
      },
    };
  }

  /** Runs synchronously after every macrostep of an actor: the transition joins this turn's commit. */
  private persist(trade: ActiveTrade, event: AnyEventObject): void {
    const snapshot = trade.actor.getSnapshot();
    // Starting a restored actor or stopping one (passivation, shutdown) is not a transition: never store it.
    if (event.type === 'xstate.init' || this.stopped || snapshot.status === 'stopped') return;
    if (snapshot === trade.written || trade.broken) return;
    const before = (trade.written as { context: TradeContext } | null)?.context ?? null;
    trade.written = snapshot;
    const { context } = snapshot;
    const rest = restColumns(
      snapshot as unknown as TradeSnapshotLike & { children: Record<string, unknown> },
      this.options.holds,
    );
    const at = new Date().toISOString();
    const persisted = trade.actor.getPersistedSnapshot() as unknown as TradeSnapshotLike;
    const ledger = ledgerChange(trade.posted, context);
    trade.posted = context.signatures;
    const transfer = transferMoved(before, context, at);
    const transition: TradeTransition = {
      tradeId: trade.meta.tradeId,
      event: event.type,
      from: trade.status,
      to: rest.status,
      substate: rest.substate,
      context,
      alertedBefore: trade.alert,
      createdAt: trade.meta.createdAt,
    };
    this.write(
      trade,
      {
        kind: 'saveTransition',
        update: tradeUpdate(trade.meta.tradeId, this.runId, persisted, rest, at),
        events: [this.eventRecord(trade.meta.tradeId, event.type, rest, eventPayload(event), at)],
        ledger,
        ...(transfer ? { transfers: [transfer] } : {}),
      },
      transition,
    );
    this.options.onRest({
      tradeId: trade.meta.tradeId,
      closed: rest.closed,
      takerEscrow: trade.meta.takerEscrow,
      makerEscrow: trade.meta.makerEscrow,
      watch: rest.watch,
      hold: rest.hold,
    });
    trade.status = rest.status;
    trade.alert ||= context.alert;
    // Effects that finish move the trade without a command: put it to rest once it waits again.
    if (!effectRunning(snapshot)) this.schedulePassivation(trade.meta.tradeId);
  }

  /**
   * Queues a transition's write; once it is stored its listeners hear of it (a transition that was not stored
   * is neither logged nor counted: taken up again, the trade makes it anew). A failed one breaks the trade
   * (503 until it is taken up again) and stops its actor.
   */
  private write(
    trade: ActiveTrade,
    write: Extract<StoreWrite, { kind: 'saveTransition' }>,
    transition: TradeTransition,
  ): void {
    const { tradeId } = trade.meta;
    trade.pending++;
    this.options.durable.write(write).then(
      () => {
        trade.pending--;
        this.options.onEventsStored(tradeId);
        this.options.onTransition?.(transition);
      },
      (error: unknown) => {
        trade.pending--;
        trade.broken = (error as Error).message;
        trade.brokenBy = { error, commits: this.options.durable.committed };
        if (isFenced(error)) {
          this.options.log.error(
            { trade_id: tradeId, err: error.message },
            'the store refused a transition: this run no longer owns the trade (its lease lapsed)',
          );
          this.options.ownership.fenced();
        } else if (isStorageFull(error)) {
          this.options.log.error(
            { trade_id: tradeId, err: error.message },
            'could not persist a transition: the disk is full; the trade waits until a write succeeds again',
          );
        } else {
          this.options.log.error(
            { trade_id: tradeId, err: error },
            'could not persist a transition; the trade answers 503 until taken up again',
          );
        }
        queueMicrotask(() => trade.actor.stop());
      },
    );
  }

  eventRecord(
    tradeId: string,
    type: string,
    rest: { status: SettlementStatus; substate: string },
    payload: Record<string, unknown>,
    at = new Date().toISOString(),
  ): NewTradeEvent {
    return { tradeId, runId: this.runId, at, type, status: rest.status, substate: rest.substate, payload };
  }

  /** Where a trade is now: its actor's state, or, when it has none, the state its record was stored in. */
  private async stateNow(tradeId: string): Promise<{ status: SettlementStatus; substate: string }> {
    const snapshot = this.active.get(tradeId)?.actor.getSnapshot();
    if (snapshot) return { status: settlementStatusOf(snapshot), substate: substateOf(snapshot) };
    // An effect can outlive its actor (the run stopping); it never writes a state it does not know.
    const record = await this.options.store.getTrade(tradeId);
    if (!record) throw new Error(`trade ${tradeId} is not stored`);
    return { status: record.status, substate: record.substate };
  }

  /** A runtime note that changes no snapshot (the intent before a transaction is sent), durably. */
  async note(tradeId: string, type: string, payload: Record<string, unknown>): Promise<void> {
    const rest = await this.stateNow(tradeId);
    try {
      await this.options.durable.write({
        kind: 'appendEvents',
        events: [this.eventRecord(tradeId, type, rest, payload)],
      });
    } catch (error) {
      // An intent the store refused is never acted on (the effect fails before it sends).
      if (isFenced(error)) this.options.ownership.fenced();
      throw error;
    }
    this.options.onEventsStored(tradeId);
  }

  // ── New trades (settlement start): stored at rest, no actor ─────────────────────────────────────

  /** Stores a new trade and its first event, and indexes it; resolves once durable. */
  async create(record: TradeRecord, snapshot: TradeSnapshotLike, event: NewTradeEvent): Promise<void> {
    const rest = restColumns(snapshot, this.options.holds);
    const state: RestState = {
      tradeId: record.tradeId,
      closed: false,
      takerEscrow: record.takerEscrow,
      makerEscrow: record.makerEscrow,
      watch: rest.watch,
      hold: rest.hold,
    };
    this.options.onRest(state, record.seen);
    try {
      await this.options.durable.write({ kind: 'createTrade', trade: record, event });
    } catch (error) {
      this.options.onRest({ ...state, closed: true, watch: 0, hold: null });
      // The store refused it for want of ownership: this run has lost its trades, whatever it thought.
      if (isFenced(error)) this.options.ownership.fenced();
      throw error;
    }
    this.options.onEventsStored(record.tradeId);
  }

  // ── Views ────────────────────────────────────────────────────────────────────────────────────────

  /** The trade's snapshot now: the live actor's, else the stored one. null when unknown. */
  async snapshotOf(
    tradeId: string,
  ): Promise<{ record: TradeRecord; snapshot: TradeSnapshotLike; live: boolean } | null> {
    const record = await this.options.store.getTrade(tradeId);
    if (!record) return null;
    const live = this.liveSnapshot(tradeId);
    return live
      ? { record, snapshot: live, live: true }
      : { record, snapshot: storedSnapshot(record), live: false };
  }

  /** The live actor's snapshot, when the trade is active (and not broken). */
  liveSnapshot(tradeId: string): TradeSnapshotLike | undefined {
    const trade = this.active.get(tradeId);
    return trade && !trade.broken ? (trade.actor.getSnapshot() as unknown as TradeSnapshotLike) : undefined;
  }

  isBroken(tradeId: string): boolean {
    return this.active.get(tradeId)?.broken != null;
  }

  /** The trades broken by a failed write that may be taken up again (not those the fence refused). */
  brokenTrades(): string[] {
    return [...this.active.values()]
      .filter((trade) => trade.brokenBy !== null && !isFenced(trade.brokenBy.error))
      .map((trade) => trade.meta.tradeId);
  }

  /**
   * Takes a broken trade up again from the store (POST /resume, the runtime once the store writes again):
   * its actor dropped, the indexes told its stored rest state; its next use activates it from its stored
   * snapshot, restarting an effect that snapshot has in flight, as a restart would. False if not broken.
   */
  retake(tradeId: string): Promise<boolean> {
    return this.exclusive(tradeId, async () => {
      if (!this.active.get(tradeId)?.broken) return false;
      this.drop(tradeId);
      const record = await this.options.store.getTrade(tradeId);
      if (record) this.options.onRest(storedRest(record), record.seen);
      return true;
    });
  }

  /** Broken by a failure that a later commit proved passing, not by the fence (the run lost its trades). */
  private retakable(trade: ActiveTrade): boolean {
    const by = trade.brokenBy;
    return by !== null && !isFenced(by.error) && this.options.durable.committed > by.commits;
  }

  /** Stops and forgets the trade's actor; answers undefined (no active trade any more). */
  private drop(tradeId: string): undefined {
    const trade = this.active.get(tradeId);
    if (!trade) return;
    this.active.delete(tradeId);
    trade.actor.stop();
  }

  isActive(tradeId: string): boolean {
    return this.active.has(tradeId);
  }

  /**
   * Active actors of unclosed trades, by state (bounded by activity, not by the number of trades). A closed
   * trade's actor, about to be put away, is no longer one of the run's trades and is left out.
   */
  activeActors(): { trade_id: string; status: SettlementStatus; substate: string }[] {
    return [...this.active.values()].flatMap((t) => {
      const snapshot = t.actor.getSnapshot();
      if (isClosed(snapshot)) return [];
      return [
        { trade_id: t.meta.tradeId, status: settlementStatusOf(snapshot), substate: substateOf(snapshot) },
      ];
    });
  }

  get activeCount(): number {
    return this.active.size;
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.locks.values()]);
    this.stopped = true;
    for (const trade of this.active.values()) trade.actor.stop();
    this.active.clear();
  }
}

/**
 * Why a broken trade answers 503: the disk is full (StorageFull, storage_full with Retry-After), or its write
 * failed otherwise (runtime_unavailable).
 */
function unavailable(trade: ActiveTrade): Error {
  const error = trade.brokenBy?.error;
  if (isStorageFull(error)) return error;
  return new RuntimeError('runtime_unavailable', 'The trade’s transition could not be stored.');
}

/** A stored trade's rest state, as the indexes take it. */
function storedRest(record: TradeRecord): RestState {
  const { tradeId, closed, takerEscrow, makerEscrow, watch, hold } = record;
  return { tradeId, closed, takerEscrow, makerEscrow, watch, hold };
}
