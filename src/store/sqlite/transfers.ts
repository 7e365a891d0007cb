// Gateway transfers on SQLite: one row per transfer spec, moved forward by the writes of transfers.ts — a
// trade's transition saves it (through the trade's own write, trades.ts), a burn seen marks it burned and
// appends its trade's GATEWAY_BURN event in the same savepoint. The running run is the one writer: nothing
// is fenced.
import type Database from 'better-sqlite3';
import {
  GATEWAY_BURN_EVENT,
  TRANSFER_COLUMNS,
  type TransferRecord,
  type TransferRow,
  type TransfersRepository,
  type TransferWrite,
  transferFromRow,
  transferRow,
} from '../transfers.ts';
import type { SqliteWrites } from './writes.ts';

/** Its statements, prepared once when the store opens. */
function prepare(db: Database.Database) {
  return {
    // Only forward: a mint or a burn stored stays; the first attestation's and mint's times are kept.
    save: db.prepare(`
      INSERT INTO gateway_transfers (${TRANSFER_COLUMNS.join(', ')})
      VALUES (${TRANSFER_COLUMNS.map((c) => `@${c}`).join(', ')})
      ON CONFLICT (transfer_id) DO UPDATE SET
        gateway_transfer_id = excluded.gateway_transfer_id,
        fee_raw = coalesce(excluded.fee_raw, fee_raw),
        status = CASE WHEN status = 'burned' OR (status = 'minted' AND excluded.status = 'attested')
                      THEN status ELSE excluded.status END,
        mint_signature = coalesce(mint_signature, excluded.mint_signature),
        minted_at = coalesce(minted_at, excluded.minted_at)`),
    burn: db.prepare(`
      UPDATE gateway_transfers SET status = 'burned', burn_tx = @burnTx, burned_at = @at
      WHERE transfer_id = @transferId AND status <> 'burned'
      RETURNING trade_id, gateway_transfer_id`),
    burnEvent: db.prepare(`
      INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
      SELECT trade_id, @runId, @at, '${GATEWAY_BURN_EVENT}', status, substate,
             json_object('signature', @burnTx, 'transfer_id', @gatewayTransferId)
      FROM trades WHERE trade_id = @tradeId`),
    expire: db.prepare(`
      UPDATE gateway_transfers SET status = 'expired', expired_at = @at
      WHERE transfer_id = @transferId AND status IN ('attested', 'minted')`),
    get: db.prepare('SELECT * FROM gateway_transfers WHERE transfer_id = ?'),
    ofTrades: db.prepare(`
      SELECT * FROM gateway_transfers WHERE trade_id IN (SELECT value FROM json_each(?))
      ORDER BY attested_at, transfer_id`),
    open: db.prepare(`
      SELECT * FROM gateway_transfers INDEXED BY gateway_transfers_open WHERE status IN ('attested', 'minted')
      ORDER BY attested_at, transfer_id`),
    recent: db.prepare('SELECT * FROM gateway_transfers ORDER BY attested_at DESC, transfer_id DESC LIMIT ?'),
  };
}

type Statements = ReturnType<typeof prepare>;

export class SqliteTransfers implements TransfersRepository {
  private readonly statements: Statements;

  constructor(private readonly db: Database.Database) {
    this.statements = prepare(db);
  }

  readonly writes: SqliteWrites<TransferWrite> = {
    saveTransfer: ({ transfer }) => this.save(transfer),
    burnTransfer: (write) => this.burn(write),
    expireTransfer: ({ transferId, at }) => void this.statements.expire.run({ transferId, at }),
  };

  /** Saves a transfer as a transition left it (called within the trade's write, in its savepoint). */
  save(transfer: TransferRecord): void {
    this.statements.save.run(transferRow(transfer));
  }

  private burn({ transferId, burnTx, runId, at }: Extract<TransferWrite, { kind: 'burnTransfer' }>): void {
    this.db.transaction(() => {
      const moved = this.statements.burn.get({ transferId, burnTx, at }) as
        | Pick<TransferRow, 'trade_id' | 'gateway_transfer_id'>
        | undefined;
      if (moved === undefined) {
        if (this.statements.get.get(transferId) === undefined) {
          throw new Error(`transfer ${transferId} does not exist`);
        }
        return;
      }
      if (moved.trade_id === null) return;
      this.statements.burnEvent.run({
        tradeId: moved.trade_id,
        runId,
        at,
        burnTx,
        gatewayTransferId: moved.gateway_transfer_id,
      });
    })();
  }

  async getTransfer(transferId: string): Promise<TransferRecord | undefined> {
    const row = this.statements.get.get(transferId) as TransferRow | undefined;
    return row && transferFromRow(row);
  }

  async transfersOfTrades(tradeIds: readonly string[]): Promise<TransferRecord[]> {
    if (tradeIds.length === 0) return [];
    return (this.statements.ofTrades.all(JSON.stringify(tradeIds)) as TransferRow[]).map(transferFromRow);
  }

  async openTransfers(): Promise<TransferRecord[]> {
    return (this.statements.open.all() as TransferRow[]).map(transferFromRow);
  }

  async recentTransfers(limit: number): Promise<TransferRecord[]> {
    return (this.statements.recent.all(limit) as TransferRow[]).map(transferFromRow);
  }
}
