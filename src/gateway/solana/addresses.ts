// The PDAs of Circle's Gateway programs (and of ours, which use the same seeds), by program id.

import { PublicKey } from '@solana/web3.js';
import { GATEWAY_MINTER_SEEDS, GATEWAY_WALLET_SEEDS } from '../formats/index.ts';

const pda = (programId: PublicKey, ...seeds: (string | Uint8Array)[]): PublicKey =>
  PublicKey.findProgramAddressSync(
    seeds.map((s) => (typeof s === 'string' ? Buffer.from(s) : Buffer.from(s))),
    programId,
  )[0];

export const minterStateAddress = (minter: PublicKey) => pda(minter, GATEWAY_MINTER_SEEDS.minter);

export const minterCustodyAddress = (minter: PublicKey, mint: PublicKey) =>
  pda(minter, GATEWAY_MINTER_SEEDS.custody, mint.toBytes());

export function usedTransferSpecHashAddress(program: PublicKey, transferSpecHash: Uint8Array): PublicKey {
  if (transferSpecHash.length !== 32) throw new RangeError('a transfer spec hash is 32 bytes');
  return pda(program, GATEWAY_MINTER_SEEDS.usedTransferSpecHash, transferSpecHash);
}

/** Anchor's #[event_cpi] authority of either program. */
export const eventAuthorityAddress = (program: PublicKey) =>
  pda(program, GATEWAY_MINTER_SEEDS.eventAuthority);

export const walletStateAddress = (wallet: PublicKey) => pda(wallet, GATEWAY_WALLET_SEEDS.wallet);

export const walletCustodyAddress = (wallet: PublicKey, mint: PublicKey) =>
  pda(wallet, GATEWAY_WALLET_SEEDS.custody, mint.toBytes());

export const depositAddress = (wallet: PublicKey, mint: PublicKey, depositor: PublicKey) =>
  pda(wallet, GATEWAY_WALLET_SEEDS.deposit, mint.toBytes(), depositor.toBytes());

export const denylistAddress = (wallet: PublicKey, account: PublicKey) =>
  pda(wallet, GATEWAY_WALLET_SEEDS.denylist, account.toBytes());
