// The reservation book: output that accepted quotes (and pending trades) hold until they expire or are
// released, per mint and per wallet. Derived state — rebuilt from the store at start — kept in memory so
// an RFQ reads it in O(1) and expiry pruning costs O(log n) per entry.

interface Reservation {
  readonly id: string;
  readonly mint: string;
  /** The wallet it counts against (open quotes); null for holds counted elsewhere (live trades). */
  readonly wallet: string | null;
  readonly raw: bigint;
  readonly untilMs: number;
}

export class ReservationBook {
  private readonly byId = new Map<string, Reservation>();
  private readonly byMint = new Map<string, bigint>();
  private readonly byWallet = new Map<string, number>();
  /** Min-heap on untilMs; entries released early stay until popped and are skipped then. */
  private readonly heap: Reservation[] = [];

  reserve(entry: Reservation): void {
    this.release(entry.id);
    this.byId.set(entry.id, entry);
    this.byMint.set(entry.mint, (this.byMint.get(entry.mint) ?? 0n) + entry.raw);
    if (entry.wallet !== null) this.byWallet.set(entry.wallet, (this.byWallet.get(entry.wallet) ?? 0) + 1);
    this.push(entry);
  }

  release(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    const left = (this.byMint.get(entry.mint) ?? 0n) - entry.raw;
    if (left === 0n) this.byMint.delete(entry.mint);
    else this.byMint.set(entry.mint, left);
    if (entry.wallet === null) return;
    const count = (this.byWallet.get(entry.wallet) ?? 0) - 1;
    if (count === 0) this.byWallet.delete(entry.wallet);
    else this.byWallet.set(entry.wallet, count);
  }

  /** Drops every reservation whose time is up (untilMs <= nowMs). */
  expire(nowMs: number): void {
    while (this.heap.length > 0 && (this.heap[0] as Reservation).untilMs <= nowMs) {
      const top = this.pop();
      if (this.byId.get(top.id) === top) this.release(top.id);
    }
  }

  reserved(mint: string): bigint {
    return this.byMint.get(mint) ?? 0n;
  }

  countFor(wallet: string): number {
    return this.byWallet.get(wallet) ?? 0;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get size(): number {
    return this.byId.size;
  }

  private push(entry: Reservation): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Reservation).untilMs <= entry.untilMs) break;
      heap[i] = heap[parent] as Reservation;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Reservation {
    const heap = this.heap;
    const top = heap[0] as Reservation;
    const last = heap.pop() as Reservation;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child =
          right < heap.length && (heap[right] as Reservation).untilMs < (heap[left] as Reservation).untilMs
            ? right
            : left;
        if ((heap[child] as Reservation).untilMs >= last.untilMs) break;
        heap[i] = heap[child] as Reservation;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
