// Rows as both engines return them, and the records they become: one mapping for SQLite and PostgreSQL, so
// the two stores cannot drift apart in what a record reads back as. Amounts come back as decimal strings
// (SQLite TEXT, PostgreSQL NUMERIC) and become bigints here; flags are 0/1 in SQLite and booleans in
// PostgreSQL.
import type { SourcingPlan } from '../../machines/trade.types.ts';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Hash32, SettlementStatus } from '../vocabulary/index.ts';
import type {
  ClaimedTrade,
  QuoteRecord,
  RecordedPrice,
  RestEntry,
  RunRecord,
  StoredLedgerEntry,
  TradeEventRecord,
  TradeHold,
  TradeRecord,
} from './records.ts';

/** A flag column: SQLite INTEGER 0/1, PostgreSQL BOOLEAN. */
type Flag = number | boolean;

const isSet = (flag: Flag): boolean => flag === true || flag === 1;

export interface RunRow {
  run_id: string;
  version: string;
  started_at: string;
  stopped_at: string | null;
  url: string | null;
  /** SQLite has no leases: its statement selects NULL here. */
  lease_expires_at_ms: number | null;
}

export const runFromRow = (row: RunRow): RunRecord => ({
  runId: row.run_id,
  version: row.version,
  startedAt: row.started_at,
  stoppedAt: row.stopped_at,
  url: row.url,
  leaseExpiresAtMs: row.lease_expires_at_ms,
});

export interface QuoteRow {
  quote_id: string;
  run_id: string;
  taker_wallet: string;
  input_mint: string;
  output_mint: string;
  input_raw: string;
  output_raw: string;
  spread_bps: number;
  input_usd: string;
  output_usd: string;
  input_price: string | null;
  output_price: string | null;
  created_at: string;
  expires_at_ms: number;
  htlc_expires_at_ms: number;
  risk_checks: string;
  used_by_trade_id: string | null;
  /** JSON of the SourcingPlan; null (or absent, from a store before the column) for none. */
  sourcing?: string | null;
}

export const quoteFromRow = (row: QuoteRow): QuoteRecord => ({
  quoteId: row.quote_id,
  runId: row.run_id,
  takerWallet: row.taker_wallet,
  inputMint: row.input_mint,
  outputMint: row.output_mint,
  inputRaw: BigInt(row.input_raw),
  outputRaw: BigInt(row.output_raw),
  spreadBps: row.spread_bps,
  inputUsd: row.input_usd,
  outputUsd: row.output_usd,
  inputPrice: priceFromText(row.input_price),
  outputPrice: priceFromText(row.output_price),
  createdAt: row.created_at,
  expiresAtMs: row.expires_at_ms,
  htlcExpiresAtMs: row.htlc_expires_at_ms,
  riskChecks: JSON.parse(row.risk_checks) as string[],
  usedByTradeId: row.used_by_trade_id,
  // Absent when none, so a quote reads back as it was written.
  ...(row.sourcing ? { sourcing: JSON.parse(row.sourcing) as SourcingPlan } : {}),
});

/** JSON of a RecordedPrice, its integers as strings (they may exceed 2^53). */
export const priceText = (price: RecordedPrice | null): string | null =>
  price === null
    ? null
    : JSON.stringify({
        ...price,
        price: `${price.price}`,
        conf: `${price.conf}`,
        emaPrice: `${price.emaPrice}`,
      });

function priceFromText(text: string | null): RecordedPrice | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as Omit<RecordedPrice, 'price' | 'conf' | 'emaPrice'> &
    Record<'price' | 'conf' | 'emaPrice', string>;
  return { ...raw, price: BigInt(raw.price), conf: BigInt(raw.conf), emaPrice: BigInt(raw.emaPrice) };
}

export interface TradeRow {
  trade_id: string;
  quote_id: string;
  run_id: string;
  owner_run_id: string;
  taker_wallet: string;
  secret_hash: string;
  created_at: string;
  updated_at: string;
  status: SettlementStatus;
  substate: string;
  closed: Flag;
  next_deadline: number | null;
  machine_version: number;
  snapshot: string;
  adoption_error: string | null;
  taker_escrow: string;
  maker_escrow: string;
  watch: number;
  seen: string;
  hold_mint: string | null;
  hold_raw: string | null;
  hold_until_ms: number | null;
  running: Flag;
  effect_attempts: number;
}

/** A trade's hold from its three columns: none unless all three are set. */
const hold = (mint: string | null, raw: string | null, untilMs: number | null): TradeHold | null =>
  mint !== null && raw !== null && untilMs !== null ? { mint, raw: BigInt(raw), untilMs } : null;

export const holdFromRow = (
  row: Pick<TradeRow, 'hold_mint' | 'hold_raw' | 'hold_until_ms'>,
): TradeHold | null => hold(row.hold_mint, row.hold_raw, row.hold_until_ms);

export const tradeFromRow = (row: TradeRow): TradeRecord => ({
  tradeId: row.trade_id,
  quoteId: row.quote_id,
  runId: row.run_id,
  ownerRunId: row.owner_run_id,
  takerWallet: row.taker_wallet,
  // Written as a Hash32: lower-case hex, as every row since the first has it.
  secretHash: row.secret_hash as Hash32,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  status: row.status,
  substate: row.substate,
  closed: isSet(row.closed),
  nextDeadline: row.next_deadline,
  machineVersion: row.machine_version,
  snapshot: row.snapshot,
  adoptionError: row.adoption_error,
  takerEscrow: row.taker_escrow,
  makerEscrow: row.maker_escrow,
  watch: row.watch,
  seen: row.seen,
  hold: holdFromRow(row),
  running: isSet(row.running),
  effectAttempts: row.effect_attempts,
});

/** The rest index's columns, in this order (read as arrays: the index can hold 100,000 trades). */
export const REST_COLUMNS =
  'trade_id, taker_escrow, maker_escrow, watch, seen, hold_mint, hold_raw, hold_until_ms';

export type RestRow = [
  tradeId: string,
  takerEscrow: string,
  makerEscrow: string,
  watch: number,
  seen: string,
  holdMint: string | null,
  holdRaw: string | null,
  holdUntilMs: number | null,
];

export const restEntryFromRow = ([
  tradeId,
  takerEscrow,
  makerEscrow,
  watch,
  seen,
  holdMint,
  holdRaw,
  holdUntilMs,
]: RestRow): RestEntry => ({
  tradeId,
  takerEscrow,
  makerEscrow,
  watch,
  seen,
  hold: hold(holdMint, holdRaw, holdUntilMs),
});

/** A claimed trade: the rest index's columns, then whether an effect was in flight. */
export type ClaimedRow = [...RestRow, running: Flag];

export const claimedFromRow = (row: ClaimedRow): ClaimedTrade => ({
  ...restEntryFromRow(row.slice(0, 8) as RestRow),
  running: isSet(row[8]),
});

export interface EventRow {
  seq: number;
  trade_id: string;
  run_id: string;
  at: string;
  type: string;
  status: SettlementStatus;
  substate: string;
  payload: string;
}

export const eventFromRow = (row: EventRow): TradeEventRecord => ({
  seq: row.seq,
  tradeId: row.trade_id,
  runId: row.run_id,
  at: row.at,
  type: row.type,
  status: row.status,
  substate: row.substate,
  payload: JSON.parse(row.payload) as Record<string, unknown>,
});

export interface LedgerRow {
  entry_id: number;
  trade_id: string;
  movement: LedgerEntry['movement'];
  signature: string;
  mint: string;
  account: LedgerEntry['account'];
  side: LedgerEntry['side'];
  amount_raw: string;
  at: string;
}

export const ledgerFromRow = (row: LedgerRow): StoredLedgerEntry => ({
  entryId: row.entry_id,
  tradeId: row.trade_id,
  movement: row.movement,
  signature: row.signature,
  mint: row.mint,
  account: row.account,
  side: row.side,
  amountRaw: BigInt(row.amount_raw),
  at: row.at,
});
