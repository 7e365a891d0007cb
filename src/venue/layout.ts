// The pool account as the program writes it (version 1, 168 bytes; programs/amm/README.md).

import type { PublicKey } from '@solana/web3.js';
import { keyFromBytes } from '../chain/keys.ts';

export const POOL_VERSION = 1;
export const POOL_SIZE = 168;

export const POOL_OFFSETS = {
  version: 0,
  poolBump: 1,
  vaultABump: 2,
  vaultBBump: 3,
  feeBps: 6,
  admin: 8,
  mintA: 40,
  mintB: 72,
  vaultA: 104,
  vaultB: 136,
} as const;

export interface PoolState {
  poolBump: number;
  feeBps: number;
  admin: PublicKey;
  mintA: PublicKey;
  mintB: PublicKey;
  vaultA: PublicKey;
  vaultB: PublicKey;
}

export const isPoolData = (data: Uint8Array) => data.length === POOL_SIZE && data[0] === POOL_VERSION;

/** Decodes a pool; throws on anything that is not a version-1 pool. */
export function decodePool(data: Uint8Array): PoolState {
  if (!isPoolData(data)) throw new Error('amm: not a version-1 pool account');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const key = (at: number) => keyFromBytes(data.slice(at, at + 32));
  return {
    poolBump: data[POOL_OFFSETS.poolBump] as number,
    feeBps: view.getUint16(POOL_OFFSETS.feeBps, true),
    admin: key(POOL_OFFSETS.admin),
    mintA: key(POOL_OFFSETS.mintA),
    mintB: key(POOL_OFFSETS.mintB),
    vaultA: key(POOL_OFFSETS.vaultA),
    vaultB: key(POOL_OFFSETS.vaultB),
  };
}
