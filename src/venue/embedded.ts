// The embedded venue: AMM pools on the embedded (or loopback) chain for every configured pair, seeded at
// genesis by a liquidity admin of the chain's own (never the maker), and a keeper that, after each Pyth
// publication, swaps each pool back to the published mid through the program itself — so every price the
// venue quotes came from real transactions. Deterministic for a publisher seed: the keeper reacts only to
// the feeds and the pools.

import { randomBytes } from 'node:crypto';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import {
  AddressLookupTableAccount,
  AddressLookupTableProgram,
  type Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import type { ExecuteOutcome } from '../chain/embedded/ledger.ts';
import type { StoredAccount } from '../chain/embedded/store.ts';
import { keyBase58 } from '../chain/keys.ts';
import type { PriceUpdate } from '../chain/pyth/layout.ts';
import { type FastSigner, fastSigner, signWith } from '../chain/signer.ts';
import { ata, isNativeMint, readTokenAccount, TOKEN_PROGRAM_ID } from '../chain/token.ts';
import type { Price } from '../money/price.ts';
import type { PoolSnapshot, VenueAsset, VenueBook, VenuePool } from './book.ts';
import { startVenueServer, type VenueServer } from './http.ts';
import {
  initializePoolInstruction,
  liquidityInstruction,
  poolAccounts,
  swapInstruction,
} from './instructions.ts';
import { decodePool, isPoolData } from './layout.ts';
import { amountInToReach, deviationBps, type Ratio, swapExactIn } from './math.ts';
import { DEFAULT_AMM_PROGRAM_ID } from './program.ts';

/** What the venue needs of the embedded ledger (EmbeddedLedger has all of it). */
export interface VenueLedger {
  readonly faucet: FastSigner;
  devKeypair(label: string): Keypair;
  execute(bytes: Uint8Array): ExecuteOutcome;
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number };
  getAccount(address: string | PublicKey): StoredAccount | null;
  slot(): number;
  note(key: string): string | undefined;
  setNote(key: string, value: string): void;
}

/** What the keeper follows: the embedded Pyth publisher. */
export interface VenuePrices {
  latest(symbol: string): PriceUpdate | null;
  onPublish(listener: () => void): () => void;
}

export interface EmbeddedVenueOptions {
  programId?: PublicKey;
  assets: readonly VenueAsset[];
  /** Asset symbols that get a pool, per pair (order and repeats do not matter). */
  pairs: readonly (readonly [string, string])[];
  /** What each side of a pool is worth at genesis, in micro-USD. */
  liquidityMicroUsd: bigint;
  feeBps: number;
  /** The keeper swaps a pool back to the Pyth mid once it strays further than this; null: no keeper. */
  keeperTriggerBps: number | null;
  /** A keeper or lookup-table step that failed (the venue carries on). */
  onError?: (error: Error) => void;
}

const LAMPORTS_TOP_UP = 1_000_000_000n;
const ADMIN_LAMPORTS = 10_000_000_000n;
const MICRO = 1_000_000n;
const LABEL = 'Embedded AMM';
/** SPL Memo v2 (preloaded on litesvm): each venue transaction carries a nonce, see send(). */
const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

export class EmbeddedVenue implements VenueBook {
  readonly programId: PublicKey;
  readonly admin: FastSigner;
  readonly keeper: FastSigner;
  readonly label = LABEL;
  readonly pools: readonly VenuePool[];
  private readonly byMints = new Map<string, VenuePool>();
  private unsubscribe: (() => void) | null = null;
  private server: Promise<VenueServer> | null = null;

  constructor(
    private readonly ledger: VenueLedger,
    private readonly options: EmbeddedVenueOptions,
    private readonly prices: VenuePrices | null = null,
  ) {
    this.programId = options.programId ?? DEFAULT_AMM_PROGRAM_ID;
    this.admin = fastSigner(ledger.devKeypair('venue-admin'));
    this.keeper = fastSigner(ledger.devKeypair('venue-keeper'));
    const bySymbol = new Map(options.assets.map((a) => [a.symbol.toUpperCase(), a]));
    const pools: VenuePool[] = [];
    for (const [x, y] of options.pairs) {
      const ax = bySymbol.get(x.toUpperCase());
      const ay = bySymbol.get(y.toUpperCase());
      if (!ax || !ay) throw new Error(`venue: no asset ${ax ? y : x}`);
      if (ax === ay) throw new Error(`venue: a pool of ${x} with itself`);
      const p = poolAccounts(this.programId, this.admin.publicKey, ax.mint, ay.mint);
      const key = keyBase58(p.pool);
      if (this.byMints.has(key)) continue;
      const pool: VenuePool = {
        ...p,
        assetA: ax.mint.equals(p.mintA) ? ax : ay,
        assetB: ax.mint.equals(p.mintA) ? ay : ax,
      };
      pools.push(pool);
      this.byMints.set(key, pool);
    }
    this.pools = pools;
  }

  // ---------------------------------------------------------------- reading

  /** The pool trading these two mints (either order), or null when the venue has none. */
  poolOf(x: PublicKey, y: PublicKey): VenuePool | null {
    if (x.equals(y)) return null;
    const { pool } = poolAccounts(this.programId, this.admin.publicKey, x, y);
    return this.byMints.get(keyBase58(pool)) ?? null;
  }

  /** The pool's fee and reserves as its accounts hold them now; null when it is not on chain. */
  snapshot(pool: VenuePool): PoolSnapshot | null {
    const account = this.ledger.getAccount(pool.pool);
    if (!account || account.owner !== keyBase58(this.programId) || !isPoolData(account.data)) return null;
    const state = decodePool(account.data);
    return {
      ...pool,
      feeBps: state.feeBps,
      reserveA: this.tokenBalance(pool.vaultA),
      reserveB: this.tokenBalance(pool.vaultB),
    };
  }

  slot(): number {
    return this.ledger.slot();
  }

  /**
   * The venue's address lookup table when it holds the pool's accounts and they are usable (from the slot
   * after they were added); empty before, or while the chain is too young to make one.
   */
  lookupTables(pool: VenuePool): PublicKey[] {
    this.guard(() => this.ensureLookupTable());
    const table = this.lookupTable();
    if (!table || BigInt(this.ledger.slot()) <= BigInt(table.state.lastExtendedSlot)) return [];
    const held = new Set(table.state.addresses.map(keyBase58));
    return poolAddresses(pool).every((a) => held.has(keyBase58(a))) ? [table.key] : [];
  }

  private lookupTable(): AddressLookupTableAccount | null {
    const noted = this.ledger.note(LOOKUP_TABLE_NOTE);
    const account = noted === undefined ? null : this.ledger.getAccount(noted);
    if (noted === undefined || !account) return null;
    return new AddressLookupTableAccount({
      key: new PublicKey(noted),
      state: AddressLookupTableAccount.deserialize(account.data),
    });
  }

  private tokenBalance(account: PublicKey): bigint {
    const acc = this.ledger.getAccount(account);
    if (!acc || acc.owner !== keyBase58(TOKEN_PROGRAM_ID)) return 0n;
    return readTokenAccount(acc.data)?.amount ?? 0n;
  }

  // ---------------------------------------------------------------- genesis

  /**
   * Makes sure every pool exists and holds liquidity: initializes a missing pool and funds an empty one
   * with liquidityMicroUsd a side at the published Pyth price (the reference price when none is
   * published), from the admin's wallet, which the chain's faucet fills. Idempotent: a restart finds the
   * pools as trading left them and changes nothing.
   */
  seed(): void {
    for (const pool of this.pools) {
      if (!this.ledger.getAccount(pool.pool)) {
        this.topUpLamports(this.admin.publicKey, ADMIN_LAMPORTS);
        this.send(this.admin, [
          initializePoolInstruction({
            programId: this.programId,
            admin: this.admin.publicKey,
            mints: [pool.mintA, pool.mintB],
            feeBps: this.options.feeBps,
          }),
        ]);
      }
      if (this.tokenBalance(pool.vaultA) === 0n && this.tokenBalance(pool.vaultB) === 0n) this.fund(pool);
    }
    this.guard(() => this.ensureLookupTable());
  }

  private fund(pool: VenuePool): void {
    const amountA = this.sideAmount(pool.assetA);
    const amountB = this.sideAmount(pool.assetB);
    this.topUpLamports(this.admin.publicKey, ADMIN_LAMPORTS);
    this.fundToken(this.admin, pool.mintA, amountA);
    this.fundToken(this.admin, pool.mintB, amountB);
    this.send(this.admin, [
      liquidityInstruction({
        programId: this.programId,
        kind: 'deposit',
        admin: this.admin.publicKey,
        pool: pool.pool,
        vaultA: pool.vaultA,
        vaultB: pool.vaultB,
        adminTokenA: ata(this.admin.publicKey, pool.mintA),
        adminTokenB: ata(this.admin.publicKey, pool.mintB),
        amountA,
        amountB,
      }),
    ]);
  }

  /** liquidityMicroUsd of the asset, in raw units, at its current USD price. */
  private sideAmount(asset: VenueAsset): bigint {
    const usd = this.usdPrice(asset);
    const amount =
      (this.options.liquidityMicroUsd * 10n ** BigInt(asset.decimals) * usd.den) / (usd.num * MICRO);
    if (amount <= 0n) throw new Error(`venue: no liquidity for ${asset.symbol} at its price`);
    return amount;
  }

  private usdPrice(asset: VenueAsset): Price {
    const update = this.prices?.latest(asset.symbol.toUpperCase()) ?? null;
    if (!update || update.price <= 0n) return asset.referenceUsd;
    return update.exponent >= 0
      ? { num: update.price * 10n ** BigInt(update.exponent), den: 1n }
      : { num: update.price, den: 10n ** BigInt(-update.exponent) };
  }

  /**
   * Leaves `owner` holding at least `amount` of the mint in its associated token account, from the chain's
   * faucet: minted for an SPL token (the faucet is the dev mints' authority), lamports wrapped for SOL.
   */
  private fundToken(owner: FastSigner, mint: PublicKey, amount: bigint): void {
    const account = ata(owner.publicKey, mint);
    const held = this.tokenBalance(account);
    if (held >= amount) return;
    const need = amount - held;
    const faucet = this.ledger.faucet.publicKey;
    const create = createAssociatedTokenAccountIdempotentInstruction(faucet, account, owner.publicKey, mint);
    this.send(
      this.ledger.faucet,
      isNativeMint(mint)
        ? [
            create,
            SystemProgram.transfer({ fromPubkey: faucet, toPubkey: account, lamports: need }),
            createSyncNativeInstruction(account),
          ]
        : [create, createMintToInstruction(mint, account, faucet, need)],
    );
  }

  private topUpLamports(wallet: PublicKey, target: bigint): void {
    const held = this.ledger.getAccount(wallet)?.lamports ?? 0n;
    if (held >= target / 2n) return;
    const faucet = this.ledger.faucet.publicKey;
    this.send(this.ledger.faucet, [
      SystemProgram.transfer({ fromPubkey: faucet, toPubkey: wallet, lamports: target - held }),
    ]);
  }

  /**
   * One lookup table for the whole venue (every pool's accounts, the token, associated-token and system
   * programs), made and extended by the lookup-table program on chain and noted with the chain so that a
   * restart finds it; a pool added to the config later is added to it. A table names a recent slot: a chain
   * still at slot 0 has none, and the table waits for a later call.
   */
  private ensureLookupTable(): void {
    const existing = this.lookupTable();
    const wanted = [
      TOKEN_PROGRAM_ID,
      ASSOCIATED_TOKEN_PROGRAM_ID,
      SystemProgram.programId,
      ...this.pools.flatMap(poolAddresses),
    ];
    const held = new Set(existing?.state.addresses.map(keyBase58) ?? []);
    const missing = [...new Map(wanted.map((k) => [keyBase58(k), k])).values()].filter(
      (k) => !held.has(keyBase58(k)),
    );
    if (existing && missing.length === 0) return;
    const slot = this.ledger.slot();
    if (!existing && slot < 1) return;
    this.topUpLamports(this.admin.publicKey, ADMIN_LAMPORTS);
    const authority = this.admin.publicKey;
    let table = existing?.key;
    const instructions: TransactionInstruction[] = [];
    if (!table) {
      const [create, address] = AddressLookupTableProgram.createLookupTable({
        authority,
        payer: authority,
        recentSlot: slot - 1,
      });
      instructions.push(create);
      table = address;
    }
    // An extension carries at most ~30 addresses within a packet.
    for (let i = 0; i < missing.length; i += 20) {
      const addresses = missing.slice(i, i + 20);
      this.send(this.admin, [
        ...instructions.splice(0),
        AddressLookupTableProgram.extendLookupTable({
          lookupTable: table,
          authority,
          payer: authority,
          addresses,
        }),
      ]);
      if (!existing && i === 0) this.ledger.setNote(LOOKUP_TABLE_NOTE, keyBase58(table));
    }
  }

  // ---------------------------------------------------------------- keeper

  /** Rebalances after every Pyth publication from now on (no-op without prices or a trigger). */
  startKeeper(): void {
    if (this.unsubscribe || !this.prices || this.options.keeperTriggerBps === null) return;
    this.unsubscribe = this.prices.onPublish(() => this.rebalance());
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /**
   * The venue's Jupiter-shaped API on a loopback server of its own, started on first call; answers its base
   * URL. How a process with an embedded chain (`npm start`) reaches the venue over real HTTP.
   */
  serve(): Promise<string> {
    this.server ??= startVenueServer(this);
    return this.server.then((s) => s.baseUrl);
  }

  /** Stops the keeper and the API server. */
  async close(): Promise<void> {
    this.stop();
    const server = this.server;
    this.server = null;
    if (server) await (await server).close();
  }

  /**
   * One keeper pass: each pool whose price strays beyond the trigger from the Pyth mid of its two assets is
   * swapped back to it by the keeper, through the program. Answers the signatures it landed.
   */
  rebalance(): string[] {
    const trigger = BigInt(this.options.keeperTriggerBps ?? 0);
    const landed: string[] = [];
    for (const pool of this.pools) {
      this.guard(() => {
        const target = this.targetPrice(pool);
        const now = target && this.snapshot(pool);
        if (!target || !now || now.reserveA === 0n || now.reserveB === 0n) return;
        const spot: Ratio = { num: now.reserveB, den: now.reserveA };
        if (deviationBps(spot, target) <= trigger) return;
        // A is dear in the pool: sell A down to the target; else B is, and the inverse target applies.
        const sellA = spot.num * target.den > target.num * spot.den;
        const reserves = sellA
          ? { reserveIn: now.reserveA, reserveOut: now.reserveB }
          : { reserveIn: now.reserveB, reserveOut: now.reserveA };
        const goal = sellA ? target : { num: target.den, den: target.num };
        const amountIn = amountInToReach(reserves, goal, now.feeBps, reserves.reserveIn);
        const swap = swapExactIn(reserves, amountIn, now.feeBps);
        if (!swap.ok) return;
        const signature = this.keeperSwap(now, sellA, amountIn, swap.amountOut);
        landed.push(signature);
      });
    }
    return landed;
  }

  /** Output raw units of mint_b per raw unit of mint_a at the published Pyth mids; null without both. */
  targetPrice(pool: VenuePool): Ratio | null {
    const a = this.prices?.latest(pool.assetA.symbol.toUpperCase()) ?? null;
    const b = this.prices?.latest(pool.assetB.symbol.toUpperCase()) ?? null;
    if (!a || !b || a.price <= 0n || b.price <= 0n) return null;
    // (pa·10^ea / 10^da) / (pb·10^eb / 10^db): every power of ten moved to the side where it is positive.
    const up = a.exponent + pool.assetB.decimals - (b.exponent + pool.assetA.decimals);
    return up >= 0
      ? { num: a.price * 10n ** BigInt(up), den: b.price }
      : { num: a.price, den: b.price * 10n ** BigInt(-up) };
  }

  private keeperSwap(pool: PoolSnapshot, sellA: boolean, amountIn: bigint, amountOut: bigint): string {
    const mintIn = sellA ? pool.mintA : pool.mintB;
    const mintOut = sellA ? pool.mintB : pool.mintA;
    const owner = this.keeper.publicKey;
    this.topUpLamports(owner, LAMPORTS_TOP_UP);
    this.fundToken(this.keeper, mintIn, amountIn);
    return this.send(this.keeper, [
      createAssociatedTokenAccountIdempotentInstruction(owner, ata(owner, mintOut), owner, mintOut),
      swapInstruction({
        programId: this.programId,
        user: owner,
        pool: pool.pool,
        vaultIn: sellA ? pool.vaultA : pool.vaultB,
        vaultOut: sellA ? pool.vaultB : pool.vaultA,
        userSource: ata(owner, mintIn),
        userDestination: ata(owner, mintOut),
        amountIn,
        minOut: amountOut,
      }),
    ]);
  }

  // ---------------------------------------------------------------- plumbing

  /**
   * Signs (the signer pays) and executes; throws unless it landed successfully. A random memo makes each
   * transaction its own: two equal top-ups within a slot (or on a test's frozen clock) would otherwise be
   * one signature, and the second would answer as the first's duplicate without running.
   */
  private send(signer: FastSigner, instructions: TransactionInstruction[]): string {
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash();
    const nonce = new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [],
      data: Buffer.from(`venue ${randomBytes(8).toString('hex')}`),
    });
    const tx = new Transaction({ feePayer: signer.publicKey, blockhash, lastValidBlockHeight }).add(
      ...instructions,
      nonce,
    );
    const { bytes } = signWith(tx, signer);
    const { kind, record } = this.ledger.execute(bytes);
    if (kind === 'duplicate') throw new Error(`venue transaction ${record.signature} ran before`);
    if (record.err !== null) {
      throw new Error(`venue transaction failed: ${JSON.stringify(record.err)}\n${record.logs.join('\n')}`);
    }
    return record.signature;
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.options.onError?.(error as Error);
    }
  }
}

const LOOKUP_TABLE_NOTE = 'venue:lookup-table';

/** What a swap through the pool names besides the user's own accounts and the programs. */
const poolAddresses = (pool: VenuePool): PublicKey[] => [
  pool.pool,
  pool.vaultA,
  pool.vaultB,
  pool.mintA,
  pool.mintB,
];

/** Every unordered pair of the configured pairs' assets, once: the pools a venue for these pairs needs. */
export function venuePairs(pairs: readonly { input: { symbol: string }; output: { symbol: string } }[]) {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const pair of pairs) {
    const [x, y] = [pair.input.symbol, pair.output.symbol].sort();
    const key = `${x}/${y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([x as string, y as string]);
  }
  return out;
}
