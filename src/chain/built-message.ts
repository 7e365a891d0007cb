// Whether a wallet-signed transaction carries the message the service built, beyond its signatures and its
// blockhash: the cheap answer from the wire bytes (a fingerprint of the message with its blockhash blanked),
// and, for a refusal, what differs — instruction by instruction, so the taker and the log can see it.

import * as crypto from 'node:crypto';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { isWritableIndex, type WireTransaction } from './wire.ts';

/** A transaction's wire bytes cut into its signatures and its message, without decoding the message. */
export interface WireParts {
  signatures: Uint8Array[];
  message: Uint8Array;
}

/** compact-u16 at `at`: [value, bytes read], or null when the bytes end first or it runs past 3 bytes. */
function readShortvec(bytes: Uint8Array, at: number): [number, number] | null {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) return null;
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  return null;
}

/** The signatures and the message of wire bytes; null when they are too short to hold what they announce. */
export function wireParts(bytes: Uint8Array): WireParts | null {
  const count = readShortvec(bytes, 0);
  if (!count) return null;
  const [n, at] = count;
  if (bytes.length < at + 64 * n) return null;
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < n; i++) signatures.push(bytes.subarray(at + 64 * i, at + 64 * (i + 1)));
  return { signatures, message: bytes.subarray(at + 64 * n) };
}

/**
 * Where the 32-byte recent blockhash sits in a message (legacy or versioned): after the version prefix, the
 * three header bytes and the static keys. Null when the message is too short to hold it.
 */
export function blockhashRange(message: Uint8Array): [number, number] | null {
  const versioned = ((message[0] ?? 0) & 0x80) !== 0 ? 1 : 0;
  const keys = readShortvec(message, versioned + 3);
  if (!keys) return null;
  const start = versioned + 3 + keys[1] + 32 * keys[0];
  return start + 32 <= message.length ? [start, start + 32] : null;
}

/**
 * The message's fingerprint with its blockhash blanked: equal for the same message on any blockhash, and for
 * nothing else (the bytes before the blockhash say where it is, so two messages that agree once it is blanked
 * have it at the same place). Null for bytes that are not a message.
 */
export function messageShape(message: Uint8Array): string | null {
  const range = blockhashRange(message);
  if (!range) return null;
  const blanked = Buffer.from(message);
  blanked.fill(0, range[0], range[1]);
  return crypto.hash('sha256', blanked, 'base64');
}

/** Whether two messages are the same bytes but for their blockhashes. */
export function sameMessageBeyondBlockhash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  const range = blockhashRange(a);
  if (!range || blockhashRange(b)?.[0] !== range[0]) return Buffer.compare(a, b) === 0;
  return (
    Buffer.compare(a.subarray(0, range[0]), b.subarray(0, range[0])) === 0 &&
    Buffer.compare(a.subarray(range[1]), b.subarray(range[1])) === 0
  );
}

// ── Saying what differs ─────────────────────────────────────────────────────────────────────────────

const PROGRAM_NAMES: Record<string, string> = {
  '11111111111111111111111111111111': 'system',
  [TOKEN_PROGRAM_ID.toBase58()]: 'token',
  [TOKEN_2022_PROGRAM_ID.toBase58()]: 'token-2022',
  [ASSOCIATED_TOKEN_PROGRAM_ID.toBase58()]: 'associated token',
  ComputeBudget111111111111111111111111111111: 'compute budget',
  AddressLookupTab1e1111111111111111111111111: 'address lookup table',
};

/** The first data byte's (system: the first u32's) instruction name, for the programs a lock touches. */
const OPERATIONS: Record<string, Record<number, string>> = {
  system: { 0: 'create account', 1: 'assign', 2: 'transfer', 8: 'allocate' },
  token: {
    1: 'initialize account',
    3: 'transfer',
    4: 'approve',
    5: 'revoke',
    6: 'set authority',
    7: 'mint to',
    8: 'burn',
    9: 'close account',
    10: 'freeze account',
    12: 'transfer checked',
    13: 'approve checked',
    17: 'sync native',
  },
  'associated token': { 0: 'create', 1: 'create idempotent', 2: 'recover nested' },
  'compute budget': { 1: 'request heap frame', 2: 'set compute unit limit', 3: 'set compute unit price' },
};
OPERATIONS['token-2022'] = OPERATIONS.token as Record<number, string>;

interface Resolved {
  program: string;
  /** Each account as `key`, `key (signer)`, `key (writable)` or `key (signer, writable)`. */
  accounts: string[];
  data: Uint8Array;
  name: string;
}

function resolve(tx: WireTransaction, names: Readonly<Record<string, string>>): Resolved[] {
  const meta = (i: number) => {
    const key = tx.accountKeys[i];
    if (key === undefined) return `lookup table entry ${i - tx.accountKeys.length}`;
    const flags = [
      ...(i < tx.header.numRequiredSignatures ? ['signer'] : []),
      ...(isWritableIndex(tx, i) ? ['writable'] : []),
    ];
    return flags.length > 0 ? `${key} (${flags.join(', ')})` : key;
  };
  return tx.instructions.map((ix) => {
    const program = tx.accountKeys[ix.programIdIndex] ?? `lookup table entry ${ix.programIdIndex}`;
    const programName = names[program] ?? PROGRAM_NAMES[program];
    const op = programName === undefined ? undefined : OPERATIONS[programName]?.[ix.data[0] ?? -1];
    const name = programName === undefined ? `program ${program}` : op ? `${programName} ${op}` : programName;
    return { program, accounts: ix.accounts.map(meta), data: ix.data, name };
  });
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
const sameInstruction = (a: Resolved, b: Resolved) =>
  a.program === b.program &&
  a.accounts.length === b.accounts.length &&
  a.accounts.every((x, i) => x === b.accounts[i]) &&
  sameBytes(a.data, b.data);

/** How an instruction differs from the built one of the same program (its accounts, its data). */
function instructionChanges(got: Resolved, want: Resolved): string[] {
  const changes: string[] = [];
  const n = Math.max(got.accounts.length, want.accounts.length);
  for (let k = 0; k < n; k++) {
    if (got.accounts[k] === want.accounts[k]) continue;
    changes.push(`account ${k} is ${got.accounts[k] ?? 'missing'}, not ${want.accounts[k] ?? 'absent'}`);
    break;
  }
  if (!sameBytes(got.data, want.data)) {
    const at = got.data.findIndex((b, k) => b !== want.data[k]);
    changes.push(
      got.data.length !== want.data.length
        ? `data is ${got.data.length} bytes, not ${want.data.length}`
        : `data differs from byte ${at}`,
    );
  }
  return changes;
}

const MAX_DIFFERENCES = 8;

/**
 * What sets `submitted` apart from `built`, in words, beyond signatures and blockhash; empty when nothing
 * does. `names` names programs beyond the well-known ones (the HTLC program, say).
 */
export function messageDifferences(
  submitted: WireTransaction,
  built: WireTransaction,
  names: Readonly<Record<string, string>> = {},
): string[] {
  if (sameMessageBeyondBlockhash(submitted.messageBytes, built.messageBytes)) return [];
  const out: string[] = [];
  const version = (v: WireTransaction['version']) => (v === 'legacy' ? 'legacy' : `v${v}`);
  if (submitted.version !== built.version) {
    out.push(`is a ${version(submitted.version)} message, not ${version(built.version)}`);
  }
  if (submitted.addressTableLookups.length > 0) {
    const tables = submitted.addressTableLookups.map((t) => t.accountKey).join(', ');
    out.push(`loads accounts from address lookup tables (${tables})`);
  }
  if (submitted.accountKeys[0] !== built.accountKeys[0]) {
    out.push(`is paid for by ${submitted.accountKeys[0]}, not ${built.accountKeys[0]}`);
  }
  const [h, w] = [submitted.header, built.header];
  if (
    h.numRequiredSignatures !== w.numRequiredSignatures ||
    h.numReadonlySigned !== w.numReadonlySigned ||
    h.numReadonlyUnsigned !== w.numReadonlyUnsigned
  ) {
    out.push(
      `has header ${h.numRequiredSignatures}/${h.numReadonlySigned}/${h.numReadonlyUnsigned} ` +
        `(signers/read-only signers/read-only others), not ${w.numRequiredSignatures}/${w.numReadonlySigned}/${w.numReadonlyUnsigned}`,
    );
  }
  out.push(...instructionDifferences(resolve(submitted, names), resolve(built, names)));
  // Same instructions, same header: the account list carries keys no instruction uses, or another order.
  if (out.length === 0) out.push('lists its accounts otherwise than the lock does');
  return out.length > MAX_DIFFERENCES
    ? [...out.slice(0, MAX_DIFFERENCES), `and ${out.length - MAX_DIFFERENCES} more`]
    : out;
}

/** Instructions added, missing, changed (paired by program) or reordered, by their index in each message. */
function instructionDifferences(got: Resolved[], want: Resolved[]): string[] {
  const out: string[] = [];
  const unmatched = new Set(want.keys());
  const extra: number[] = [];
  for (const [i, ix] of got.entries()) {
    const j = [...unmatched].find((k) => sameInstruction(ix, want[k] as Resolved));
    if (j === undefined) extra.push(i);
    else unmatched.delete(j);
  }
  for (const i of extra) {
    const ix = got[i] as Resolved;
    const j = [...unmatched].find((k) => (want[k] as Resolved).program === ix.program);
    if (j === undefined) {
      out.push(`adds instruction ${i} (${ix.name})`);
      continue;
    }
    unmatched.delete(j);
    out.push(
      `changes instruction ${i} (${ix.name}): ${instructionChanges(ix, want[j] as Resolved).join('; ')}`,
    );
  }
  for (const j of unmatched) out.push(`lacks the lock's instruction ${j} (${(want[j] as Resolved).name})`);
  if (out.length === 0 && got.some((ix, i) => !sameInstruction(ix, want[i] as Resolved))) {
    out.push('has the lock’s instructions in another order');
  }
  return out;
}
