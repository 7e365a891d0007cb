// PostgreSQL keeps the reservations of every instance as running sums per output mint and second: each
// reservation (an open quote's output, a live trade's hold) counts in the bucket of the second it ends in,
// rounded up. A check at unix ms `now` sums one mint's buckets of the seconds after the current one — a few
// thousand rows at most, however many quotes and pending trades there are — and adds, exactly, the
// reservations ending within the current second, read from the quotes and trades themselves (one second's
// worth, through their indexes). This is the batch's side: what its writes add to and take out of the
// buckets, applied in one statement at its end.

import type { TradeHold } from './records.ts';

/** A reservation of `raw` units of `mint` until unix ms `untilMs` (exclusive): a quote's, or a trade's hold. */
export type Reservation = TradeHold;

/** The second a reservation ending at `untilMs` (exclusive) counts in: the buckets are `((s-1)·1000, s·1000]`. */
export const bucketSecond = (untilMs: number): number => Math.ceil(untilMs / 1000);

/**
 * The bucket of unix ms `nowMs`: buckets after it count whole at `nowMs`; in this one only the reservations
 * ending after `nowMs` count, which the check reads from the rows themselves.
 */
export const currentSecond = (nowMs: number): number => Math.ceil(nowMs / 1000);

/**
 * Buckets this far in the past (by this instance's clock) are never written again: a change to one would
 * move nothing a check can see, and leaving them alone keeps the batches off the rows being pruned.
 */
export const SETTLED_AFTER_S = 60;
/** Buckets this far in the past (by the database's clock) are deleted: well beyond SETTLED_AFTER_S. */
export const PRUNE_AFTER_S = 120;

export class ReservationDeltas {
  private readonly buckets = new Map<string, { mint: string; second: number; raw: bigint }>();

  add(reservation: Reservation | null, sign: 1n | -1n = 1n): void {
    if (reservation === null || reservation.raw === 0n) return;
    const second = bucketSecond(reservation.untilMs);
    const key = `${reservation.mint}\u0000${second}`;
    const bucket = this.buckets.get(key);
    if (bucket) bucket.raw += sign * reservation.raw;
    else this.buckets.set(key, { mint: reservation.mint, second, raw: sign * reservation.raw });
  }

  /** Replaces `before` by `after` (either may be null). */
  move(before: Reservation | null, after: Reservation | null): void {
    this.add(before, -1n);
    this.add(after);
  }

  merge(other: ReservationDeltas): void {
    for (const { mint, second, raw } of other.buckets.values()) {
      this.add({ mint, raw, untilMs: second * 1000 });
    }
  }

  /**
   * What these changes add to `mint`'s buckets after the current second at unix ms `nowMs` (the current
   * second's reservations the check reads from the rows, where a batch sees its own writes).
   */
  ahead(mint: string, nowMs: number): bigint {
    const after = currentSecond(nowMs);
    let sum = 0n;
    for (const bucket of this.buckets.values()) {
      if (bucket.mint === mint && bucket.second > after) sum += bucket.raw;
    }
    return sum;
  }

  /**
   * The rows to apply, sorted by mint then second (the order every batch locks them in), without the
   * changes that cancelled out or that fall in buckets settled by `nowMs`.
   */
  rows(nowMs: number): { mints: string[]; seconds: number[]; raws: string[] } {
    const settled = currentSecond(nowMs) - SETTLED_AFTER_S;
    const rows = [...this.buckets.values()]
      .filter((bucket) => bucket.raw !== 0n && bucket.second >= settled)
      .sort((a, b) => (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : a.second - b.second));
    return {
      mints: rows.map((row) => row.mint),
      seconds: rows.map((row) => row.second),
      raws: rows.map((row) => row.raw.toString()),
    };
  }
}

/** The reservation a trade row holds: its hold while it is not closed. */
export function holdReservation(row: { closed: boolean; hold: TradeHold | null }): Reservation | null {
  return row.closed || row.hold === null ? null : row.hold;
}
