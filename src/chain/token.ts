// SPL Token facts the chain needs: associated token addresses (cached, since deriving one costs a
// PDA search), wrapped SOL, and the classic mint / token-account byte layouts.

import {
  ACCOUNT_SIZE,
  AccountLayout,
  AccountState,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MINT_SIZE,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { keyBase58, keyBytes } from './keys.ts';
import { findProgramAddress } from './pda.ts';

export { ACCOUNT_SIZE, MINT_SIZE, NATIVE_MINT, TOKEN_PROGRAM_ID };

export const isNativeMint = (mint: PublicKey) => mint.equals(NATIVE_MINT);

const ataCache = new Map<string, PublicKey>();
// Bounded: it serves takers who trade again and the maker's own accounts; fresh wallets only pass through.
const ATA_CACHE_LIMIT = 4_096;

/**
 * The owner's associated token account for the mint (classic token program); the owner may be off
 * curve. Same address as spl-token's getAssociatedTokenAddressSync(mint, owner, true).
 */
export function ata(owner: PublicKey, mint: PublicKey): PublicKey {
  const key = `${keyBase58(owner)}:${keyBase58(mint)}`;
  let found = ataCache.get(key);
  if (!found) {
    [found] = findProgramAddress(
      [keyBytes(owner), keyBytes(TOKEN_PROGRAM_ID), keyBytes(mint)],
      ASSOCIATED_TOKEN_PROGRAM_ID,
    );
    if (ataCache.size >= ATA_CACHE_LIMIT) ataCache.clear();
    ataCache.set(key, found);
  }
  return found;
}

const ZERO_KEY = new PublicKey(new Uint8Array(32));

export function encodeMint(a: {
  decimals: number;
  supply: bigint;
  mintAuthority: PublicKey | null;
  /** Who may freeze the mint's token accounts; none unless given. */
  freezeAuthority?: PublicKey | null;
}): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: a.mintAuthority ? 1 : 0,
      mintAuthority: a.mintAuthority ?? ZERO_KEY,
      supply: a.supply,
      decimals: a.decimals,
      isInitialized: true,
      freezeAuthorityOption: a.freezeAuthority ? 1 : 0,
      freezeAuthority: a.freezeAuthority ?? ZERO_KEY,
    },
    data,
  );
  return data;
}

export function decodeMint(data: Uint8Array) {
  return MintLayout.decode(data);
}

/** A classic token account; `nativeRentReserve` set ⇒ a wrapped-SOL account (is_native). */
export function encodeTokenAccount(a: {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
  nativeRentReserve?: bigint;
}): Uint8Array {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: a.mint,
      owner: a.owner,
      amount: a.amount,
      delegateOption: 0,
      delegate: ZERO_KEY,
      state: AccountState.Initialized,
      isNativeOption: a.nativeRentReserve === undefined ? 0 : 1,
      isNative: a.nativeRentReserve ?? 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: ZERO_KEY,
    },
    data,
  );
  return data;
}

/** mint, owner and amount of a classic token account, or null when the bytes are not one. */
export function readTokenAccount(
  data: Uint8Array,
): { mint: PublicKey; owner: PublicKey; amount: bigint } | null {
  if (data.length !== ACCOUNT_SIZE) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: new PublicKey(data.subarray(0, 32)),
    owner: new PublicKey(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}

export const TOKEN_2022_PROGRAM_ID = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');

/** Which token program a mint belongs to; only classic SPL Token mints are tradable here. */
export interface MintInfo {
  program: 'spl-token' | 'token-2022' | 'other';
  decimals: number | null;
  /** Who can freeze any token account of the mint, escrow vaults included (base58); null when nobody can. */
  freezeAuthority: string | null;
}

export function classifyMint(owner: string, data: Uint8Array): MintInfo {
  // Token-2022 mints share the classic base layout; extensions (transfer fees, hooks, permanent
  // delegates) follow it, which is why they are refused rather than inspected.
  const program =
    owner === TOKEN_PROGRAM_ID.toBase58()
      ? 'spl-token'
      : owner === TOKEN_2022_PROGRAM_ID.toBase58()
        ? 'token-2022'
        : 'other';
  const base = program === 'spl-token' ? data.length === MINT_SIZE : data.length >= MINT_SIZE;
  if (program === 'other' || !base) return { program, decimals: null, freezeAuthority: null };
  const mint = decodeMint(data.subarray(0, MINT_SIZE));
  return {
    program,
    decimals: mint.decimals,
    freezeAuthority: mint.freezeAuthorityOption ? mint.freezeAuthority.toBase58() : null,
  };
}
