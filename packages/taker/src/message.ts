// A transaction's message read from its wire bytes, everything a signer must see before it signs: the
// version, the fee payer and the other signers, each instruction with its program and its accounts (signer
// and writable flags as the runtime will load them), and any address lookup table the message names. The
// addresses a lookup table holds are not in the bytes, so an account loaded through one is named by its
// table and index: whoever signs such a message cannot know what it touches.
import { getAddressDecoder, getBase58Decoder } from '@solana/kit';

export interface MessageAccount {
  /** The base58 address; for an account loaded through a lookup table, `lookup:<table>#<index>`. */
  address: string;
  signer: boolean;
  writable: boolean;
  /** True when the address comes from a lookup table, not from the message itself. */
  fromLookupTable: boolean;
}

export interface MessageInstruction {
  /** Its position in the message. */
  index: number;
  programId: string;
  accounts: MessageAccount[];
  data: Uint8Array;
}

export interface AddressLookup {
  table: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface DecodedMessage {
  version: 'legacy' | 0;
  /** The first account: pays the fee (and any rent nobody else is named for). */
  feePayer: string;
  /** Every account that must sign, in signature-slot order. */
  signers: string[];
  recentBlockhash: string;
  /** Every account of the message, static ones first, then those loaded through lookup tables. */
  accounts: MessageAccount[];
  instructions: MessageInstruction[];
  lookups: AddressLookup[];
  /** The signature slots the transaction carries (filled or not). */
  signatureCount: number;
  /** The message bytes: what a signature signs. */
  messageBytes: Uint8Array;
}

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    const value = this.bytes[this.offset];
    if (value === undefined) throw new Error('transaction: truncated');
    this.offset += 1;
    return value;
  }

  /** A compact-u16 (Solana's "shortvec"): 7 bits a byte, at most three bytes. */
  length(): number {
    let value = 0;
    for (let size = 0; size < 3; size++) {
      const byte = this.byte();
      value |= (byte & 0x7f) << (7 * size);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('transaction: a length over three bytes');
  }

  take(count: number): Uint8Array {
    if (this.offset + count > this.bytes.length) throw new Error('transaction: truncated');
    const out = this.bytes.slice(this.offset, this.offset + count);
    this.offset += count;
    return out;
  }

  get done(): boolean {
    return this.offset === this.bytes.length;
  }
}

const base58Address = (bytes: Uint8Array): string => getAddressDecoder().decode(bytes);

/** Decodes a legacy or v0 transaction (signature slots, then the message); throws on anything else. */
export function decodeMessage(bytes: Uint8Array): DecodedMessage {
  const reader = new Reader(bytes);
  const signatureCount = reader.length();
  reader.take(64 * signatureCount);
  const messageStart = reader.offset;
  let version: 'legacy' | 0 = 'legacy';
  const first = bytes[reader.offset];
  if (first === undefined) throw new Error('transaction: no message');
  if ((first & 0x80) !== 0) {
    const number = reader.byte() & 0x7f;
    if (number !== 0) throw new Error(`transaction: message version ${number}, only legacy and v0 are read`);
    version = 0;
  }
  const required = reader.byte();
  const readonlySigned = reader.byte();
  const readonlyUnsigned = reader.byte();
  if (required !== signatureCount)
    throw new Error('transaction: signature slots do not match the message header');
  if (required === 0) throw new Error('transaction: no fee payer (no account signs)');
  const keyCount = reader.length();
  if (keyCount < required || readonlySigned > required || readonlyUnsigned > keyCount - required)
    throw new Error('transaction: the header does not fit the account keys');
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(base58Address(reader.take(32)));
  const recentBlockhash = getBase58Decoder().decode(reader.take(32));

  const rawInstructions: { program: number; accounts: number[]; data: Uint8Array }[] = [];
  const instructionCount = reader.length();
  for (let i = 0; i < instructionCount; i++) {
    const program = reader.byte();
    const accounts: number[] = [];
    const accountCount = reader.length();
    for (let j = 0; j < accountCount; j++) accounts.push(reader.byte());
    rawInstructions.push({ program, accounts, data: reader.take(reader.length()) });
  }

  const lookups: AddressLookup[] = [];
  if (version === 0) {
    const tableCount = reader.length();
    for (let i = 0; i < tableCount; i++) {
      const table = base58Address(reader.take(32));
      const writableIndexes = Array.from(reader.take(reader.length()));
      const readonlyIndexes = Array.from(reader.take(reader.length()));
      lookups.push({ table, writableIndexes, readonlyIndexes });
    }
  }
  if (!reader.done) throw new Error('transaction: bytes after the message');

  const accounts: MessageAccount[] = keys.map((address, i) => ({
    address,
    signer: i < required,
    writable: i < required ? i < required - readonlySigned : i < keyCount - readonlyUnsigned,
    fromLookupTable: false,
  }));
  // Loaded accounts follow the static keys: every table's writable ones, then every table's read-only ones.
  for (const writable of [true, false])
    for (const lookup of lookups)
      for (const index of writable ? lookup.writableIndexes : lookup.readonlyIndexes)
        accounts.push({
          address: `lookup:${lookup.table}#${index}`,
          signer: false,
          writable,
          fromLookupTable: true,
        });

  const instructions = rawInstructions.map((raw, index): MessageInstruction => {
    const program = accounts[raw.program];
    if (!program || program.fromLookupTable)
      throw new Error(`transaction: instruction ${index} names no program in the message`);
    return {
      index,
      programId: program.address,
      accounts: raw.accounts.map((i) => {
        const account = accounts[i];
        if (!account)
          throw new Error(`transaction: instruction ${index} names account ${i}, beyond the message`);
        return account;
      }),
      data: raw.data,
    };
  });

  return {
    version,
    feePayer: keys[0] ?? '',
    signers: keys.slice(0, required),
    recentBlockhash,
    accounts,
    instructions,
    lookups,
    signatureCount,
    messageBytes: bytes.slice(messageStart),
  };
}
