// Small pieces both chain implementations share: escrow decoding with ownership checks, naming a
// failed transaction's error, and the polling loop behind confirm().

import type { PublicKey } from '@solana/web3.js';
import { describeTransactionError, type TransactionErrorJson } from './errors.ts';
import { decodeEscrow, type EscrowState, isEscrowData } from './htlc/index.ts';
import type { Commitment, SignatureState } from './port.ts';
import type { WireTransaction } from './wire.ts';

/** The escrow in an account, or null when the account is absent, foreign or not an escrow. */
export function escrowFromAccount(
  programId: PublicKey,
  account: { owner: string; data: Uint8Array } | null,
): EscrowState | null {
  if (!account || account.owner !== programId.toBase58() || !isEscrowData(account.data)) return null;
  try {
    return decodeEscrow(account.data);
  } catch {
    return null;
  }
}

/** Names a transaction's failure: the HTLC error when our program's instruction failed. */
export function nameError(
  err: TransactionErrorJson | null,
  programId: PublicKey,
  tx: Pick<WireTransaction, 'instructions' | 'accountKeys'> | null,
): { name: string | null; htlcError?: string } {
  if (err === null) return { name: null };
  const program = programId.toBase58();
  const described = describeTransactionError(err, (index) => {
    const ix = tx?.instructions[index];
    return ix !== undefined && tx?.accountKeys[ix.programIdIndex] === program;
  });
  return described;
}

export const reaches = (state: SignatureState, commitment: Commitment): boolean =>
  state.status === 'finalized' || (commitment === 'confirmed' && state.status === 'confirmed');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `read` until the state reaches the commitment or the time is up; answers the last state seen. */
export async function pollSignature(
  read: () => Promise<SignatureState>,
  commitment: Commitment,
  timeoutMs: number,
  intervalMs: number,
): Promise<SignatureState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await read();
    if (reaches(state, commitment) || Date.now() + intervalMs > deadline) return state;
    await sleep(intervalMs);
  }
}
