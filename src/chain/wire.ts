// Reads a serialized Solana transaction (legacy or v0) without web3.js: signatures, header, keys,
// blockhash and instructions. Both chains need it on hot paths where Transaction.from is too slow.

import { encodeBase58 } from '../vocabulary/base58.ts';
import { ChainError } from './errors.ts';

export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface WireTransaction {
  bytes: Uint8Array;
  version: 'legacy' | 0;
  /** Signatures in key order; a missing signature is 64 zero bytes on the wire. */
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  header: { numRequiredSignatures: number; numReadonlySigned: number; numReadonlyUnsigned: number };
  /** Static account keys, base58. */
  accountKeys: string[];
  recentBlockhash: string;
  instructions: WireInstruction[];
  addressTableLookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}

const MAX_TRANSACTION_SIZE = 1232;

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}
  byte(): number {
    const b = this.bytes[this.offset];
    if (b === undefined) throw new Error('truncated');
    this.offset += 1;
    return b;
  }
  shortVec(): number {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = this.byte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new Error('bad compact-u16');
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new Error('truncated');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

/** Parses wire bytes; throws ChainError('invalid_transaction') on anything malformed. */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction {
  try {
    if (bytes.length > MAX_TRANSACTION_SIZE) throw new Error(`larger than ${MAX_TRANSACTION_SIZE} bytes`);
    const r = new Reader(bytes);
    const sigCount = r.shortVec();
    const signatures: Uint8Array[] = [];
    for (let i = 0; i < sigCount; i++) signatures.push(r.take(64));
    const messageStart = r.offset;
    let version: 'legacy' | 0 = 'legacy';
    const first = bytes[r.offset];
    if (first !== undefined && first & 0x80) {
      const v = first & 0x7f;
      if (v !== 0) throw new Error(`unsupported transaction version ${v}`);
      version = 0;
      r.byte();
    }
    const header = {
      numRequiredSignatures: r.byte(),
      numReadonlySigned: r.byte(),
      numReadonlyUnsigned: r.byte(),
    };
    const keyCount = r.shortVec();
    const accountKeys: string[] = [];
    for (let i = 0; i < keyCount; i++) accountKeys.push(encodeBase58(r.take(32)));
    const recentBlockhash = encodeBase58(r.take(32));
    const ixCount = r.shortVec();
    const instructions: WireInstruction[] = [];
    for (let i = 0; i < ixCount; i++) {
      const programIdIndex = r.byte();
      const accounts = Array.from(r.take(r.shortVec()));
      const data = r.take(r.shortVec());
      instructions.push({ programIdIndex, accounts, data });
    }
    const addressTableLookups: WireTransaction['addressTableLookups'] = [];
    if (version === 0) {
      const n = r.shortVec();
      for (let i = 0; i < n; i++) {
        const accountKey = encodeBase58(r.take(32));
        const writableIndexes = Array.from(r.take(r.shortVec()));
        const readonlyIndexes = Array.from(r.take(r.shortVec()));
        addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
      }
    }
    if (r.offset !== bytes.length) throw new Error('trailing bytes');
    if (sigCount !== header.numRequiredSignatures) throw new Error('signature count does not match header');
    if (keyCount < header.numRequiredSignatures || sigCount === 0) throw new Error('no fee payer');
    for (const ix of instructions) {
      if (ix.programIdIndex >= keyCount || ix.accounts.some((a) => a >= keyCount && version === 'legacy')) {
        throw new Error('account index out of range');
      }
    }
    return {
      bytes,
      version,
      signatures,
      messageBytes: bytes.subarray(messageStart),
      header,
      accountKeys,
      recentBlockhash,
      instructions,
      addressTableLookups,
    };
  } catch (e) {
    if (e instanceof ChainError) throw e;
    throw new ChainError('invalid_transaction', `malformed transaction: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

export function decodeBase64Transaction(transactionBase64: string): WireTransaction {
  if (typeof transactionBase64 !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(transactionBase64)) {
    throw new ChainError('invalid_transaction', 'transaction is not base64');
  }
  return parseWireTransaction(new Uint8Array(Buffer.from(transactionBase64, 'base64')));
}

export const isZeroSignature = (sig: Uint8Array) => sig.every((b) => b === 0);

/** The transaction id: its first (fee payer's) signature, base58. */
export const signatureOf = (tx: WireTransaction): string =>
  encodeBase58(tx.signatures[0] ?? new Uint8Array(64));

/** Static key i is writable as the message header says (lookup-table keys are not covered). */
export function isWritableIndex(tx: WireTransaction, i: number): boolean {
  const { numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned } = tx.header;
  if (i < numRequiredSignatures) return i < numRequiredSignatures - numReadonlySigned;
  return i < tx.accountKeys.length - numReadonlyUnsigned;
}

/** Signer keys whose signature slot is still empty. */
export function missingSigners(tx: WireTransaction): string[] {
  const missing: string[] = [];
  tx.signatures.forEach((sig, i) => {
    if (isZeroSignature(sig)) missing.push(tx.accountKeys[i] ?? '?');
  });
  return missing;
}

/** A readable summary for callers that must check what a wallet-signed transaction does. */
export interface TransactionSummary {
  signature: string | null;
  feePayer: string;
  recentBlockhash: string;
  signers: { key: string; signed: boolean }[];
  instructions: { programId: string; accounts: string[]; data: Uint8Array }[];
}

export function summarizeTransaction(transactionBase64: string): TransactionSummary {
  const tx = decodeBase64Transaction(transactionBase64);
  const first = tx.signatures[0];
  return {
    signature: first && !isZeroSignature(first) ? encodeBase58(first) : null,
    feePayer: tx.accountKeys[0] ?? '',
    recentBlockhash: tx.recentBlockhash,
    signers: tx.signatures.map((sig, i) => ({ key: tx.accountKeys[i] ?? '', signed: !isZeroSignature(sig) })),
    instructions: tx.instructions.map((ix) => ({
      programId: tx.accountKeys[ix.programIdIndex] ?? '',
      accounts: ix.accounts.map((a) => tx.accountKeys[a] ?? `lookup#${a}`),
      data: ix.data,
    })),
  };
}
