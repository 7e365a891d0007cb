// The embedded chain's durable state in its own SQLite file (DATA_DIR/chain.sqlite): accounts as the
// last transaction left them, every transaction record, and the chain's clock and identity. Each
// transaction's accounts and record are written in ONE SQLite transaction before the caller learns the
// transaction happened, so a kill -9 never loses a transaction anyone acted on. WAL with
// synchronous=NORMAL: a committed transaction is in the operating system's hands when the call returns,
// which a killed process cannot take back; only a power loss could, and this chain stands in for a
// cluster, whose durability is replication, not a local fsync. (The service's own store, the maker's
// record, stays synchronous=FULL.) It saves an fsync per transaction, on the event loop. Columns added later are added to an existing file when it is opened (see MIGRATIONS).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface StoredAccount {
  address: string;
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

/** One side (before or after the transaction) of a token account's balance. */
export interface StoredTokenSide {
  mint: string;
  /** The token account's authority. */
  owner: string;
  amount: bigint;
  decimals: number;
}

/** A classic SPL token account among the transaction's keys; a side is null where it did not exist. */
export interface StoredTokenBalance {
  account: string;
  pre: StoredTokenSide | null;
  post: StoredTokenSide | null;
}

export interface StoredTransaction {
  signature: string;
  slot: number;
  blockTime: number;
  /** JSON-RPC form of the transaction error, null on success. */
  err: unknown;
  fee: bigint;
  computeUnits: bigint;
  logs: string[];
  /** The message's static keys. */
  accountKeys: string[];
  /**
   * A v0 message's keys loaded from address lookup tables (meta.loadedAddresses); null for a legacy one.
   * The balances below cover accountKeys, then these writable, then these readonly keys.
   */
  loadedAddresses: LoadedAddresses | null;
  preBalances: bigint[];
  postBalances: bigint[];
  /** null for records written before the chain kept token balances. */
  tokenBalances: StoredTokenBalance[] | null;
  bytes: Uint8Array;
}

interface TxRow {
  signature: string;
  slot: number;
  block_time: number;
  err: string | null;
  fee: string;
  compute_units: string;
  logs: string;
  account_keys: string;
  pre_balances: string;
  post_balances: string;
  token_balances: string | null;
  loaded_addresses: string | null;
  tx: Buffer;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
  address TEXT PRIMARY KEY, lamports TEXT NOT NULL, owner TEXT NOT NULL,
  executable INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, signature TEXT NOT NULL UNIQUE, slot INTEGER NOT NULL,
  block_time INTEGER NOT NULL, err TEXT, fee TEXT NOT NULL, compute_units TEXT NOT NULL,
  logs TEXT NOT NULL, account_keys TEXT NOT NULL, pre_balances TEXT NOT NULL, post_balances TEXT NOT NULL,
  tx BLOB NOT NULL, token_balances TEXT, loaded_addresses TEXT);
CREATE TABLE IF NOT EXISTS address_transactions (
  address TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (address, seq)) WITHOUT ROWID;
`;

/** Columns added after the first release, with their definition: added to older files on open. */
const MIGRATIONS: { table: string; column: string; definition: string }[] = [
  { table: 'transactions', column: 'token_balances', definition: 'TEXT' },
  { table: 'transactions', column: 'loaded_addresses', definition: 'TEXT' },
];

const bigintsToJson = (xs: bigint[]) => JSON.stringify(xs.map(String));
const bigintsFromJson = (s: string) => (JSON.parse(s) as string[]).map(BigInt);

export class ChainStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'chain.sqlite');
    this.db = new Database(file, { timeout: 1_000 });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // One process owns a chain: a second opener fails fast instead of forking the chain's history.
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.exec(SCHEMA);
      this.migrate();
      // A write takes the exclusive lock now, so a second process fails here rather than later.
      this.db
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened_at', ?)")
        .run(new Date().toISOString());
    } catch (e) {
      this.db.close();
      if ((e as { code?: string }).code === 'SQLITE_BUSY') {
        throw new Error(`embedded chain ${file} is locked: another process runs this chain`);
      }
      throw e;
    }
    this.stmt = {
      getMeta: this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: this.db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      upsertAccount: this.db.prepare(
        `INSERT INTO accounts (address, lamports, owner, executable, data) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(address) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner,
           executable = excluded.executable, data = excluded.data`,
      ),
      deleteAccount: this.db.prepare('DELETE FROM accounts WHERE address = ?'),
      allAccounts: this.db.prepare<
        [],
        { address: string; lamports: string; owner: string; executable: number; data: Buffer }
      >('SELECT address, lamports, owner, executable, data FROM accounts'),
      insertTx: this.db.prepare(
        `INSERT INTO transactions (signature, slot, block_time, err, fee, compute_units, logs, account_keys,
           pre_balances, post_balances, token_balances, loaded_addresses, tx)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertAddressTx: this.db.prepare(
        'INSERT OR IGNORE INTO address_transactions (address, seq) VALUES (?, ?)',
      ),
      getTx: this.db.prepare<[string], TxRow>('SELECT * FROM transactions WHERE signature = ?'),
      txsForAddress: this.db.prepare<[string, number, number], TxRow>(
        `SELECT t.* FROM address_transactions a JOIN transactions t ON t.seq = a.seq
         WHERE a.address = ? AND a.seq < ? ORDER BY a.seq DESC LIMIT ?`,
      ),
      seqOf: this.db.prepare<[string], { seq: number }>('SELECT seq FROM transactions WHERE signature = ?'),
      maxSlot: this.db.prepare<[], { slot: number | null }>('SELECT MAX(slot) AS slot FROM transactions'),
      dropAddressTx: this.db.prepare<[string, number]>(
        'DELETE FROM address_transactions WHERE address = ? AND seq = ?',
      ),
      dropTx: this.db.prepare<[number]>('DELETE FROM transactions WHERE seq = ?'),
      txCount: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM transactions'),
    };
  }

  private migrate(): void {
    for (const m of MIGRATIONS) {
      const columns = this.db.prepare<[], { name: string }>(`PRAGMA table_info(${m.table})`).all();
      if (!columns.some((c) => c.name === m.column)) {
        this.db.exec(`ALTER TABLE ${m.table} ADD COLUMN ${m.column} ${m.definition}`);
      }
    }
  }

  meta(key: string): string | undefined {
    return this.stmt.getMeta.get(key)?.value;
  }

  setMeta(entries: Record<string, string>): void {
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(entries)) this.stmt.setMeta.run(k, v);
    })();
  }

  accounts(): StoredAccount[] {
    return this.stmt.allAccounts.all().map((r) => ({
      address: r.address,
      lamports: BigInt(r.lamports),
      owner: r.owner,
      executable: r.executable === 1,
      data: new Uint8Array(r.data),
    }));
  }

  /**
   * Writes accounts (null = deleted), an optional transaction record and meta entries atomically; `dropped`
   * are transactions a rollback took back (a fork): their records go, the accounts given are their state
   * before them.
   */
  commit(a: {
    accounts: { address: string; account: StoredAccount | null }[];
    transaction?: StoredTransaction;
    dropped?: readonly string[];
    meta?: Record<string, string>;
  }): void {
    this.db.transaction(() => {
      for (const signature of a.dropped ?? []) {
        const seq = this.stmt.seqOf.get(signature)?.seq;
        const record = this.transaction(signature);
        if (seq === undefined || record === null) continue;
        for (const key of new Set(keysOf(record))) this.stmt.dropAddressTx.run(key, seq);
        this.stmt.dropTx.run(seq);
      }
      for (const { address, account } of a.accounts) {
        if (account) {
          this.stmt.upsertAccount.run(
            address,
            account.lamports.toString(),
            account.owner,
            account.executable ? 1 : 0,
            Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength),
          );
        } else {
          this.stmt.deleteAccount.run(address);
        }
      }
      const t = a.transaction;
      if (t) {
        const info = this.stmt.insertTx.run(
          t.signature,
          t.slot,
          t.blockTime,
          t.err === null ? null : JSON.stringify(t.err),
          t.fee.toString(),
          t.computeUnits.toString(),
          JSON.stringify(t.logs),
          JSON.stringify(t.accountKeys),
          bigintsToJson(t.preBalances),
          bigintsToJson(t.postBalances),
          t.tokenBalances === null ? null : tokenBalancesToJson(t.tokenBalances),
          t.loadedAddresses === null ? null : JSON.stringify(t.loadedAddresses),
          Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength),
        );
        for (const key of new Set(keysOf(t))) this.stmt.insertAddressTx.run(key, info.lastInsertRowid);
      }
      for (const [k, v] of Object.entries(a.meta ?? {})) this.stmt.setMeta.run(k, v);
    })();
  }

  transaction(signature: string): StoredTransaction | null {
    const row = this.stmt.getTx.get(signature);
    return row ? fromRow(row) : null;
  }

  /** Newest first; `before` is a signature to page from (exclusive). */
  transactionsForAddress(address: string, limit: number, before?: string): StoredTransaction[] {
    const beforeSeq = before
      ? (this.stmt.seqOf.get(before)?.seq ?? Number.MAX_SAFE_INTEGER)
      : Number.MAX_SAFE_INTEGER;
    return this.stmt.txsForAddress.all(address, beforeSeq, limit).map(fromRow);
  }

  maxSlot(): number | null {
    return this.stmt.maxSlot.get()?.slot ?? null;
  }

  transactionCount(): number {
    return this.stmt.txCount.get()?.n ?? 0;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Every key the transaction names: static, then loaded from lookup tables. */
const keysOf = (t: StoredTransaction) => [
  ...t.accountKeys,
  ...(t.loadedAddresses?.writable ?? []),
  ...(t.loadedAddresses?.readonly ?? []),
];

function fromRow(r: TxRow): StoredTransaction {
  return {
    signature: r.signature,
    slot: r.slot,
    blockTime: r.block_time,
    err: r.err === null ? null : JSON.parse(r.err),
    fee: BigInt(r.fee),
    computeUnits: BigInt(r.compute_units),
    logs: JSON.parse(r.logs),
    accountKeys: JSON.parse(r.account_keys),
    loadedAddresses: r.loaded_addresses === null ? null : JSON.parse(r.loaded_addresses),
    preBalances: bigintsFromJson(r.pre_balances),
    postBalances: bigintsFromJson(r.post_balances),
    tokenBalances: r.token_balances === null ? null : tokenBalancesFromJson(r.token_balances),
    bytes: new Uint8Array(r.tx),
  };
}

type TokenSideJson = Omit<StoredTokenSide, 'amount'> & { amount: string };
type TokenBalanceJson = { account: string; pre: TokenSideJson | null; post: TokenSideJson | null };

const sideToJson = (s: StoredTokenSide | null): TokenSideJson | null =>
  s && { ...s, amount: s.amount.toString() };
const sideFromJson = (s: TokenSideJson | null): StoredTokenSide | null =>
  s && { ...s, amount: BigInt(s.amount) };

function tokenBalancesToJson(balances: StoredTokenBalance[]): string {
  return JSON.stringify(
    balances.map(
      (b): TokenBalanceJson => ({ account: b.account, pre: sideToJson(b.pre), post: sideToJson(b.post) }),
    ),
  );
}

function tokenBalancesFromJson(json: string): StoredTokenBalance[] {
  return (JSON.parse(json) as TokenBalanceJson[]).map((b) => ({
    account: b.account,
    pre: sideFromJson(b.pre),
    post: sideFromJson(b.post),
  }));
}
