// Memoized wire forms of public keys. web3.js re-derives a key's bytes (a BN conversion) and base58
// (an O(n²) encode) on every call, and the hot paths ask for the same keys again and again: program
// ids, mints, and each transaction's fresh keys several times while it is built and compiled.

import { PublicKey } from '@solana/web3.js';
import { decodeBase58, encodeBase58 } from '../vocabulary/base58.ts';

interface Forms {
  bytes?: Uint8Array;
  base58?: string;
}

// Keyed by object: a PublicKey is never mutated after construction, so its forms never go stale.
const forms = new WeakMap<PublicKey, Forms>();

function formsOf(key: PublicKey): Forms {
  let f = forms.get(key);
  if (!f) {
    f = {};
    forms.set(key, f);
  }
  return f;
}

/** The key's 32 bytes. Shared: callers must not write into it. */
export function keyBytes(key: PublicKey): Uint8Array {
  const f = formsOf(key);
  if (!f.bytes) f.bytes = key.toBytes();
  return f.bytes;
}

export function keyBase58(key: PublicKey): string {
  const f = formsOf(key);
  if (f.base58 === undefined) f.base58 = encodeBase58(keyBytes(key));
  return f.base58;
}

/**
 * `new PublicKey(text)` for a base58 address, decoded without web3.js's quadratic bs58 and with both
 * forms remembered. Throws, like PublicKey, on anything that is not 32 bytes of base58.
 */
export function publicKey(text: string): PublicKey {
  const bytes = decodeBase58(text);
  if (bytes.length !== 32) throw new Error(`Invalid public key input: ${text}`);
  const key = new PublicKey(bytes);
  forms.set(key, { bytes, base58: text });
  return key;
}

/** A PublicKey for bytes this module may keep (the caller hands them over), with its bytes already known. */
export function keyFromBytes(bytes: Uint8Array): PublicKey {
  const key = new PublicKey(bytes);
  forms.set(key, { bytes });
  return key;
}
