// One instance on its own store (SQLite, one process per DATA_DIR): the running run owns every unclosed trade,
// implicitly and for as long as it runs. Nothing lapses, nobody else can orphan a trade, and no row changes
// hands: a new run takes its predecessors' trades by starting.
import type { HedgeRecord, OwnedTrades, SingleInstanceStore } from '../store/index.ts';
import type { ClusterLog, OwnedRun, Ownership } from './port.ts';
import type { OwnershipOptions } from './run.ts';
import { endRun, retireEarlierRuns } from './run.ts';

export class SingleInstance implements Ownership {
  private readonly log: ClusterLog;
  /** What a lease would have left: the whole of one, as nothing lapses (the lease gauge reads it). */
  private readonly heldSeconds: number;
  private run: OwnedRun | null = null;
  private lost = false;
  private stopped = false;

  constructor(
    private readonly store: Pick<SingleInstanceStore, 'owned' | 'adoptUnclosed' | 'retireRuns' | 'stopRun'>,
    readonly runId: string,
    options: Pick<OwnershipOptions, 'ttlMs' | 'log'>,
  ) {
    this.log = options.log;
    this.heldSeconds = options.ttlMs / 1000;
  }

  get live(): boolean {
    return !this.lost;
  }

  get remainingSeconds(): number {
    return this.lost ? 0 : this.heldSeconds;
  }

  get trades(): OwnedTrades {
    return this.store.owned;
  }

  /** Every unclosed trade it could adopt, whichever run's record it was written by. */
  owns(): boolean {
    return true;
  }

  /** Every unclosed trade is the new run's by one statement (earlier unadoptable marks are cleared). */
  async takeOver(): Promise<void> {
    const owned = await this.store.adoptUnclosed();
    if (owned > 0)
      this.log.info({ run_id: this.runId, trades: owned }, 'adopted the unclosed trades of earlier runs');
  }

  keep(run: OwnedRun): void {
    this.run = run;
  }

  /** No other instance: there are never orphans. */
  async claim(): Promise<void> {}

  /** Every unclosed trade is the running run's already: nothing changes hands. */
  async acquire(): Promise<'ours'> {
    return 'ours';
  }

  /** Never asked: no other instance owns a trade to forward to. */
  async takeIfOwnerGone(): Promise<boolean> {
    return true;
  }

  async takeOrphanedHedges(): Promise<HedgeRecord[]> {
    return [];
  }

  /** A store of one instance has no fence; should a write ever be refused so, the run stops all the same. */
  fenced(): void {
    if (this.lost || this.stopped) return;
    this.lost = true;
    const reason = 'the store refused a write: the run no longer owns its trades';
    this.log.error({ run_id: this.runId, reason }, 'lease lost: this run stops acting');
    this.run?.lost(reason);
  }

  async listeningAt(url: string): Promise<void> {
    await retireEarlierRuns(this.store, this.runId, url, this.log);
  }

  stop(): void {
    this.stopped = true;
  }

  end(): Promise<void> {
    return endRun(this.store, this.runId, this.log);
  }
}
