// The run's lease, for several instances over one store (PostgreSQL): the run renews it every third of its
// TTL, and while it lives the run owns its trades; each renewal also claims a batch of orphans (trades of
// runs that stopped or let their lease lapse), so a lost instance's trades are taken over within about a
// lease and shared among the instances left. A renewal the store refuses, or none confirmed before the lease
// would lapse by this process's own clock, means the trades may already be someone else's: the run is lost
// and must stop acting (the store's fence refuses its writes anyway; stopping keeps it from trying).
// On SQLite (one instance) renewals always succeed and there are no orphans: the loop is cheap and inert.
import type { ClaimedTrade, Store } from '../store/index.ts';
import type { RuntimeLogger } from './host.ts';

export interface LeaseOptions {
  store: Store;
  runId: string;
  ttlMs: number;
  /** Orphans claimed per renewal. */
  claimBatch: number;
  log: RuntimeLogger;
  /** Trades this run just took over: index them and restart what a crash interrupted. */
  adopt(claimed: readonly ClaimedTrade[]): void;
  /** The lease is gone: stop acting (called once). */
  onLost(reason: string): void;
}

export class RunLease {
  private timer: NodeJS.Timeout | null = null;
  /** Until when this process may assume the lease lives (last confirmed renewal's start + TTL). */
  private validUntil: number;
  private lost = false;
  private stopped = false;

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

  /** One renewal, then a claim of orphans while the lease is fresh. */
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
      const answer = await beforeDeadline(store.renewLease(runId, ttlMs), this.validUntil - started);
      if (answer === LATE) {
        this.lose(`no renewal confirmed within the lease (${ttlMs} ms)`);
        return;
      }
      if (!answer) {
        this.lose('the store says the lease lapsed');
        return;
      }
      this.validUntil = started + ttlMs;
      await this.claim();
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'could not renew the lease or claim orphans');
    } finally {
      this.schedule();
    }
  }

  /** Takes a batch of orphans now (also right after predecessors were retired: no lease to wait for). */
  async claim(): Promise<void> {
    const { store, runId, claimBatch, log } = this.options;
    if (!this.live) return;
    const claimed = await store.claimOrphans(runId, claimBatch);
    if (claimed.length > 0) {
      log.info({ run_id: runId, trades: claimed.length }, 'took over trades of a run that is gone');
      this.options.adopt(claimed);
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
    private readonly store: Pick<Store, 'renewLease'>,
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
