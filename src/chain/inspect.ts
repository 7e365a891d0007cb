// Reads the HTLC locks a transaction carries, and who signed it: how the runtime learns the terms of a lock
// that landed (a wallet may have sent one with other instructions itself). What POST /lock takes is checked
// more strictly, against the lock the service built (built-message.ts).

import { PublicKey } from '@solana/web3.js';
import { encodeBase58 } from '../vocabulary/base58.ts';
import {
  ESCROW_KIND_CODES,
  HTLC_INSTRUCTION_TAGS,
  LOCK_DATA_SIZE,
  MAKER_LOCK_DATA_SIZE,
} from './htlc/index.ts';
import { decodeBase64Transaction, isZeroSignature } from './wire.ts';

export interface LockInstructionView {
  kind: 'taker' | 'maker';
  initializer: PublicKey;
  escrow: PublicKey;
  mint: PublicKey;
  initializerTokenAccount: PublicKey;
  recipient: PublicKey;
  hashlock: Uint8Array;
  amount: bigint;
  expiry: bigint;
  lockDeadline: bigint;
  /** A maker lock's: the taker escrow (its eighth account), exactly what it must hold and its expiry; null for a taker lock. */
  takerEscrow: { address: PublicKey; amount: bigint; mint: PublicKey; expiry: bigint } | null;
}

export interface LockInspection {
  /** The fee payer's signature (the transaction id), null while unsigned. */
  signature: string | null;
  feePayer: PublicKey;
  recentBlockhash: string;
  /** Signer keys whose signature is present. */
  signedBy: PublicKey[];
  /** Every HTLC lock instruction of `programId` in the transaction (normally one). */
  locks: LockInstructionView[];
}

/** Throws ChainError('invalid_transaction') for bytes that are not a transaction. */
export function inspectTransaction(transactionBase64: string, programId: PublicKey): LockInspection {
  const tx = decodeBase64Transaction(transactionBase64);
  const program = programId.toBase58();
  const key = (i: number | undefined) => new PublicKey(tx.accountKeys[i ?? -1] ?? new Uint8Array(32));
  const locks: LockInstructionView[] = [];
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== program) continue;
    const d = ix.data;
    const maker = d[1] === ESCROW_KIND_CODES.maker;
    const size = maker ? MAKER_LOCK_DATA_SIZE : LOCK_DATA_SIZE;
    if (d.length !== size || d[0] !== HTLC_INSTRUCTION_TAGS.lock || ix.accounts.length < (maker ? 8 : 7))
      continue;
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    locks.push({
      kind: maker ? 'maker' : 'taker',
      initializer: key(ix.accounts[0]),
      escrow: key(ix.accounts[1]),
      mint: key(ix.accounts[3]),
      initializerTokenAccount: key(ix.accounts[4]),
      hashlock: d.slice(2, 34),
      recipient: new PublicKey(d.slice(34, 66)),
      amount: view.getBigUint64(66, true),
      expiry: view.getBigInt64(74, true),
      lockDeadline: view.getBigInt64(82, true),
      takerEscrow: maker
        ? {
            address: key(ix.accounts[7]),
            amount: view.getBigUint64(90, true),
            mint: new PublicKey(d.slice(98, 130)),
            expiry: view.getBigInt64(130, true),
          }
        : null,
    });
  }
  const first = tx.signatures[0];
  return {
    signature: first && !isZeroSignature(first) ? encodeBase58(first) : null,
    feePayer: key(0),
    recentBlockhash: tx.recentBlockhash,
    signedBy: tx.signatures.flatMap((sig, i) => (isZeroSignature(sig) ? [] : [key(i)])),
    locks,
  };
}
