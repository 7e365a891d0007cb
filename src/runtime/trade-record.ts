// A trade as the store keeps it, computed from its snapshot: the rest columns the runtime's indexes read
// (status, wake time, watched escrows, held output), the record a new trade is born with, its stored
// snapshot read back at this build's machine version, and the payload its events show. Pure functions:
// the host, the commands, store fixtures and the fake chain all build records the same way.
import type { AnyEventObject } from 'xstate';
import {
  isClosed,
  isFinalStatus,
  nextDeadline,
  settlementStatusOf,
  substateOf,
  TRADE_MACHINE_VERSION,
  type TradeInput,
  type TradeSnapshotLike,
  upgradeSnapshot,
} from '../../machines/index.ts';
import {
  type TradeHold,
  type TradeRecord,
  type TradeUpdate,
  WATCH_MAKER,
  WATCH_TAKER,
} from '../store/index.ts';

/** What the runtime's indexes (watcher, reservation book) keep of a trade at rest. */
export interface RestState {
  tradeId: string;
  closed: boolean;
  takerEscrow: string;
  makerEscrow: string;
  watch: number;
  hold: RestHold | null;
}

/**
 * A trade's hold, and whether a landed taker lock backs it. `unfunded` is known from the snapshot only: the
 * store keeps the hold's amount and end, so a hold read back at start counts as funded (in full).
 */
export type RestHold = TradeHold & { readonly unfunded?: true };

/** A rest state as the indexes take it: one read from the store is an unclosed trade's, without `closed`. */
export type IndexedRest = Omit<RestState, 'closed'> & { closed?: boolean };

/**
 * How long a settlement start holds its output while no taker lock has landed: the lock-landing window
 * (config reservations.lock_landing_seconds), counted from settlement start, which is the lock deadline
 * less the lock window.
 */
export interface HoldTiming {
  lockWindowSeconds: number;
  lockLandingSeconds: number;
}

/** The part of a trade's record that does not change with its snapshot. */
export type TradeMeta = Pick<
  TradeRecord,
  'tradeId' | 'quoteId' | 'runId' | 'takerWallet' | 'createdAt' | 'takerEscrow' | 'makerEscrow'
>;

/** A hold as the store keeps it: its mint, amount and end (whether it is funded is not kept). */
export function storedHold(hold: RestHold | null): TradeHold | null {
  return hold === null ? null : { mint: hold.mint, raw: hold.raw, untilMs: hold.untilMs };
}

/** An effect is in flight: some invoked child is still running. */
export function effectRunning(snapshot: { children: Record<string, unknown> }): boolean {
  return Object.values(snapshot.children).some((child) => {
    const status = (child as { getSnapshot?: () => { status: string } }).getSnapshot?.().status;
    return status === 'active';
  });
}

/**
 * What the indexes and the store keep of a snapshot besides the snapshot itself. Without `holds`, a pending
 * trade holds its output for its whole lock window.
 */
export function restColumns(
  snapshot: TradeSnapshotLike & { children?: Record<string, unknown> },
  holds?: HoldTiming,
) {
  const { context } = snapshot;
  const status = settlementStatusOf(snapshot);
  const substate = substateOf(snapshot);
  const closed = isClosed(snapshot);
  const makerLocked = context.signatures.some((s) => s.kind === 'maker_lock');
  // A trade holds its output in the reservation book until the maker's lock moves it on chain (the balance
  // then shows it) or the trade ends: initiated until the taker expiry; pending with its lock on chain until
  // the lock window closes; pending without one (an unfunded hold) only for the lock-landing window, so that
  // settlement starts nobody pays for cannot keep the inventory. A lock that lands later is held again from
  // then; the maker still locks only if its balance covers the output then (the machine's checkInventory).
  const landed = status !== 'pending' || substate === 'pending.lockSeen';
  let untilMs = (status === 'pending' ? context.lockDeadline : context.takerExpiry) * 1000;
  if (!landed && holds !== undefined) {
    const landingEnd = context.lockDeadline - holds.lockWindowSeconds + holds.lockLandingSeconds;
    untilMs = Math.min(untilMs, landingEnd * 1000);
  }
  // A trade that sources part of its output holds only what its inventory gives until that swap lands (the
  // balance then shows what it bought, and the trade holds its whole output).
  const sourcedRaw = context.sourcing && !context.sourced ? BigInt(context.sourcing.minBuyRaw) : 0n;
  const hold: RestHold | null =
    isFinalStatus(status) || makerLocked
      ? null
      : {
          mint: context.outputMint,
          raw: BigInt(context.outputAmountRaw) - sourcedRaw,
          untilMs,
          ...(landed ? {} : { unfunded: true as const }),
        };
  return {
    status,
    substate,
    closed,
    nextDeadline: closed ? null : nextDeadline(snapshot),
    watch: closed ? 0 : status === 'pending' || status === 'failed' ? WATCH_TAKER : WATCH_TAKER | WATCH_MAKER,
    hold,
    running:
      snapshot.children !== undefined && effectRunning(snapshot as { children: Record<string, unknown> }),
    effectAttempts: context.effectError?.attempts ?? 0,
  };
}

export type RestColumns = ReturnType<typeof restColumns>;

/**
 * The store record of a trade born now from its first snapshot: owned by the run that creates it, at rest
 * (no actor runs it), nothing seen of its escrows yet. `rest` is restColumns(snapshot).
 */
export function newTradeRecord(
  input: TradeInput,
  snapshot: TradeSnapshotLike,
  rest: RestColumns,
  at: string,
): TradeRecord {
  return {
    tradeId: input.tradeId,
    quoteId: input.quoteId,
    runId: input.runId,
    ownerRunId: input.runId,
    takerWallet: input.takerWallet,
    secretHash: input.secretHash,
    createdAt: at,
    updatedAt: at,
    status: rest.status,
    substate: rest.substate,
    closed: rest.closed,
    nextDeadline: rest.nextDeadline,
    machineVersion: TRADE_MACHINE_VERSION,
    snapshot: JSON.stringify(snapshot),
    adoptionError: null,
    takerEscrow: input.takerEscrow,
    makerEscrow: input.makerEscrow,
    watch: rest.watch,
    seen: '-',
    hold: storedHold(rest.hold),
    running: false,
    effectAttempts: 0,
  };
}

/** A transition's update of the trade's record, by the run that made it: its new snapshot and rest columns. */
export function tradeUpdate(
  tradeId: string,
  ownerRunId: string,
  persisted: TradeSnapshotLike,
  rest: RestColumns,
  at: string,
): TradeUpdate {
  return {
    tradeId,
    ownerRunId,
    updatedAt: at,
    status: rest.status,
    substate: rest.substate,
    closed: rest.closed,
    nextDeadline: rest.nextDeadline,
    machineVersion: TRADE_MACHINE_VERSION,
    snapshot: JSON.stringify(persisted),
    watch: rest.watch,
    hold: storedHold(rest.hold),
    running: rest.running,
    effectAttempts: rest.effectAttempts,
  };
}

/** A trade's stored snapshot, upgraded to this build's machine version. */
export function storedSnapshot(record: TradeRecord): TradeSnapshotLike {
  return upgradeSnapshot(record.machineVersion, JSON.parse(record.snapshot) as TradeSnapshotLike);
}

export function metaOf(record: TradeRecord): TradeMeta {
  return {
    tradeId: record.tradeId,
    quoteId: record.quoteId,
    runId: record.runId,
    takerWallet: record.takerWallet,
    createdAt: record.createdAt,
    takerEscrow: record.takerEscrow,
    makerEscrow: record.makerEscrow,
  };
}

const SECRET_KEYS = new Set(['secretHash', 'preimage', 'preimageHash', 'transactionBase64']);

/** An event as the runtime log shows it: never the commitment, a preimage or a signed transaction. */
export function eventPayload(event: AnyEventObject): Record<string, unknown> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !SECRET_KEYS.has(k))
          .map(([k, v]) => [k, strip(v)]),
      );
    }
    return value;
  };
  const { type: _type, ...rest } = event;
  return strip(rest) as Record<string, unknown>;
}
