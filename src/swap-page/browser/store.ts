// This browser's own records in IndexedDB: every swap it started, with its preimage (written, durably,
// before the service hears of the swap, so no reload, crash or closed tab can lose it), and the dev wallet's
// keypair (a non-extractable WebCrypto key: the private half never exists as bytes the page could leak).
import type { AmountView, SettlementStatus, Trade } from './api.ts';

export interface WalletRef {
  kind: 'dev' | 'standard';
  /** The wallet's name, to find it again among the registered wallets after a reload. */
  name: string;
  address: string;
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
  /** When the page last got an unsigned lock (ms since the epoch): an old one is refreshed before signing. */
  lockIssuedAt: number | null;
  lockTransaction: string | null;
  /** The trade as last seen, and the seq of the last event seen. */
  status: SettlementStatus | null;
  substate: string | null;
  trade: Trade | null;
  lastSeq: number;
}

export interface DevKeys {
  id: 'dev';
  keys: CryptoKeyPair;
  address: string;
}

const DB_NAME = 'rfq-swap-page';
const SWAPS = 'swaps';
const KEYS = 'keys';

let opened: Promise<IDBDatabase> | undefined;

function open(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore(SWAPS, { keyPath: 'secretHash' });
      db.createObjectStore(KEYS, { keyPath: 'id' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

/** One request in its own transaction, settled once the transaction has committed (strictly durable). */
async function run<T>(
  store: string,
  mode: IDBTransactionMode,
  act: (s: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const db = await open();
  return new Promise<T>((resolve, reject) => {
    const tx = db.transaction(store, mode, { durability: 'strict' });
    const request = act(tx.objectStore(store));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error ?? request.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

export const store = {
  /** Resolves once the record is committed to disk. */
  putSwap: async (record: SwapRecord) => {
    await run(SWAPS, 'readwrite', (s) => s.put(record));
  },
  getSwap: (secretHash: string) => run<SwapRecord | undefined>(SWAPS, 'readonly', (s) => s.get(secretHash)),
  swaps: async () => {
    const all = await run<SwapRecord[]>(SWAPS, 'readonly', (s) => s.getAll());
    return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  },
  deleteSwap: async (secretHash: string) => {
    await run(SWAPS, 'readwrite', (s) => s.delete(secretHash));
  },
  devKeys: () => run<DevKeys | undefined>(KEYS, 'readonly', (s) => s.get('dev')),
  putDevKeys: async (keys: DevKeys) => {
    await run(KEYS, 'readwrite', (s) => s.put(keys));
  },
};
