// The simulated lock's effects held to the agreement, as properties on before/after states built byte by
// byte: an honest lock (the quoted input into the escrow, the fee and the escrow's rent out of the wallet, the
// output account created) passes; each way a lock could take more than agreed fails the check named for it.
import { fc, test } from '@fast-check/vitest';
import { getAddressDecoder, getAddressEncoder, address as toAddress } from '@solana/kit';
import { describe, expect } from 'vitest';
import {
  type AccountState,
  checkLockSimulation,
  DEFAULT_HTLC_PROGRAM_ID,
  ESCROW_RENT_LAMPORTS,
  type LockAgreement,
  type LockSimulation,
  lockAgreement,
  type SimulationCheckName,
} from '../src/index.ts';

const SYSTEM = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const NATIVE = 'So11111111111111111111111111111111111111112';
const TOKEN_RENT = 2_039_280n;
const MAX_FEE = 1_000_000n;
const BASE_FEE = 5_000n;

const addressOf = (bytes: Uint8Array) => getAddressDecoder().decode(bytes);
const encode = (a: string) => getAddressEncoder().encode(toAddress(a));

function tokenAccount(a: {
  mint: string;
  owner: string;
  amount: bigint;
  delegate?: string;
  closeAuthority?: string;
  native?: boolean;
}): AccountState {
  const data = new Uint8Array(165);
  const view = new DataView(data.buffer);
  data.set(encode(a.mint), 0);
  data.set(encode(a.owner), 32);
  view.setBigUint64(64, a.amount, true);
  if (a.delegate) {
    data[72] = 1;
    data.set(encode(a.delegate), 76);
  }
  data[108] = 1;
  if (a.closeAuthority) {
    data[129] = 1;
    data.set(encode(a.closeAuthority), 133);
  }
  return { owner: TOKEN, lamports: TOKEN_RENT + (a.native ? a.amount : 0n), data };
}

const wallet = (lamports: bigint): AccountState => ({ owner: SYSTEM, lamports, data: new Uint8Array(0) });

interface World {
  agreement: LockAgreement;
  simulation: LockSimulation;
  stranger: string;
}

/** An honest lock's simulation: the input moves into the vault, the wallet pays fee and rents. */
const honestWorld = fc
  .record({
    seeds: fc.uniqueArray(fc.uint8Array({ minLength: 32, maxLength: 32 }), {
      minLength: 5,
      maxLength: 5,
      selector: (b) => Buffer.from(b).toString('hex'),
    }),
    native: fc.boolean(),
    amount: fc.bigInt({ min: 1n, max: 10n ** 15n }),
    extra: fc.bigInt({ min: 0n, max: 10n ** 15n }),
    lamports: fc.bigInt({ min: 10n ** 8n, max: 10n ** 12n }),
    outputExists: fc.boolean(),
    priority: fc.bigInt({ min: 0n, max: MAX_FEE }),
  })
  .map(async (w): Promise<World> => {
    const [taker, maker, inputMint, outputMint, stranger] = w.seeds.map(addressOf) as string[];
    const agreement = await lockAgreement({
      programId: DEFAULT_HTLC_PROGRAM_ID,
      taker: taker as string,
      maker: maker as string,
      inputMint: w.native ? NATIVE : (inputMint as string),
      outputMint: outputMint as string,
      amountRaw: w.amount,
      hashlock: new Uint8Array(32).fill(3),
      minExpiry: 0n,
      maxExpiry: 1n,
      maxPriorityFeeLamports: MAX_FEE,
      maxComputeUnitLimit: 400_000,
    });
    const fee = BASE_FEE + w.priority;
    const lamports = w.lamports + (w.native ? w.amount : 0n);
    const outputRent = w.outputExists ? 0n : TOKEN_RENT;
    const accounts: LockSimulation['accounts'] = [
      {
        address: agreement.taker,
        before: wallet(lamports),
        // SOL input: the wallet wraps the amount into its wrapped-SOL account, which the lock empties again.
        after: wallet(lamports - fee - ESCROW_RENT_LAMPORTS - outputRent - (w.native ? w.amount : 0n)),
      },
      {
        address: agreement.inputTokenAccount,
        before: tokenAccount({
          mint: agreement.inputMint,
          owner: agreement.taker,
          amount: w.native ? w.extra : w.amount + w.extra,
          native: w.native,
        }),
        after: tokenAccount({
          mint: agreement.inputMint,
          owner: agreement.taker,
          amount: w.extra,
          native: w.native,
        }),
      },
      {
        address: agreement.outputTokenAccount,
        before: w.outputExists
          ? tokenAccount({ mint: agreement.outputMint, owner: agreement.taker, amount: 7n })
          : null,
        after: tokenAccount({
          mint: agreement.outputMint,
          owner: agreement.taker,
          amount: w.outputExists ? 7n : 0n,
        }),
      },
      {
        address: agreement.takerEscrow,
        before: null,
        after: { owner: DEFAULT_HTLC_PROGRAM_ID, lamports: 2_728_320n, data: new Uint8Array(264) },
      },
      {
        address: agreement.vault,
        before: null,
        after: tokenAccount({
          mint: agreement.inputMint,
          owner: agreement.takerEscrow,
          amount: w.amount,
          native: w.native,
        }),
      },
    ];
    return {
      agreement,
      simulation: {
        err: null,
        logs: [],
        unitsConsumed: 30_000n,
        baseFeeLamports: BASE_FEE,
        priorityFeeLamports: w.priority,
        accounts,
      },
      stranger: stranger as string,
    };
  });

const failed = (w: World) =>
  checkLockSimulation(w.agreement, w.simulation)
    .checks.filter((c) => !c.ok)
    .map((c) => c.name);

/** Replaces one watched account's after-state. */
function withAfter(
  w: World,
  address: string,
  after: (before: AccountState | null, now: AccountState | null) => AccountState | null,
): World {
  return {
    ...w,
    simulation: {
      ...w.simulation,
      accounts: w.simulation.accounts.map((a) =>
        a.address === address ? { ...a, after: after(a.before, a.after) } : a,
      ),
    },
  };
}

const LIES: { name: string; lie(w: World): World; fails(w: World): SimulationCheckName[] }[] = [
  {
    name: 'twice the input taken',
    lie: (w) => ({
      ...w,
      simulation: {
        ...w.simulation,
        accounts: [
          ...w.simulation.accounts,
          {
            address: w.stranger,
            before: tokenAccount({
              mint: w.agreement.inputMint,
              owner: w.agreement.taker,
              amount: w.agreement.amountRaw,
              native: isNative(w),
            }),
            after: tokenAccount({
              mint: w.agreement.inputMint,
              owner: w.agreement.taker,
              amount: 0n,
              native: isNative(w),
            }),
          },
        ],
      },
    }),
    // SPL input: the wallet's tokens move twice the input. SOL input: twice the input leaves its lamports.
    fails: (w) => (isNative(w) ? ['sol_spent'] : ['input_debited']),
  },
  {
    name: 'another token of the wallet’s moved',
    lie: (w) =>
      withAfter(w, w.agreement.outputTokenAccount, (_b, now) =>
        tokenAccount({
          mint: w.agreement.outputMint,
          owner: w.agreement.taker,
          amount: readAmount(now) + 1n,
        }),
      ),
    fails: () => ['other_tokens_unchanged'],
  },
  {
    name: 'a delegate over the output account',
    lie: (w) =>
      withAfter(w, w.agreement.outputTokenAccount, (_b, now) =>
        tokenAccount({
          mint: w.agreement.outputMint,
          owner: w.agreement.taker,
          amount: readAmount(now),
          delegate: w.stranger,
        }),
      ),
    fails: () => ['token_accounts_intact'],
  },
  {
    name: 'a close authority handed over',
    lie: (w) =>
      withAfter(w, w.agreement.inputTokenAccount, (_b, now) =>
        tokenAccount({
          mint: w.agreement.inputMint,
          owner: w.agreement.taker,
          amount: readAmount(now),
          closeAuthority: w.stranger,
          native: isNative(w),
        }),
      ),
    fails: () => ['token_accounts_intact'],
  },
  {
    name: 'the wallet assigned to another program',
    lie: (w) =>
      withAfter(w, w.agreement.taker, (_b, now) => ({
        owner: w.stranger,
        lamports: now?.lamports ?? 0n,
        data: new Uint8Array(0),
      })),
    fails: () => ['wallet_intact'],
  },
  {
    name: 'one lamport more than the fee and the escrow’s rent',
    lie: (w) => withAfter(w, w.agreement.taker, (_b, now) => wallet((now?.lamports ?? 0n) - 1n)),
    fails: () => ['sol_spent'],
  },
  {
    name: 'a simulation that failed',
    lie: (w) => ({ ...w, simulation: { ...w.simulation, err: { InstructionError: [1, { Custom: 6014 }] } } }),
    fails: () => ['simulation_ran'],
  },
];

const isNative = (w: World) => w.agreement.inputMint === NATIVE;

function readAmount(state: AccountState | null): bigint {
  return state ? new DataView(state.data.buffer, state.data.byteOffset).getBigUint64(64, true) : 0n;
}

describe('the simulated lock', () => {
  test.prop([honestWorld], { numRuns: 40 })('an honest lock’s effects pass every check', async (world) => {
    const w = await world;
    const result = checkLockSimulation(w.agreement, w.simulation);
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => c.name)).toEqual([
      'simulation_ran',
      'wallet_intact',
      'input_debited',
      'other_tokens_unchanged',
      'token_accounts_intact',
      'sol_spent',
    ]);
    const input = result.changes.find((c) => c.address === w.agreement.inputTokenAccount);
    if (w.agreement.inputMint !== NATIVE)
      expect((input?.before ?? 0n) - (input?.after ?? 0n)).toBe(w.agreement.amountRaw);
  });

  test.prop([honestWorld, fc.constantFrom(...LIES)], { numRuns: 120 })(
    'each way of taking more than agreed fails exactly its check',
    async (world, lie) => {
      const w = await world;
      expect(failed(lie.lie(w))).toEqual(lie.fails(w));
    },
  );

  test.prop([honestWorld], { numRuns: 20 })(
    'the wallet missing from the watched accounts fails, not passes',
    async (world) => {
      const w = await world;
      const without = {
        ...w,
        simulation: {
          ...w.simulation,
          accounts: w.simulation.accounts.filter((a) => a.address !== w.agreement.taker),
        },
      };
      expect(failed(without)).toContain('wallet_intact');
    },
  );
});
