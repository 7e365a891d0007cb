// Reads the HTLC locks a transaction carries, and who signed it: how the runtime learns the terms of a lock
// that landed (a wallet may have sent one with other instructions itself). What POST /lock takes is checked
// more strictly, against the lock the service built (built-message.ts).

import { PublicKey } from '@solana/web3.js';
import { encodeBase58 } from '../vocabulary/base58.ts';
import { ESCROW_KIND_CODES, HTLC_INSTRUCTION_TAGS } from './htlc/index.ts';
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

const LOCK_DATA_SIZE = 90;

/** Throws ChainError('invalid_transaction') for bytes that are not a transaction. */
export function inspectTransaction(transactionBase64: string, programId: PublicKey): LockInspection {
  const tx = decodeBase64Transaction(transactionBase64);
  const program = programId.toBase58();
  const key = (i: number | undefined) => new PublicKey(tx.accountKeys[i ?? -1] ?? new Uint8Array(32));
  const locks: LockInstructionView[] = [];
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== program) continue;
    const d = ix.data;
    if (d.length !== LOCK_DATA_SIZE || d[0] !== HTLC_INSTRUCTION_TAGS.lock || ix.accounts.length < 7)
      continue;
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    locks.push({
      kind: d[1] === ESCROW_KIND_CODES.maker ? 'maker' : 'taker',
      initializer: key(ix.accounts[0]),
      escrow: key(ix.accounts[1]),
      mint: key(ix.accounts[3]),
      initializerTokenAccount: key(ix.accounts[4]),
      hashlock: d.slice(2, 34),
      recipient: new PublicKey(d.slice(34, 66)),
      amount: view.getBigUint64(66, true),
      expiry: view.getBigInt64(74, true),
      lockDeadline: view.getBigInt64(82, true),
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
