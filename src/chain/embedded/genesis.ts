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
  const writes = new GenesisWrites(chain);
  if (fresh || chain.balance(chain.faucet) < FAUCET_LAMPORTS / 2n) writes.topUpFaucet();
  for (const m of options.mints) if (!isNativeMint(m.address)) writes.placeMint(m);
  for (const f of options.funding) {
    writes.fundSol(f);
    for (const t of f.tokens) writes.fundToken(f.owner, t);
  }
  return { accounts: [...writes.changed.values()], flags: writes.flags };
}

/** The accounts genesis placed (each at once, so later steps read it back) and the funded flags it sets. */
class GenesisWrites {
  readonly changed = new Map<string, StoredAccount>();
  readonly flags: Record<string, string> = {};
  private readonly tokenOwner = TOKEN_PROGRAM_ID.toBase58();
  private readonly systemOwner = SystemProgram.programId.toBase58();

  constructor(private readonly chain: GenesisChain) {}

  private put(a: StoredAccount): void {
    this.chain.place(a);
    this.changed.set(a.address, a);
  }

  topUpFaucet(): void {
    this.put({
      address: this.chain.faucet.toBase58(),
      lamports: FAUCET_LAMPORTS,
      owner: this.systemOwner,
      executable: false,
      data: new Uint8Array(),
    });
  }

  /** A configured mint not on chain yet is placed; one already there must have the configured decimals. */
  placeMint(m: MintConfig): void {
    if (this.chain.getAccount(m.address)) {
      const decimals = this.chain.decimalsOf(m.address);
      if (decimals !== m.decimals) {
        throw new Error(
          `embedded chain: mint ${m.symbol} ${m.address.toBase58()} has ${decimals} decimals on chain, config says ${m.decimals}`,
        );
      }
      return;
    }
    this.put({
      address: m.address.toBase58(),
      lamports: this.chain.minimumBalanceForRentExemption(82),
      owner: this.tokenOwner,
      executable: false,
      // The dev faucet is the mint authority, so airdrops are ordinary MintTo transactions.
      data: encodeMint({
        decimals: m.decimals,
        supply: 0n,
        mintAuthority: this.chain.faucet,
        freezeAuthority: m.freezeAuthority ?? null,
      }),
    });
  }

  /** The owner's SOL, added once. */
  fundSol(f: GenesisFunding): void {
    const owner = f.owner.toBase58();
    const solFlag = `funded:${owner}:SOL`;
    if (this.chain.flag(solFlag) !== undefined || f.lamports <= 0n) return;
    const cur = this.chain.getAccount(owner);
    this.put({
      address: owner,
      lamports: (cur?.lamports ?? 0n) + f.lamports,
      owner: cur?.owner ?? this.systemOwner,
      executable: false,
      data: cur?.data ?? new Uint8Array(),
    });
    this.flags[solFlag] = '1';
  }

  /** The owner's tokens of one mint, added once to its associated account (and to the mint's supply). */
  fundToken(ownerKey: PublicKey, t: { mint: PublicKey; amount: bigint }): void {
    const flag = `funded:${ownerKey.toBase58()}:${t.mint.toBase58()}`;
    if (this.chain.flag(flag) !== undefined || t.amount <= 0n) return;
    const native = isNativeMint(t.mint);
    if (!native && !this.chain.getAccount(t.mint)) {
      throw new Error(`embedded chain: inventory for ${t.mint.toBase58()}, which is not a configured mint`);
    }
    const address = ata(ownerKey, t.mint);
    const cur = this.chain.getAccount(address);
    const prevAmount = cur ? (readTokenAccount(cur.data)?.amount ?? 0n) : 0n;
    const rent = this.chain.minimumBalanceForRentExemption(ACCOUNT_SIZE);
    this.put({
      address: address.toBase58(),
      lamports: native ? (cur?.lamports ?? rent) + t.amount : (cur?.lamports ?? rent),
      owner: this.tokenOwner,
      executable: false,
      data: encodeTokenAccount({
        mint: t.mint,
        owner: ownerKey,
        amount: prevAmount + t.amount,
        ...(native ? { nativeRentReserve: rent } : {}),
      }),
    });
    if (!native) this.growSupply(t.mint, t.amount);
    this.flags[flag] = '1';
  }

  private growSupply(mintAddress: PublicKey, amount: bigint): void {
    const mintAcc = this.chain.getAccount(mintAddress) as StoredAccount;
    const mint = decodeMint(mintAcc.data);
    this.put({
      ...mintAcc,
      data: encodeMint({
        decimals: mint.decimals,
        supply: mint.supply + amount,
        mintAuthority: mint.mintAuthorityOption ? mint.mintAuthority : null,
        freezeAuthority: mint.freezeAuthorityOption ? mint.freezeAuthority : null,
      }),
    });
  }
}
