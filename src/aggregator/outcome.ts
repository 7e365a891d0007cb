// What a landed swap did to the maker, read from the chain's record of it (the token balances around the
// transaction), not from the quote: what went out of the maker's input account and came into its output
// account, to the base unit — the numbers the ledger books.

import type { PublicKey } from '@solana/web3.js';
import { keyBase58 } from '../chain/keys.ts';
import type { ChainTransaction } from '../chain/port.ts';
import { ata } from '../chain/token.ts';

export interface SwapOutcome {
  /** Raw units of the input mint that left the maker's account. */
  amountIn: bigint;
  /** Raw units of the output mint that reached the maker's account. */
  amountOut: bigint;
}

/** null when the chain kept no token balances for the transaction, or it failed. */
export function swapOutcome(
  tx: Pick<ChainTransaction, 'err' | 'tokenBalances'>,
  maker: PublicKey,
  inputMint: PublicKey,
  outputMint: PublicKey,
): SwapOutcome | null {
  if (tx.err !== null || tx.tokenBalances === null) return null;
  const change = (mint: PublicKey) => {
    const account = keyBase58(ata(maker, mint));
    const entry = tx.tokenBalances?.find((b) => b.account === account);
    return entry ? entry.post - entry.pre : 0n;
  };
  return { amountIn: -change(inputMint), amountOut: change(outputMint) };
}
