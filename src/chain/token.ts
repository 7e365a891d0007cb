// SPL Token facts the chain needs: associated token addresses (cached, since deriving one costs a
// PDA search), wrapped SOL, and the classic mint / token-account byte layouts.

import {
  ACCOUNT_SIZE,
  AccountLayout,
  AccountState,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';

export { ACCOUNT_SIZE, MINT_SIZE, NATIVE_MINT, TOKEN_PROGRAM_ID };

export const isNativeMint = (mint: PublicKey) => mint.equals(NATIVE_MINT);

const ataCache = new Map<string, PublicKey>();
const ATA_CACHE_LIMIT = 50_000;

/** The owner's associated token account for the mint (classic token program). */
export function ata(owner: PublicKey, mint: PublicKey): PublicKey {
  const key = `${owner.toBase58()}:${mint.toBase58()}`;
  let found = ataCache.get(key);
  if (!found) {
    found = getAssociatedTokenAddressSync(mint, owner, true, TOKEN_PROGRAM_ID);
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
}): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: a.mintAuthority ? 1 : 0,
      mintAuthority: a.mintAuthority ?? ZERO_KEY,
      supply: a.supply,
      decimals: a.decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: ZERO_KEY,
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
}

export function classifyMint(owner: string, data: Uint8Array): MintInfo {
  if (owner === TOKEN_PROGRAM_ID.toBase58()) {
    return { program: 'spl-token', decimals: data.length === MINT_SIZE ? decodeMint(data).decimals : null };
  }
  // Token-2022 mints share the classic base layout; extensions (transfer fees, hooks, permanent
  // delegates) follow it, which is why they are refused rather than inspected.
  if (owner === TOKEN_2022_PROGRAM_ID.toBase58()) {
    return { program: 'token-2022', decimals: data.length >= MINT_SIZE ? (data[44] ?? null) : null };
  }
  return { program: 'other', decimals: null };
}
