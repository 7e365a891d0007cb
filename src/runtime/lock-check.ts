// The taker's lock, checked where it is seen: handed to POST /lock it must be the very lock the service built
// for the trade (checkLockTransaction); read from an escrow on chain or a landed transaction, it is turned
// into the machine's TakerLockTerms, judged by one rule (lockTermsMatch). The maker's own lock is decoded
// from its signed bytes and held to the trade's terms before it becomes the intent (makerLockDifferences).
import type { PublicKey } from '@solana/web3.js';
import type { SignMakerLockInput, TakerLockTerms, TradeContext } from '../../machines/index.ts';
import {
  blockhashRange,
  decodeBase64Transaction,
  type EscrowState,
  encodeBase58,
  inspectTransaction,
  isZeroSignature,
  keyBase58,
  type LockInstructionView,
  messageDifferences,
  messageShape,
  parseWireTransaction,
  publicKey,
  takerLockTransaction,
  unsignedWire,
  type WireTransaction,
  wireParts,
} from '../chain/index.ts';
import { bytesOf, hash32FromBytes } from '../vocabulary/index.ts';
import { invalidInput, RuntimeError } from './errors.ts';

/** The terms a taker escrow account on chain holds. */
export function escrowLockTerms(address: string, escrow: EscrowState): TakerLockTerms {
  return {
    escrow: address,
    initializer: keyBase58(escrow.initializer),
    recipient: keyBase58(escrow.recipient),
    mint: keyBase58(escrow.mint),
    amountRaw: escrow.amount.toString(),
    hashlock: hash32FromBytes(escrow.hashlock),
    expiry: Number(escrow.expiry),
    lockDeadline: Number(escrow.lockDeadline),
  };
}

/** The terms a lock instruction creates (or would create). */
export function instructionLockTerms(lock: LockInstructionView): TakerLockTerms {
  return {
    escrow: keyBase58(lock.escrow),
    initializer: keyBase58(lock.initializer),
    recipient: keyBase58(lock.recipient),
    mint: keyBase58(lock.mint),
    amountRaw: lock.amount.toString(),
    hashlock: hash32FromBytes(lock.hashlock),
    expiry: Number(lock.expiry),
    lockDeadline: Number(lock.lockDeadline),
  };
}

/** The lock the service hands out for this trade (POST …/wallet-settlement), on `blockhash`, as wire bytes. */
export function builtTakerLock(
  context: TradeContext,
  programId: PublicKey,
  blockhash: string,
): WireTransaction {
  const lock = takerLockTransaction(
    programId,
    publicKey(context.makerWallet),
    { blockhash, lastValidBlockHeight: 0 },
    {
      taker: publicKey(context.takerWallet),
      inputMint: publicKey(context.inputMint),
      outputMint: publicKey(context.outputMint),
      amount: BigInt(context.inputAmountRaw),
      hashlock: bytesOf(context.secretHash),
      expiry: BigInt(context.takerExpiry),
      lockDeadline: BigInt(context.lockDeadline),
    },
  );
  return parseWireTransaction(unsignedWire(lock));
}

/** The shape of the lock this service handed out (messageShape), or null for bytes that are not one. */
export function issuedLockShape(transactionBase64: string): string | null {
  const parts = wireParts(Buffer.from(transactionBase64, 'base64'));
  return parts && messageShape(parts.message);
}

/**
 * The wallet-signed lock must be the lock the service built for this trade — the same message, instruction
 * by instruction, on any blockhash (the chain judges whether that one is still recent) — and carry the
 * taker's signature; anything else is refused before it is submitted. `issuedShape` is the shape of the lock
 * handed out (when this run remembers it): then a matching lock costs no rebuild. Answers the transaction's
 * signature and the blockhash it was signed with.
 */
export function checkLockTransaction(
  context: TradeContext,
  transactionBase64: string,
  programId: PublicKey,
  issuedShape?: string,
): { signature: string; recentBlockhash: string } {
  const bytes = base64Bytes(transactionBase64);
  const parts = bytes && wireParts(bytes);
  const shape = parts && messageShape(parts.message);
  // The message is the one handed out: only its signatures remain to be looked at.
  if (parts && shape !== null && shape === issuedShape && parts.signatures.length === parts.message[0]) {
    return signedLock(parts.signatures[0], parts.message);
  }
  let submitted: WireTransaction;
  try {
    submitted = decodeBase64Transaction(transactionBase64);
  } catch (error) {
    throw invalidInput(
      'transaction',
      (error as Error).message,
      'transaction_base64 is not a Solana transaction.',
    );
  }
  const built = builtTakerLock(context, programId, submitted.recentBlockhash);
  const differences = messageDifferences(submitted, built, { [programId.toBase58()]: 'htlc' });
  if (differences.length > 0) {
    throw new RuntimeError(
      'lock_mismatch',
      `The transaction is not the lock this service built for the trade: it ${differences[0]}.`,
      { input: 'transaction', problem: differences.join('; ') },
    );
  }
  return signedLock(submitted.signatures[0], submitted.messageBytes);
}

/** The lock's own signature (the taker pays for it, so it is the first), which the wallet must have made. */
function signedLock(signature: Uint8Array | undefined, message: Uint8Array) {
  if (signature === undefined || isZeroSignature(signature)) {
    const problem = 'is not signed by taker_wallet';
    throw invalidInput('transaction', problem, `The transaction ${problem}.`);
  }
  const range = blockhashRange(message) as [number, number];
  return { signature: encodeBase58(signature), recentBlockhash: encodeBase58(message.subarray(...range)) };
}

function base64Bytes(text: string): Uint8Array | null {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? new Uint8Array(Buffer.from(text, 'base64')) : null;
}

/**
 * What the maker's signed lock says other than the trade agreed (empty when nothing): decoded from its bytes,
 * it must be one maker lock of the trade's output into the trade's maker escrow, paid for and signed by the
 * maker, against the trade's taker escrow, holding that escrow to exactly the agreed input — amount and mint — and
 * the agreed taker expiry, which the program checks (a taker escrow placed again at the address after a fork
 * cannot carry it).
 */
export function makerLockDifferences(
  input: SignMakerLockInput,
  transactionBase64: string,
  programId: PublicKey,
): string[] {
  const seen = inspectTransaction(transactionBase64, programId);
  const [lock, ...others] = seen.locks;
  if (lock === undefined || others.length > 0) return [`carries ${seen.locks.length} HTLC locks, not one`];
  const against = lock.takerEscrow;
  const fields: [string, string | number | null | undefined, string | number][] = [
    ['kind', lock.kind, 'maker'],
    ['fee payer', keyBase58(seen.feePayer), input.initializer],
    ['signature', seen.signedBy.some((k) => keyBase58(k) === input.initializer) ? 'maker' : 'none', 'maker'],
    ['initializer', keyBase58(lock.initializer), input.initializer],
    ['escrow', keyBase58(lock.escrow), input.makerEscrow],
    ['recipient', keyBase58(lock.recipient), input.recipient],
    ['mint', keyBase58(lock.mint), input.mint],
    ['amount', lock.amount.toString(), input.amountRaw],
    ['hashlock', hash32FromBytes(lock.hashlock), input.hashlock],
    ['expiry', Number(lock.expiry), input.expiry],
    ['taker escrow', against && keyBase58(against.address), input.takerEscrow],
    ['taker escrow amount', against?.amount.toString(), input.takerAmountRaw],
    ['taker escrow mint', against && keyBase58(against.mint), input.takerMint],
    ['taker escrow expiry', against && Number(against.expiry), input.takerExpiry],
  ];
  return fields
    .filter(([, got, want]) => got !== want)
    .map(([name, got, want]) => `${name} ${got}, not ${want}`);
}
