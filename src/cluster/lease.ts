// The run's lease, for several instances over one store (PostgreSQL): the run renews it every third of its
// TTL, and while it lives the run owns its trades; each renewal also takes the orphans (trades of runs that
// stopped or let their lease lapse) batch after batch until none is left, so a lost instance's trades are
// taken over within about a lease however many it held, and shared among the instances left (each batch is
// taken with SKIP LOCKED: instances draining at once split them). A renewal the store refuses, or none
// confirmed before the lease would lapse by this process's own clock, means the trades may already be
// someone else's: the run is lost and must stop acting (the store's fence refuses its writes anyway;
// stopping keeps it from trying). A single instance (SQLite) has no lease at all: single-instance.ts.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ClaimedTrade, SharedStore } from '../store/index.ts';
import type { ClusterLog } from './port.ts';

export interface LeaseOptions {
  store: Pick<SharedStore, 'renewLease' | 'claimOrphans'>;
  runId: string;
  ttlMs: number;
  /** Orphans taken per statement (a drain takes batch after batch). */
  claimBatch: number;
  log: ClusterLog;
  /** Trades this run just took over: index them and restart what a crash interrupted. */
  adopt(claimed: readonly ClaimedTrade[]): void;
  /**
   * Whether this run can act on what it would take (it reaches the chain), asked before each drain: orphans
   * wait for a run that can, rather than going to one that would only sit on them. Default: always.
   */
  canAct?(): Promise<boolean>;
  /** The lease is gone: stop acting (called once). */
  onLost(reason: string): void;
}

export class RunLease {
  private timer: NodeJS.Timeout | null = null;
  /** Until when this process may assume the lease lives (last confirmed renewal's start + TTL). */
  private validUntil: number;
  private lost = false;
  private stopped = false;
  /** The drain under way, if any, and whether it was asked for again meanwhile (new orphans may exist). */
  private draining: Promise<void> | null = null;
  private drainAgain = false;

  constructor(private readonly options: LeaseOptions) {
    this.validUntil = performance.now() + options.ttlMs;
  }

  /**
   * Starts renewing. `confirmedAt`: when (performance.now()) the lease was last confirmed before this keeper
   * took over (the run's insert, or the start-up keeper's last renewal); the lease is counted from it, and
   * renewed at once when less than two thirds of it are left.
   */
  start(confirmedAt?: number): void {
    if (confirmedAt !== undefined) this.validUntil = confirmedAt + this.options.ttlMs;
    if (this.validUntil - performance.now() < (this.options.ttlMs * 2) / 3) void this.beat();
    else this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Whether the run still holds its lease as far as this process can tell. */
  get live(): boolean {
    return !this.lost && performance.now() < this.validUntil;
  }

  /** Seconds the lease has left as this process last confirmed it; 0 once lost. */
  get remainingSeconds(): number {
    return this.lost ? 0 : Math.max(0, (this.validUntil - performance.now()) / 1000);
  }

  /** The store refused a write of this run (the fence): the lease is gone. */
  fenced(): void {
    this.lose('the store refused a write: the run no longer owns its trades');
  }

  private schedule(): void {
    if (this.stopped || this.lost) return;
    this.timer = setTimeout(() => void this.beat(), Math.max(50, Math.floor(this.options.ttlMs / 3)));
    this.timer.unref?.();
  }

  /** One renewal, then a drain of orphans while the lease is fresh. */
  async beat(): Promise<void> {
    const { store, runId, ttlMs, log } = this.options;
    const started = performance.now();
    try {
      if (started >= this.validUntil) {
        this.lose(`no renewal confirmed within the lease (${ttlMs} ms)`);
        return;
      }
      // A renewal that has not answered when the lease would lapse (a hung connection, a partition) is as
      // good as refused: the trades may be someone else's from then on.
      const renewal = store.renewLease(runId, ttlMs);
      const answer = await beforeDeadline(renewal, this.validUntil - started);
      if (answer === LATE) {
        this.lose(`no renewal confirmed within the lease (${ttlMs} ms)`);
        return;
      }
      if (!answer) {
        this.lose('the store says the lease lapsed');
        return;
      }
      this.validUntil = started + ttlMs;
      // Not awaited: a drain of many orphans may outlast a renewal period, and renewals must keep time.
      void this.claim();
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'could not renew the lease');
    } finally {
      this.schedule();
    }
  }

  /**
   * Takes every orphan there is now, batch after batch, a turn apart so the process keeps answering, while
   * the lease lives (also right after start, and after predecessors were retired: no lease to wait for).
   * One batch per renewal would take a lost instance's 100,000 trades over in ~11 minutes (500 every 3.3 s),
   * far beyond the margin a maker has to redeem after the taker did; a drain takes them in seconds.
   * One drain at a time: asked again while draining, the drain goes on until a batch comes back short after
   * that request. Resolves when the drain ends; failures are logged, not thrown.
   */
  claim(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      // Asked again between the drain's last batch and here: drain again at once, not a renewal later.
      if (this.drainAgain) void this.claim();
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    const { store, runId, claimBatch, log } = this.options;
    let taken = 0;
    this.drainAgain = false;
    try {
      if (this.options.canAct && !(await this.options.canAct())) return;
      for (;;) {
        this.drainAgain = false;
        if (!this.live || this.stopped) return;
        const claimed = await store.claimOrphans(runId, claimBatch);
        if (claimed.length > 0 && !this.stopped) {
          taken += claimed.length;
          this.options.adopt(claimed);
        }
        if (claimed.length < claimBatch && !this.drainAgain) return;
        await nextTurn();
      }
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'could not claim orphans');
    } finally {
      if (taken > 0) log.info({ run_id: runId, trades: taken }, 'took over trades of runs that are gone');
    }
  }

  private lose(reason: string): void {
    if (this.lost || this.stopped) return;
    this.lost = true;
    this.options.log.error({ run_id: this.options.runId, reason }, 'lease lost: this run stops acting');
    this.options.onLost(reason);
  }
}

/**
 * Keeps a run's lease alive from its insert until the runtime's RunLease takes over: a start (mints, balances,
 * prices, the desk, adoption) can outlast a lease when the chain is slow, and the run must not lose the lease
 * it has not begun to use. It renews every third of the TTL and claims nothing (the run owns nothing yet).
 */
export class StartupLease {
  private timer: NodeJS.Timeout | null = null;
  private confirmedAt: number;
  private handedOver = false;

  /** `insertedAt`: performance.now() taken before the run's row (and its lease) was inserted. */
  constructor(
    private readonly store: Pick<SharedStore, 'renewLease'>,
    private readonly runId: string,
    private readonly ttlMs: number,
    insertedAt: number,
  ) {
    this.confirmedAt = insertedAt;
    this.schedule();
  }

  /** Stops renewing; returns when the lease was last confirmed, for RunLease.start. Idempotent. */
  handOver(): number {
    this.handedOver = true;
    if (this.timer) clearTimeout(this.timer);
    return this.confirmedAt;
  }

  private schedule(): void {
    if (this.handedOver) return;
    this.timer = setTimeout(() => void this.beat(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const started = performance.now();
    try {
      // Refused or late: the lease lapses as counted, and RunLease gives the run up at its first renewal.
      const answer = await beforeDeadline(
        this.store.renewLease(this.runId, this.ttlMs),
        this.confirmedAt + this.ttlMs - started,
      );
      if (answer === true && !this.handedOver) this.confirmedAt = started;
    } catch {
      // As refused: the next beat tries again while the lease may still live.
    } finally {
      this.schedule();
    }
  }
}

const LATE = Symbol('late');

/** The promise's value, or LATE if it has not settled within ms (it may still settle later, unheard). */
function beforeDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, ms));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
