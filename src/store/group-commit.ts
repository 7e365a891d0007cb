// Group commit: every durable write of the running service (quotes, settlement starts, transitions, events,
// ledger entries, intents) joins the current event-loop turn's batch, and the batch is one SQLite
// transaction — one fsync, synchronous=FULL — run when the turn ends (setImmediate). Each write's promise
// settles only once its batch is on disk, so whoever waits on it (an HTTP answer, an effect about to send
// a transaction) never acts on a write a kill -9 could still take back. A write that throws rolls back to
// its own savepoint and fails alone; a commit that fails fails the whole batch.
//
// The commit blocks the loop once per turn, not once per write. (A writer thread, tried, was slower
// here: on one core it only adds a thread switch to every commit's latency.)
import type { Store } from './index.ts';
import { commitBatch, type StoreWrite } from './writes.ts';

export interface CommitStats {
  /** Writes in the batch. */
  size: number;
  /** How long the transaction and its fsync held the event loop. */
  ms: number;
}

interface Queued {
  write: StoreWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private batch: Queued[] = [];
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly onCommit: (stats: CommitStats) => void = () => {},
  ) {}

  /** Queues a write for this turn's commit; resolves once it is on disk. */
  write(write: StoreWrite): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.batch.push({ write, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Resolves once every write queued so far has settled (durable or failed). Never rejects. */
  barrier(): Promise<void> {
    if (this.batch.length === 0) return Promise.resolve();
    return new Promise((wake) => this.waiters.push(wake));
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.batch.length;
  }

  /** Commits what is queued now and refuses later writes (shutdown). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private flush(): void {
    const batch = this.batch;
    const waiters = this.waiters;
    this.batch = [];
    this.waiters = [];
    if (batch.length > 0) {
      const started = performance.now();
      try {
        const outcomes = commitBatch(
          this.store,
          batch.map((queued) => queued.write),
        );
        this.onCommit({ size: batch.length, ms: performance.now() - started });
        batch.forEach((queued, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) queued.resolve();
          else queued.reject(new Error(outcome?.message ?? 'write failed'));
        });
      } catch (error) {
        // Nothing of the batch reached the disk.
        for (const queued of batch) queued.reject(error);
      }
    }
    for (const wake of waiters) wake();
  }
}
