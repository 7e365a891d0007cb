// The settlement transactions, built once for both chains: which instructions each step needs, who
// pays, and which token accounts receive. Signing and sending are the chains' business.

import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  type PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import {
  cancelInstruction,
  closeInstruction,
  lockInstruction,
  makerEscrowAddress,
  redeemInstruction,
  refundInstruction,
} from './htlc/index.ts';
import { unsignedWire } from './message.ts';
import { ata, isNativeMint } from './token.ts';

export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: number;
}

/** Priority fee for maker transactions; microLamports 0 ⇒ no compute-budget instructions. */
export interface PriorityFee {
  microLamports: number;
  unitLimit: number;
}

const ensureAta = (payer: PublicKey, owner: PublicKey, mint: PublicKey) =>
  createAssociatedTokenAccountIdempotentInstruction(payer, ata(owner, mint), owner, mint);

function transaction(
  feePayer: PublicKey,
  lifetime: Lifetime,
  instructions: TransactionInstruction[],
): Transaction {
  return new Transaction({
    feePayer,
    blockhash: lifetime.blockhash,
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  }).add(...instructions);
}

// The priority fee is configuration, so the same two compute-budget instructions serve every maker
// transaction (instructions are never mutated once built); encoding them costs more than reusing.
let lastFee: { unitLimit: number; microLamports: number; ixs: TransactionInstruction[] } | undefined;

function withPriority(
  fee: PriorityFee | undefined,
  instructions: TransactionInstruction[],
): TransactionInstruction[] {
  if (!fee || fee.microLamports <= 0) return instructions;
  if (lastFee?.unitLimit !== fee.unitLimit || lastFee.microLamports !== fee.microLamports) {
    lastFee = {
      unitLimit: fee.unitLimit,
      microLamports: fee.microLamports,
      ixs: [
        ComputeBudgetProgram.setComputeUnitLimit({ units: fee.unitLimit }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: fee.microLamports }),
      ],
    };
  }
  return [...lastFee.ixs, ...instructions];
}

// ---- taker side (unsigned, for the wallet) ----

export function takerLockTransaction(
  programId: PublicKey,
  maker: PublicKey,
  lifetime: Lifetime,
  a: {
    taker: PublicKey;
    inputMint: PublicKey;
    outputMint: PublicKey;
    amount: bigint;
    hashlock: Uint8Array;
    expiry: bigint;
    lockDeadline: bigint;
  },
): Transaction {
  // The output account must exist before the maker locks, so the maker escrow can always pay out.
  const ixs = [ensureAta(a.taker, a.taker, a.outputMint)];
  const inputAccount = ata(a.taker, a.inputMint);
  if (isNativeMint(a.inputMint)) {
    ixs.push(
      ensureAta(a.taker, a.taker, a.inputMint),
      SystemProgram.transfer({ fromPubkey: a.taker, toPubkey: inputAccount, lamports: a.amount }),
      createSyncNativeInstruction(inputAccount),
    );
  }
  ixs.push(
    lockInstruction({
      programId,
      initializer: a.taker,
      recipient: maker,
      mint: a.inputMint,
      initializerTokenAccount: inputAccount,
      hashlock: a.hashlock,
      amount: a.amount,
      expiry: a.expiry,
      lockDeadline: a.lockDeadline,
    }),
  );
  return transaction(a.taker, lifetime, ixs);
}

export function takerRedeemTransaction(
  programId: PublicKey,
  lifetime: Lifetime,
  a: { taker: PublicKey; takerEscrow: PublicKey; outputMint: PublicKey; preimage: Uint8Array },
): Transaction {
  const output = ata(a.taker, a.outputMint);
  const ixs = [
    ensureAta(a.taker, a.taker, a.outputMint),
    redeemInstruction({
      programId,
      escrow: makerEscrowAddress(programId, a.takerEscrow)[0],
      recipientTokenAccount: output,
      preimage: a.preimage,
    }),
  ];
  if (isNativeMint(a.outputMint)) ixs.push(createCloseAccountInstruction(output, a.taker, a.taker));
  return transaction(a.taker, lifetime, ixs);
}

export function takerRefundTransaction(
  programId: PublicKey,
  lifetime: Lifetime,
  a: { taker: PublicKey; takerEscrow: PublicKey; inputMint: PublicKey },
): Transaction {
  const input = ata(a.taker, a.inputMint);
  const ixs = [
    ensureAta(a.taker, a.taker, a.inputMint),
    refundInstruction({ programId, escrow: a.takerEscrow, initializerTokenAccount: input }),
  ];
  if (isNativeMint(a.inputMint)) ixs.push(createCloseAccountInstruction(input, a.taker, a.taker));
  return transaction(a.taker, lifetime, ixs);
}

// ---- maker side (the maker signs and pays) ----

export interface MakerContext {
  programId: PublicKey;
  maker: PublicKey;
  lifetime: Lifetime;
  priorityFee?: PriorityFee;
}

const makerTx = (c: MakerContext, ixs: TransactionInstruction[]) =>
  transaction(c.maker, c.lifetime, withPriority(c.priorityFee, ixs));

/**
 * The maker's lock of `amount` of its output against the taker escrow, which the program checks holds exactly
 * `inputAmount` of `inputMint` (the trade's agreed input) and expires exactly at `takerExpiry` (the agreed
 * one, which leaves the maker its margin to redeem): signed once, it can carry no other taker lock.
 */
export function makerLockTransaction(
  c: MakerContext,
  a: {
    takerEscrow: PublicKey;
    taker: PublicKey;
    inputMint: PublicKey;
    inputAmount: bigint;
    takerExpiry: bigint;
    outputMint: PublicKey;
    amount: bigint;
    hashlock: Uint8Array;
    expiry: bigint;
    lockDeadline: bigint;
  },
): Transaction {
  return makerTx(c, [
    lockInstruction({
      programId: c.programId,
      initializer: c.maker,
      recipient: a.taker,
      mint: a.outputMint,
      initializerTokenAccount: ata(c.maker, a.outputMint),
      hashlock: a.hashlock,
      amount: a.amount,
      expiry: a.expiry,
      lockDeadline: a.lockDeadline,
      takerEscrow: {
        address: a.takerEscrow,
        amount: a.inputAmount,
        mint: a.inputMint,
        expiry: a.takerExpiry,
      },
    }),
  ]);
}

export function makerRedeemTransaction(
  c: MakerContext,
  a: { takerEscrow: PublicKey; inputMint: PublicKey; preimage: Uint8Array },
): Transaction {
  return makerTx(c, [
    ensureAta(c.maker, c.maker, a.inputMint),
    redeemInstruction({
      programId: c.programId,
      escrow: a.takerEscrow,
      recipientTokenAccount: ata(c.maker, a.inputMint),
      preimage: a.preimage,
    }),
  ]);
}

export function makerRefundTransaction(
  c: MakerContext,
  a: { makerEscrow: PublicKey; outputMint: PublicKey },
): Transaction {
  return makerTx(c, [
    ensureAta(c.maker, c.maker, a.outputMint),
    refundInstruction({
      programId: c.programId,
      escrow: a.makerEscrow,
      initializerTokenAccount: ata(c.maker, a.outputMint),
    }),
  ]);
}

export function makerCancelTransaction(
  c: MakerContext,
  a: { takerEscrow: PublicKey; taker: PublicKey; inputMint: PublicKey },
): Transaction {
  // The taker may have closed its input account since the lock; the maker recreates it (rent is small).
  return makerTx(c, [
    ensureAta(c.maker, a.taker, a.inputMint),
    cancelInstruction({
      programId: c.programId,
      recipient: c.maker,
      escrow: a.takerEscrow,
      initializerTokenAccount: ata(a.taker, a.inputMint),
    }),
  ]);
}

export function redeemForTransaction(
  c: MakerContext,
  a: { takerEscrow: PublicKey; taker: PublicKey; outputMint: PublicKey; preimage: Uint8Array },
): Transaction {
  return makerTx(c, [
    ensureAta(c.maker, a.taker, a.outputMint),
    redeemInstruction({
      programId: c.programId,
      escrow: makerEscrowAddress(c.programId, a.takerEscrow)[0],
      recipientTokenAccount: ata(a.taker, a.outputMint),
      preimage: a.preimage,
    }),
  ]);
}

export function refundForTransaction(
  c: MakerContext,
  a: { takerEscrow: PublicKey; taker: PublicKey; inputMint: PublicKey },
): Transaction {
  return makerTx(c, [
    ensureAta(c.maker, a.taker, a.inputMint),
    refundInstruction({
      programId: c.programId,
      escrow: a.takerEscrow,
      initializerTokenAccount: ata(a.taker, a.inputMint),
    }),
  ]);
}

/**
 * Closes the maker's settled escrow. The maker's token account for the escrow's mint always goes along
 * as the sweep account, so tokens someone donated to the vault can never block the close. No
 * idempotent create precedes it: the maker locked from that very ATA and never closes its own token
 * accounts (only the owner can), and the program reads the account only when there is something to
 * sweep from a non-native vault.
 */
export function makerCloseTransaction(
  c: MakerContext,
  a: { escrow: PublicKey; mint: PublicKey },
): Transaction {
  return makerTx(c, [
    closeInstruction({
      programId: c.programId,
      initializer: c.maker,
      escrow: a.escrow,
      initializerTokenAccount: ata(c.maker, a.mint),
    }),
  ]);
}

/** Base64 of the unsigned wire form, as a wallet expects it (web3.js's bytes, compiled by ours). */
export function unsignedBase64(tx: Transaction): string {
  return unsignedWire(tx).toString('base64');
}
