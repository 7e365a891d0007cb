// Group commit: every durable write of the running service (quotes, settlement starts, transitions, events,
// ledger entries, intents) joins the current batch, and the batch is one transaction of the store — one
// fsync — started when the event-loop turn ends (setImmediate). Each write's promise settles only once its
// batch is on disk, so whoever waits on it (an HTTP answer, an effect about to send a transaction) never
// acts on a write a kill -9 could still take back. A write that throws rolls back to its own savepoint and
// fails alone; a commit that fails fails the whole batch.
//
// When a commit fails, the writes queued before its writers could learn of it fail with it, untried: they may
// follow a failed write of theirs (a trade's next transition after one that was not stored — stored alone, it
// would leave the trade's history and ledger without the first).
//
// One commit is in flight at a time, in order: writes queued while it runs form the next batch. On SQLite
// the commit is synchronous, so it holds the loop once per turn, not once per write (a writer thread, tried,
// was slower here: on one core it only adds a thread switch to every commit's latency); on PostgreSQL the
// loop runs on while the server commits.
import type { Store } from './port.ts';
import { StoreConflict, type StoreWrite } from './writes.ts';

export interface CommitStats {
  /** Writes in the batch. */
  size: number;
  /** From the start of the transaction to its durable end (on SQLite: how long it held the loop). */
  ms: number;
}

interface Queued {
  write: StoreWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A commit that failed: how many writes it held, and why (a StorageFull when the disk is full). */
export interface CommitFailure {
  size: number;
  error: unknown;
}

export class GroupCommit {
  private batch: Queued[] = [];
  private waiters: (() => void)[] = [];
  /** The commit in flight; it never rejects. */
  private committing: Promise<void> | null = null;
  private scheduled = false;
  private closed = false;
  private commits = 0;

  constructor(
    private readonly store: Store,
    private readonly onCommit: (stats: CommitStats) => void = () => {},
    private readonly onFailure: (failure: CommitFailure) => void = () => {},
  ) {}

  /** Commits that succeeded so far: a write failed before one of them could be tried again after it. */
  get committed(): number {
    return this.commits;
  }

  /** Queues a write for the next commit; resolves once it is on disk. */
  write(write: StoreWrite): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.batch.push({ write, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every write queued so far has settled (durable or failed). Never rejects. */
  barrier(): Promise<void> {
    if (this.batch.length > 0) return new Promise((wake) => this.waiters.push(wake));
    return this.committing ?? Promise.resolve();
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.batch.length;
  }

  /** Commits what is queued now and refuses later writes (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.committing;
    if (this.batch.length > 0 || this.waiters.length > 0) await this.flush();
  }

  private schedule(): void {
    if (this.scheduled || this.committing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.committing) void this.flush();
    });
  }

  private flush(): Promise<void> {
    const batch = this.batch;
    const waiters = this.waiters;
    this.batch = [];
    this.waiters = [];
    const committing = this.commit(batch).finally(() => {
      for (const wake of waiters) wake();
      this.committing = null;
      if (this.batch.length > 0) this.schedule();
    });
    this.committing = committing;
    return committing;
  }

  private async commit(batch: Queued[]): Promise<void> {
    if (batch.length === 0) return;
    const started = performance.now();
    try {
      const outcomes = await this.store.commit(batch.map((queued) => queued.write));
      this.commits++;
      this.onCommit({ size: batch.length, ms: performance.now() - started });
      batch.forEach((queued, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) queued.resolve();
        else if (outcome?.conflict) queued.reject(new StoreConflict(outcome.conflict, outcome.message));
        else queued.reject(new Error(outcome?.message ?? 'write failed'));
      });
    } catch (error) {
      // Nothing of the batch reached the disk.
      this.onFailure({ size: batch.length, error });
      for (const queued of batch) queued.reject(error);
      // Queued after the rejections above: by then each writer has heard of its failure (its handler ran),
      // and what was queued until now may follow a failed write.
      queueMicrotask(() => this.failQueued(error));
    }
  }

  /** Fails every write queued now with the error of the commit before them, and wakes their barriers. */
  private failQueued(error: unknown): void {
    const behind = this.batch;
    const waiters = this.waiters;
    this.batch = [];
    this.waiters = [];
    for (const queued of behind) queued.reject(error);
    for (const wake of waiters) wake();
  }
}
