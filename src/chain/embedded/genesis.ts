// The embedded chain's genesis, run at every start: the configured mints placed (the faucet their mint
// authority, so airdrops are ordinary MintTo transactions), the faucet topped up, and each configured
// (owner, asset) funded the first time the chain sees it.
import { type PublicKey, SystemProgram } from '@solana/web3.js';
import {
  ACCOUNT_SIZE,
  ata,
  decodeMint,
  encodeMint,
  encodeTokenAccount,
  isNativeMint,
  readTokenAccount,
  TOKEN_PROGRAM_ID,
} from '../token.ts';
import type { StoredAccount } from './store.ts';

/** What the faucet holds after genesis; topped up at a start that finds it below half. */
const FAUCET_LAMPORTS = 5_000_000n * 1_000_000_000n;

export interface MintConfig {
  address: PublicKey;
  decimals: number;
  symbol: string;
  /** Who may freeze the mint's token accounts (tests of a hostile issuer); none by default, like wSOL. */
  freezeAuthority?: PublicKey;
}

export interface GenesisFunding {
  owner: PublicKey;
  lamports: bigint;
  tokens: { mint: PublicKey; amount: bigint }[];
}

/** The chain as genesis reads and writes it. */
export interface GenesisChain {
  readonly faucet: PublicKey;
  getAccount(address: string | PublicKey): StoredAccount | null;
  balance(address: PublicKey | string): bigint;
  decimalsOf(mint: PublicKey | string): number | null;
  minimumBalanceForRentExemption(dataLen: number): bigint;
  /** Puts the account in place at once: genesis reads back what it placed (a mint, then its supply). */
  place(account: StoredAccount): void;
  /** A value of the chain's durable meta (funded:… flags). */
  flag(key: string): string | undefined;
}

/**
 * Places the configured mints and funds whoever the config funds, once each (durable flags in the chain's
 * meta say who was funded): answers the accounts to persist and the flags to set.
 */
export function genesisWrites(
  chain: GenesisChain,
  options: { mints: readonly MintConfig[]; funding: readonly GenesisFunding[] },
  fresh: boolean,
): { accounts: StoredAccount[]; flags: Record<string, string> } {
  const changed = new Map<string, StoredAccount>();
  const flags: Record<string, string> = {};
  const put = (a: StoredAccount) => {
    chain.place(a);
    changed.set(a.address, a);
  };
  const tokenOwner = TOKEN_PROGRAM_ID.toBase58();
  const systemOwner = SystemProgram.programId.toBase58();

  if (fresh || chain.balance(chain.faucet) < FAUCET_LAMPORTS / 2n) {
    put({
      address: chain.faucet.toBase58(),
      lamports: FAUCET_LAMPORTS,
      owner: systemOwner,
      executable: false,
      data: new Uint8Array(),
    });
  }
  for (const m of options.mints) {
    if (isNativeMint(m.address)) continue;
    const existing = chain.getAccount(m.address);
    if (existing) {
      const decimals = chain.decimalsOf(m.address);
      if (decimals !== m.decimals) {
        throw new Error(
          `embedded chain: mint ${m.symbol} ${m.address.toBase58()} has ${decimals} decimals on chain, config says ${m.decimals}`,
        );
      }
      continue;
    }
    put({
      address: m.address.toBase58(),
      lamports: chain.minimumBalanceForRentExemption(82),
      owner: tokenOwner,
      executable: false,
      // The dev faucet is the mint authority, so airdrops are ordinary MintTo transactions.
      data: encodeMint({
        decimals: m.decimals,
        supply: 0n,
        mintAuthority: chain.faucet,
        freezeAuthority: m.freezeAuthority ?? null,
      }),
    });
  }
  for (const f of options.funding) {
    const owner = f.owner.toBase58();
    const solFlag = `funded:${owner}:SOL`;
    if (chain.flag(solFlag) === undefined && f.lamports > 0n) {
      const cur = chain.getAccount(owner);
      put({
        address: owner,
        lamports: (cur?.lamports ?? 0n) + f.lamports,
        owner: cur?.owner ?? systemOwner,
        executable: false,
        data: cur?.data ?? new Uint8Array(),
      });
      flags[solFlag] = '1';
    }
    for (const t of f.tokens) {
      const flag = `funded:${owner}:${t.mint.toBase58()}`;
      if (chain.flag(flag) !== undefined || t.amount <= 0n) continue;
      const native = isNativeMint(t.mint);
      if (!native && !chain.getAccount(t.mint)) {
        throw new Error(`embedded chain: inventory for ${t.mint.toBase58()}, which is not a configured mint`);
      }
      const address = ata(f.owner, t.mint);
      const cur = chain.getAccount(address);
      const prevAmount = cur ? (readTokenAccount(cur.data)?.amount ?? 0n) : 0n;
      const rent = chain.minimumBalanceForRentExemption(ACCOUNT_SIZE);
      put({
        address: address.toBase58(),
        lamports: native ? (cur?.lamports ?? rent) + t.amount : (cur?.lamports ?? rent),
        owner: tokenOwner,
        executable: false,
        data: encodeTokenAccount({
          mint: t.mint,
          owner: f.owner,
          amount: prevAmount + t.amount,
          ...(native ? { nativeRentReserve: rent } : {}),
        }),
      });
      if (!native) {
        const mintAcc = chain.getAccount(t.mint) as StoredAccount;
        const mint = decodeMint(mintAcc.data);
        put({
          ...mintAcc,
          data: encodeMint({
            decimals: mint.decimals,
            supply: mint.supply + t.amount,
            mintAuthority: mint.mintAuthorityOption ? mint.mintAuthority : null,
            freezeAuthority: mint.freezeAuthorityOption ? mint.freezeAuthority : null,
          }),
        });
      }
      flags[flag] = '1';
    }
  }
  return { accounts: [...changed.values()], flags };
}
