// Hedges as the store keeps them: one row per hedge swap, written before anything is sent and again before
// each transaction of it goes out, so that whoever resumes it (this process after a crash, another instance
// after this one is gone) rebroadcasts the very bytes that may already be on their way and never signs a
// second swap until the first is proven unlandable. The repository's port and writes, then the row mapping
// SQLite and PostgreSQL share.
import type { LedgerEntry } from '../ledger/index.ts';

/**
 * sending: a signed swap is stored (signature, bytes, last valid block height) and is being landed;
 * requoting: its last swap was proven unlandable (blockhash past at finalized, signature unknown) and a new
 * one is to be quoted and signed; landed: the swap succeeded on chain and its outcome is booked;
 * failed: it landed and failed on chain (only its fee moved), or could not be made again;
 * cancelled: it was never landed and no longer needed (back inside the band before a new swap was signed).
 */
export const HEDGE_STATUSES = ['sending', 'requoting', 'landed', 'failed', 'cancelled'] as const;
export type HedgeStatus = (typeof HEDGE_STATUSES)[number];

/** The statuses of a hedge still in flight: at most one per asset, across every instance. */
export const HEDGE_IN_FLIGHT: readonly HedgeStatus[] = ['sending', 'requoting'];

export const isHedgeInFlight = (status: HedgeStatus): boolean => HEDGE_IN_FLIGHT.includes(status);

export interface HedgeRecord {
  hedgeId: string;
  /** The trade whose redeem left the asset outside its band; its TradeResponse shows the swap. */
  tradeId: string;
  /** The run that made the hedge. */
  runId: string;
  /** The run working on it (PostgreSQL: fenced by that run's lease, like a trade's writes). */
  ownerRunId: string;
  /** The hedged asset's mint. */
  asset: string;
  side: 'sell' | 'buy';
  inputMint: string;
  outputMint: string;
  /** Exact in, raw units of the input mint (the current swap's). */
  amountInRaw: bigint;
  /** What the route was quoted to pay, and the least the swap may pay on chain (its minimum out). */
  quotedOutRaw: bigint;
  minOutRaw: bigint;
  /** amountIn at the live mid when it was quoted, floored: what slippage is measured against. */
  midOutRaw: bigint;
  /** The mid's two prices, USD per display unit as exact rationals ("num/den"): the ledger values the swap at them. */
  inputUsd: string;
  outputUsd: string;
  maxSlippageBps: number;
  status: HedgeStatus;
  /** 1 for the first swap; one more for each swap signed after the last was proven unlandable. */
  attempt: number;
  /** The current swap, stored before its first send; null while requoting. */
  signature: string | null;
  transactionBase64: string | null;
  lastValidBlockHeight: number | null;
  /** Earlier swaps of this hedge, each proven unlandable before the next was signed. */
  expiredSignatures: string[];
  /** What the chain moved (landed): out of the maker's input account, into its output account. */
  landedInRaw: bigint | null;
  landedOutRaw: bigint | null;
  feeLamports: bigint | null;
  slot: number | null;
  /** Why it failed or was cancelled, or the last error while landing it. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  landedAt: string | null;
}

/** What a write of a hedge changes: everything but what it is (its id, trade, creator, asset, side, birth). */
export type HedgeUpdate = Omit<HedgeRecord, 'tradeId' | 'runId' | 'asset' | 'side' | 'createdAt'>;

export type HedgeWrite =
  /**
   * A new hedge, by its owner run (fenced: its lease must live). Refused as a StoreConflict 'hedge_in_flight'
   * while another hedge of the same asset is in flight, whichever instance made it.
   */
  | { kind: 'insertHedge'; hedge: HedgeRecord }
  /**
   * A hedge's new state, by its owner run (fenced), with the ledger entries it posts to its trade (each
   * posted once): all or nothing.
   */
  | { kind: 'updateHedge'; update: HedgeUpdate; ledger: LedgerEntry[] };

/**
 * One row per hedge swap; at most one in flight per asset (a second insert is a StoreConflict
 * 'hedge_in_flight'). Their writes are fenced by the owner run's lease on PostgreSQL, as a trade's are; on
 * SQLite the running run owns every hedge in flight.
 */
export interface HedgesRepository {
  getHedge(hedgeId: string): Promise<HedgeRecord | undefined>;
  /** The hedges these trades triggered, oldest first (what their TradeResponses show). */
  hedgesOfTrades(tradeIds: readonly string[]): Promise<HedgeRecord[]>;
  /** Every instance's hedges in flight (sending, requoting), oldest first (the operator's view). */
  hedgesInFlight(): Promise<HedgeRecord[]>;
  /** The newest hedges of every instance, newest first. */
  recentHedges(limit: number): Promise<HedgeRecord[]>;
}

/** The hedges in flight one run owns (port.ts: OwnedTrades, beside the trades' rest index). */
export interface OwnedHedges {
  /** The owned hedges in flight (sending, requoting), oldest first. */
  hedgesInFlight(): Promise<HedgeRecord[]>;
}

export interface HedgeRow {
  hedge_id: string;
  trade_id: string;
  run_id: string;
  owner_run_id: string;
  asset: string;
  side: string;
  input_mint: string;
  output_mint: string;
  amount_in_raw: string;
  quoted_out_raw: string;
  min_out_raw: string;
  mid_out_raw: string;
  input_usd: string;
  output_usd: string;
  max_slippage_bps: number;
  status: string;
  attempt: number;
  signature: string | null;
  transaction_base64: string | null;
  last_valid_block_height: number | null;
  expired_signatures: string;
  landed_in_raw: string | null;
  landed_out_raw: string | null;
  fee_lamports: string | null;
  slot: number | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  landed_at: string | null;
}

/** Every column, in order (PostgreSQL names its columns, never `*`). */
export const HEDGE_COLUMNS: readonly (keyof HedgeRow)[] = [
  'hedge_id',
  'trade_id',
  'run_id',
  'owner_run_id',
  'asset',
  'side',
  'input_mint',
  'output_mint',
  'amount_in_raw',
  'quoted_out_raw',
  'min_out_raw',
  'mid_out_raw',
  'input_usd',
  'output_usd',
  'max_slippage_bps',
  'status',
  'attempt',
  'signature',
  'transaction_base64',
  'last_valid_block_height',
  'expired_signatures',
  'landed_in_raw',
  'landed_out_raw',
  'fee_lamports',
  'slot',
  'error',
  'created_at',
  'updated_at',
  'landed_at',
];

const big = (text: string | null) => (text === null ? null : BigInt(text));
const text = (value: bigint | null) => (value === null ? null : value.toString());

export const hedgeFromRow = (row: HedgeRow): HedgeRecord => ({
  hedgeId: row.hedge_id,
  tradeId: row.trade_id,
  runId: row.run_id,
  ownerRunId: row.owner_run_id,
  asset: row.asset,
  side: row.side as HedgeRecord['side'],
  inputMint: row.input_mint,
  outputMint: row.output_mint,
  amountInRaw: BigInt(row.amount_in_raw),
  quotedOutRaw: BigInt(row.quoted_out_raw),
  minOutRaw: BigInt(row.min_out_raw),
  midOutRaw: BigInt(row.mid_out_raw),
  inputUsd: row.input_usd,
  outputUsd: row.output_usd,
  maxSlippageBps: row.max_slippage_bps,
  status: row.status as HedgeStatus,
  attempt: row.attempt,
  signature: row.signature,
  transactionBase64: row.transaction_base64,
  lastValidBlockHeight: row.last_valid_block_height,
  expiredSignatures: JSON.parse(row.expired_signatures) as string[],
  landedInRaw: big(row.landed_in_raw),
  landedOutRaw: big(row.landed_out_raw),
  feeLamports: big(row.fee_lamports),
  slot: row.slot,
  error: row.error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  landedAt: row.landed_at,
});

/** A hedge as a row's values, by column (both engines bind these). */
export const hedgeRow = (hedge: HedgeRecord): HedgeRow => ({
  hedge_id: hedge.hedgeId,
  trade_id: hedge.tradeId,
  run_id: hedge.runId,
  owner_run_id: hedge.ownerRunId,
  asset: hedge.asset,
  side: hedge.side,
  input_mint: hedge.inputMint,
  output_mint: hedge.outputMint,
  amount_in_raw: hedge.amountInRaw.toString(),
  quoted_out_raw: hedge.quotedOutRaw.toString(),
  min_out_raw: hedge.minOutRaw.toString(),
  mid_out_raw: hedge.midOutRaw.toString(),
  input_usd: hedge.inputUsd,
  output_usd: hedge.outputUsd,
  max_slippage_bps: hedge.maxSlippageBps,
  status: hedge.status,
  attempt: hedge.attempt,
  signature: hedge.signature,
  transaction_base64: hedge.transactionBase64,
  last_valid_block_height: hedge.lastValidBlockHeight,
  expired_signatures: JSON.stringify(hedge.expiredSignatures),
  landed_in_raw: text(hedge.landedInRaw),
  landed_out_raw: text(hedge.landedOutRaw),
  fee_lamports: text(hedge.feeLamports),
  slot: hedge.slot,
  error: hedge.error,
  created_at: hedge.createdAt,
  updated_at: hedge.updatedAt,
  landed_at: hedge.landedAt,
});

/**
 * The columns of an update, in order: the hedge's id (which row), then what it writes — everything but what
 * the hedge is (owner_run_id second: the run the write is fenced on).
 */
export const HEDGE_UPDATE_COLUMNS: readonly (keyof HedgeRow)[] = HEDGE_COLUMNS.filter(
  (column) => !['trade_id', 'run_id', 'asset', 'side', 'created_at'].includes(column),
);

/** An update's values, by column. */
export const hedgeUpdateRow = (
  update: HedgeUpdate,
): Omit<HedgeRow, 'trade_id' | 'run_id' | 'asset' | 'side' | 'created_at'> => {
  const {
    trade_id: _t,
    run_id: _r,
    asset: _a,
    side: _s,
    created_at: _c,
    ...row
  } = hedgeRow({
    ...update,
    tradeId: '',
    runId: '',
    asset: '',
    side: 'sell',
    createdAt: '',
  });
  return row;
};
