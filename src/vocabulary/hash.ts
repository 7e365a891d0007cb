// The two secrets of a swap as values that were parsed once, at the request boundary: a Hash32 (the
// taker's commitment, the escrow's hashlock) and a Preimage (the secret it commits to). Both are 64
// lowercase hex characters, so code past the boundary compares and stores them as they are — never
// lower-cases them — and turns them into bytes only where bytes are needed.
import { createHash, timingSafeEqual } from 'node:crypto';

declare const kind: unique symbol;
/** A SHA-256 digest: 64 lowercase hex characters. */
export type Hash32 = string & { readonly [kind]: 'Hash32' };
/** A 32-byte secret whose SHA-256 is a trade's hashlock: 64 lowercase hex characters. */
export type Preimage = string & { readonly [kind]: 'Preimage' };

const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
const LOWER_HEX_32_BYTES = /^[0-9a-f]{64}$/;

/** 64 hex characters of either case (as a client may send them) → a Hash32; anything else → undefined. */
export function parseHash32(text: string): Hash32 | undefined {
  return HEX_32_BYTES.test(text) ? (text.toLowerCase() as Hash32) : undefined;
}

/** 64 hex characters of either case → a Preimage; anything else → undefined. */
export function parsePreimage(text: string): Preimage | undefined {
  return HEX_32_BYTES.test(text) ? (text.toLowerCase() as Preimage) : undefined;
}

/**
 * Whether a value is in the one form a preimage takes past the boundary: the machine's own check, so that
 * a value that did not come through parsePreimage or preimageFromBytes is never taken for a secret.
 */
export const isPreimage = (value: string): value is Preimage => LOWER_HEX_32_BYTES.test(value);

function hexOf32(bytes: Uint8Array): string {
  if (bytes.length !== 32) throw new RangeError(`expected 32 bytes, got ${bytes.length}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('hex');
}

/** 32 bytes read from the chain (a hashlock) → a Hash32. */
export const hash32FromBytes = (bytes: Uint8Array): Hash32 => hexOf32(bytes) as Hash32;

/** 32 bytes read from the chain (a revealed preimage) → a Preimage. */
export const preimageFromBytes = (bytes: Uint8Array): Preimage => hexOf32(bytes) as Preimage;

/** The 32 bytes of a hash or preimage, for PDA seeds and instruction data. */
export const bytesOf = (value: Hash32 | Preimage): Buffer => Buffer.from(value, 'hex');

/** sha256(preimage): the hashlock the preimage opens. */
export const hashOfPreimage = (preimage: Preimage): Hash32 =>
  createHash('sha256').update(bytesOf(preimage)).digest('hex') as Hash32;

/**
 * Equality in time independent of where two hashes differ: the commitment is the only thing that guards
 * abandon, so its comparison must not leak how much of a guess was right.
 */
export function sameHash32(a: Hash32, b: Hash32): boolean {
  const left = bytesOf(a);
  const right = bytesOf(b);
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}
