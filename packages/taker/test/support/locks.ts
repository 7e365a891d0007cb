// Locks built field by field with web3.js, as the service builds them (src/chain/transactions.ts): the
// compute budget a wallet may add, the taker's output token account, the wrap when SOL is the input, the
// HTLC taker lock. Every field is a slot the tests can change on its own, and the lies add instructions.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import {
  DEFAULT_HTLC_PROGRAM_ID,
  takerEscrowAddress,
  vaultAddress,
} from '../../../../src/chain/htlc/index.ts';
import { ata, TOKEN_PROGRAM_ID } from '../../../../src/chain/token.ts';
import { unsignedBase64 } from '../../../../src/chain/transactions.ts';

export const NATIVE = new PublicKey('So11111111111111111111111111111111111111112');

/** The terms an honest lock carries. */
export interface LockTerms {
  taker: PublicKey;
  maker: PublicKey;
  inputMint: PublicKey;
  outputMint: PublicKey;
  amount: bigint;
  hashlock: Uint8Array;
  expiry: bigint;
  lockDeadline: bigint;
  blockhash: string;
  /** What a wallet may add: a compute-unit limit and price (null: none). */
  computeUnitLimit: number | null;
  computeUnitPrice: bigint | null;
}

/** Every slot of a lock transaction, each changeable on its own. */
export interface LockFields {
  feePayer: PublicKey;
  computeUnitLimit: number | null;
  computeUnitPrice: bigint | null;
  taker: PublicKey;
  inputMint: PublicKey;
  outputMint: PublicKey;
  /** Lamports wrapped into the taker's wrapped-SOL account (SOL input only). */
  wrapLamports: bigint | null;
  program: PublicKey;
  initializer: PublicKey;
  escrow: PublicKey;
  vault: PublicKey;
  mint: PublicKey;
  source: PublicKey;
  tokenProgram: PublicKey;
  systemProgram: PublicKey;
  kind: number;
  hashlock: Uint8Array;
  recipient: PublicKey;
  amount: bigint;
  expiry: bigint;
  lockDeadline: bigint;
  blockhash: string;
  /** Instructions after the lock (the lies). */
  extra: TransactionInstruction[];
}

export function honestFields(t: LockTerms, program = DEFAULT_HTLC_PROGRAM_ID): LockFields {
  const [escrow] = takerEscrowAddress(program, t.taker, t.hashlock);
  return {
    feePayer: t.taker,
    computeUnitLimit: t.computeUnitLimit,
    computeUnitPrice: t.computeUnitPrice,
    taker: t.taker,
    inputMint: t.inputMint,
    outputMint: t.outputMint,
    wrapLamports: t.inputMint.equals(NATIVE) ? t.amount : null,
    program,
    initializer: t.taker,
    escrow,
    vault: vaultAddress(program, escrow)[0],
    mint: t.inputMint,
    source: ata(t.taker, t.inputMint),
    tokenProgram: TOKEN_PROGRAM_ID,
    systemProgram: SystemProgram.programId,
    kind: 1,
    hashlock: t.hashlock,
    recipient: t.maker,
    amount: t.amount,
    expiry: t.expiry,
    lockDeadline: t.lockDeadline,
    blockhash: t.blockhash,
    extra: [],
  };
}

/** The HTLC lock instruction with exactly these slots (the program's ABI: programs/htlc/README.md). */
export function lockInstruction(f: LockFields): TransactionInstruction {
  const data = Buffer.alloc(90);
  data[0] = 0;
  data[1] = f.kind;
  data.set(f.hashlock, 2);
  data.set(f.recipient.toBytes(), 34);
  data.writeBigUInt64LE(f.amount, 66);
  data.writeBigInt64LE(f.expiry, 74);
  data.writeBigInt64LE(f.lockDeadline, 82);
  return {
    programId: f.program,
    keys: [
      { pubkey: f.initializer, isSigner: true, isWritable: true },
      { pubkey: f.escrow, isSigner: false, isWritable: true },
      { pubkey: f.vault, isSigner: false, isWritable: true },
      { pubkey: f.mint, isSigner: false, isWritable: false },
      { pubkey: f.source, isSigner: false, isWritable: true },
      { pubkey: f.tokenProgram, isSigner: false, isWritable: false },
      { pubkey: f.systemProgram, isSigner: false, isWritable: false },
    ],
    data,
  } as TransactionInstruction;
}

export function lockInstructions(f: LockFields): TransactionInstruction[] {
  const ixs: TransactionInstruction[] = [];
  if (f.computeUnitLimit !== null)
    ixs.push(ComputeBudgetProgram.setComputeUnitLimit({ units: f.computeUnitLimit }));
  if (f.computeUnitPrice !== null)
    ixs.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: f.computeUnitPrice }));
  ixs.push(
    createAssociatedTokenAccountIdempotentInstruction(
      f.taker,
      ata(f.taker, f.outputMint),
      f.taker,
      f.outputMint,
    ),
  );
  if (f.wrapLamports !== null) {
    const wrapped = ata(f.taker, NATIVE);
    ixs.push(
      createAssociatedTokenAccountIdempotentInstruction(f.taker, wrapped, f.taker, NATIVE),
      SystemProgram.transfer({ fromPubkey: f.taker, toPubkey: wrapped, lamports: f.wrapLamports }),
      createSyncNativeInstruction(wrapped),
    );
  }
  ixs.push(lockInstruction(f), ...f.extra);
  return ixs;
}

/** The unsigned lock, base64, as the service hands it out. */
export function buildLock(f: LockFields): string {
  const tx = new Transaction({ feePayer: f.feePayer, blockhash: f.blockhash, lastValidBlockHeight: 1_000 });
  tx.add(...lockInstructions(f));
  return unsignedBase64(tx);
}
