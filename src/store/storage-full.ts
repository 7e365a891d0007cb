// A store that cannot write for lack of space: the typed error each engine raises for it (sqlite/no-space.ts,
// postgres/no-space.ts), and the watch that follows it from the group commit's outcomes. While writes fail for
// lack of space the watch says so (readiness, metrics, the commands that would start new work), probes the
// store with a cheap write, and tells its listeners when a write succeeds again: nothing waits for a restart.

/**
 * A write (or a whole batch) the store could not make because its disk is full: nothing of it is stored. A
 * fault of the machine, not of the request: the client may retry once space is back.
 */
export class StorageFull extends Error {
  constructor(
    /** Which engine said so, and its own code: SQLITE_FULL, an SQLITE_IOERR on a full filesystem, 53100. */
    readonly engine: 'sqlite' | 'postgres',
    readonly engineCode: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageFull';
  }
}

export const isStorageFull = (error: unknown): error is StorageFull => error instanceof StorageFull;

export interface StorageWatchOptions {
  /** A cheap write through the group commit; its outcome reaches the watch as every commit's does. */
  probe(): Promise<void>;
  /** How often the store is probed while it is full. */
  probeMs?: number;
  /**
   * How long after the last write that failed for lack of space the store still counts as full, whatever
   * succeeds meanwhile: a disk at the edge takes small writes and refuses larger ones, and readiness should
   * not flip on every probe.
   */
  holdMs?: number;
  nowMs?: () => number;
}

export const STORAGE_PROBE_MS = 2_000;
export const STORAGE_HOLD_MS = 10_000;

/**
 * Whether the store takes writes, from the group commit's outcomes (fed with `committed` and `failed`). Full
 * from the first commit that failed for lack of space until a commit succeeds at least `holdMs` after the last
 * one that failed; meanwhile it probes every `probeMs`. Its listeners hear of the first commit that succeeds
 * after one failed (no hold): the runtime takes up at once the trades whose writes failed.
 */
export class StorageWatch {
  private readonly probeMs: number;
  private readonly holdMs: number;
  private readonly nowMs: () => number;
  private fullSinceMs: number | null = null;
  private lastFailureMs = 0;
  private lastError = '';
  /** A write failed for lack of space since the listeners were last told that writes succeed. */
  private unheard = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();
  private stopped = false;

  constructor(private readonly options: StorageWatchOptions) {
    this.probeMs = options.probeMs ?? STORAGE_PROBE_MS;
    this.holdMs = options.holdMs ?? STORAGE_HOLD_MS;
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** Writes fail for lack of space (or did within the hold). */
  get full(): boolean {
    return this.fullSinceMs !== null;
  }

  /** Seconds the store has been full; 0 while it is not. */
  get fullSeconds(): number {
    return this.fullSinceMs === null ? 0 : Math.max(0, (this.nowMs() - this.fullSinceMs) / 1000);
  }

  /** The operator's words: since when, and what the store said last. */
  get detail(): string {
    if (this.fullSinceMs === null) return 'writes succeed';
    const since = new Date(this.fullSinceMs).toISOString();
    return `writes fail for lack of space since ${since} (last: ${this.lastError})`;
  }

  /** A commit succeeded. */
  committed(): void {
    if (this.unheard) {
      this.unheard = false;
      for (const listener of this.listeners) listener();
    }
    if (this.fullSinceMs !== null && this.nowMs() - this.lastFailureMs >= this.holdMs) {
      this.fullSinceMs = null;
      this.stopProbing();
    }
  }

  /** A commit failed; only a lack of space counts here. */
  failed(error: unknown): void {
    if (!isStorageFull(error)) return;
    this.lastFailureMs = this.nowMs();
    this.lastError = error.message;
    this.unheard = true;
    if (this.fullSinceMs === null) {
      this.fullSinceMs = this.lastFailureMs;
      this.startProbing();
    }
  }

  /** Calls the listener each time a write succeeds after one failed for lack of space; returns its removal. */
  onWritable(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    this.stopProbing();
  }

  private startProbing(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      // The outcome arrives through committed/failed like any commit's.
      this.options.probe().catch(() => undefined);
    }, this.probeMs);
    this.timer.unref?.();
  }

  private stopProbing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
