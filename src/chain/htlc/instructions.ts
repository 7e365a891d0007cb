// Instruction builders for the HTLC program. Account orders and data bytes are the program's ABI,
// documented in programs/htlc/README.md; keep the three in step.

import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { type PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { makerEscrowAddress, takerEscrowAddress, vaultAddress } from './addresses.ts';
import { ESCROW_KIND_CODES } from './layout.ts';

/** First data byte of each instruction. */
export const HTLC_INSTRUCTION_TAGS = { lock: 0, redeem: 1, refund: 2, cancel: 3, close: 4 } as const;

/** A taker lock's data; a maker lock's carries the taker escrow's expected amount, mint and expiry after it. */
export const LOCK_DATA_SIZE = 90;
export const MAKER_LOCK_DATA_SIZE = 138;
export const REDEEM_DATA_SIZE = 33;

export interface LockArgs {
  programId: PublicKey;
  initializer: PublicKey;
  recipient: PublicKey;
  mint: PublicKey;
  initializerTokenAccount: PublicKey;
  hashlock: Uint8Array;
  amount: bigint;
  expiry: bigint;
  lockDeadline: bigint;
  /** Present ⇒ a maker lock against this taker escrow. */
  takerEscrow?: TakerEscrowExpectation;
}

/**
 * The taker escrow a maker lock stands on, and exactly what it must hold and when it expires: the program
 * refuses the lock (TakerEscrowMintMismatch, TakerEscrowAmountMismatch, TakerEscrowExpiryMismatch) against an
 * escrow of another mint, amount or expiry, such as one re-created at the same address after a fork took the
 * agreed one away.
 */
export interface TakerEscrowExpectation {
  address: PublicKey;
  amount: bigint;
  mint: PublicKey;
  /** The agreed taker expiry: its gap after the maker's is the maker's time to redeem after a late reveal. */
  expiry: bigint;
}

const w = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });

/** The escrow a lock with these arguments creates. */
export function lockEscrowAddress(
  a: Pick<LockArgs, 'programId' | 'initializer' | 'hashlock' | 'takerEscrow'>,
): PublicKey {
  return a.takerEscrow
    ? makerEscrowAddress(a.programId, a.takerEscrow.address)[0]
    : takerEscrowAddress(a.programId, a.initializer, a.hashlock)[0];
}

/** A taker lock without `takerEscrow`, a maker lock with it. */
export function encodeLockData(
  a: Pick<LockArgs, 'recipient' | 'hashlock' | 'amount' | 'expiry' | 'lockDeadline' | 'takerEscrow'>,
): Buffer {
  if (a.hashlock.length !== 32) throw new Error('htlc: hashlock must be 32 bytes');
  const against = a.takerEscrow;
  const data = Buffer.alloc(against ? MAKER_LOCK_DATA_SIZE : LOCK_DATA_SIZE);
  data[0] = HTLC_INSTRUCTION_TAGS.lock;
  data[1] = ESCROW_KIND_CODES[against ? 'maker' : 'taker'];
  data.set(a.hashlock, 2);
  data.set(a.recipient.toBytes(), 34);
  data.writeBigUInt64LE(a.amount, 66);
  data.writeBigInt64LE(a.expiry, 74);
  data.writeBigInt64LE(a.lockDeadline, 82);
  if (against) {
    data.writeBigUInt64LE(against.amount, 90);
    data.set(against.mint.toBytes(), 98);
    data.writeBigInt64LE(against.expiry, 130);
  }
  return data;
}

export function lockInstruction(a: LockArgs): TransactionInstruction {
  const escrow = lockEscrowAddress(a);
  const [vault] = vaultAddress(a.programId, escrow);
  const keys = [
    { pubkey: a.initializer, isSigner: true, isWritable: true },
    w(escrow),
    w(vault),
    r(a.mint),
    w(a.initializerTokenAccount),
    r(TOKEN_PROGRAM_ID),
    r(SystemProgram.programId),
  ];
  if (a.takerEscrow) keys.push(r(a.takerEscrow.address));
  const data = encodeLockData(a);
  return new TransactionInstruction({ programId: a.programId, keys, data });
}

export function redeemInstruction(a: {
  programId: PublicKey;
  escrow: PublicKey;
  recipientTokenAccount: PublicKey;
  preimage: Uint8Array;
}): TransactionInstruction {
  if (a.preimage.length !== 32) throw new Error('htlc: preimage must be 32 bytes');
  const data = Buffer.alloc(REDEEM_DATA_SIZE);
  data[0] = HTLC_INSTRUCTION_TAGS.redeem;
  data.set(a.preimage, 1);
  const [vault] = vaultAddress(a.programId, a.escrow);
  return new TransactionInstruction({
    programId: a.programId,
    keys: [w(a.escrow), w(vault), w(a.recipientTokenAccount), r(TOKEN_PROGRAM_ID)],
    data,
  });
}

export function refundInstruction(a: {
  programId: PublicKey;
  escrow: PublicKey;
  initializerTokenAccount: PublicKey;
}): TransactionInstruction {
  const [vault] = vaultAddress(a.programId, a.escrow);
  return new TransactionInstruction({
    programId: a.programId,
    keys: [w(a.escrow), w(vault), w(a.initializerTokenAccount), r(TOKEN_PROGRAM_ID)],
    data: Buffer.from([HTLC_INSTRUCTION_TAGS.refund]),
  });
}

export function cancelInstruction(a: {
  programId: PublicKey;
  recipient: PublicKey;
  escrow: PublicKey;
  initializerTokenAccount: PublicKey;
}): TransactionInstruction {
  const [vault] = vaultAddress(a.programId, a.escrow);
  return new TransactionInstruction({
    programId: a.programId,
    keys: [
      { pubkey: a.recipient, isSigner: true, isWritable: false },
      w(a.escrow),
      w(vault),
      w(a.initializerTokenAccount),
      r(TOKEN_PROGRAM_ID),
    ],
    data: Buffer.from([HTLC_INSTRUCTION_TAGS.cancel]),
  });
}

/**
 * Closes a settled escrow and its vault; all rent goes to the initializer. Pass
 * `initializerTokenAccount` (the initializer's token account for the escrow's mint) to sweep tokens
 * someone sent to the vault after settlement: without it, one donated base unit fails the close with
 * VaultNotEmpty and strands both accounts' rent. The service always passes it (makerCloseTransaction);
 * it stays optional because the program accepts the 4-account form.
 */
export function closeInstruction(a: {
  programId: PublicKey;
  initializer: PublicKey;
  escrow: PublicKey;
  initializerTokenAccount?: PublicKey;
}): TransactionInstruction {
  const [vault] = vaultAddress(a.programId, a.escrow);
  const keys = [
    { pubkey: a.initializer, isSigner: true, isWritable: true },
    w(a.escrow),
    w(vault),
    r(TOKEN_PROGRAM_ID),
  ];
  if (a.initializerTokenAccount) keys.push(w(a.initializerTokenAccount));
  return new TransactionInstruction({
    programId: a.programId,
    keys,
    data: Buffer.from([HTLC_INSTRUCTION_TAGS.close]),
  });
}
