// The durable store, as the rest of the service sees it: one port (port.ts), the composition of a repository
// per aggregate (quotes.ts, trades.ts, events.ts, hedges.ts, transfers.ts, desk.ts, runs.ts) over their records
// (records.ts), two engines. SQLite (better-sqlite3, WAL, synchronous=FULL, under DATA_DIR) is the embedded default;
// PostgreSQL is chosen by DATABASE_URL. Reads are async; writes go through the group commit (group-commit.ts), which hands a turn's
// writes to `commit` as one transaction, so whatever a route acknowledges is on disk before its answer leaves.
// A full disk is a StorageFull, followed by the StorageWatch (storage-full.ts).
import type { SharedStore, SingleInstanceStore, Store } from './port.ts';
import { openPostgresStore } from './postgres/index.ts';
import { openSqliteStore } from './sqlite/index.ts';

export type { DeskChange, DeskOverride, DeskRepository, DeskWrite, NewDeskChange } from './desk.ts';
export type { EventsRepository, EventWrite } from './events.ts';
export { type CommitFailure, type CommitStats, GroupCommit } from './group-commit.ts';
export {
  HEDGE_IN_FLIGHT,
  HEDGE_STATUSES,
  type HedgeRecord,
  type HedgeStatus,
  type HedgesRepository,
  type HedgeUpdate,
  type HedgeWrite,
  isHedgeInFlight,
  type OwnedHedges,
} from './hedges.ts';
export { timeOrderedUuid } from './ids.ts';
export type { OwnedTrades, SharedStore, SingleInstanceStore, Store, StoreBase } from './port.ts';
export type { QuotesRepository, QuoteWrite } from './quotes.ts';
export type {
  Acquired,
  ClaimedTrade,
  NewRun,
  NewTradeEvent,
  QuoteRecord,
  RecordedPrice,
  RestEntry,
  RunRecord,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeFilter,
  TradeHold,
  TradeRecord,
  TradeUpdate,
} from './records.ts';
export { WATCH_MAKER, WATCH_TAKER } from './records.ts';
export type { RunsRepository, RunWrite } from './runs.ts';
export { openSqliteStore } from './sqlite/index.ts';
export {
  isStorageFull,
  STORAGE_HOLD_MS,
  STORAGE_PROBE_MS,
  StorageFull,
  StorageWatch,
  type StorageWatchOptions,
} from './storage-full.ts';
export type { TradeRestIndex, TradesRepository, TradeWrite } from './trades.ts';
export {
  GATEWAY_BURN_EVENT,
  TRANSFER_PURPOSES,
  TRANSFER_STATUSES,
  type TransferPurpose,
  type TransferRecord,
  type TransferStatus,
  type TransfersRepository,
  type TransferWrite,
} from './transfers.ts';
export { type Conflict, StoreConflict, type StoreWrite, type WriteOf, type WriteOutcome } from './writes.ts';

/** Where the store lives: a PostgreSQL URL (postgres://…), else SQLite under dataDir (or at path). */
export type StoreLocation =
  | { databaseUrl: string; leaseTtlMs?: number }
  | { dataDir: string }
  | { path: string };

export async function openStore(location: { databaseUrl: string; leaseTtlMs?: number }): Promise<SharedStore>;
export async function openStore(
  location: { dataDir: string } | { path: string },
): Promise<SingleInstanceStore>;
export async function openStore(location: StoreLocation): Promise<Store>;
export async function openStore(location: StoreLocation): Promise<Store> {
  if ('databaseUrl' in location) {
    return openPostgresStore(
      location.databaseUrl,
      location.leaseTtlMs === undefined ? {} : { leaseTtlMs: location.leaseTtlMs },
    );
  }
  return openSqliteStore(location);
}
