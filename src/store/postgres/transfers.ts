// Gateway transfers on PostgreSQL, as SQLite keeps them (sqlite/transfers.ts is the reference): one row per
// transfer spec, saved by its trade's transition inside that transition's fenced write (trades.ts), marked
// burned with its trade's GATEWAY_BURN event in one statement. A burn is a fact of the source chain: its
// write is not fenced, and of several instances seeing the same burn only the first writes anything.
import type pg from 'pg';
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
import { type Queryable, runner } from './sql.ts';
import type { PostgresWrites } from './writes.ts';

const SELECT = `SELECT ${TRANSFER_COLUMNS.join(', ')} FROM gateway_transfers`;

/** Transfers' statements. */
const SQL = {
  // Only forward: a mint or a burn stored stays; the first attestation's and mint's times are kept.
  saveTransfer: `
    INSERT INTO gateway_transfers AS g (${TRANSFER_COLUMNS.join(', ')})
    VALUES (${TRANSFER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
    ON CONFLICT (transfer_id) DO UPDATE SET
      gateway_transfer_id = excluded.gateway_transfer_id,
      fee_raw = coalesce(excluded.fee_raw, g.fee_raw),
      status = CASE WHEN g.status = 'burned' OR (g.status = 'minted' AND excluded.status = 'attested')
                    THEN g.status ELSE excluded.status END,
      mint_signature = coalesce(g.mint_signature, excluded.mint_signature),
      minted_at = coalesce(g.minted_at, excluded.minted_at)`,
  // The burn and, once, its trade's event (with the trade's stored status and substate).
  burnTransfer: `
    WITH burned AS (
      UPDATE gateway_transfers SET status = 'burned', burn_tx = $2, burned_at = $4
      WHERE transfer_id = $1 AND status <> 'burned'
      RETURNING trade_id, gateway_transfer_id
    ),
    event AS (
      INSERT INTO trade_events (trade_id, run_id, at, type, status, substate, payload)
      SELECT t.trade_id, $3, $4, '${GATEWAY_BURN_EVENT}', t.status, t.substate,
             json_build_object('signature', $2::text, 'transfer_id', b.gateway_transfer_id)::text
      FROM burned b JOIN trades t ON t.trade_id = b.trade_id
    )
    SELECT (SELECT count(*) FROM burned) AS burned,
           EXISTS (SELECT 1 FROM gateway_transfers WHERE transfer_id = $1) AS known`,
  expireTransfer: `
    UPDATE gateway_transfers SET status = 'expired', expired_at = $2
    WHERE transfer_id = $1 AND status IN ('attested', 'minted')`,
  getTransfer: `${SELECT} WHERE transfer_id = $1`,
  transfersOfTrades: `${SELECT} WHERE trade_id = ANY ($1::text[]) ORDER BY attested_at, transfer_id`,
  openTransfers: `${SELECT} WHERE status IN ('attested', 'minted') ORDER BY attested_at, transfer_id`,
  recentTransfers: `${SELECT} ORDER BY attested_at DESC, transfer_id DESC LIMIT $1`,
} as const;

export const TRANSFER_STATEMENTS = SQL;
const run = runner(SQL);

export class PostgresTransfers implements TransfersRepository {
  constructor(private readonly pool: pg.Pool) {}

  readonly writes: PostgresWrites<TransferWrite> = {
    saveTransfer: {
      apply: ({ client }, { transfer }) => this.save(client, transfer),
    },
    burnTransfer: {
      appendsEventsOf: ({ tradeId }) => (tradeId === null ? [] : [tradeId]),
      apply: async ({ client }, { transferId, burnTx, runId, at }) => {
        const [row] = (
          await run<{ burned: number; known: boolean }>(client, 'burnTransfer', [
            transferId,
            burnTx,
            runId,
            at,
          ])
        ).rows;
        if (!row?.known) throw new Error(`transfer ${transferId} does not exist`);
      },
    },
    expireTransfer: {
      apply: async ({ client }, { transferId, at }) => {
        await run(client, 'expireTransfer', [transferId, at]);
      },
    },
  };

  /** Saves a transfer as a transition left it (called within the trade's fenced write). */
  async save(client: Queryable, transfer: TransferRecord): Promise<void> {
    const row = transferRow(transfer);
    await run(
      client,
      'saveTransfer',
      TRANSFER_COLUMNS.map((column) => row[column]),
    );
  }

  async getTransfer(transferId: string): Promise<TransferRecord | undefined> {
    const [row] = (await run<TransferRow>(this.pool, 'getTransfer', [transferId])).rows;
    return row && transferFromRow(row);
  }

  async transfersOfTrades(tradeIds: readonly string[]): Promise<TransferRecord[]> {
    if (tradeIds.length === 0) return [];
    return (await run<TransferRow>(this.pool, 'transfersOfTrades', [tradeIds])).rows.map(transferFromRow);
  }

  async openTransfers(): Promise<TransferRecord[]> {
    return (await run<TransferRow>(this.pool, 'openTransfers')).rows.map(transferFromRow);
  }

  async recentTransfers(limit: number): Promise<TransferRecord[]> {
    return (await run<TransferRow>(this.pool, 'recentTransfers', [limit])).rows.map(transferFromRow);
  }
}
