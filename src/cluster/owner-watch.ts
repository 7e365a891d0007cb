// Forwards waiting on a trade's owner share one poll: a frozen owner holds its forwards without answering
// while its lease lapses, and this instance must notice and take the trade over. One timer per instance asks
// the store, per owner run that forwards wait on, about one of its trades a round (the store's acquire
// takes the trade if that run is gone): while the owner lives that is one query per owner per round, however
// many forwards wait on it; once it is gone, its other trades are taken in the same round.

export interface OwnerWatchOptions {
  /** Takes the trade if its owner is gone (true), else false; a closed trade counts as taken. */
  takeIfOwnerGone: (tradeId: string) => Promise<boolean>;
  pollMs: number;
}

interface Waiter {
  readonly tradeId: string;
  readonly onGone: () => void;
}

export class OwnerWatch {
  /** By owner run: the forwards waiting on it, the next one to ask about first. */
  private readonly byOwner = new Map<string, Waiter[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: OwnerWatchOptions) {}

  /** Forwards waiting now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const waiters of this.byOwner.values()) n += waiters.length;
    return n;
  }

  /** Calls onGone once the trade is this instance's (its owner gone); the function it gives stops watching. */
  watch(tradeId: string, ownerRunId: string, onGone: () => void): () => void {
    const waiter: Waiter = { tradeId, onGone };
    const waiters = this.byOwner.get(ownerRunId) ?? [];
    waiters.push(waiter);
    this.byOwner.set(ownerRunId, waiters);
    this.schedule();
    return () => this.remove(ownerRunId, waiter);
  }

  private remove(ownerRunId: string, waiter: Waiter): void {
    const waiters = this.byOwner.get(ownerRunId);
    if (!waiters) return;
    const at = waiters.indexOf(waiter);
    if (at >= 0) waiters.splice(at, 1);
    if (waiters.length === 0) this.byOwner.delete(ownerRunId);
  }

  private schedule(): void {
    if (this.timer !== null || this.byOwner.size === 0) return;
    this.timer = setTimeout(() => {
      void this.round().finally(() => {
        this.timer = null;
        this.schedule();
      });
    }, this.options.pollMs);
    this.timer.unref?.();
  }

  private async round(): Promise<void> {
    await Promise.all([...this.byOwner.keys()].map((owner) => this.ask(owner)));
  }

  /** Asks about the owner's trades one at a time until one is not taken: the owner lives (or another run has it). */
  private async ask(ownerRunId: string): Promise<void> {
    const asked = new Set<string>();
    for (;;) {
      const waiters = this.byOwner.get(ownerRunId);
      const first = waiters?.[0];
      if (!waiters || !first || asked.has(first.tradeId)) return;
      asked.add(first.tradeId);
      const taken = await this.options.takeIfOwnerGone(first.tradeId).catch(() => false);
      if (!taken) {
        // Another trade of this owner goes first next round: one held by a third run never hides the rest.
        const current = this.byOwner.get(ownerRunId);
        if (current && current[0] === first) current.push(current.shift() as Waiter);
        return;
      }
      for (const waiter of [...(this.byOwner.get(ownerRunId) ?? [])]) {
        if (waiter.tradeId !== first.tradeId) continue;
        this.remove(ownerRunId, waiter);
        waiter.onGone();
      }
    }
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.byOwner.clear();
  }
}
