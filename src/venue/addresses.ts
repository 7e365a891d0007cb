// Program-derived addresses of the AMM: one pool per (admin, mint pair), its mints in byte order so that
// both directions name the same pool; one vault per (pool, mint).

import type { PublicKey } from '@solana/web3.js';
import { keyBytes } from '../chain/keys.ts';
import { findProgramAddress } from '../chain/pda.ts';

const POOL_SEED = Buffer.from('pool');
const VAULT_SEED = Buffer.from('vault');

/** The two mints in the pool's order (byte-wise, as the program compares them); throws on equal mints. */
export function canonicalMints(x: PublicKey, y: PublicKey): [PublicKey, PublicKey] {
  const order = Buffer.compare(keyBytes(x), keyBytes(y));
  if (order === 0) throw new Error('amm: a pool needs two different mints');
  return order < 0 ? [x, y] : [y, x];
}

export function poolAddress(
  programId: PublicKey,
  admin: PublicKey,
  x: PublicKey,
  y: PublicKey,
): [PublicKey, number] {
  const [a, b] = canonicalMints(x, y);
  return findProgramAddress([POOL_SEED, keyBytes(admin), keyBytes(a), keyBytes(b)], programId);
}

export function poolVaultAddress(
  programId: PublicKey,
  pool: PublicKey,
  mint: PublicKey,
): [PublicKey, number] {
  return findProgramAddress([VAULT_SEED, keyBytes(pool), keyBytes(mint)], programId);
}
