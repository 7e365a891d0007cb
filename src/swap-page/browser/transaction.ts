// Just enough of Solana's wire format to sign the service's unsigned legacy transactions in the page: a
// compact-u16 count of signatures, the 64-byte signature slots, then the message, whose header names how many
// of its first account keys must sign. Signing is ed25519 over the message bytes into the signer's slot;
// nothing else of the transaction is read or changed. (Bundling @solana/web3.js for this would cost the page
// some 300 KB and a Buffer polyfill.)

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A compact-u16 at `offset`: its value and its length in bytes. */
function compactU16(bytes: Uint8Array, offset: number): { value: number; size: number } {
  let value = 0;
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size];
    if (byte === undefined) throw new Error('transaction: truncated length');
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) return { value, size: size + 1 };
  }
  throw new Error('transaction: length over three bytes');
}

export interface WireTransaction {
  bytes: Uint8Array;
  /** Where the signature slots start, and the message. */
  signaturesOffset: number;
  messageOffset: number;
  /** The account keys that must sign, in slot order. */
  signers: Uint8Array[];
}

export function parseTransaction(bytes: Uint8Array): WireTransaction {
  const count = compactU16(bytes, 0);
  const signaturesOffset = count.size;
  const messageOffset = signaturesOffset + 64 * count.value;
  const required = bytes[messageOffset];
  if (required === undefined) throw new Error('transaction: no message');
  if ((required & 0x80) !== 0)
    throw new Error('transaction: a versioned message, not the legacy one expected');
  if (required !== count.value)
    throw new Error('transaction: signature slots do not match the message header');
  const keys = compactU16(bytes, messageOffset + 3);
  const keysOffset = messageOffset + 3 + keys.size;
  if (keys.value < required || keysOffset + 32 * keys.value > bytes.length)
    throw new Error('transaction: account keys truncated');
  const signers: Uint8Array[] = [];
  for (let i = 0; i < required; i++)
    signers.push(bytes.subarray(keysOffset + 32 * i, keysOffset + 32 * (i + 1)));
  return { bytes, signaturesOffset, messageOffset, signers };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The transaction with `signer`'s signature in its slot; refuses a transaction `signer` need not sign. */
export async function signTransaction(
  unsigned: Uint8Array,
  signer: Uint8Array,
  sign: (message: Uint8Array<ArrayBuffer>) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const tx = parseTransaction(unsigned);
  const slot = tx.signers.findIndex((key) => sameBytes(key, signer));
  if (slot < 0) throw new Error('transaction: this wallet is not one of its signers');
  const signature = await sign(tx.bytes.slice(tx.messageOffset));
  if (signature.length !== 64) throw new Error('transaction: an ed25519 signature has 64 bytes');
  const signed = tx.bytes.slice();
  signed.set(signature, tx.signaturesOffset + 64 * slot);
  return signed;
}

/** Whether `signer`'s slot holds a signature (not all zeros): what the service needs from a wallet. */
export function isSignedBy(bytes: Uint8Array, signer: Uint8Array): boolean {
  const tx = parseTransaction(bytes);
  const slot = tx.signers.findIndex((key) => sameBytes(key, signer));
  if (slot < 0) return false;
  const start = tx.signaturesOffset + 64 * slot;
  return bytes.subarray(start, start + 64).some((b) => b !== 0);
}
