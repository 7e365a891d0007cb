// A taker lock seen two ways — in the wallet-signed transaction handed to POST /lock, and in the escrow
// account on chain — turned into the machine's TakerLockTerms, so both are judged by one rule
// (lockTermsMatch) and a lock with other terms is never this trade's.
import type { PublicKey } from '@solana/web3.js';
import { lockTermsMatch, type TakerLockTerms, type TradeContext } from '../../machines/index.ts';
import { type EscrowState, inspectTransaction, keyBase58, type LockInstructionView } from '../chain/index.ts';
import { hash32FromBytes } from '../vocabulary/index.ts';
import { invalidInput } from './errors.ts';

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

/**
 * The wallet-signed lock must carry the taker's signature and lock this trade's escrow with exactly the
 * agreed terms; anything else is refused before it is submitted. (Wallets may add other instructions.)
 * Answers the transaction's signature and the blockhash it was signed with.
 */
export function checkLockTransaction(
  context: TradeContext,
  transactionBase64: string,
  programId: PublicKey,
): { signature: string; recentBlockhash: string } {
  let inspection: ReturnType<typeof inspectTransaction>;
  try {
    inspection = inspectTransaction(transactionBase64, programId);
  } catch (error) {
    throw invalidInput(
      'transaction',
      (error as Error).message,
      'transaction_base64 is not a Solana transaction.',
    );
  }
  const refuse = (problem: string): never => {
    throw invalidInput('transaction', problem, `The transaction ${problem}.`);
  };
  const signed = inspection.signedBy.some((key) => keyBase58(key) === context.takerWallet);
  if (!signed || inspection.signature === null) refuse('is not signed by taker_wallet');
  const lock = inspection.locks.find((l) => keyBase58(l.escrow) === context.takerEscrow);
  if (!lock || inspection.locks.length !== 1) return refuse('does not lock this trade’s escrow');
  if (lock.kind !== 'taker' || !lockTermsMatch(context, instructionLockTerms(lock))) {
    refuse('locks this trade’s escrow with other terms than agreed');
  }
  return { signature: inspection.signature as string, recentBlockhash: inspection.recentBlockhash };
}
