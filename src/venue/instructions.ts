// Instruction builders for the AMM program. Account orders and data bytes are the program's ABI,
// documented in programs/amm/README.md; keep the three in step.

import { type PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../chain/token.ts';
import { canonicalMints, poolAddress, poolVaultAddress } from './addresses.ts';

/** First data byte of each instruction. */
export const AMM_INSTRUCTION_TAGS = { initialize: 0, deposit: 1, withdraw: 2, swap: 3 } as const;

export const U64_MAX = 2n ** 64n - 1n;
const MAX_FEE_BPS = 9_999;

const w = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });
const signer = (pubkey: PublicKey, isWritable: boolean) => ({ pubkey, isSigner: true, isWritable });

function u64(value: bigint, what: string): bigint {
  if (value < 0n || value > U64_MAX) throw new RangeError(`amm: ${what} must fit in a u64`);
  return value;
}

/** Every address a pool of (admin, x, y) lives at: the pool, its mints in order and their vaults. */
export function poolAccounts(programId: PublicKey, admin: PublicKey, x: PublicKey, y: PublicKey) {
  const [mintA, mintB] = canonicalMints(x, y);
  const [pool] = poolAddress(programId, admin, mintA, mintB);
  const [vaultA] = poolVaultAddress(programId, pool, mintA);
  const [vaultB] = poolVaultAddress(programId, pool, mintB);
  return { pool, mintA, mintB, vaultA, vaultB };
}

export function initializePoolInstruction(a: {
  programId: PublicKey;
  admin: PublicKey;
  mints: [PublicKey, PublicKey];
  feeBps: number;
}): TransactionInstruction {
  if (!Number.isInteger(a.feeBps) || a.feeBps < 0 || a.feeBps > MAX_FEE_BPS) {
    throw new RangeError('amm: fee_bps must be an integer from 0 to 9999');
  }
  const p = poolAccounts(a.programId, a.admin, a.mints[0], a.mints[1]);
  const data = Buffer.alloc(3);
  data[0] = AMM_INSTRUCTION_TAGS.initialize;
  data.writeUInt16LE(a.feeBps, 1);
  return new TransactionInstruction({
    programId: a.programId,
    keys: [
      signer(a.admin, true),
      w(p.pool),
      r(p.mintA),
      r(p.mintB),
      w(p.vaultA),
      w(p.vaultB),
      r(TOKEN_PROGRAM_ID),
      r(SystemProgram.programId),
    ],
    data,
  });
}

/** Deposit or withdraw by the admin; amounts are per pool side (mint_a, mint_b), either may be 0. */
export function liquidityInstruction(a: {
  programId: PublicKey;
  kind: 'deposit' | 'withdraw';
  admin: PublicKey;
  pool: PublicKey;
  vaultA: PublicKey;
  vaultB: PublicKey;
  adminTokenA: PublicKey;
  adminTokenB: PublicKey;
  amountA: bigint;
  amountB: bigint;
}): TransactionInstruction {
  const data = Buffer.alloc(17);
  data[0] = AMM_INSTRUCTION_TAGS[a.kind];
  data.writeBigUInt64LE(u64(a.amountA, 'amount_a'), 1);
  data.writeBigUInt64LE(u64(a.amountB, 'amount_b'), 9);
  return new TransactionInstruction({
    programId: a.programId,
    keys: [
      signer(a.admin, false),
      r(a.pool),
      w(a.vaultA),
      w(a.vaultB),
      w(a.adminTokenA),
      w(a.adminTokenB),
      r(TOKEN_PROGRAM_ID),
    ],
    data,
  });
}

export function encodeSwapData(amountIn: bigint, minOut: bigint): Buffer {
  const data = Buffer.alloc(17);
  data[0] = AMM_INSTRUCTION_TAGS.swap;
  data.writeBigUInt64LE(u64(amountIn, 'amount_in'), 1);
  data.writeBigUInt64LE(u64(minOut, 'min_out'), 9);
  return data;
}

/** Exact-in swap: the direction is the vaults' (vaultIn holds the input mint). */
export function swapInstruction(a: {
  programId: PublicKey;
  user: PublicKey;
  pool: PublicKey;
  vaultIn: PublicKey;
  vaultOut: PublicKey;
  userSource: PublicKey;
  userDestination: PublicKey;
  amountIn: bigint;
  minOut: bigint;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: a.programId,
    keys: [
      signer(a.user, false),
      r(a.pool),
      w(a.vaultIn),
      w(a.vaultOut),
      w(a.userSource),
      w(a.userDestination),
      r(TOKEN_PROGRAM_ID),
    ],
    data: encodeSwapData(a.amountIn, a.minOut),
  });
}
