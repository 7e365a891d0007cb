// What the taker keeps of each swap, and where: a SwapStore is durable — put() resolves only once the record
// would survive a crash — because a record holds the preimage of a commitment the service may know. The
// client writes a swap's record before its settlement request leaves, and marks a reveal before the preimage
// leaves, so any process holding the store can carry the swap on (resume, redeem, refund).
import type { AmountView, SettlementStatus, Trade } from './api.ts';

export interface WalletRef {
  address: string;
  /** How the front end finds the wallet again after a reload (its name among registered wallets, …). */
  name?: string;
  kind?: string;
}

export interface SwapRecord {
  /** The key: known before the trade exists. */
  secretHash: string;
  preimage: string;
  wallet: WalletRef;
  quoteId: string;
  input: AmountView;
  output: AmountView;
  spreadBps: number;
  createdAt: string;
  /** Known once wallet-settlement answered. */
  tradeId: string | null;
  /** When the last unsigned lock was handed out (ms since the epoch): an old one is refreshed before signing. */
  lockIssuedAt: number | null;
  lockTransaction: string | null;
  /** The lock window's end (unix seconds, chain time), as the settlement answered; absent in older records. */
  lockDeadline?: number | null;
  /** The trade as last seen, and the seq of the last event seen. */
  status: SettlementStatus | null;
  substate: string | null;
  trade: Trade | null;
  lastSeq: number;
  /**
   * Set, and stored, before the preimage first leaves the client: where it went (the chain, in a redeem the
   * taker sent; or the service, through POST /redeem) and when. Null: the secret never left.
   */
  revealed: { via: 'chain' | 'service'; at: string; signature?: string } | null;
}

/** A durable home for swap records: IndexedDB in a browser (./indexeddb), files on Node (./node). */
export interface SwapStore {
  /** Resolves once the record is durable. */
  put(record: SwapRecord): Promise<void>;
  get(secretHash: string): Promise<SwapRecord | undefined>;
  /** Every record, newest first. */
  list(): Promise<SwapRecord[]>;
  delete(secretHash: string): Promise<void>;
}

/** Records in memory only: for tests and throwaway scripts. A reload loses every secret it held. */
export class MemorySwapStore implements SwapStore {
  private readonly records = new Map<string, SwapRecord>();
  async put(record: SwapRecord): Promise<void> {
    this.records.set(record.secretHash, structuredClone(record));
  }
  async get(secretHash: string): Promise<SwapRecord | undefined> {
    const record = this.records.get(secretHash);
    return record && structuredClone(record);
  }
  async list(): Promise<SwapRecord[]> {
    return newestFirst([...this.records.values()].map((r) => structuredClone(r)));
  }
  async delete(secretHash: string): Promise<void> {
    this.records.delete(secretHash);
  }
}

export const newestFirst = (records: SwapRecord[]): SwapRecord[] =>
  records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
