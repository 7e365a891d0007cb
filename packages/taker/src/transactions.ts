// The taker's own transactions, built here rather than asked of the service: a redeem of the maker escrow
// (the preimage goes to the chain, never to the service) and a refund of the taker escrow after its expiry.
// Legacy messages with the taker as fee payer, compiled and encoded by @solana/kit; the wallet signs the
// bytes as they are. Mirrors what the service hands out for `?mode=wallet`: the token account is made sure
// of first, and wrapped SOL is unwrapped after.
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  getTransactionEncoder,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { fromBase64, sameBytes, toBase64 } from './bytes.ts';
import {
  associatedTokenAddress,
  closeAccountInstruction,
  createAtaIdempotentInstruction,
  NATIVE_MINT,
  redeemInstruction,
  refundInstruction,
} from './htlc.ts';

export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

function encode(feePayer: string, lifetime: Lifetime, instructions: Instruction[]): string {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: lifetime.blockhash as Parameters<
            typeof setTransactionMessageLifetimeUsingBlockhash
          >[0]['blockhash'],
          lastValidBlockHeight: lifetime.lastValidBlockHeight,
        },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return toBase64(new Uint8Array(getTransactionEncoder().encode(compileTransaction(message))));
}

/** An unsigned redeem of the maker escrow into the taker's output token account (base64 wire bytes). */
export async function redeemTransaction(a: {
  programId: string;
  taker: string;
  makerEscrow: string;
  outputMint: string;
  preimage: Uint8Array;
  lifetime: Lifetime;
}): Promise<string> {
  const output = await associatedTokenAddress(a.taker, a.outputMint);
  const instructions = [
    createAtaIdempotentInstruction({ payer: a.taker, ata: output, owner: a.taker, mint: a.outputMint }),
    await redeemInstruction({
      programId: a.programId,
      escrow: a.makerEscrow,
      recipientTokenAccount: output,
      preimage: a.preimage,
    }),
  ];
  if (a.outputMint === NATIVE_MINT)
    instructions.push(closeAccountInstruction({ account: output, owner: a.taker }));
  return encode(a.taker, a.lifetime, instructions);
}

/** An unsigned refund of the taker escrow into the taker's input token account (base64 wire bytes). */
export async function refundTransaction(a: {
  programId: string;
  taker: string;
  takerEscrow: string;
  inputMint: string;
  lifetime: Lifetime;
}): Promise<string> {
  const input = await associatedTokenAddress(a.taker, a.inputMint);
  const instructions = [
    createAtaIdempotentInstruction({ payer: a.taker, ata: input, owner: a.taker, mint: a.inputMint }),
    await refundInstruction({
      programId: a.programId,
      escrow: a.takerEscrow,
      initializerTokenAccount: input,
    }),
  ];
  if (a.inputMint === NATIVE_MINT)
    instructions.push(closeAccountInstruction({ account: input, owner: a.taker }));
  return encode(a.taker, a.lifetime, instructions);
}

// ── The wire format, as far as a signer needs it ──────────────────────────────────────────────────

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

/** The signature slots and signers of a legacy transaction (what a wallet needs to sign it). */
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

/** The transaction with `signer`'s signature in its slot; refuses a transaction `signer` need not sign. */
export async function signTransactionBytes(
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

/** Whether `signer`'s slot holds a signature (not all zeros). */
export function isSignedBy(bytes: Uint8Array, signer: Uint8Array): boolean {
  const tx = parseTransaction(bytes);
  const slot = tx.signers.findIndex((key) => sameBytes(key, signer));
  if (slot < 0) return false;
  const start = tx.signaturesOffset + 64 * slot;
  return bytes.subarray(start, start + 64).some((b) => b !== 0);
}

/** The first signature of a signed transaction, base58: its id on chain. */
export function transactionSignature(signedBase64: string): Uint8Array {
  const tx = parseTransaction(fromBase64(signedBase64));
  return tx.bytes.slice(tx.signaturesOffset, tx.signaturesOffset + 64);
}

export const publicKeyBytes = (a: string): Uint8Array =>
  new Uint8Array(getAddressEncoder().encode(address(a)));
