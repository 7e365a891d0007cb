// Landing an aggregator swap the maker signed, and booking it: the parts of a swap's execution that are not
// about hedging, so that anything routing through the aggregator (a hedge, a just-in-time sourcing step)
// lands and books a swap the same way. The caller has stored the signed transaction (signature, bytes, last
// valid block height) before calling landSwap: this only ever sends those bytes.

import { publicKey } from '../chain/index.ts';
import type { ChainPort, SignedMakerTransaction } from '../chain/port.ts';
import { type LedgerEntry, postNetworkFee, postSwap } from '../ledger/index.ts';
import { type SwapOutcome, swapOutcome } from './outcome.ts';

/** The two mints of a swap, base58: what leaves the maker's account and what comes in. */
export interface SwapMints {
  inputMint: string;
  outputMint: string;
}

/**
 * Where a stored swap stands after one landing round:
 * - landed: final and successful; `outcome` is what the chain moved, to the base unit;
 * - failed: final and failed on chain (its minimum out not met, say): only its fee moved;
 * - expired: proven unlandable — its blockhash passed at finalized with the signature unknown — so a new
 *   swap may now be signed in its place;
 * - pending: not final yet (the chain did not answer, refused it at preflight, or it is still landing): land
 *   the same bytes again; nothing else may be signed meanwhile.
 */
export type SwapLanding =
  | { status: 'landed'; signature: string; slot: number; fee: bigint; outcome: SwapOutcome }
  | { status: 'failed'; signature: string; slot: number; fee: bigint; err: string }
  | { status: 'expired'; signature: string }
  | { status: 'pending'; signature: string; detail: string };

/**
 * One landing round of a stored swap: (re)broadcasts the same bytes until they are final, proven
 * unlandable, or `timeoutMs` passes, then reads what a landed swap moved from the chain's record of it.
 * Never throws for the chain's sake: an unreachable chain or a preflight refusal (the route moved; the bytes
 * may still land before their blockhash expires) is `pending`.
 */
export async function landSwap(
  chain: Pick<ChainPort, 'land' | 'getTransaction' | 'makerWallet'>,
  tx: SignedMakerTransaction,
  mints: SwapMints,
  timeoutMs: number,
): Promise<SwapLanding> {
  const { signature } = tx;
  let result: Awaited<ReturnType<ChainPort['land']>>;
  try {
    result = await chain.land(tx, 'finalized', timeoutMs);
  } catch (error) {
    // Unreachable, refused at preflight, or a send refused for an old blockhash on a lagging node: none of it
    // proves the bytes can never land (land() answers 'expired' itself once the chain proves that).
    return { status: 'pending', signature, detail: (error as Error).message };
  }
  if (result.status === 'expired') return { status: 'expired', signature };
  if (result.status !== 'finalized') return { status: 'pending', signature, detail: result.status };
  if (result.err !== null) {
    return { status: 'failed', signature, slot: result.slot, fee: result.fee, err: result.err };
  }
  const outcome = await readSwapOutcome(chain, signature, mints);
  if (outcome === null) {
    return { status: 'pending', signature, detail: 'final, but its token balances are not readable yet' };
  }
  return { status: 'landed', signature, slot: result.slot, fee: result.fee, outcome };
}

/**
 * What a landed swap moved for the maker, read from the chain (finalized): null while the chain shows no
 * record of it with token balances.
 */
export async function readSwapOutcome(
  chain: Pick<ChainPort, 'getTransaction' | 'makerWallet'>,
  signature: string,
  mints: SwapMints,
): Promise<SwapOutcome | null> {
  const tx = await chain.getTransaction(signature, 'finalized').catch(() => null);
  if (tx === null) return null;
  return swapOutcome(tx, chain.makerWallet, publicKey(mints.inputMint), publicKey(mints.outputMint));
}

/**
 * The ledger entries of a final swap: its two legs against the venue (landed only) and the maker's fee (a
 * failed swap pays it too), all under the swap's signature.
 */
export function swapLedger(landing: SwapLanding, mints: SwapMints): LedgerEntry[] {
  if (landing.status === 'landed') {
    return [
      ...postSwap(landing.signature, {
        inputMint: mints.inputMint,
        amountInRaw: landing.outcome.amountIn,
        outputMint: mints.outputMint,
        amountOutRaw: landing.outcome.amountOut,
      }),
      ...postNetworkFee(landing.signature, landing.fee),
    ];
  }
  if (landing.status === 'failed') return postNetworkFee(landing.signature, landing.fee);
  return [];
}
