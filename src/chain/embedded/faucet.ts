// The embedded chain's faucet: its own key (derived from the data dir's seed, so the same after every
// restart) funds wallets with plain SOL or any configured mint, by transactions like any other.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
} from '@solana/spl-token';
import { type PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { ChainError, type TransactionErrorJson } from '../errors.ts';
import { type FastSigner, signWith } from '../signer.ts';
import { ata, isNativeMint } from '../token.ts';
import type { StoredTransaction } from './store.ts';

/** What an airdrop tops a wallet up to: fees plus rent of the token accounts and escrow a swap creates. */
export const AIRDROP_SOL_RESERVE = 50_000_000n;

/** The part of the ledger the faucet uses. */
export interface FaucetLedger {
  readonly faucet: FastSigner;
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number };
  /** Runs a signed transaction (the ledger's own execute): the faucet reads only what was recorded. */
  execute(bytes: Uint8Array): { record: StoredTransaction };
  balance(address: PublicKey): bigint;
  decimalsOf(mint: PublicKey): number | null;
}

function faucetSend(ledger: FaucetLedger, instructions: Transaction['instructions']): string {
  const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
  const tx = new Transaction({ feePayer: ledger.faucet.publicKey, blockhash, lastValidBlockHeight }).add(
    ...instructions,
  );
  const { bytes } = signWith(tx, ledger.faucet);
  const out = ledger.execute(bytes);
  if (out.record.err !== null) {
    throw new ChainError('rejected', `faucet transaction failed: ${JSON.stringify(out.record.err)}`, {
      signature: out.record.signature,
      txError: out.record.err as TransactionErrorJson,
      logs: out.record.logs,
    });
  }
  return out.record.signature;
}

/** Plain SOL from the faucet (requestAirdrop). */
export function requestAirdrop(ledger: FaucetLedger, wallet: PublicKey, lamports: bigint): string {
  if (lamports <= 0n) throw new ChainError('invalid_transaction', 'airdrop amount must be positive');
  return faucetSend(ledger, [
    SystemProgram.transfer({ fromPubkey: ledger.faucet.publicKey, toPubkey: wallet, lamports }),
  ]);
}

/**
 * The dev airdrop: the asset (SOL as native lamports, which a lock wraps; any other configured mint by
 * MintTo from the faucet) plus a top-up to AIRDROP_SOL_RESERVE for fees and rent.
 */
export function airdrop(ledger: FaucetLedger, wallet: PublicKey, mint: PublicKey, amount: bigint): string {
  if (amount <= 0n) throw new ChainError('invalid_transaction', 'airdrop amount must be positive');
  const balance = ledger.balance(wallet);
  const topUp = balance < AIRDROP_SOL_RESERVE ? AIRDROP_SOL_RESERVE - balance : 0n;
  const faucet = ledger.faucet.publicKey;
  if (isNativeMint(mint)) {
    return faucetSend(ledger, [
      SystemProgram.transfer({ fromPubkey: faucet, toPubkey: wallet, lamports: amount + topUp }),
    ]);
  }
  if (ledger.decimalsOf(mint) === null)
    throw new ChainError('not_supported', `no mint ${mint.toBase58()} on this chain`);
  const ixs = [
    createAssociatedTokenAccountIdempotentInstruction(faucet, ata(wallet, mint), wallet, mint),
    createMintToInstruction(mint, ata(wallet, mint), faucet, amount),
  ];
  if (topUp > 0n) ixs.push(SystemProgram.transfer({ fromPubkey: faucet, toPubkey: wallet, lamports: topUp }));
  return faucetSend(ledger, ixs);
}
