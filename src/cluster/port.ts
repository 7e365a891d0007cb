// The ownership port: which trades this run owns, and for how long, as the rest of the service sees it. One
// port, two shapes of the same answer: a single instance (SQLite, single-instance.ts) owns every unclosed
// trade for as long as it runs; over one PostgreSQL (leased.ts) a run owns the trades its lease covers, takes
// over the orphans of runs that are gone, and gives everything up once the lease is lost. The runtime asks
// it before acting on another run's trade, tells it of a write the store's fence refused, and hears from it
// what it took over; how any of that is done stays in this folder.
import { type ClaimedTrade, type HedgeRecord, type OwnedTrades, StoreConflict } from '../store/index.ts';

export interface Ownership {
  readonly runId: string;
  /** Whether the run still owns its trades as far as this process can tell (readiness): false once lost. */
  readonly live: boolean;
  /** Seconds the run is sure to own its trades without another word from the store; 0 once lost. */
  readonly remainingSeconds: number;
  /** The store's indexes over the trades (and hedges in flight) this run owns. */
  readonly trades: OwnedTrades;
  /** Whether an unclosed trade is this run's by its record (a single instance's: every one). */
  owns(record: { readonly ownerRunId: string }): boolean;
  /**
   * At the run's start, before it indexes its trades: takes at once what earlier runs left that can be taken
   * at once (a single instance: every unclosed trade; a cluster drains its orphans once the run acts, keep).
   */
  takeOver(): Promise<void>;
  /** Once the run acts, until stop: keeps ownership, and brings the run what it takes over (orphans now too). */
  keep(run: OwnedRun): void;
  /** Takes every orphan there is now; resolves once done (failures are logged, not thrown). */
  claim(): Promise<void>;
  /**
   * Before the run acts on a trade whose record names another run: 'ours' — it is this run's as recorded
   * (read as is); 'taken' — it changed hands to this run (read it again). Throws TradeOwnedElsewhere while
   * another live run owns it.
   */
  acquire(tradeId: string): Promise<'ours' | 'taken'>;
  /**
   * While a forward waits on the trade's owner: takes the trade if the owner is gone (adopted at once), so
   * the caller's retry is served here; false while the owner lives.
   */
  takeIfOwnerGone(tradeId: string): Promise<boolean>;
  /** Hedges in flight whose owner run is gone, taken for this run (none on a single instance). */
  takeOrphanedHedges(): Promise<HedgeRecord[]>;
  /** The store refused a write of this run (the fence, isFenced): the run's trades are gone. */
  fenced(): void;
  /**
   * The service listens at url: earlier runs that advertised it are gone (a live one would hold the address),
   * so they are retired and their trades taken now. Resolves once they are taken.
   */
  listeningAt(url: string): Promise<void>;
  /** Stops keeping ownership (no renewal); idempotent. */
  stop(): void;
  /** Ends the run in the store (stopped: its unclosed trades are free at once); a failure is logged. */
  end(): Promise<void>;
}

/** What the run does with what ownership brings it (Ownership.keep). */
export interface OwnedRun {
  /** Trades this run just took over: index them and restart what a crash interrupted. */
  adopt(claimed: readonly ClaimedTrade[]): void;
  /**
   * Whether the run can act on what it would take: the chain answered within withinMs, or answers now.
   * Orphans wait for a run that can, rather than going to one that would only sit on them.
   */
  reachesChain(withinMs: number): Promise<boolean>;
  /** The run no longer owns its trades: stop acting (called once). */
  lost(reason: string): void;
}

/** Whether a write failed because the store's fence refused it: the writing run no longer owns its trades. */
export const isFenced = (error: unknown): error is StoreConflict =>
  error instanceof StoreConflict && error.conflict === 'fenced';

/**
 * A command for a trade another live run (instance) owns: it is served there (the HTTP layer forwards the
 * request to ownerUrl), never here — only the owner may act on a trade while its lease lives.
 */
export class TradeOwnedElsewhere extends Error {
  constructor(
    readonly tradeId: string,
    readonly ownerRunId: string,
    readonly ownerUrl: string | null,
  ) {
    super(`trade ${tradeId} is owned by run ${ownerRunId}`);
    this.name = 'TradeOwnedElsewhere';
  }
}

/** What the cluster logs through: the service's pino logger, or a test's capture. */
export interface ClusterLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
