// Program-derived addresses of the HTLC program: one taker escrow per (taker, hashlock), one maker
// escrow per taker escrow, one vault per escrow.

import { PublicKey } from '@solana/web3.js';
import { keyBytes } from '../keys.ts';
import { findProgramAddress } from '../pda.ts';

/** The HTLC program's fixed address (generated once; only the public key is kept). */
export const DEFAULT_HTLC_PROGRAM_ID = new PublicKey('FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh');

const TAKER_SEED = Buffer.from('taker');
const MAKER_SEED = Buffer.from('maker');
const VAULT_SEED = Buffer.from('vault');

// A settlement derives its escrows, then builds the lock, which names the same escrow and its vault; the
// maker's transactions name them again. Recent derivations are kept (a PDA search is the costliest part
// of building a transaction), in a map dropped whole when full.
const derived = new Map<string, [PublicKey, number]>();
const DERIVED_LIMIT = 4_096;

function derive(seeds: Uint8Array[], programId: PublicKey): [PublicKey, number] {
  const key = `${Buffer.concat([...seeds, keyBytes(programId)]).toString('base64')}`;
  let found = derived.get(key);
  if (!found) {
    found = findProgramAddress(seeds, programId);
    if (derived.size >= DERIVED_LIMIT) derived.clear();
    derived.set(key, found);
  }
  return found;
}

export function takerEscrowAddress(
  programId: PublicKey,
  taker: PublicKey,
  hashlock: Uint8Array,
): [PublicKey, number] {
  if (hashlock.length !== 32) throw new Error('htlc: hashlock must be 32 bytes');
  return derive([TAKER_SEED, keyBytes(taker), hashlock], programId);
}

export function makerEscrowAddress(programId: PublicKey, takerEscrow: PublicKey): [PublicKey, number] {
  return derive([MAKER_SEED, keyBytes(takerEscrow)], programId);
}

export function vaultAddress(programId: PublicKey, escrow: PublicKey): [PublicKey, number] {
  return derive([VAULT_SEED, keyBytes(escrow)], programId);
}
