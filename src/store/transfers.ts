// The maker's Circle Gateway transfers (src/gateway/) as the store keeps them: one row per transfer spec,
// written in the same commit as the fact that moves it — the trade transition that stored its attestation or
// saw its mint final (carried by the trade's saveTransition, trades.ts), and the source burn Gateway's operator
// made afterwards, written with the trade's GATEWAY_BURN event. What a restarted run reads to follow every
// minted transfer whose burn is unseen. The repository's port and writes, then the row mapping both engines share.

/**
 * Why the maker moved USDC through Gateway: a trade's just-in-time mint. Rebalancing mints and deposits
 * (issue 37 item 4) join the list when they come; the column has no check, so they need no migration.
 */
export const TRANSFER_PURPOSES = ['trade_mint'] as const;
export type TransferPurpose = (typeof TRANSFER_PURPOSES)[number];

/**
 * attested: Gateway's attestation is stored (the mint may be sent); minted: the gatewayMint is final on
 * Solana; burned: Gateway's operator burned the deposit on the source domain (the trade's gateway_burn);
 * expired: the attestation will never be minted, or Gateway gave the transfer up.
 */
export const TRANSFER_STATUSES = ['attested', 'minted', 'burned', 'expired'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export interface TransferRecord {
  /** The transfer spec hash (keccak256 of its TransferSpec, 0x-hex): what the minter's replay guard keys. */
  transferId: string;
  /** Gateway's own id for the transfer (what its API's transfer status is asked with). */
  gatewayTransferId: string;
  /** The trade the transfer serves; null for one of the maker's own (rebalancing). */
  tradeId: string | null;
  purpose: TransferPurpose;
  /** The Gateway domain the USDC is burned on. */
  sourceDomain: number;
  /** USDC minted, raw units. */
  valueRaw: bigint;
  /** The most Gateway may charge (the intent's maxFee), raw units. */
  maxFeeRaw: bigint;
  /** What the attestation charged, raw units; null if Gateway did not say. */
  feeRaw: bigint | null;
  status: TransferStatus;
  /** The gatewayMint transaction on Solana, once final. */
  mintSignature: string | null;
  /** The source domain's burn transaction, once seen. */
  burnTx: string | null;
  attestedAt: string;
  mintedAt: string | null;
  burnedAt: string | null;
  expiredAt: string | null;
}

export type TransferWrite =
  /**
   * A transfer as a trade's transition left it (attested, or minted with its mint's signature), carried by
   * that transition's saveTransition (trades.ts). Its row is kept once per spec and only moves forward: an
   * attestation stored again (a spec attested again after its mint lapsed) never undoes a mint, and nothing
   * undoes a burn; the first attestation's and mint's times are kept.
   */
  | { kind: 'saveTransfer'; transfer: TransferRecord }
  /**
   * The source burn seen: burned with its transaction and, in the same write, its trade's GATEWAY_BURN event
   * by `runId` (with the trade's stored status and substate). A burn recorded already changes nothing, the
   * event included. Not fenced: it records what happened on the source chain, whoever owns the trade now (a
   * closed trade included).
   */
  | {
      kind: 'burnTransfer';
      transferId: string;
      tradeId: string | null;
      burnTx: string;
      runId: string;
      at: string;
    }
  /** Gateway gave an open (attested, minted) transfer up: nothing more to follow. */
  | { kind: 'expireTransfer'; transferId: string; at: string };

/**
 * The trade event a burn seen is written as; its payload names the burn transaction (`signature`) and Gateway's
 * id of the transfer (`transfer_id`).
 */
export const GATEWAY_BURN_EVENT = 'GATEWAY_BURN';

export interface TransfersRepository {
  getTransfer(transferId: string): Promise<TransferRecord | undefined>;
  /** The transfers of these trades, oldest first. */
  transfersOfTrades(tradeIds: readonly string[]): Promise<TransferRecord[]>;
  /** Every transfer whose burn is unseen (attested, minted), oldest first: what the burn follower follows. */
  openTransfers(): Promise<TransferRecord[]>;
  /** The newest transfers, newest first (the operator's view). */
  recentTransfers(limit: number): Promise<TransferRecord[]>;
}

export interface TransferRow {
  transfer_id: string;
  gateway_transfer_id: string;
  trade_id: string | null;
  purpose: string;
  source_domain: number;
  value_raw: string;
  max_fee_raw: string;
  fee_raw: string | null;
  status: string;
  mint_signature: string | null;
  burn_tx: string | null;
  attested_at: string;
  minted_at: string | null;
  burned_at: string | null;
  expired_at: string | null;
}

/** Every column, in order (PostgreSQL names its columns, never `*`). */
export const TRANSFER_COLUMNS: readonly (keyof TransferRow)[] = [
  'transfer_id',
  'gateway_transfer_id',
  'trade_id',
  'purpose',
  'source_domain',
  'value_raw',
  'max_fee_raw',
  'fee_raw',
  'status',
  'mint_signature',
  'burn_tx',
  'attested_at',
  'minted_at',
  'burned_at',
  'expired_at',
];

export const transferFromRow = (row: TransferRow): TransferRecord => ({
  transferId: row.transfer_id,
  gatewayTransferId: row.gateway_transfer_id,
  tradeId: row.trade_id,
  purpose: row.purpose as TransferPurpose,
  // PostgreSQL's BIGINT reads back as a number already; SQLite's INTEGER too.
  sourceDomain: Number(row.source_domain),
  valueRaw: BigInt(row.value_raw),
  maxFeeRaw: BigInt(row.max_fee_raw),
  feeRaw: row.fee_raw === null ? null : BigInt(row.fee_raw),
  status: row.status as TransferStatus,
  mintSignature: row.mint_signature,
  burnTx: row.burn_tx,
  attestedAt: row.attested_at,
  mintedAt: row.minted_at,
  burnedAt: row.burned_at,
  expiredAt: row.expired_at,
});

/** A transfer as a row's values, by column (both engines bind these). */
export const transferRow = (transfer: TransferRecord): TransferRow => ({
  transfer_id: transfer.transferId,
  gateway_transfer_id: transfer.gatewayTransferId,
  trade_id: transfer.tradeId,
  purpose: transfer.purpose,
  source_domain: transfer.sourceDomain,
  value_raw: transfer.valueRaw.toString(),
  max_fee_raw: transfer.maxFeeRaw.toString(),
  fee_raw: transfer.feeRaw === null ? null : transfer.feeRaw.toString(),
  status: transfer.status,
  mint_signature: transfer.mintSignature,
  burn_tx: transfer.burnTx,
  attested_at: transfer.attestedAt,
  minted_at: transfer.mintedAt,
  burned_at: transfer.burnedAt,
  expired_at: transfer.expiredAt,
});
