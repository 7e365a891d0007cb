// Program-derived addresses of the HTLC program: one taker escrow per (taker, hashlock), one maker
// escrow per taker escrow, one vault per escrow.

import { PublicKey } from '@solana/web3.js';

/** The HTLC program's fixed address (generated once; only the public key is kept). */
export const DEFAULT_HTLC_PROGRAM_ID = new PublicKey('FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh');

const seed = (text: string) => new TextEncoder().encode(text);

export function takerEscrowAddress(
  programId: PublicKey,
  taker: PublicKey,
  hashlock: Uint8Array,
): [PublicKey, number] {
  if (hashlock.length !== 32) throw new Error('htlc: hashlock must be 32 bytes');
  return PublicKey.findProgramAddressSync([seed('taker'), taker.toBytes(), hashlock], programId);
}

export function makerEscrowAddress(programId: PublicKey, takerEscrow: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([seed('maker'), takerEscrow.toBytes()], programId);
}

export function vaultAddress(programId: PublicKey, escrow: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([seed('vault'), escrow.toBytes()], programId);
}
