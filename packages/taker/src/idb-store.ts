// The browser's SwapStore: IndexedDB, each write its own `readwrite` transaction with durability 'strict',
// settled on `complete` — the browser has flushed it to disk by then, so a reload, a crash or a closed tab
// cannot lose a preimage the service may know the hash of.
import { newestFirst, type SwapRecord, type SwapStore } from './store.ts';

export interface IndexedDbStoreOptions {
  /** The database's name (default 'rfq-taker'). */
  database?: string;
  /** The object store of swap records, keyed by secretHash (default 'swaps'). */
  storeName?: string;
  version?: number;
  /** More of the front end's own stores, created with the swaps' (e.g. a dev wallet's keys). */
  upgrade?: (db: IDBDatabase) => void;
}

export class IndexedDbSwapStore implements SwapStore {
  private opened: Promise<IDBDatabase> | undefined;
  private readonly name: string;
  private readonly storeName: string;

  constructor(private readonly options: IndexedDbStoreOptions = {}) {
    this.name = options.database ?? 'rfq-taker';
    this.storeName = options.storeName ?? 'swaps';
  }

  /** The database, opened once (created on first use). */
  database(): Promise<IDBDatabase> {
    this.opened ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(this.name, this.options.version ?? 1);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(this.storeName))
          db.createObjectStore(this.storeName, { keyPath: 'secretHash' });
        this.options.upgrade?.(db);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    return this.opened;
  }

  /** One request in its own transaction, settled once the transaction has committed (strictly durable). */
  async run<T>(
    store: string,
    mode: IDBTransactionMode,
    act: (s: IDBObjectStore) => IDBRequest<T>,
  ): Promise<T> {
    const db = await this.database();
    return new Promise<T>((resolve, reject) => {
      const tx = db.transaction(store, mode, { durability: 'strict' });
      const request = act(tx.objectStore(store));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error ?? request.error);
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  }

  async put(record: SwapRecord): Promise<void> {
    await this.run(this.storeName, 'readwrite', (s) => s.put(record));
  }
  get(secretHash: string): Promise<SwapRecord | undefined> {
    return this.run<SwapRecord | undefined>(this.storeName, 'readonly', (s) => s.get(secretHash));
  }
  async list(): Promise<SwapRecord[]> {
    return newestFirst(await this.run<SwapRecord[]>(this.storeName, 'readonly', (s) => s.getAll()));
  }
  async delete(secretHash: string): Promise<void> {
    await this.run(this.storeName, 'readwrite', (s) => s.delete(secretHash));
  }
}
