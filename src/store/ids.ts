// Identifiers of the rows the service writes most (quotes, trades): UUIDs of version 7 (RFC 9562), whose
// first 48 bits are the creation time in milliseconds and the other 74 free bits random. Time-ordered keys
// append to the end of each B-tree that holds them (the primary keys, the trade's events and snapshot,
// the quote a trade uses) instead of landing on a random page: a commit writes a few shared pages where
// random UUIDs made it write one page per index per row, and those pages are what the fsync waits for.
// Still unguessable: 74 random bits per identifier.
import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);

/** A new version 7 UUID stamped with `nowMs` (the wall clock by default). */
export function timeOrderedUuid(nowMs: number = Date.now()): string {
  bytes.writeUIntBE(nowMs, 0, 6);
  randomFillSync(bytes, 6, 10);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
