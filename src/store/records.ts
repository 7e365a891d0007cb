// The records the store keeps — runs, quotes, trades with their rest columns, events, ledger entries — and
// the shapes its queries take and answer. Both engines read them back identical (rows.ts).
import type { SourcingPlan } from '../../machines/trade.types.ts';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';

/** A run is one start of one service process (an instance); it owns trades for as long as its lease lives. */
export interface RunRecord {
  runId: string;
  version: string;
  startedAt: string;
  stoppedAt: string | null;
  /** Where the run answers HTTP: a command for one of its trades that reaches another instance goes there. */
  url: string | null;
  /** When its lease lapses (unix ms, the store's clock); null where the store has no leases (SQLite). */
  leaseExpiresAtMs: number | null;
}

export type NewRun = Omit<RunRecord, 'stoppedAt' | 'leaseExpiresAtMs'>;

/** A trade a run took over: what its indexes need, and whether an effect was in flight (restart it). */
export type ClaimedTrade = RestEntry & { running: boolean };

/** Whether a run may act on a trade: it owns it (now), or another live run does and answers at ownerUrl. */
export type Acquired = { acquired: true } | { acquired: false; ownerRunId: string; ownerUrl: string | null };

/** A price a quote was priced from, as its source published it (integers scaled by 10^exponent). */
export interface RecordedPrice {
  source: 'pyth' | 'static';
  /** The price update account and its feed id; null for a static price. */
  account: string | null;
  feedId: string | null;
  price: bigint;
  conf: bigint;
  exponent: number;
  emaPrice: bigint;
  /** Unix seconds, chain clock. */
  publishTime: number;
}

export interface QuoteRecord {
  quoteId: string;
  runId: string;
  takerWallet: string;
  inputMint: string;
  outputMint: string;
  inputRaw: bigint;
  outputRaw: bigint;
  spreadBps: number;
  /** USD per display unit of each side at quote time, as decimal strings, for the ledger's estimate. */
  inputUsd: string;
  outputUsd: string;
  /** The prices behind inputUsd and outputUsd; null (or absent) for quotes stored before quotes recorded them. */
  inputPrice?: RecordedPrice | null;
  outputPrice?: RecordedPrice | null;
  createdAt: string;
  expiresAtMs: number;
  /** The latest taker HTLC expiry a settlement from this quote can get (quote expiry + taker timelock). */
  htlcExpiresAtMs: number;
  riskChecks: string[];
  usedByTradeId: string | null;
  /**
   * Just-in-time sourcing: part of the output is bought through the aggregator after the taker's lock, by
   * this plan (what the maker sells, and the least it must buy); null (or absent) when inventory covers it.
   */
  sourcing?: SourcingPlan | null;
}

export interface TradeRecord {
  tradeId: string;
  quoteId: string;
  /** The run that created the trade. */
  runId: string;
  /**
   * The run that last owned it: for an unclosed trade the running run owns it unless it is unadoptable
   * (adoptionError); for a closed one, the run that owned it when it closed.
   */
  ownerRunId: string;
  takerWallet: string;
  /** Unique across all trades. */
  secretHash: Hash32;
  createdAt: string;
  updatedAt: string;
  status: SettlementStatus;
  substate: string;
  /** Final and no funds left in any escrow: no actor needs to own it any more. */
  closed: boolean;
  /** Chain time (unix seconds) at which the runtime must wake the trade (a deadline or a retry), if any. */
  nextDeadline: number | null;
  machineVersion: number;
  /** The actor's persisted snapshot, JSON. */
  snapshot: string;
  /** Why the current run could not adopt the trade (then it answers 503 until /resume). */
  adoptionError: string | null;
  // ── The rest record: what the runtime keeps of a trade whose actor is not in memory ──
  takerEscrow: string;
  makerEscrow: string;
  /** Escrows the trade waits on: WATCH_TAKER | WATCH_MAKER. */
  watch: number;
  /** What the trade last absorbed of its watched escrows (see the watcher's fingerprint). */
  seen: string;
  /** Output the trade holds in the reservation book, until untilMs; null once it holds none. */
  hold: TradeHold | null;
  /** An effect was in flight when the trade was last stored: restart activates it at once. */
  running: boolean;
  /** Consecutive failures of the current effect (0 when none failed). */
  effectAttempts: number;
}

export const WATCH_TAKER = 1;
export const WATCH_MAKER = 2;

export interface TradeHold {
  mint: string;
  raw: bigint;
  untilMs: number;
}

/** An owned, unclosed trade as the runtime indexes it at start: no snapshot. */
export type RestEntry = Pick<
  TradeRecord,
  'tradeId' | 'takerEscrow' | 'makerEscrow' | 'watch' | 'seen' | 'hold'
>;

export interface TradeEventRecord {
  seq: number;
  tradeId: string;
  runId: string;
  at: string;
  type: string;
  status: SettlementStatus;
  substate: string;
  payload: Record<string, unknown>;
}

export type NewTradeEvent = Omit<TradeEventRecord, 'seq'>;

export interface StoredLedgerEntry extends LedgerEntry {
  entryId: number;
  tradeId: string;
  at: string;
}

export interface TradeFilter {
  takerWallet?: string | undefined;
  status?: SettlementStatus | undefined;
  /** Trades created by this run. */
  runId?: string | undefined;
  /** Trades the running run (this id) owns: unclosed and adoptable, or closed while it owned them. */
  ownedBy?: string | undefined;
  /** Page after this (created_at, trade_id) position. */
  after?: { createdAt: string; tradeId: string } | undefined;
  limit: number;
}

export type TradeUpdate = Pick<
  TradeRecord,
  | 'tradeId'
  | 'ownerRunId'
  | 'updatedAt'
  | 'status'
  | 'substate'
  | 'closed'
  | 'nextDeadline'
  | 'machineVersion'
  | 'snapshot'
  | 'watch'
  | 'hold'
  | 'running'
  | 'effectAttempts'
>;
