// Legacy message compiler: byte for byte what web3.js 1.x's Transaction.compileMessage().serialize()
// produces, at a fraction of its cost (web3 sorts accounts with a locale-aware localeCompare on base58
// strings it re-encodes for every comparison). Anything unusual is handed to web3.js itself.

import { PACKET_DATA_SIZE, type PublicKey, Transaction } from '@solana/web3.js';
import { decodeBase58 } from '../vocabulary/base58.ts';
import { keyBase58, keyBytes } from './keys.ts';

/** A TransactionInstruction, or anything shaped like one. */
export interface InstructionLike {
  readonly programId: PublicKey;
  readonly keys: readonly { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[];
  readonly data: Uint8Array;
}

export interface MessageInput {
  feePayer: PublicKey;
  recentBlockhash: string;
  instructions: readonly InstructionLike[];
}

/**
 * web3.js's order for two distinct base58 strings: `localeCompare(b, 'en', { sensitivity: 'variant',
 * caseFirst: 'lower', numeric: false, … })`. For the base58 alphabet ICU's root collation reduces to:
 * compare the case-folded strings (digits before letters, letters alphabetically, a proper prefix
 * first), which in ASCII is plain code-unit order of the lowercased strings; only when those are equal,
 * the first position where the case differs decides, lowercase first.
 */
export function compareBase58(
  a: string,
  b: string,
  aLower = a.toLowerCase(),
  bLower = b.toLowerCase(),
): number {
  if (aLower !== bLower) return aLower < bLower ? -1 : 1;
  if (a === b) return 0;
  // Same letters: at the first difference one is lowercase, which is the larger code unit.
  return a > b ? -1 : 1;
}

interface Meta {
  key: PublicKey;
  base58: string;
  lower: string;
  isSigner: boolean;
  isWritable: boolean;
}

function byWeb3Order(x: Meta, y: Meta): number {
  if (x.isSigner !== y.isSigner) return x.isSigner ? -1 : 1;
  if (x.isWritable !== y.isWritable) return x.isWritable ? -1 : 1;
  return compareBase58(x.base58, y.base58, x.lower, y.lower);
}

// The blockhash changes a few times a minute while thousands of messages use it.
let lastBlockhash = '';
let lastBlockhashBytes: Uint8Array = new Uint8Array(0);
function blockhashBytes(blockhash: string): Uint8Array {
  if (blockhash !== lastBlockhash) {
    lastBlockhashBytes = decodeBase58(blockhash);
    lastBlockhash = blockhash;
  }
  return lastBlockhashBytes;
}

/** compact-u16 ("shortvec") length prefix, as web3.js's encodeLength writes it. */
function shortvecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}
function writeShortvec(out: Buffer, at: number, n: number): number {
  let rest = n;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out[at++] = low;
      return at;
    }
    out[at++] = low | 0x80;
  }
}

/**
 * The serialized legacy message, identical to
 * `new Transaction({ feePayer, recentBlockhash }).add(...instructions).compileMessage().serialize()`.
 */
export function compileLegacyMessage(m: MessageInput): Buffer {
  return compileFast(m) ?? web3Transaction(m).serializeMessage();
}

/** The message bytes of a transaction; `tx.serializeMessage()` without its cost. */
export function transactionMessage(tx: Transaction): Buffer {
  const input = fastInput(tx);
  return (input && compileFast(input)) ?? tx.serializeMessage();
}

/**
 * The unsigned wire form, identical to `tx.serialize({ requireAllSignatures: false, verifySignatures:
 * false })`: a zeroed signature per required signer, then the message. Unlike web3.js it leaves the
 * transaction object untouched (web3 fills `tx.signatures` with empty slots).
 */
export function unsignedWire(tx: Transaction): Buffer {
  const input = fastInput(tx);
  const message = input && compileFast(input);
  if (!message) return tx.serialize({ requireAllSignatures: false, verifySignatures: false });
  const signers = message[0] as number;
  const at = shortvecLength(signers);
  const wire = Buffer.alloc(at + signers * 64 + message.length);
  if (wire.length > PACKET_DATA_SIZE) {
    return tx.serialize({ requireAllSignatures: false, verifySignatures: false }); // throws as web3 does
  }
  writeShortvec(wire, 0, signers);
  message.copy(wire, at + signers * 64);
  return wire;
}

/**
 * The fields of a transaction whose compilation is the plain case: a fee payer and blockhash, at least
 * one instruction, no durable nonce, and no signatures yet (web3 checks those against the message).
 */
function fastInput(tx: Transaction): MessageInput | null {
  if (!tx.feePayer || !tx.recentBlockhash || tx.nonceInfo) return null;
  if (tx.signatures.length > 0 || tx.instructions.length === 0) return null;
  return { feePayer: tx.feePayer, recentBlockhash: tx.recentBlockhash, instructions: tx.instructions };
}

function web3Transaction(m: MessageInput): Transaction {
  const tx = new Transaction({ feePayer: m.feePayer, recentBlockhash: m.recentBlockhash });
  for (const ix of m.instructions) tx.add({ ...ix, keys: [...ix.keys], data: Buffer.from(ix.data) });
  return tx;
}

/** The compiled message, or null where web3.js should decide (and throw, if it does). */
function compileFast(m: MessageInput): Buffer | null {
  if (m.instructions.length === 0) return null;
  const blockhash = blockhashBytes(m.recentBlockhash);
  if (blockhash.length !== 32) return null;
  const metas = accountMetas(m);
  if (metas === null) return null;
  const size = messageSize(m, metas.length);
  // web3 lays the instructions out in a PACKET_DATA_SIZE buffer; leave oversized messages to it.
  if (size > PACKET_DATA_SIZE) return null;
  return writeMessage(Buffer.alloc(size), m, metas, blockhash);
}

/**
 * The message's accounts in web3's order: every instruction's accounts, then each program id once
 * (read-only); duplicates merge into the first with their signer and writable flags OR-ed; sorted, and the
 * fee payer first as a writable signer. Null for an instruction without a program id.
 */
function accountMetas(m: MessageInput): Meta[] | null {
  const metas: Meta[] = [];
  const byBase58 = new Map<string, Meta>();
  const add = (key: PublicKey, isSigner: boolean, isWritable: boolean) => {
    const base58 = keyBase58(key);
    const seen = byBase58.get(base58);
    if (seen) {
      seen.isSigner ||= isSigner;
      seen.isWritable ||= isWritable;
      return;
    }
    const meta = { key, base58, lower: base58.toLowerCase(), isSigner, isWritable };
    metas.push(meta);
    byBase58.set(base58, meta);
  };
  for (const ix of m.instructions) {
    if (ix.programId === undefined) return null;
    for (const k of ix.keys) add(k.pubkey, k.isSigner, k.isWritable);
  }
  for (const ix of m.instructions) add(ix.programId, false, false);
  metas.sort(byWeb3Order);

  // The fee payer goes first, as a writable signer, whatever the instructions said about it.
  const payerBase58 = keyBase58(m.feePayer);
  const payerAt = metas.findIndex((x) => x.base58 === payerBase58);
  const payer = payerAt >= 0 ? (metas.splice(payerAt, 1)[0] as Meta) : undefined;
  metas.unshift({
    key: payer?.key ?? m.feePayer,
    base58: payerBase58,
    lower: '',
    isSigner: true,
    isWritable: true,
  });
  return metas;
}

/** Bytes of the message: header, accounts, blockhash, and each instruction's indices and data. */
function messageSize(m: MessageInput, accounts: number): number {
  let size = 3 + shortvecLength(accounts) + 32 * accounts + 32;
  size += shortvecLength(m.instructions.length);
  for (const ix of m.instructions) {
    size += 1 + shortvecLength(ix.keys.length) + ix.keys.length;
    size += shortvecLength(ix.data.length) + ix.data.length;
  }
  return size;
}

/** Writes the header's three counts, the accounts, the blockhash and the instructions by account index. */
function writeMessage(out: Buffer, m: MessageInput, metas: readonly Meta[], blockhash: Uint8Array): Buffer {
  let signers = 0;
  let readonlySigned = 0;
  let readonlyUnsigned = 0;
  const index = new Map<string, number>();
  for (const [i, meta] of metas.entries()) {
    index.set(meta.base58, i);
    if (meta.isSigner) {
      signers++;
      if (!meta.isWritable) readonlySigned++;
    } else if (!meta.isWritable) readonlyUnsigned++;
  }
  out[0] = signers;
  out[1] = readonlySigned;
  out[2] = readonlyUnsigned;
  let at = writeShortvec(out, 3, metas.length);
  for (const meta of metas) {
    out.set(keyBytes(meta.key), at);
    at += 32;
  }
  out.set(blockhash, at);
  at = writeShortvec(out, at + 32, m.instructions.length);
  for (const ix of m.instructions) {
    out[at++] = index.get(keyBase58(ix.programId)) as number;
    at = writeShortvec(out, at, ix.keys.length);
    for (const k of ix.keys) out[at++] = index.get(keyBase58(k.pubkey)) as number;
    at = writeShortvec(out, at, ix.data.length);
    out.set(ix.data, at);
    at += ix.data.length;
  }
  return out;
}
