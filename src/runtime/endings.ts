// How an escrow ended, as the chain proves it — not as the service would have ended it. A taker may settle
// an escrow in any way the program allows (cancel the maker escrow as its recipient, redeem either escrow,
// refund after expiry, close its own escrow once settled), so effects and the watcher ask here instead of
// assuming their own move happened:
// - while the escrow account exists, its status says paid (redeemed) or returned (refunded, cancelled)
//   and the one transaction that moved the vault's tokens out is the settling one;
// - once the account is closed, the settling transaction is the first after the lock whose token
//   balances show the vault going down, and whose token account (by owner) received the escrowed amount
//   says to whom. Tokens donated to a vault only ever leave it at close, after the settlement, so they
//   never pass for it.
import type { EscrowEnding, EscrowTerms, ReturnedHow, TakerLockTerms } from '../../machines/index.ts';
import {
  type ChainPort,
  type ChainTransaction,
  type Commitment,
  type EscrowState,
  HTLC_INSTRUCTION_TAGS,
  inspectTransaction,
  keyBase58,
  publicKey,
  type SignatureInfo,
  vaultAddress,
} from '../chain/index.ts';
import { parseWireTransaction } from '../chain/wire.ts';
import { type Preimage, preimageFromBytes } from '../vocabulary/index.ts';
import { instructionLockTerms } from './lock-check.ts';

const HISTORY_PAGE = 1_000;

/** Every successful transaction that touched the address, newest first (paged through, however long). */
async function history(chain: ChainPort, address: string, commitment: Commitment): Promise<SignatureInfo[]> {
  const key = publicKey(address);
  const all: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await chain.signaturesForAddress(key, commitment, HISTORY_PAGE, before);
    all.push(...page);
    const last = page[page.length - 1];
    if (page.length < HISTORY_PAGE || last === undefined) break;
    before = last.signature;
  }
  return all.filter((s) => s.err === null);
}

/** The transaction that created the escrow: the oldest successful one touching its address. */
export async function lockingSignature(
  chain: ChainPort,
  address: string,
  commitment: Commitment,
): Promise<string | null> {
  const found = await history(chain, address, commitment);
  return found[found.length - 1]?.signature ?? null;
}

/**
 * The lock that created an escrow which is gone again (settled, then closed): its signature and the terms
 * its lock instruction carried, since the account that held them no longer exists. Null when the address
 * never held a lock of our program.
 */
export async function vanishedLock(
  chain: ChainPort,
  address: string,
  commitment: Commitment,
): Promise<{ signature: string; terms: TakerLockTerms } | null> {
  const signature = await lockingSignature(chain, address, commitment);
  if (signature === null) return null;
  const tx = await chain.getTransaction(signature, commitment);
  if (!tx || tx.err !== null) return null;
  const lock = inspectTransaction(tx.transactionBase64, chain.programId).locks.find(
    (l) => keyBase58(l.escrow) === address,
  );
  return lock ? { signature, terms: instructionLockTerms(lock) } : null;
}

function vaultDecrease(tx: ChainTransaction, vault: string): boolean {
  const balance = tx.tokenBalances?.find((b) => b.account === vault);
  return balance !== undefined && balance.post < balance.pre;
}

/** The top-level instruction of our program that settled the escrow in this transaction, if visible. */
function settlingInstruction(
  tx: ChainTransaction,
  programId: string,
  escrow: string,
): { tag: number; preimage: Preimage | null } | null {
  let wire: ReturnType<typeof parseWireTransaction>;
  try {
    wire = parseWireTransaction(new Uint8Array(Buffer.from(tx.transactionBase64, 'base64')));
  } catch {
    return null;
  }
  for (const ix of wire.instructions) {
    if (wire.accountKeys[ix.programIdIndex] !== programId) continue;
    const tag = ix.data[0];
    const escrowIndex = tag === HTLC_INSTRUCTION_TAGS.cancel ? ix.accounts[1] : ix.accounts[0];
    if (escrowIndex === undefined || wire.accountKeys[escrowIndex] !== escrow) continue;
    if (tag === HTLC_INSTRUCTION_TAGS.redeem && ix.data.length === 33) {
      return { tag, preimage: preimageFromBytes(ix.data.subarray(1, 33)) };
    }
    if (tag === HTLC_INSTRUCTION_TAGS.refund || tag === HTLC_INSTRUCTION_TAGS.cancel) {
      return { tag, preimage: null };
    }
  }
  return null;
}

/** Net tokens of the mint that token accounts owned by `owner` gained in the transaction. */
function gained(tx: ChainTransaction, mint: string, owner: string, vault: string): bigint {
  let total = 0n;
  for (const b of tx.tokenBalances ?? []) {
    if (b.mint === mint && b.owner === owner && b.account !== vault) total += b.post - b.pre;
  }
  return total;
}

function returnedHow(tx: ChainTransaction, instruction: { tag: number } | null): ReturnedHow {
  if (instruction !== null)
    return instruction.tag === HTLC_INSTRUCTION_TAGS.cancel ? 'cancelled' : 'refunded';
  const cancelled = tx.logs.some((line) => line.includes('htlc: cancelled'));
  const refunded = tx.logs.some((line) => line.includes('htlc: refunded'));
  return cancelled && !refunded ? 'cancelled' : 'refunded';
}

/**
 * The ending of an escrow that is no longer locked, or null while the chain does not show one: still
 * locked, never locked, or its settling transaction not visible at this commitment yet (ask again).
 * `state` is the escrow account as just read (null when absent).
 */
export async function escrowEnding(
  chain: ChainPort,
  terms: EscrowTerms,
  state: EscrowState | null,
  commitment: Commitment,
): Promise<EscrowEnding | null> {
  if (state?.status === 'locked') return null;
  const programId = keyBase58(chain.programId);
  const vault = keyBase58(vaultAddress(chain.programId, publicKey(terms.address))[0]);
  const signatures = await history(chain, terms.address, commitment);
  // While the account exists only its settlement took tokens out of the vault; once closed, the first
  // decrease after the lock is the settlement (a close sweeping donations comes later).
  const ordered = state !== null ? signatures : [...signatures].reverse();
  let settle: ChainTransaction | null = null;
  for (const info of ordered) {
    const tx = await chain.getTransaction(info.signature, commitment);
    if (tx === null || tx.err !== null) continue;
    if (vaultDecrease(tx, vault) || settlingInstruction(tx, programId, terms.address) !== null) {
      settle = tx;
      break;
    }
  }
  if (settle === null) return null;
  const instruction = settlingInstruction(settle, programId, terms.address);
  const revealed = state?.preimage ? preimageFromBytes(state.preimage) : (instruction?.preimage ?? null);

  let paid: boolean;
  if (state !== null) {
    paid = state.status === 'redeemed';
  } else {
    const amount = BigInt(terms.amountRaw);
    const toRecipient = gained(settle, terms.mint, terms.recipient, vault) >= amount;
    const toInitializer = gained(settle, terms.mint, terms.initializer, vault) >= amount;
    if (toRecipient !== toInitializer) paid = toRecipient;
    else if (instruction !== null) paid = instruction.tag === HTLC_INSTRUCTION_TAGS.redeem;
    else return null;
  }
  return paid
    ? { kind: 'paid', signature: settle.signature, preimage: revealed }
    : {
        kind: 'returned',
        signature: settle.signature,
        how:
          state === null
            ? returnedHow(settle, instruction)
            : state.status === 'cancelled'
              ? 'cancelled'
              : 'refunded',
      };
}
