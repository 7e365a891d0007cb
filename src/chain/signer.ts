// Fast ed25519 signing for keys the service holds (maker, dev faucet): node:crypto signs ~20x faster
// than web3.js's JavaScript ed25519, which dominates a maker transaction's cost otherwise.

import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Keypair, type PublicKey, type Transaction } from '@solana/web3.js';
import { encodeBase58 } from '../vocabulary/base58.ts';
import { keyBytes } from './keys.ts';
import { transactionMessage } from './message.ts';

// RFC 8410 PKCS#8 wrapper for a raw 32-byte ed25519 seed.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface FastSigner {
  readonly publicKey: PublicKey;
  signMessage(message: Uint8Array): Uint8Array;
}

export function fastSigner(keypair: Keypair): FastSigner {
  const key = privateKeyOfSeed(keypair.secretKey.subarray(0, 32));
  return {
    publicKey: keypair.publicKey,
    signMessage: (message) => new Uint8Array(sign(null, message, key)),
  };
}

/**
 * Compiles and signs a transaction whose only signer is `signer` (also its fee payer), returning the
 * wire bytes — identical to web3.js's `tx.sign(keypair)` then `tx.serialize()` — and the signature.
 * The message is compiled once, by our compiler (web3's compileMessage is the slow part), and the
 * signature is recorded on `tx` as web3's addSignature would.
 */
export function signWith(tx: Transaction, signer: FastSigner): { bytes: Buffer; signature: string } {
  const message = transactionMessage(tx);
  if (message[0] !== 1) throw new Error('signWith: the transaction needs other signers too');
  // The one required signer is the first account key, the fee payer (after the 3-byte header and a
  // 1-byte key count: a legacy message within the packet size has fewer than 128 keys).
  if (!message.subarray(4, 36).equals(keyBytes(signer.publicKey))) {
    throw new Error(`unknown signer: ${signer.publicKey.toBase58()}`);
  }
  const sig = Buffer.from(signer.signMessage(message));
  tx.signatures = [{ publicKey: signer.publicKey, signature: sig }];
  return { bytes: Buffer.concat([Buffer.from([1]), sig, message]), signature: encodeBase58(sig) };
}

/** A keypair file in the solana CLI format: a JSON array of the 64 secret-key bytes. */
export function loadKeypairFile(path: string): Keypair {
  let bytes: unknown;
  try {
    bytes = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`keypair file ${path} is not readable JSON: ${(e as Error).message}`);
  }
  if (
    !Array.isArray(bytes) ||
    bytes.length !== 64 ||
    !bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256)
  ) {
    throw new Error(`keypair file ${path} is not a 64-byte JSON array (solana CLI format)`);
  }
  const secretKey = Uint8Array.from(bytes as number[]);
  // The public half must be the seed's, checked by node:crypto: web3.js's own check (its JavaScript
  // ed25519, cold) costs ~60 ms of every start.
  if (!publicKeyOfSeed(secretKey.subarray(0, 32)).equals(secretKey.subarray(32))) {
    throw new Error(`keypair file ${path} holds a public key that is not its secret key's`);
  }
  return Keypair.fromSecretKey(secretKey, { skipValidation: true });
}

/** The ed25519 public key of a 32-byte seed. */
function publicKeyOfSeed(seed: Uint8Array): Buffer {
  const spki = createPublicKey(privateKeyOfSeed(seed)).export({ format: 'der', type: 'spki' });
  // An ed25519 SPKI ends with the 32 raw public-key bytes.
  return spki.subarray(spki.length - 32);
}

function privateKeyOfSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The keypair in the file, or a new one written there (mode 0600) — how a dev maker key comes to be. */
export function loadOrCreateKeypairFile(path: string): Keypair {
  if (existsSync(path)) return loadKeypairFile(path);
  const seed = randomBytes(32);
  const keypair = Keypair.fromSecretKey(Buffer.concat([seed, publicKeyOfSeed(seed)]), {
    skipValidation: true,
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(Array.from(keypair.secretKey)), { mode: 0o600, flag: 'wx' });
  return keypair;
}
