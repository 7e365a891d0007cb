// The dev Gateway's memory, in one SQLite file under its data dir: its attester and operator keys (made once),
// every transfer it attested and the intents inside, each intent's transfer spec hash unique (a replay is
// refused by the database as well as by the check before it). A transfer is written before its attestation is
// answered, and its burn after the burn is mined, so a restart neither attests twice nor forgets a burn owed.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import type { GatewayTransferStatus } from '../port.ts';

export interface StoredIntent {
  specHash: Hex;
  sourceDomain: number;
  /** The depositor's EVM address, lower-case 0x-hex. */
  depositor: string;
  value: bigint;
  fee: bigint;
  /** The encoded BurnIntent and its depositor's signature, kept for the burn. */
  intent: Uint8Array;
  signature: Uint8Array;
}

export interface StoredTransfer {
  id: string;
  attestation: Uint8Array;
  signature: Uint8Array;
  expirationBlock: bigint;
  status: GatewayTransferStatus;
  burnTxHash: Hex | null;
  intents: StoredIntent[];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS transfers (
  id TEXT PRIMARY KEY,
  attestation BLOB NOT NULL,
  signature BLOB NOT NULL,
  expiration_block TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('attested', 'minted', 'burned', 'expired')),
  burn_tx TEXT,
  created_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS intents (
  spec_hash TEXT PRIMARY KEY,
  transfer_id TEXT NOT NULL REFERENCES transfers (id),
  position INTEGER NOT NULL,
  source_domain INTEGER NOT NULL,
  depositor TEXT NOT NULL,
  value TEXT NOT NULL,
  fee TEXT NOT NULL,
  intent BLOB NOT NULL,
  signature BLOB NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS intents_depositor ON intents (source_domain, depositor);
`;

interface TransferRow {
  id: string;
  attestation: Buffer;
  signature: Buffer;
  expiration_block: string;
  status: GatewayTransferStatus;
  burn_tx: string | null;
}

interface IntentRow {
  spec_hash: string;
  source_domain: number;
  depositor: string;
  value: string;
  fee: string;
  intent: Buffer;
  signature: Buffer;
}

export class DevGatewayStore {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.db = new Database(join(dataDir, 'gateway.sqlite'), { timeout: 1_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(SCHEMA);
  }

  /** A key made once and kept: the attester's, the operator's, and the EVM domain's deployer (its contracts
   * then land at the same addresses on every fresh anvil). */
  key(name: 'attester' | 'operator' | 'deployer'): Hex {
    const found = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(`${name}_key`) as
      | { value: string }
      | undefined;
    if (found) return found.value as Hex;
    const made = generatePrivateKey();
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`${name}_key`, made);
    return made;
  }

  /** Whether any of the hashes was attested already. */
  anyAttested(specHashes: readonly Hex[]): boolean {
    const q = this.db.prepare('SELECT 1 FROM intents WHERE spec_hash = ?');
    return specHashes.some((h) => q.get(h.toLowerCase()) !== undefined);
  }

  /** The transfer that attested the spec, if one did. */
  transferOf(specHash: Hex): string | undefined {
    const row = this.db
      .prepare('SELECT transfer_id FROM intents WHERE spec_hash = ?')
      .get(specHash.toLowerCase()) as { transfer_id: string } | undefined;
    return row?.transfer_id;
  }

  /** What is attested from the depositor on the domain and not burned yet (value + fee), raw units. */
  pending(sourceDomain: number, depositor: string): bigint {
    const rows = this.db
      .prepare(
        `SELECT i.value, i.fee FROM intents i JOIN transfers t ON t.id = i.transfer_id
         WHERE i.source_domain = ? AND i.depositor = ? AND t.status IN ('attested', 'minted')`,
      )
      .all(sourceDomain, depositor.toLowerCase()) as { value: string; fee: string }[];
    return rows.reduce((sum, r) => sum + BigInt(r.value) + BigInt(r.fee), 0n);
  }

  /**
   * Writes the transfer and its intents in one transaction, if `admit` (run inside it, so nothing slips between
   * the check and the write) answers true.
   */
  insert(transfer: StoredTransfer, admit: () => boolean): boolean {
    return this.db.transaction(() => {
      if (!admit()) return false;
      this.db
        .prepare(
          `INSERT INTO transfers (id, attestation, signature, expiration_block, status, burn_tx, created_ms)
           VALUES (?, ?, ?, ?, ?, NULL, ?)`,
        )
        .run(
          transfer.id,
          transfer.attestation,
          transfer.signature,
          transfer.expirationBlock.toString(),
          transfer.status,
          Date.now(),
        );
      const add = this.db.prepare(
        `INSERT INTO intents (spec_hash, transfer_id, position, source_domain, depositor, value, fee, intent, signature)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      transfer.intents.forEach((i, position) => {
        add.run(
          i.specHash.toLowerCase(),
          transfer.id,
          position,
          i.sourceDomain,
          i.depositor.toLowerCase(),
          i.value.toString(),
          i.fee.toString(),
          i.intent,
          i.signature,
        );
      });
      return true;
    })();
  }

  get(id: string): StoredTransfer | undefined {
    const row = this.db.prepare('SELECT * FROM transfers WHERE id = ?').get(id) as TransferRow | undefined;
    return row ? this.withIntents(row) : undefined;
  }

  /** The transfers still owing a mint check or a burn, oldest first. */
  open(): StoredTransfer[] {
    const rows = this.db
      .prepare(`SELECT * FROM transfers WHERE status IN ('attested', 'minted') ORDER BY created_ms, id`)
      .all() as TransferRow[];
    return rows.map((r) => this.withIntents(r));
  }

  setStatus(id: string, status: GatewayTransferStatus, burnTxHash: Hex | null = null): void {
    this.db.prepare('UPDATE transfers SET status = ?, burn_tx = ? WHERE id = ?').run(status, burnTxHash, id);
  }

  close(): void {
    this.db.close();
  }

  private withIntents(row: TransferRow): StoredTransfer {
    const intents = this.db
      .prepare('SELECT * FROM intents WHERE transfer_id = ? ORDER BY position')
      .all(row.id) as IntentRow[];
    return {
      id: row.id,
      attestation: new Uint8Array(row.attestation),
      signature: new Uint8Array(row.signature),
      expirationBlock: BigInt(row.expiration_block),
      status: row.status,
      burnTxHash: row.burn_tx as Hex | null,
      intents: intents.map((i) => ({
        specHash: i.spec_hash as Hex,
        sourceDomain: i.source_domain,
        depositor: i.depositor,
        value: BigInt(i.value),
        fee: BigInt(i.fee),
        intent: new Uint8Array(i.intent),
        signature: new Uint8Array(i.signature),
      })),
    };
  }
}
