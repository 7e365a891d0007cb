// A run among several over one PostgreSQL: it owns the trades its lease covers (lease.ts: renewed every third
// of its TTL, orphans drained on each renewal), takes a trade whose owner is gone when it must act on it,
// and is lost — it stops acting — when the store refuses a renewal or a write (the fence), or no renewal is
// confirmed before the lease would lapse by this process's own clock.
import type { HedgeRecord, OwnedTrades, SharedStore } from '../store/index.ts';
import { RunLease, StartupLease } from './lease.ts';
import { type OwnedRun, type Ownership, TradeOwnedElsewhere } from './port.ts';
import { endRun, type OwnershipOptions, retireEarlierRuns } from './run.ts';

type LeaseStore = Pick<
  SharedStore,
  | 'ownedBy'
  | 'renewLease'
  | 'claimOrphans'
  | 'acquireTrade'
  | 'getTrade'
  | 'claimHedges'
  | 'retireRuns'
  | 'stopRun'
>;

export class LeasedOwnership implements Ownership {
  readonly trades: OwnedTrades;
  private readonly lease: RunLease;
  /** Renews the lease from the run's insert until the runtime keeps it. */
  private readonly startup: StartupLease;
  private run: OwnedRun | null = null;

  constructor(
    private readonly store: LeaseStore,
    readonly runId: string,
    private readonly options: OwnershipOptions,
    confirmedAt: number,
  ) {
    const { ttlMs, claimBatch, log } = options;
    this.trades = store.ownedBy(runId);
    this.startup = new StartupLease(store, runId, ttlMs, confirmedAt);
    this.lease = new RunLease({
      store,
      runId,
      ttlMs,
      claimBatch,
      log,
      adopt: (claimed) => this.run?.adopt(claimed),
      canAct: async () => (this.run ? this.run.reachesChain(ttlMs) : false),
      onLost: (reason) => this.run?.lost(reason),
    });
  }

  get live(): boolean {
    return this.lease.live;
  }

  get remainingSeconds(): number {
    return this.lease.remainingSeconds;
  }

  /** The trade its row names this run's owner. */
  owns(record: { readonly ownerRunId: string }): boolean {
    return record.ownerRunId === this.runId;
  }

  /** Nothing at once: one statement taking every orphan would keep the run from answering; keep drains them. */
  async takeOver(): Promise<void> {}

  keep(run: OwnedRun): void {
    this.run = run;
    this.lease.start(this.startup.handOver());
    void this.lease.claim();
  }

  claim(): Promise<void> {
    return this.lease.claim();
  }

  async acquire(tradeId: string): Promise<'taken'> {
    const acquired = await this.store.acquireTrade(tradeId, this.runId);
    if (!acquired.acquired) throw new TradeOwnedElsewhere(tradeId, acquired.ownerRunId, acquired.ownerUrl);
    // Taken, or closed meanwhile: either way the row changed, read it again.
    return 'taken';
  }

  async takeIfOwnerGone(tradeId: string): Promise<boolean> {
    if (!(await this.store.acquireTrade(tradeId, this.runId)).acquired) return false;
    const record = await this.store.getTrade(tradeId);
    if (record && !record.closed && record.ownerRunId === this.runId) this.run?.adopt([record]);
    return true;
  }

  takeOrphanedHedges(): Promise<HedgeRecord[]> {
    return this.store.claimHedges(this.runId);
  }

  fenced(): void {
    this.lease.fenced();
  }

  async listeningAt(url: string): Promise<void> {
    if ((await retireEarlierRuns(this.store, this.runId, url, this.options.log)) === 0) return;
    await this.lease.claim();
  }

  stop(): void {
    this.startup.handOver();
    this.lease.stop();
  }

  end(): Promise<void> {
    return endRun(this.store, this.runId, this.options.log);
  }
}
