// The model's own reading of how each escrow of a trade ended, from the chain alone: the first successful
// transaction in the vault's history that settled the escrow (a redeem pays the recipient, a refund or a
// cancel the initializer), cross-checked against the token balances it moved. Independent of the service
// (it reads the vault's history and the transactions' own instructions; the service reads the escrow's), so
// the model can judge the service's account of a trade — and decide from the chain, not from the service's
// view, whether the maker really lost funds.
import { PublicKey, Transaction } from '@solana/web3.js';
import {
  type ChainPort,
  type ChainTransaction,
  HTLC_INSTRUCTION_TAGS,
  vaultAddress,
} from '../../../src/chain/index.ts';

export type EscrowOutcome =
  | { state: 'none' }
  | { state: 'locked' }
  | { state: 'paid'; signature: string }
  | { state: 'returned'; signature: string; how: 'cancelled' | 'refunded' };

export interface EscrowTermsSeen {
  escrow: string;
  mint: string;
  amount: bigint;
  /** Wallets: who a redeem pays, and who a refund or cancel pays. */
  recipient: string;
  initializer: string;
}

/** Net tokens of `mint` that token accounts owned by `owner` (vault aside) gained in the transaction. */
function gained(tx: ChainTransaction, mint: string, owner: string, vault: string): bigint {
  let total = 0n;
  for (const b of tx.tokenBalances ?? []) {
    if (b.mint === mint && b.owner === owner && b.account !== vault) total += b.post - b.pre;
  }
  return total;
}

/** The HTLC instruction of the transaction that names this escrow, by its tag. */
function instructionOn(tx: ChainTransaction, programId: PublicKey, escrow: string): number | null {
  let parsed: Transaction;
  try {
    parsed = Transaction.from(Buffer.from(tx.transactionBase64, 'base64'));
  } catch {
    return null;
  }
  for (const ix of parsed.instructions) {
    if (!ix.programId.equals(programId)) continue;
    const tag = ix.data[0];
    if (tag === HTLC_INSTRUCTION_TAGS.close || tag === HTLC_INSTRUCTION_TAGS.lock) continue;
    const at = tag === HTLC_INSTRUCTION_TAGS.cancel ? 1 : 0;
    if (ix.keys[at]?.pubkey.toBase58() === escrow) return tag ?? null;
  }
  return null;
}

export async function escrowOutcome(chain: ChainPort, terms: EscrowTermsSeen): Promise<EscrowOutcome> {
  const escrow = new PublicKey(terms.escrow);
  const account = await chain.readEscrow(escrow, 'finalized');
  if (account?.status === 'locked') return { state: 'locked' };
  const [vault] = vaultAddress(chain.programId, escrow);
  const vaultKey = vault.toBase58();
  const history = (await chain.signaturesForAddress(vault, 'finalized', 1_000)).filter((s) => s.err === null);
  for (const info of [...history].reverse()) {
    const tx = await chain.getTransaction(info.signature, 'finalized');
    if (!tx) continue;
    const tag = instructionOn(tx, chain.programId, terms.escrow);
    if (tag === null) continue;
    // The vault paid out at least the escrowed amount less what the same transaction put in, to the side
    // the instruction names (a wrapped-SOL payout unwrapped at once shows no token gain: lamports then).
    const paid = tag === HTLC_INSTRUCTION_TAGS.redeem;
    const toRecipient = gained(tx, terms.mint, terms.recipient, vaultKey);
    const toInitializer = gained(tx, terms.mint, terms.initializer, vaultKey);
    if ((paid ? toInitializer : toRecipient) >= terms.amount)
      throw new Error(`oracle: ${tx.signature} settles ${terms.escrow} one way and pays the other side`);
    if (paid) return { state: 'paid', signature: tx.signature };
    return {
      state: 'returned',
      signature: tx.signature,
      how: tag === HTLC_INSTRUCTION_TAGS.cancel ? 'cancelled' : 'refunded',
    };
  }
  if (account)
    throw new Error(`oracle: escrow ${terms.escrow} is ${account.status} but no settlement is visible`);
  return { state: 'none' };
}

export interface TradeOutcome {
  maker: EscrowOutcome;
  taker: EscrowOutcome;
}

/** The maker lost funds: its output went to the taker, and the taker's input went back to the taker. */
export const makerLost = (o: TradeOutcome) => o.maker.state === 'paid' && o.taker.state === 'returned';
