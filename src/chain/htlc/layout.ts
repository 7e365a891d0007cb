// Byte layout of an HTLC escrow account (version 1), mirrored from programs/htlc/htlc.c and
// documented byte by byte in programs/htlc/README.md.

import { PublicKey } from '@solana/web3.js';

export const HTLC_ESCROW_VERSION = 1;
export const HTLC_ESCROW_SIZE = 264;

/** Byte offsets inside the escrow account. */
export const ESCROW_OFFSETS = {
  version: 0,
  kind: 1,
  status: 2,
  escrowBump: 3,
  vaultBump: 4,
  // 5..7 reserved, zero
  initializer: 8,
  recipient: 40,
  mint: 72,
  vault: 104,
  hashlock: 136,
  amount: 168,
  expiry: 176,
  lockDeadline: 184,
  lockedAt: 192,
  preimage: 200,
  takerEscrow: 232,
} as const;

export const ESCROW_KIND_CODES = { taker: 1, maker: 2 } as const;
export const ESCROW_STATUS_CODES = { locked: 1, redeemed: 2, refunded: 3, cancelled: 4 } as const;

export type EscrowKind = keyof typeof ESCROW_KIND_CODES;
export type EscrowStatus = keyof typeof ESCROW_STATUS_CODES;

export interface EscrowState {
  version: number;
  kind: 'taker' | 'maker';
  status: EscrowStatus;
  initializer: PublicKey;
  recipient: PublicKey;
  mint: PublicKey;
  vault: PublicKey;
  hashlock: Uint8Array;
  amount: bigint;
  expiry: bigint;
  lockDeadline: bigint;
  lockedAt: bigint;
  preimage: Uint8Array | null;
  takerEscrow: PublicKey | null;
}

/** EscrowState plus the bumps the program stored; the bumps are rarely needed off chain. */
export interface EscrowStateWithBumps extends EscrowState {
  escrowBump: number;
  vaultBump: number;
}

function keyOf(kind: Record<string, number>, code: number | undefined, what: string): string {
  const found = Object.entries(kind).find(([, c]) => c === code);
  if (!found) throw new Error(`htlc escrow: unknown ${what} ${code}`);
  return found[0];
}

export function decodeEscrow(data: Uint8Array): EscrowStateWithBumps {
  if (data.length !== HTLC_ESCROW_SIZE) {
    throw new Error(`htlc escrow: expected ${HTLC_ESCROW_SIZE} bytes, got ${data.length}`);
  }
  const version = data[ESCROW_OFFSETS.version] ?? 0;
  if (version !== HTLC_ESCROW_VERSION) throw new Error(`htlc escrow: unsupported version ${version}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const bytes = (offset: number) => data.slice(offset, offset + 32);
  const key = (offset: number) => new PublicKey(bytes(offset));
  const kind = keyOf(ESCROW_KIND_CODES, data[ESCROW_OFFSETS.kind], 'kind') as EscrowKind;
  const status = keyOf(ESCROW_STATUS_CODES, data[ESCROW_OFFSETS.status], 'status') as EscrowStatus;
  const preimage = bytes(ESCROW_OFFSETS.preimage);
  return {
    version,
    kind,
    status,
    escrowBump: data[ESCROW_OFFSETS.escrowBump] ?? 0,
    vaultBump: data[ESCROW_OFFSETS.vaultBump] ?? 0,
    initializer: key(ESCROW_OFFSETS.initializer),
    recipient: key(ESCROW_OFFSETS.recipient),
    mint: key(ESCROW_OFFSETS.mint),
    vault: key(ESCROW_OFFSETS.vault),
    hashlock: bytes(ESCROW_OFFSETS.hashlock),
    amount: view.getBigUint64(ESCROW_OFFSETS.amount, true),
    expiry: view.getBigInt64(ESCROW_OFFSETS.expiry, true),
    lockDeadline: view.getBigInt64(ESCROW_OFFSETS.lockDeadline, true),
    lockedAt: view.getBigInt64(ESCROW_OFFSETS.lockedAt, true),
    // Only a redeem writes the preimage; before that the field is all zero.
    preimage: status === 'redeemed' ? preimage : null,
    takerEscrow: kind === 'maker' ? key(ESCROW_OFFSETS.takerEscrow) : null,
  };
}

/** True when the bytes look like an escrow of this program version (size and version byte). */
export function isEscrowData(data: Uint8Array): boolean {
  return data.length === HTLC_ESCROW_SIZE && data[0] === HTLC_ESCROW_VERSION;
}
