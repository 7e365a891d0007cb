// A sandwich attacker on the embedded venue: it sees a maker swap before it lands (as a validator or a
// mempool watcher would), front-runs it in the same direction as far as the swap's own minimum out still
// lets it land, lets it land, and sells back. What the maker bought against what the untouched pool would
// have paid is what the attacker's move took from it: the extractable amount, measured on chain.
import { randomBytes } from 'node:crypto';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { readSwapOutcome } from '../../src/aggregator/index.ts';
import type { ChainPort, LandResult, SignedMakerTransaction } from '../../src/chain/port.ts';
import { ata, isNativeMint } from '../../src/chain/token.ts';
import type { EmbeddedVenue } from '../../src/venue/embedded.ts';
import { amountInToReach, type Ratio, swapExactIn, swapInstruction } from '../../src/venue/index.ts';

const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** The maker swap an attacker reads from its bytes: the AMM instruction's exact in and minimum out. */
export function readMakerSwap(
  transactionBase64: string,
  ammProgram: PublicKey,
): { amountIn: bigint; minOut: bigint } {
  const tx = VersionedTransaction.deserialize(Buffer.from(transactionBase64, 'base64'));
  const keys = tx.message.staticAccountKeys;
  for (const ix of tx.message.compiledInstructions) {
    const data = Buffer.from(ix.data);
    if (keys[ix.programIdIndex]?.equals(ammProgram) && data.length === 17 && data[0] === 3) {
      return { amountIn: data.readBigUInt64LE(1), minOut: data.readBigUInt64LE(9) };
    }
  }
  throw new Error('no AMM swap in the maker transaction');
}

/** Whether the bytes are a maker swap (a v0 transaction: the maker's escrow transactions are legacy). */
export function isSwapTransaction(transactionBase64: string): boolean {
  const bytes = Buffer.from(transactionBase64, 'base64');
  const message = 1 + 64 * (bytes[0] ?? 0);
  return ((bytes[message] ?? 0) & 0x80) !== 0;
}

export interface SandwichResult {
  /** What the maker's swap would have bought from the pool as it stood. */
  untouchedOut: bigint;
  /** What it bought (read from the chain), or null when it failed. */
  boughtOut: bigint | null;
  minOut: bigint;
  amountIn: bigint;
  /** The attacker's front-run, in the maker's input mint. */
  frontRunIn: bigint;
  /** The maker's loss to the attack, bps of the untouched out (what the attacker could extract). */
  lossBps: number;
  /** The attacker's gain in the maker's input mint once it sold back (negative: it lost). */
  attackerGainRaw: bigint;
  /** How the maker's swap landed. */
  landed: LandResult;
}

type Chain = Pick<
  ChainPort,
  'latestBlockhash' | 'submitSigned' | 'land' | 'getTransaction' | 'makerWallet' | 'tokenBalance'
> & {
  airdrop(a: { wallet: PublicKey; mint: PublicKey; amount: bigint }): Promise<{ signature: string }>;
};

export class Sandwicher {
  readonly wallet = Keypair.generate();

  constructor(
    private readonly chain: Chain,
    private readonly venue: EmbeddedVenue,
  ) {}

  /** Funds the attacker with plenty of both mints (SOL wrapped). */
  async fund(mint: PublicKey, amount: bigint): Promise<void> {
    const me = this.wallet.publicKey;
    if (!isNativeMint(mint)) {
      await this.chain.airdrop({ wallet: me, mint, amount });
      return;
    }
    await this.chain.airdrop({ wallet: me, mint, amount: amount + 1_000_000_000n });
    await this.send([
      createAssociatedTokenAccountIdempotentInstruction(me, ata(me, mint), me, mint),
      SystemProgram.transfer({ fromPubkey: me, toPubkey: ata(me, mint), lamports: amount }),
      createSyncNativeInstruction(ata(me, mint)),
    ]);
  }

  /** The pool's reserves as (input, output) of a swap from `inMint`. */
  private reserves(inMint: PublicKey, outMint: PublicKey) {
    const pool = this.venue.poolOf(inMint, outMint);
    const now = pool && this.venue.snapshot(pool);
    if (!pool || !now) throw new Error('no pool for the pair');
    const aIn = now.mintA.equals(inMint);
    return {
      pool: now,
      feeBps: now.feeBps,
      reserves: aIn
        ? { reserveIn: now.reserveA, reserveOut: now.reserveB }
        : { reserveIn: now.reserveB, reserveOut: now.reserveA },
    };
  }

  /** The largest front-run that still leaves the maker's swap its minimum out (a binary search). */
  private largestFrontRun(
    r: { reserveIn: bigint; reserveOut: bigint },
    feeBps: number,
    amountIn: bigint,
    minOut: bigint,
  ): bigint {
    const makerOut = (x: bigint) => {
      if (x === 0n) {
        const s = swapExactIn(r, amountIn, feeBps);
        return s.ok ? s.amountOut : 0n;
      }
      const front = swapExactIn(r, x, feeBps);
      if (!front.ok) return 0n;
      const s = swapExactIn({ reserveIn: front.reserveIn, reserveOut: front.reserveOut }, amountIn, feeBps);
      return s.ok ? s.amountOut : 0n;
    };
    if (makerOut(0n) < minOut) return 0n;
    let lo = 0n;
    let hi = r.reserveIn;
    while (makerOut(hi) >= minOut) hi *= 2n;
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (makerOut(mid) >= minOut) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Sandwiches the maker's signed swap (from `inMint` to `outMint`): front-run by `frontRun(largest)` (the
   * largest the swap's minimum out allows, by default), the maker's swap landed, the attacker's position
   * sold back. The pool is put back where it stood before, so the next measurement starts from the same
   * price.
   */
  async attack(
    signed: SignedMakerTransaction,
    inMint: PublicKey,
    outMint: PublicKey,
    frontRun: (largest: bigint) => bigint = (largest) => largest,
  ): Promise<SandwichResult> {
    const { amountIn, minOut } = readMakerSwap(signed.transactionBase64, this.venue.programId);
    const before = this.reserves(inMint, outMint);
    const spot: Ratio = { num: before.pool.reserveB, den: before.pool.reserveA };
    const untouched = swapExactIn(before.reserves, amountIn, before.feeBps);
    if (!untouched.ok) throw new Error(`the untouched pool refuses the swap: ${untouched.error}`);
    const x = frontRun(this.largestFrontRun(before.reserves, before.feeBps, amountIn, minOut));
    const me = this.wallet.publicKey;
    const startIn = await this.chain.tokenBalance(me, inMint);
    const startOut = await this.chain.tokenBalance(me, outMint);
    if (x > 0n) await this.swap(inMint, outMint, x);
    const landed = await this.chain.land(signed, 'finalized', 5_000);
    const outcome = await readSwapOutcome(this.chain, signed.signature, {
      inputMint: inMint.toBase58(),
      outputMint: outMint.toBase58(),
    });
    // The back-run: everything the front-run bought, sold back.
    const bought = (await this.chain.tokenBalance(me, outMint)) - startOut;
    if (bought > 0n) await this.swap(outMint, inMint, bought);
    const attackerGainRaw = (await this.chain.tokenBalance(me, inMint)) - startIn;
    await this.restore(inMint, outMint, spot);
    const boughtOut = outcome?.amountOut ?? null;
    const lost = untouched.amountOut - (boughtOut ?? untouched.amountOut);
    return {
      untouchedOut: untouched.amountOut,
      boughtOut,
      minOut,
      amountIn,
      frontRunIn: x,
      lossBps: Number((lost * 10_000n) / untouched.amountOut),
      attackerGainRaw,
      landed,
    };
  }

  /** Moves the pool back to the spot price it had (reserve_b per reserve_a), as an arbitrageur would. */
  async restore(x: PublicKey, y: PublicKey, spot: Ratio): Promise<void> {
    const pool = this.venue.poolOf(x, y);
    const now = pool && this.venue.snapshot(pool);
    if (!now) return;
    const current: Ratio = { num: now.reserveB, den: now.reserveA };
    // A is dear when its price in B is above the target: sell A.
    const sellA = current.num * spot.den > spot.num * current.den;
    const reserves = sellA
      ? { reserveIn: now.reserveA, reserveOut: now.reserveB }
      : { reserveIn: now.reserveB, reserveOut: now.reserveA };
    const goal = sellA ? spot : { num: spot.den, den: spot.num };
    const amountIn = amountInToReach(reserves, goal, now.feeBps, reserves.reserveIn);
    if (amountIn > 0n) {
      await this.swap(sellA ? now.mintA : now.mintB, sellA ? now.mintB : now.mintA, amountIn);
    }
  }

  /** The attacker's own swap through the pool (no minimum: it trades on what it knows). */
  async swap(inMint: PublicKey, outMint: PublicKey, amountIn: bigint): Promise<void> {
    const { pool } = this.reserves(inMint, outMint);
    const aIn = pool.mintA.equals(inMint);
    const me = this.wallet.publicKey;
    await this.send([
      createAssociatedTokenAccountIdempotentInstruction(me, ata(me, outMint), me, outMint),
      swapInstruction({
        programId: this.venue.programId,
        user: me,
        pool: pool.pool,
        vaultIn: aIn ? pool.vaultA : pool.vaultB,
        vaultOut: aIn ? pool.vaultB : pool.vaultA,
        userSource: ata(me, inMint),
        userDestination: ata(me, outMint),
        amountIn,
        minOut: 1n,
      }),
    ]);
  }

  private async send(instructions: TransactionInstruction[]): Promise<void> {
    const { blockhash, lastValidBlockHeight } = await this.chain.latestBlockhash();
    const nonce = new TransactionInstruction({
      programId: new PublicKey(MEMO_PROGRAM_ID),
      keys: [],
      data: Buffer.from(`sandwich ${randomBytes(8).toString('hex')}`),
    });
    const tx = new Transaction({ feePayer: this.wallet.publicKey, blockhash, lastValidBlockHeight }).add(
      ...instructions,
      nonce,
    );
    tx.sign(this.wallet);
    await this.chain.submitSigned(tx.serialize().toString('base64'));
  }
}
