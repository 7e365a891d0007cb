// Adversarial suite for the AMM program: random sequences of honest and hostile swaps, deposits,
// withdrawals, re-initializations and replays against two pools that share a mint, checked step by step
// against a reference model. Every refused operation must fail with the named AMM error the model
// expects; after every step each token account holds exactly what the model says, each mint's total is
// unchanged, and no pool's reserve product has gone down except by its admin's withdrawal.

import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { type Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSwapData, initializePoolInstruction, swapExactIn, U64_MAX } from '../../src/venue/index.ts';
import { makeVenue, type PoolFixture, type Venue, withAccount } from './amm-harness.ts';
import type { Outcome } from './harness.ts';

type PoolName = 'XY' | 'XZ';
const SWAP_VARIANTS = [
  'honest',
  'minOutExact',
  'minOutAbove',
  'vaultOfOtherPool',
  'vaultsReversed',
  'sameVault',
  'sourceWrongMint',
  'sourceNotOwned',
  'destWrongMint',
  'destNotOwned',
  'destIsVault',
  'destIsSource',
  'unsigned',
  'forgedPool',
  'otherPool',
  'wrongTokenProgram',
  'vaultReadonly',
] as const;
const SIZES = ['zero', 'tiny', 'small', 'large', 'u64max'] as const;
const LIQUIDITY_VARIANTS = [
  'honest',
  'notAdmin',
  'unsigned',
  'adminTokenOfTrader',
  'adminTokenWrongMint',
  'vaultOfOtherPool',
  'zero',
  'tooMuch',
] as const;
const INIT_VARIANTS = ['again', 'mintsReversed', 'sameMint', 'notAMint', 'feeTooHigh'] as const;

type Op =
  | {
      op: 'swap';
      pool: PoolName;
      from: 'A' | 'B';
      size: (typeof SIZES)[number];
      amount: bigint;
      variant: (typeof SWAP_VARIANTS)[number];
    }
  | {
      op: 'deposit' | 'withdraw';
      pool: PoolName;
      amountA: bigint;
      amountB: bigint;
      variant: (typeof LIQUIDITY_VARIANTS)[number];
    }
  | { op: 'initialize'; variant: (typeof INIT_VARIANTS)[number] }
  | { op: 'replay'; which: 'last' | 'first' };

const honest = <T extends string>(variants: readonly T[]) =>
  fc.oneof(
    { arbitrary: fc.constant(variants[0] as T), weight: 3 },
    { arbitrary: fc.constantFrom(...variants), weight: 2 },
  );

const poolArb = fc.constantFrom<PoolName>('XY', 'XZ');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('swap' as const),
      pool: poolArb,
      from: fc.constantFrom('A' as const, 'B' as const),
      size: fc.constantFrom(...SIZES),
      amount: fc.bigInt({ min: 1n, max: 1_000_000n }),
      variant: honest(SWAP_VARIANTS),
    }),
    weight: 8,
  },
  {
    arbitrary: fc.record({
      op: fc.constantFrom('deposit' as const, 'withdraw' as const),
      pool: poolArb,
      amountA: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 100_000_000n })),
      amountB: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 100_000_000n })),
      variant: honest(LIQUIDITY_VARIANTS),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('initialize' as const),
      variant: fc.constantFrom(...INIT_VARIANTS),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('replay' as const),
      which: fc.constantFrom('last' as const, 'first' as const),
    }),
    weight: 1,
  },
);

interface Step {
  instructions: TransactionInstruction[];
  signers: Keypair[];
  /** 'ok' or the AMM error name the program must fail with. */
  expected: string;
  apply?: (balances: Map<string, bigint>) => void;
  /** A withdrawal may lower the pool's product; nothing else may. */
  lowersProduct?: boolean;
}

const firstFailure = (...checks: [boolean, string][]) => checks.find(([fails]) => fails)?.[1] ?? 'ok';

function unsign(ix: TransactionInstruction, key: PublicKey): TransactionInstruction {
  for (const k of ix.keys) if (k.pubkey.equals(key)) k.isSigner = false;
  return ix;
}

const observed = new Set<string>();

class World {
  readonly v: Venue;
  readonly balances = new Map<string, bigint>();
  readonly forgedPool = PublicKey.unique();
  readonly wires: Uint8Array[] = [];
  readonly totals: Map<string, bigint>;

  constructor() {
    this.v = makeVenue({ liquidity: 1_000_000_000n, balance: 1_000_000_000n, feeBps: 30 });
    const { v } = this;
    for (const key of this.tokenAccounts()) this.balances.set(key.toBase58(), v.chain.tokenBalance(key));
    this.totals = this.mintTotals();
    // A forged pool: the XY pool's exact bytes, but owned by the System program, not the AMM.
    const real = v.chain.account(v.pools.XY.pool);
    if (!real) throw new Error('no pool');
    v.chain.place(this.forgedPool, real.data, PublicKey.default, real.lamports);
  }

  tokenAccounts(): PublicKey[] {
    const { v } = this;
    return [
      ...Object.values(v.accounts.admin),
      ...Object.values(v.accounts.trader),
      ...Object.values(v.accounts.third),
      v.pools.XY.vaultA,
      v.pools.XY.vaultB,
      v.pools.XZ.vaultA,
      v.pools.XZ.vaultB,
    ];
  }

  mintTotals(): Map<string, bigint> {
    const totals = new Map<string, bigint>();
    for (const key of this.tokenAccounts()) {
      const account = this.v.chain.account(key);
      const mint = new PublicKey(account?.data.subarray(0, 32) ?? new Uint8Array(32)).toBase58();
      totals.set(mint, (totals.get(mint) ?? 0n) + this.v.chain.tokenBalance(key));
    }
    return totals;
  }

  bal(key: PublicKey): bigint {
    return this.balances.get(key.toBase58()) ?? 0n;
  }

  pool(name: PoolName): PoolFixture {
    return this.v.pools[name];
  }

  product(p: PoolFixture): bigint {
    return this.v.chain.tokenBalance(p.vaultA) * this.v.chain.tokenBalance(p.vaultB);
  }

  plan(op: Op): Step | 'replay' {
    const { v } = this;
    switch (op.op) {
      case 'swap': {
        const p = this.pool(op.pool);
        const other = this.pool(op.pool === 'XY' ? 'XZ' : 'XY');
        const amount =
          op.size === 'zero'
            ? 0n
            : op.size === 'tiny'
              ? (op.amount % 10n) + 1n
              : op.size === 'small'
                ? (op.amount % 10_000n) + 1n
                : op.size === 'large'
                  ? op.amount * 1_000n
                  : U64_MAX;
        const vaultIn = op.from === 'A' ? p.vaultA : p.vaultB;
        const vaultOut = op.from === 'A' ? p.vaultB : p.vaultA;
        const mintIn = op.from === 'A' ? p.mintA : p.mintB;
        const mintOut = op.from === 'A' ? p.mintB : p.mintA;
        const source = v.accounts.trader[v.nameOf(mintIn)];
        const destination = v.accounts.trader[v.nameOf(mintOut)];
        const quote = swapExactIn(
          { reserveIn: this.bal(vaultIn), reserveOut: this.bal(vaultOut) },
          amount,
          p.feeBps,
        );
        const variant = op.variant;
        const minOut =
          quote.ok && variant === 'minOutExact'
            ? quote.amountOut
            : quote.ok && variant === 'minOutAbove'
              ? quote.amountOut + 1n
              : 0n;
        let ix = v.swap(p, op.from, amount, minOut);
        // The other pool's vault of the same mint, when it has one (both pools hold X).
        const otherVaultOfMintIn = other.mintA.equals(mintIn)
          ? other.vaultA
          : other.mintB.equals(mintIn)
            ? other.vaultB
            : other.vaultA;
        if (variant === 'vaultOfOtherPool') ix = withAccount(ix, 2, otherVaultOfMintIn);
        if (variant === 'vaultsReversed') {
          ix = withAccount(ix, 2, vaultOut);
          ix = withAccount(ix, 3, vaultIn);
        }
        if (variant === 'sameVault') ix = withAccount(ix, 3, vaultIn);
        // The trader's account of the one mint this pool does not trade.
        const foreign = Object.values(v.mints).find(
          (m) => !m.equals(p.mintA) && !m.equals(p.mintB),
        ) as PublicKey;
        const wrongMint = v.accounts.trader[v.nameOf(foreign)];
        if (variant === 'sourceWrongMint') ix = withAccount(ix, 4, wrongMint);
        if (variant === 'sourceNotOwned') ix = withAccount(ix, 4, v.accounts.third[v.nameOf(mintIn)]);
        if (variant === 'destWrongMint') ix = withAccount(ix, 5, wrongMint);
        if (variant === 'destNotOwned') ix = withAccount(ix, 5, v.accounts.third[v.nameOf(mintOut)]);
        if (variant === 'destIsVault') ix = withAccount(ix, 5, vaultOut);
        if (variant === 'destIsSource') ix = withAccount(ix, 5, source);
        if (variant === 'unsigned') ix = unsign(ix, v.trader.publicKey);
        if (variant === 'forgedPool') ix = withAccount(ix, 1, this.forgedPool);
        if (variant === 'otherPool') ix = withAccount(ix, 1, other.pool);
        if (variant === 'wrongTokenProgram') ix = withAccount(ix, 6, TOKEN_2022_PROGRAM_ID);
        if (variant === 'vaultReadonly') {
          const meta = ix.keys[2];
          if (meta) meta.isWritable = false;
        }
        const expected = firstFailure(
          [variant === 'unsigned', 'MissingSignature'],
          [variant === 'vaultReadonly', 'AccountNotWritable'],
          [variant === 'forgedPool', 'InvalidPoolAccount'],
          [
            variant === 'vaultOfOtherPool' || variant === 'sameVault' || variant === 'otherPool',
            'InvalidVault',
          ],
          [variant === 'wrongTokenProgram', 'InvalidTokenProgram'],
          [variant === 'vaultsReversed' || variant === 'sourceWrongMint', 'TokenAccountMintMismatch'],
          [variant === 'sourceNotOwned', 'TokenAccountOwnerMismatch'],
          [variant === 'destWrongMint' || variant === 'destIsSource', 'TokenAccountMintMismatch'],
          [variant === 'destNotOwned' || variant === 'destIsVault', 'TokenAccountOwnerMismatch'],
          [amount === 0n, 'ZeroAmount'],
          [this.bal(source) < amount, 'InsufficientFunds'],
          [!quote.ok, quote.ok ? '' : quote.error],
          [variant === 'minOutAbove', 'SlippageExceeded'],
        );
        return {
          instructions: [ix],
          signers: variant === 'unsigned' ? [v.third] : [v.trader],
          expected,
          apply: (b) => {
            if (!quote.ok) throw new Error('applied a refused swap');
            const add = (k: PublicKey, d: bigint) => b.set(k.toBase58(), (b.get(k.toBase58()) ?? 0n) + d);
            add(source, -amount);
            add(vaultIn, amount);
            add(vaultOut, -quote.amountOut);
            add(destination, quote.amountOut);
          },
        };
      }
      case 'deposit':
      case 'withdraw': {
        const p = this.pool(op.pool);
        const other = this.pool(op.pool === 'XY' ? 'XZ' : 'XY');
        const variant = op.variant;
        const amountA =
          variant === 'zero'
            ? 0n
            : variant === 'tooMuch' && op.op === 'withdraw'
              ? this.bal(p.vaultA) + 1n
              : op.amountA;
        const amountB = variant === 'zero' ? 0n : op.amountB;
        let ix = v.liquidity(op.op, p, amountA, amountB, variant === 'notAdmin' ? v.third : v.admin);
        if (variant === 'notAdmin') {
          ix = withAccount(ix, 4, v.accounts.third[v.nameOf(p.mintA)]);
          ix = withAccount(ix, 5, v.accounts.third[v.nameOf(p.mintB)]);
        }
        if (variant === 'unsigned') ix = unsign(ix, v.admin.publicKey);
        if (variant === 'adminTokenOfTrader') ix = withAccount(ix, 4, v.accounts.trader[v.nameOf(p.mintA)]);
        if (variant === 'adminTokenWrongMint') ix = withAccount(ix, 5, v.accounts.admin[v.nameOf(p.mintA)]);
        if (variant === 'vaultOfOtherPool') ix = withAccount(ix, 2, other.vaultA);
        const ownA = v.accounts.admin[v.nameOf(p.mintA)];
        const ownB = v.accounts.admin[v.nameOf(p.mintB)];
        const deposit = op.op === 'deposit';
        const short = deposit ? this.bal(ownA) < amountA || this.bal(ownB) < amountB : false;
        const tooMuch = !deposit && (this.bal(p.vaultA) < amountA || this.bal(p.vaultB) < amountB);
        const expected = firstFailure(
          [variant === 'unsigned', 'MissingSignature'],
          [variant === 'notAdmin', 'NotAdmin'],
          [variant === 'vaultOfOtherPool', 'InvalidVault'],
          [variant === 'adminTokenOfTrader', 'TokenAccountOwnerMismatch'],
          [variant === 'adminTokenWrongMint', 'TokenAccountMintMismatch'],
          [amountA === 0n && amountB === 0n, 'ZeroAmount'],
          [short, 'InsufficientFunds'],
          [tooMuch, 'InsufficientLiquidity'],
        );
        return {
          instructions: [ix],
          signers: variant === 'unsigned' ? [v.trader] : [variant === 'notAdmin' ? v.third : v.admin],
          expected,
          lowersProduct: !deposit,
          apply: (b) => {
            const sign = deposit ? 1n : -1n;
            const add = (k: PublicKey, d: bigint) => b.set(k.toBase58(), (b.get(k.toBase58()) ?? 0n) + d);
            add(p.vaultA, sign * amountA);
            add(p.vaultB, sign * amountB);
            add(ownA, -sign * amountA);
            add(ownB, -sign * amountB);
          },
        };
      }
      case 'initialize': {
        const p = this.pool('XY');
        let ix = initializePoolInstruction({
          programId: v.programId,
          admin: v.admin.publicKey,
          mints: [p.mintA, p.mintB],
          feeBps: 30,
        });
        if (op.variant === 'mintsReversed') {
          ix = withAccount(ix, 2, p.mintB);
          ix = withAccount(ix, 3, p.mintA);
        }
        if (op.variant === 'sameMint') ix = withAccount(ix, 3, p.mintA);
        // A token account where a mint belongs.
        if (op.variant === 'notAMint') ix = withAccount(ix, 3, v.accounts.trader[v.nameOf(p.mintB)]);
        if (op.variant === 'feeTooHigh') ix.data.writeUInt16LE(10_000, 1);
        const expected = {
          again: 'PoolAlreadyExists',
          mintsReversed: 'MintsNotOrdered',
          sameMint: 'MintsNotOrdered',
          notAMint: 'InvalidMint',
          feeTooHigh: 'InvalidFee',
        }[op.variant];
        return { instructions: [ix], signers: [v.admin], expected };
      }
      case 'replay':
        return 'replay';
    }
  }

  run(op: Op): void {
    const { v } = this;
    const planned = this.plan(op);
    const products = [this.product(this.pool('XY')), this.product(this.pool('XZ'))];
    if (planned === 'replay') {
      if (op.op !== 'replay') return;
      const wire = op.which === 'last' ? this.wires.at(-1) : this.wires[0];
      if (!wire) return;
      const outcome = v.chain.sendWire(wire);
      // The same signed bytes never run twice: refused before the program sees them.
      expect(['AlreadyProcessed', 'BlockhashNotFound'], explain(op, outcome)).toContain(outcome.error);
      observed.add(outcome.error ?? 'unknown');
      this.verify(op, products, false);
      return;
    }
    const outcome = v.chain.send(planned.instructions, planned.signers);
    this.wires.push(outcome.wire);
    const actual = outcome.ok ? 'ok' : (outcome.errorName ?? outcome.error);
    expect(actual, explain(op, outcome)).toBe(planned.expected);
    observed.add(actual ?? 'unknown');
    if (outcome.ok) planned.apply?.(this.balances);
    this.verify(op, products, outcome.ok && planned.lowersProduct === true);
  }

  verify(op: Op, productsBefore: bigint[], mayLower: boolean): void {
    const { v } = this;
    const what = JSON.stringify(op, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
    for (const [key, expected] of this.balances) {
      expect(v.chain.tokenBalance(new PublicKey(key)), `balance of ${key} after ${what}`).toBe(expected);
    }
    expect(this.mintTotals(), `mint totals after ${what}`).toEqual(this.totals);
    if (!mayLower) {
      expect(this.product(this.pool('XY')) >= (productsBefore[0] ?? 0n), `XY product after ${what}`).toBe(
        true,
      );
      expect(this.product(this.pool('XZ')) >= (productsBefore[1] ?? 0n), `XZ product after ${what}`).toBe(
        true,
      );
    }
  }
}

function explain(op: Op, outcome: Outcome): string {
  const what = JSON.stringify(op, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  return `${what} -> ${outcome.ok ? 'ok' : outcome.error}\n${outcome.logs.join('\n')}`;
}

const swapOp = (
  variant: (typeof SWAP_VARIANTS)[number],
  size: (typeof SIZES)[number] = 'small',
  pool: PoolName = 'XY',
  from: 'A' | 'B' = 'A',
): Op => ({
  op: 'swap',
  pool,
  from,
  size,
  amount: 5_000n,
  variant,
});
const liq = (
  op: 'deposit' | 'withdraw',
  variant: (typeof LIQUIDITY_VARIANTS)[number],
  pool: PoolName = 'XY',
): Op => ({
  op,
  pool,
  amountA: 1_000n,
  amountB: 2_000n,
  variant,
});

// Sequences every run includes, so that each attack is exercised whatever the seed.
const EXAMPLES: Op[][] = [
  [
    ...SWAP_VARIANTS.map((variant) => swapOp(variant)),
    swapOp('honest', 'zero'),
    swapOp('honest', 'u64max'),
    swapOp('honest', 'tiny', 'XZ', 'B'),
    swapOp('honest', 'large', 'XZ', 'A'),
    { op: 'replay', which: 'last' },
    { op: 'replay', which: 'first' },
  ],
  [
    ...LIQUIDITY_VARIANTS.map((variant) => liq('deposit', variant)),
    ...LIQUIDITY_VARIANTS.map((variant) => liq('withdraw', variant, 'XZ')),
    ...INIT_VARIANTS.map((variant): Op => ({ op: 'initialize', variant })),
    swapOp('minOutExact', 'large', 'XZ', 'B'),
  ],
];

describe('amm program, adversarial sequences', () => {
  it('every operation succeeds or fails exactly as the reference model says; funds are conserved and k never falls', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 4, maxLength: 24 }), (ops) => {
        const world = new World();
        for (const op of ops) world.run(op);
      }),
      { numRuns: 30, examples: EXAMPLES.map((ops) => [ops]) },
    );
    expect([...observed].sort()).toEqual(
      expect.arrayContaining([
        'ok',
        'AlreadyProcessed',
        'AccountNotWritable',
        'InsufficientFunds',
        'InsufficientLiquidity',
        'InvalidFee',
        'InvalidMint',
        'InvalidPoolAccount',
        'InvalidTokenProgram',
        'InvalidVault',
        'MintsNotOrdered',
        'MissingSignature',
        'NotAdmin',
        'PoolAlreadyExists',
        'SlippageExceeded',
        'TokenAccountMintMismatch',
        'TokenAccountOwnerMismatch',
        'ZeroAmount',
      ]),
    );
  });

  it('many tiny swaps cannot drain a pool: each one keeps or raises k, and a round trip never profits', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            from: fc.constantFrom('A' as const, 'B' as const),
            amount: fc.bigInt({ min: 1n, max: 40n }),
          }),
          {
            minLength: 20,
            maxLength: 60,
          },
        ),
        fc.integer({ min: 0, max: 100 }),
        (swaps, feeBps) => {
          const v = makeVenue({ liquidity: 3_000n, balance: 1_000_000n, feeBps });
          const p = v.pools.XY;
          // The trader's holdings valued at the pool's starting price (1: both reserves equal).
          const trader = () =>
            v.chain.tokenBalance(v.accounts.trader[v.nameOf(p.mintA)]) +
            v.chain.tokenBalance(v.accounts.trader[v.nameOf(p.mintB)]);
          const start = trader();
          let k = v.chain.tokenBalance(p.vaultA) * v.chain.tokenBalance(p.vaultB);
          for (const s of swaps) {
            const outcome = v.chain.send([v.swap(p, s.from, s.amount, 0n)], [v.trader]);
            if (!outcome.ok) expect(outcome.errorName).toBe('ZeroOutput');
            const next = v.chain.tokenBalance(p.vaultA) * v.chain.tokenBalance(p.vaultB);
            expect(next >= k).toBe(true);
            k = next;
          }
          // k ≥ 3000² means a + b ≥ 6000: at the starting price the pool lost nothing, so the trader won nothing.
          const a = v.chain.tokenBalance(p.vaultA);
          const b = v.chain.tokenBalance(p.vaultB);
          expect(a + b >= 6_000n).toBe(true);
          expect(trader() <= start).toBe(true);
          // A round trip: sell x of A, sell everything received back; never more A than before.
          const x = 500n;
          const before = v.chain.tokenBalance(v.accounts.trader[v.nameOf(p.mintA)]);
          const outB = swapExactIn({ reserveIn: a, reserveOut: b }, x, feeBps);
          if (!outB.ok) return;
          v.chain.send([v.swap(p, 'A', x, 0n)], [v.trader]);
          v.chain.send([v.swap(p, 'B', outB.amountOut, 0n)], [v.trader]);
          expect(v.chain.tokenBalance(v.accounts.trader[v.nameOf(p.mintA)]) <= before).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('refuses an instruction whose data is the wrong length or tag', () => {
    const v = makeVenue();
    const p = v.pools.XY;
    const ix = v.swap(p, 'A', 10n, 0n);
    ix.data = encodeSwapData(10n, 0n).subarray(0, 16);
    expect(v.chain.send([ix], [v.trader]).errorName).toBe('InvalidInstruction');
    const tagged = v.swap(p, 'A', 10n, 0n);
    tagged.data[0] = 9;
    expect(v.chain.send([tagged], [v.trader]).errorName).toBe('InvalidInstruction');
    const short = v.swap(p, 'A', 10n, 0n);
    short.keys = short.keys.slice(0, 6);
    expect(v.chain.send([short], [v.trader]).errorName).toBe('NotEnoughAccounts');
  });
});
