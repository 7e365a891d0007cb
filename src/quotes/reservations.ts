// The reservation book: output that accepted quotes (and pending trades) hold until they expire or are
// released, per mint and per wallet. Derived state — rebuilt from the store at start — kept in memory so
// an RFQ reads it in O(1) and expiry pruning costs O(log n) per entry.
//
// A hold is funded once a taker lock backs it (a trade whose lock landed), unfunded before (an open quote, a
// settlement start without a landed lock). Unfunded holds are also summed per holder — the client address
// and the wallet that asked — so the desk can keep each holder within its share of the free inventory and
// all of them within theirs (docs/quotes-and-ledger.md#reservations).

export interface Reservation {
  readonly id: string;
  readonly mint: string;
  /** The wallet whose open-quote count it adds to (open quotes); null for holds counted elsewhere (live trades). */
  readonly wallet: string | null;
  readonly raw: bigint;
  readonly untilMs: number;
  /** No landed taker lock backs it: an open quote, or a settlement start whose lock has not landed. */
  readonly unfunded?: boolean;
  /** Who holds an unfunded hold; a trade's comes from attribute() (its quote's holder). */
  readonly holder?: Holder | null;
}

/** Who asked for a hold: the client address (null when unknown, e.g. a quote reloaded at start) and the wallet. */
export interface Holder {
  readonly client: string | null;
  readonly wallet: string;
}

interface Entry extends Reservation {
  /** The holder its unfunded raw is summed under; null when funded or nobody is known. */
  readonly counted: Holder | null;
}

const clientKey = (mint: string, client: string) => `${mint}\u0000c\u0000${client}`;
const walletKey = (mint: string, wallet: string) => `${mint}\u0000w\u0000${wallet}`;

export class ReservationBook {
  private readonly byId = new Map<string, Entry>();
  private readonly byMint = new Map<string, bigint>();
  private readonly unfundedByMint = new Map<string, bigint>();
  /** Unfunded raw per (mint, client) and per (mint, wallet). */
  private readonly byHolder = new Map<string, bigint>();
  private readonly byWallet = new Map<string, number>();
  /** Holders of trades' holds, set when their settlement starts, until the trade's hold is released. */
  private readonly holders = new Map<string, Holder>();
  /** Min-heap on untilMs; entries released early stay until popped and are skipped then. */
  private readonly heap: Entry[] = [];

  reserve(reservation: Reservation): void {
    this.drop(reservation.id);
    const unfunded = reservation.unfunded === true;
    const holder = unfunded ? (reservation.holder ?? this.holders.get(reservation.id) ?? null) : null;
    const entry: Entry = { ...reservation, counted: holder };
    this.byId.set(entry.id, entry);
    add(this.byMint, entry.mint, entry.raw);
    if (unfunded) add(this.unfundedByMint, entry.mint, entry.raw);
    if (holder !== null) {
      if (holder.client !== null) add(this.byHolder, clientKey(entry.mint, holder.client), entry.raw);
      add(this.byHolder, walletKey(entry.mint, holder.wallet), entry.raw);
    }
    if (entry.wallet !== null) this.byWallet.set(entry.wallet, (this.byWallet.get(entry.wallet) ?? 0) + 1);
    this.push(entry);
  }

  /** The hold of `id` (a trade not reserved yet, or reserved again later) counts against `holder` while unfunded. */
  attribute(id: string, holder: Holder): void {
    this.holders.set(id, holder);
  }

  /** The holder an unfunded hold counts against, if any. */
  holderOf(id: string): Holder | null {
    return this.byId.get(id)?.counted ?? this.holders.get(id) ?? null;
  }

  /** The hold is gone for good (a used quote, a trade that no longer holds output). */
  release(id: string): void {
    this.drop(id);
    this.holders.delete(id);
  }

  /** Drops every reservation whose time is up (untilMs <= nowMs). */
  expire(nowMs: number): void {
    while (this.heap.length > 0 && (this.heap[0] as Entry).untilMs <= nowMs) {
      const top = this.pop();
      // A trade's holder stays: its hold is taken again as funded if its lock lands after all.
      if (this.byId.get(top.id) === top) this.drop(top.id);
    }
  }

  /** Everything held of the mint, funded or not. */
  reserved(mint: string): bigint {
    return this.byMint.get(mint) ?? 0n;
  }

  /** What unfunded holds hold of the mint. */
  unfunded(mint: string): bigint {
    return this.unfundedByMint.get(mint) ?? 0n;
  }

  /** What one client address's unfunded holds hold of the mint. */
  heldByClient(client: string, mint: string): bigint {
    return this.byHolder.get(clientKey(mint, client)) ?? 0n;
  }

  /** What one wallet's unfunded holds hold of the mint. */
  heldByWallet(wallet: string, mint: string): bigint {
    return this.byHolder.get(walletKey(mint, wallet)) ?? 0n;
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

  private drop(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    subtract(this.byMint, entry.mint, entry.raw);
    if (entry.unfunded === true) subtract(this.unfundedByMint, entry.mint, entry.raw);
    const holder = entry.counted;
    if (holder !== null) {
      if (holder.client !== null) subtract(this.byHolder, clientKey(entry.mint, holder.client), entry.raw);
      subtract(this.byHolder, walletKey(entry.mint, holder.wallet), entry.raw);
    }
    if (entry.wallet === null) return;
    const count = (this.byWallet.get(entry.wallet) ?? 0) - 1;
    if (count === 0) this.byWallet.delete(entry.wallet);
    else this.byWallet.set(entry.wallet, count);
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Entry).untilMs <= entry.untilMs) break;
      heap[i] = heap[parent] as Entry;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0] as Entry;
    const last = heap.pop() as Entry;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child =
          right < heap.length && (heap[right] as Entry).untilMs < (heap[left] as Entry).untilMs
            ? right
            : left;
        if ((heap[child] as Entry).untilMs >= last.untilMs) break;
        heap[i] = heap[child] as Entry;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

function add(sums: Map<string, bigint>, key: string, raw: bigint): void {
  sums.set(key, (sums.get(key) ?? 0n) + raw);
}

function subtract(sums: Map<string, bigint>, key: string, raw: bigint): void {
  const left = (sums.get(key) ?? 0n) - raw;
  if (left === 0n) sums.delete(key);
  else sums.set(key, left);
}
