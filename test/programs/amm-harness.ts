// Test harness for the AMM program: the HTLC harness's litesvm chain with the committed amm.so added, its
// failures named by the AMM's error table, and a venue fixture — an admin's pools over three mints with a
// trader, a third party and every token account the attacks need.

import { address, getTransactionDecoder } from '@solana/kit';
import { type Keypair, PublicKey } from '@solana/web3.js';
import { FailedTransactionMetadata } from 'litesvm';
import {
  ammErrorName,
  DEFAULT_AMM_PROGRAM_ID,
  initializePoolInstruction,
  liquidityInstruction,
  loadAmmProgram,
  poolAccounts,
  swapInstruction,
} from '../../src/venue/index.ts';
import { expectOk, HtlcChain, type Outcome } from './harness.ts';

const txDecoder = getTransactionDecoder();

export class AmmChain extends HtlcChain {
  readonly ammProgramId = DEFAULT_AMM_PROGRAM_ID;

  constructor(options: { nativeMints?: boolean } = {}) {
    super(options);
    this.svm.addProgram(address(this.ammProgramId.toBase58()), loadAmmProgram());
  }

  /** As HtlcChain.sendWire, with the AMM's error names (checked against its own log line). */
  override sendWire(wire: Uint8Array): Outcome {
    const result = this.svm.sendTransaction(txDecoder.decode(wire));
    if (!(result instanceof FailedTransactionMetadata)) {
      return { ok: true, logs: result.logs(), computeUnits: result.computeUnitsConsumed(), wire };
    }
    const meta = result.meta();
    const logs = meta.logs();
    const err = result.err() as unknown;
    const inner =
      typeof err === 'object' && err !== null && 'err' in err && typeof err.err === 'function'
        ? (err.err as () => unknown)()
        : undefined;
    const code =
      typeof inner === 'object' && inner !== null && 'code' in inner && typeof inner.code === 'number'
        ? inner.code
        : undefined;
    const logged = logs.map((l) => /amm: error (\w+)/.exec(l)?.[1]).find(Boolean);
    const name = code !== undefined && logged === ammErrorName(code) ? logged : undefined;
    return {
      ok: false,
      logs,
      computeUnits: meta.computeUnitsConsumed(),
      ...(name !== undefined ? { code, errorName: name } : {}),
      error: code !== undefined ? `Custom(${code})` : describe(err, inner),
      wire,
    };
  }
}

function describe(err: unknown, inner: unknown): string {
  if (inner !== undefined) return `InstructionError(${typeof inner === 'number' ? inner : String(inner)})`;
  // litesvm's fieldless TransactionError values, by number (see harness.ts).
  const names: Record<number, string> = {
    2: 'AccountNotFound',
    6: 'AlreadyProcessed',
    7: 'BlockhashNotFound',
    9: 'MissingSignatureForFee',
    11: 'SignatureFailure',
  };
  return typeof err === 'number' ? (names[err] ?? `TransactionError(${err})`) : String(err);
}

export interface PoolFixture {
  pool: PublicKey;
  mintA: PublicKey;
  mintB: PublicKey;
  vaultA: PublicKey;
  vaultB: PublicKey;
  feeBps: number;
}

/**
 * An admin with two pools — (X, Y) and (X, Z) — seeded with `liquidity` of each mint, a trader and a third
 * party holding `balance` of every mint, and all their token accounts.
 */
export function makeVenue(
  options: { chain?: AmmChain; feeBps?: number; liquidity?: bigint; balance?: bigint } = {},
) {
  const chain = options.chain ?? new AmmChain();
  const programId = chain.ammProgramId;
  const admin = chain.wallet();
  const trader = chain.wallet();
  const third = chain.wallet();
  const authority = chain.wallet();
  const feeBps = options.feeBps ?? 30;
  const liquidity = options.liquidity ?? 1_000_000_000n;
  const balance = options.balance ?? 1_000_000_000n;
  const mints = {
    X: chain.createMint(authority.publicKey),
    Y: chain.createMint(authority.publicKey),
    Z: chain.createMint(authority.publicKey),
  };
  type MintName = keyof typeof mints;
  const accountsOf = (owner: PublicKey, amount: bigint) =>
    Object.fromEntries(
      (Object.keys(mints) as MintName[]).map((m) => [m, chain.createTokenAccount(owner, mints[m], amount)]),
    ) as Record<MintName, PublicKey>;
  const accounts = {
    admin: accountsOf(admin.publicKey, liquidity * 4n),
    trader: accountsOf(trader.publicKey, balance),
    third: accountsOf(third.publicKey, balance),
  };

  const createPool = (x: MintName, y: MintName, fee = feeBps): PoolFixture => {
    const p = poolAccounts(programId, admin.publicKey, mints[x], mints[y]);
    expectOk(
      chain.send(
        [
          initializePoolInstruction({
            programId,
            admin: admin.publicKey,
            mints: [mints[x], mints[y]],
            feeBps: fee,
          }),
        ],
        [admin],
      ),
      'initialize',
    );
    const tokenOf = (mint: PublicKey) =>
      accounts.admin[(Object.keys(mints) as MintName[]).find((m) => mints[m].equals(mint)) as MintName];
    expectOk(
      chain.send(
        [
          liquidityInstruction({
            programId,
            kind: 'deposit',
            admin: admin.publicKey,
            pool: p.pool,
            vaultA: p.vaultA,
            vaultB: p.vaultB,
            adminTokenA: tokenOf(p.mintA),
            adminTokenB: tokenOf(p.mintB),
            amountA: liquidity,
            amountB: liquidity,
          }),
        ],
        [admin],
      ),
      'deposit',
    );
    return { ...p, feeBps: fee };
  };

  const pools = { XY: createPool('X', 'Y'), XZ: createPool('X', 'Z') };

  /** The mint name of a key, for choosing token accounts by mint. */
  const nameOf = (mint: PublicKey): MintName =>
    (Object.keys(mints) as MintName[]).find((m) => mints[m].equals(mint)) as MintName;

  /** An honest swap of `amountIn` of `from` for the pool's other mint, by `who`. */
  const swap = (
    pool: PoolFixture,
    from: 'A' | 'B',
    amountIn: bigint,
    minOut: bigint,
    who: Keypair = trader,
    own: Record<MintName, PublicKey> = accounts.trader,
  ) => {
    const mintIn = from === 'A' ? pool.mintA : pool.mintB;
    const mintOut = from === 'A' ? pool.mintB : pool.mintA;
    return swapInstruction({
      programId,
      user: who.publicKey,
      pool: pool.pool,
      vaultIn: from === 'A' ? pool.vaultA : pool.vaultB,
      vaultOut: from === 'A' ? pool.vaultB : pool.vaultA,
      userSource: own[nameOf(mintIn)],
      userDestination: own[nameOf(mintOut)],
      amountIn,
      minOut,
    });
  };

  const liquidity_ = (
    kind: 'deposit' | 'withdraw',
    pool: PoolFixture,
    amountA: bigint,
    amountB: bigint,
    who = admin,
  ) =>
    liquidityInstruction({
      programId,
      kind,
      admin: who.publicKey,
      pool: pool.pool,
      vaultA: pool.vaultA,
      vaultB: pool.vaultB,
      adminTokenA: accounts.admin[nameOf(pool.mintA)],
      adminTokenB: accounts.admin[nameOf(pool.mintB)],
      amountA,
      amountB,
    });

  return {
    chain,
    programId,
    admin,
    trader,
    third,
    mints,
    accounts,
    pools,
    nameOf,
    swap,
    liquidity: liquidity_,
    createPool,
  };
}

export type Venue = ReturnType<typeof makeVenue>;

/** The instruction with account `index` replaced (flags kept). */
export function withAccount<
  T extends { keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[] },
>(ix: T, index: number, pubkey: PublicKey): T {
  const meta = ix.keys[index];
  if (!meta) throw new Error(`no account ${index}`);
  ix.keys[index] = { ...meta, pubkey };
  return ix;
}

export const unique = () => PublicKey.unique();
