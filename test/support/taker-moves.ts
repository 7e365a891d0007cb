// The taker's own moves on chain, beyond the API: every instruction of the HTLC program the taker may sign
// (programs/htlc/README.md), built raw and signed with its own key, fee payer = the taker. Shared by the
// escrow-ending attacks (test/e2e/escrow-endings.test.ts) and the model test's adversarial taker.
//
// - cancel the maker escrow (the taker is its recipient);
// - redeem the maker escrow (pays the taker) or the taker escrow (pays the maker: anyone may submit it);
// - refund the taker escrow once expired (anyone may; it pays the taker);
// - close the taker escrow once settled (its initializer), sweeping what was donated to its vault;
// - donate tokens to either escrow's vault (an SPL transfer anyone can make).
// Several moves may go in one transaction, in the order given. While no service runs, `chainAlone` opens the
// chain of its DATA_DIR on its own, so the taker can move while the process is down.

import {
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
  createTransferInstruction,
  NATIVE_MINT,
} from '@solana/spl-token';
import {
  type Keypair,
  type PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import {
  ata,
  type ChainPort,
  cancelInstruction,
  closeInstruction,
  createChain,
  type EmbeddedChain,
  isChainError,
  redeemInstruction,
  refundInstruction,
  vaultAddress,
} from '../../src/chain/index.ts';
import type { Config } from '../../src/config/index.ts';
import { embeddedChainOptions } from '../../src/service.ts';

/** What the taker knows of its trade: its key, both escrows, both mints, and the preimage. */
export interface TakerSide {
  wallet: Keypair;
  maker: PublicKey;
  takerEscrow: PublicKey;
  makerEscrow: PublicKey;
  inputMint: PublicKey;
  outputMint: PublicKey;
  /** 32 bytes, hex. */
  preimage: string;
}

export type TakerMove =
  | { kind: 'cancelMakerEscrow' }
  | { kind: 'redeemMakerEscrow' }
  | { kind: 'redeemTakerEscrowForMaker' }
  | { kind: 'refundTakerEscrow' }
  | { kind: 'closeTakerEscrow' }
  | { kind: 'donate'; escrow: 'maker' | 'taker'; amount: bigint };

export type MoveResult =
  | { landed: true; signature: string }
  | { landed: false; error: string; htlc?: string };

export const describeMove = (move: TakerMove): string =>
  move.kind === 'donate' ? `donate(${move.escrow},${move.amount})` : move.kind;

const ensureAta = (payer: PublicKey, owner: PublicKey, mint: PublicKey) =>
  createAssociatedTokenAccountIdempotentInstruction(payer, ata(owner, mint), owner, mint);

/** The instructions of one move, for a transaction the taker pays. */
export function moveInstructions(
  programId: PublicKey,
  side: TakerSide,
  move: TakerMove,
): TransactionInstruction[] {
  const taker = side.wallet.publicKey;
  const preimage = Uint8Array.from(Buffer.from(side.preimage, 'hex'));
  switch (move.kind) {
    case 'cancelMakerEscrow':
      return [
        cancelInstruction({
          programId,
          recipient: taker,
          escrow: side.makerEscrow,
          initializerTokenAccount: ata(side.maker, side.outputMint),
        }),
      ];
    case 'redeemMakerEscrow':
      return [
        ensureAta(taker, taker, side.outputMint),
        redeemInstruction({
          programId,
          escrow: side.makerEscrow,
          recipientTokenAccount: ata(taker, side.outputMint),
          preimage,
        }),
      ];
    case 'redeemTakerEscrowForMaker':
      return [
        ensureAta(taker, side.maker, side.inputMint),
        redeemInstruction({
          programId,
          escrow: side.takerEscrow,
          recipientTokenAccount: ata(side.maker, side.inputMint),
          preimage,
        }),
      ];
    case 'refundTakerEscrow':
      return [
        ensureAta(taker, taker, side.inputMint),
        refundInstruction({
          programId,
          escrow: side.takerEscrow,
          initializerTokenAccount: ata(taker, side.inputMint),
        }),
      ];
    case 'closeTakerEscrow':
      return [
        ensureAta(taker, taker, side.inputMint),
        closeInstruction({
          programId,
          initializer: taker,
          escrow: side.takerEscrow,
          initializerTokenAccount: ata(taker, side.inputMint),
        }),
      ];
    case 'donate': {
      const escrow = move.escrow === 'maker' ? side.makerEscrow : side.takerEscrow;
      const mint = move.escrow === 'maker' ? side.outputMint : side.inputMint;
      const source = ata(taker, mint);
      const [vault] = vaultAddress(programId, escrow);
      // Wrapped SOL is wrapped on the spot; any other mint comes from what the taker holds.
      const wrap = mint.equals(NATIVE_MINT)
        ? [
            ensureAta(taker, taker, mint),
            SystemProgram.transfer({ fromPubkey: taker, toPubkey: source, lamports: move.amount }),
            createSyncNativeInstruction(source),
          ]
        : [];
      return [...wrap, createTransferInstruction(source, vault, taker, move.amount)];
    }
  }
}

/** The moves in one transaction, signed by the taker (fee payer): base64 and its signature. */
export async function signMoves(
  chain: Pick<ChainPort, 'programId' | 'latestBlockhash'>,
  side: TakerSide,
  moves: readonly TakerMove[],
): Promise<{ base64: string; signature: string }> {
  const { blockhash, lastValidBlockHeight } = await chain.latestBlockhash();
  const tx = new Transaction({ feePayer: side.wallet.publicKey, blockhash, lastValidBlockHeight });
  for (const move of moves) tx.add(...moveInstructions(chain.programId, side, move));
  tx.sign(side.wallet);
  return { base64: tx.serialize().toString('base64'), signature: bs58.encode(tx.signature as Buffer) };
}

/**
 * Signs and submits the moves as one transaction. Answers whether it landed; a refusal by the chain (or the
 * program, named in `htlc`) is an answer, not an error. The same moves signed again on the same blockhash
 * are the same bytes: the chain answers such a duplicate with the first one's signature, so it counts as
 * not landing (again).
 */
export async function submitMoves(
  chain: Pick<ChainPort, 'programId' | 'latestBlockhash' | 'submitSigned' | 'signatureState'>,
  side: TakerSide,
  moves: readonly TakerMove[],
): Promise<MoveResult> {
  const { base64: signed, signature: own } = await signMoves(chain, side, moves);
  if ((await chain.signatureState(own)).status !== 'unknown') return { landed: false, error: 'duplicate' };
  try {
    const { signature } = await chain.submitSigned(signed);
    const state = await chain.signatureState(signature);
    if (state.status !== 'unknown' && state.err !== null) return { landed: false, error: state.err };
    return { landed: true, signature };
  } catch (error) {
    if (!isChainError(error)) throw error;
    return { landed: false, error: error.code, ...(error.htlcError ? { htlc: error.htlcError } : {}) };
  }
}

/**
 * The embedded chain of a service's DATA_DIR, opened on its own the way the service opens it (same maker
 * key file, mints and inventory), for `fn`, then closed. Only while no service runs on that DATA_DIR.
 */
export async function chainAlone<T>(
  dataDir: string,
  config: Config,
  fn: (chain: EmbeddedChain) => Promise<T>,
): Promise<T> {
  const chain = createChain(embeddedChainOptions(dataDir, config));
  try {
    return await fn(chain);
  } finally {
    await chain.close();
  }
}
