// The aggregator port's safety checks, one refusal at a time: a quote that is not the one asked for or is
// worse than the mid allows, and every instruction the maker would not sign — from a baseline that passes.

import type { Instruction, QuoteResponse, SwapInstructionsResponse } from '@jup-ag/api';
import {
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  type AggregatorErrorCode,
  type AggregatorQuote,
  checkInstructions,
  checkQuote,
  floorOut,
  isAggregatorError,
  rawMid,
  type SwapQuoteRequest,
} from '../../src/aggregator/index.ts';
import { ata, NATIVE_MINT } from '../../src/chain/token.ts';
import { EMBEDDED_AMM_PROGRAM_ID, JUPITER_V6_PROGRAM_ID } from '../../src/config/index.ts';
import { instructionJson } from '../../src/venue/api.ts';
import { DEFAULT_AMM_PROGRAM_ID, swapInstruction } from '../../src/venue/index.ts';

const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
const SOL = NATIVE_MINT;
const maker = Keypair.generate().publicKey;
const stranger = Keypair.generate().publicKey;
const pool = Keypair.generate().publicKey;
const vaultIn = Keypair.generate().publicKey;
const vaultOut = Keypair.generate().publicKey;

// 10 SOL at a mid of 150 USDC: 1.5e9 raw USDC; the quote pays 1_494_000_000, at least 1_486_530_000 (50 bps).
const request: SwapQuoteRequest = {
  inputMint: SOL,
  outputMint: USDC,
  amountRaw: 10_000_000_000n,
  slippageBps: 50,
  referenceMid: rawMid({ num: 150n, den: 1n }, 9, 6),
};
const MAX_SLIPPAGE = 100;

function baseQuote(): QuoteResponse {
  return {
    inputMint: SOL.toBase58(),
    inAmount: '10000000000',
    outputMint: USDC.toBase58(),
    outAmount: '1494000000',
    otherAmountThreshold: '1486530000',
    swapMode: 'ExactIn',
    slippageBps: 50,
    priceImpactPct: '0.001',
    routePlan: [
      {
        swapInfo: {
          ammKey: pool.toBase58(),
          label: 'Embedded AMM',
          inputMint: SOL.toBase58(),
          outputMint: USDC.toBase58(),
          inAmount: '10000000000',
          outAmount: '1494000000',
        },
        percent: 100,
      },
    ],
    contextSlot: 5,
    timeTaken: 0.001,
  };
}

function refusal(run: () => unknown): AggregatorErrorCode | 'accepted' {
  try {
    run();
    return 'accepted';
  } catch (e) {
    if (isAggregatorError(e)) return e.code;
    throw e;
  }
}

/** The refusal's message: what an operator reads in the hedger's or the sourcing step's log. */
function refusalMessage(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isAggregatorError(e)) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('checkQuote', () => {
  const check = (change: (q: QuoteResponse) => void, r: SwapQuoteRequest = request) =>
    refusal(() => {
      const q = baseQuote();
      change(q);
      return checkQuote(r, q, MAX_SLIPPAGE);
    });

  it('accepts the quote asked for, within the mid', () => {
    expect(check(() => {})).toBe('accepted');
  });

  it('an accepted quote is read into the port’s terms: amounts, the mid floor and the route by pool', () => {
    const q = baseQuote();
    expect(checkQuote(request, q, MAX_SLIPPAGE)).toEqual({
      inputMint: SOL.toBase58(),
      outputMint: USDC.toBase58(),
      inAmount: 10_000_000_000n,
      outAmount: 1_494_000_000n,
      minOut: 1_486_530_000n,
      slippageBps: 50,
      floorOut: 1_485_000_000n,
      priceImpactPct: '0.001',
      route: [{ ammKey: pool.toBase58(), label: 'Embedded AMM' }],
      contextSlot: 5,
      response: q,
    });
    const bare = baseQuote();
    delete bare.contextSlot;
    delete bare.routePlan[0]?.swapInfo.label;
    const read = checkQuote(request, bare, MAX_SLIPPAGE);
    expect(read.contextSlot).toBeNull();
    expect(read.route).toEqual([{ ammKey: pool.toBase58(), label: null }]);
  });

  it('a platform fee of zero is no fee; any amount or bps of one is refused', () => {
    expect(check((q) => (q.platformFee = { amount: '0', feeBps: 0 }))).toBe('accepted');
    expect(check((q) => (q.platformFee = { feeBps: 0 }))).toBe('accepted');
    expect(check((q) => (q.platformFee = { amount: '0' }))).toBe('accepted');
    expect(check((q) => (q.platformFee = { amount: '1', feeBps: 0 }))).toBe('quote_mismatch');
    expect(check((q) => (q.platformFee = { amount: '0', feeBps: 1 }))).toBe('quote_mismatch');
    expect(check((q) => (q.platformFee = { feeBps: 1 }))).toBe('quote_mismatch');
  });

  it('each refusal names what it found against what was asked', () => {
    const message = (change: (q: QuoteResponse) => void, r: SwapQuoteRequest = request) =>
      refusalMessage(() => {
        const q = baseQuote();
        change(q);
        return checkQuote(r, q, MAX_SLIPPAGE);
      });
    expect(message((q) => (q.outputMint = SOL.toBase58()))).toBe(
      `the quote swaps ${SOL.toBase58()} for ${SOL.toBase58()}, not ${SOL.toBase58()} for ${USDC.toBase58()}`,
    );
    expect(message((q) => (q.swapMode = 'ExactOut'))).toBe('the quote is ExactOut, not ExactIn');
    expect(message((q) => (q.inAmount = '9999999999'))).toBe('the quote is for 9999999999, not 10000000000');
    expect(message((q) => (q.inAmount = '-1'))).toBe("the quote's inAmount is not an integer of raw units");
    expect(message((q) => (q.outAmount = '1.5'))).toBe(
      "the quote's outAmount is not an integer of raw units",
    );
    expect(message((q) => (q.otherAmountThreshold = ''))).toBe(
      "the quote's otherAmountThreshold is not an integer of raw units",
    );
    expect(message((q) => (q.slippageBps = 51))).toBe('the quote allows 51 bps of slippage, not 50');
    expect(message((q) => (q.platformFee = { amount: '10', feeBps: 5 }))).toBe(
      'the quote takes a platform fee, which the port never asks for',
    );
    expect(message((q) => (q.otherAmountThreshold = '1494000001'))).toBe(
      'otherAmountThreshold 1494000001 does not follow from outAmount 1494000000 and 50 bps',
    );
    expect(message((q) => (q.routePlan = []))).toBe('the quote has no route');
    expect(message(() => {}, { ...request, referenceMid: rawMid({ num: 152n, den: 1n }, 9, 6) })).toBe(
      'the quote may pay as little as 1486530000; the mid less 100 bps allows no less than 1504800000',
    );
  });

  it('a raw amount is a string of 1 to 20 decimal digits, nothing else', () => {
    const notRaw = "the quote's outAmount is not an integer of raw units";
    const outAmount = (value: unknown) =>
      refusalMessage(() => {
        const q = baseQuote();
        (q as { outAmount: unknown }).outAmount = value;
        return checkQuote(request, q, MAX_SLIPPAGE);
      });
    for (const value of [' 1494000000', '1494000000 ', '123456789012345678901', '', 1_494_000_000]) {
      expect(outAmount(value), String(value)).toBe(notRaw);
    }
    // Twenty digits are read (and this route's threshold then does not follow from them).
    expect(outAmount('99999999999999999999')).toBe(
      'otherAmountThreshold 1486530000 does not follow from outAmount 99999999999999999999 and 50 bps',
    );
  });

  it('the floor takes a positive mid only', () => {
    for (const mid of [
      { num: 0n, den: 1n },
      { num: 1n, den: 0n },
      { num: -1n, den: 1n },
    ]) {
      expect(() => floorOut(1n, mid, 0)).toThrow(new RangeError('the reference mid must be positive'));
    }
    expect(floorOut(3n, { num: 1n, den: 2n }, 0)).toBe(1n);
  });

  it('refuses another pair, amount, mode or slippage than asked', () => {
    expect(check((q) => (q.inputMint = USDC.toBase58()))).toBe('quote_mismatch');
    expect(check((q) => (q.outputMint = SOL.toBase58()))).toBe('quote_mismatch');
    expect(check((q) => (q.inAmount = '9999999999'))).toBe('quote_mismatch');
    expect(check((q) => (q.swapMode = 'ExactOut'))).toBe('quote_mismatch');
    expect(check((q) => (q.slippageBps = 51))).toBe('quote_mismatch');
    expect(check((q) => (q.routePlan = []))).toBe('quote_mismatch');
    expect(check((q) => (q.platformFee = { amount: '10', feeBps: 5 }))).toBe('quote_mismatch');
  });

  it('refuses a threshold above what the route pays, or below its slippage', () => {
    expect(check((q) => (q.otherAmountThreshold = '1494000001'))).toBe('quote_mismatch');
    expect(check((q) => (q.otherAmountThreshold = '1486529999'))).toBe('quote_mismatch');
    expect(check((q) => (q.outAmount = '1.5'))).toBe('quote_mismatch');
  });

  it('refuses a minimum out below mid × (1 − max slippage), to the raw unit', () => {
    const floor = floorOut(request.amountRaw, request.referenceMid, MAX_SLIPPAGE);
    expect(floor).toBe(1_485_000_000n);
    const at = (minOut: bigint, out: bigint) => (q: QuoteResponse) => {
      q.outAmount = out.toString();
      q.otherAmountThreshold = minOut.toString();
      q.slippageBps = 0;
    };
    const zero = { ...request, slippageBps: 0 };
    expect(check(at(floor, floor), zero)).toBe('accepted');
    expect(check(at(floor - 1n, floor - 1n), zero)).toBe('price_out_of_bounds');
    // A mid that moved up makes the same quote too poor.
    expect(check(() => {}, { ...request, referenceMid: rawMid({ num: 152n, den: 1n }, 9, 6) })).toBe(
      'price_out_of_bounds',
    );
  });
});

describe('checkInstructions', () => {
  const quote = (): AggregatorQuote => checkQuote(request, baseQuote(), MAX_SLIPPAGE);
  const limits = {
    maker,
    allowedPrograms: [EMBEDDED_AMM_PROGRAM_ID, JUPITER_V6_PROGRAM_ID],
    maxPriorityFeeLamports: 100_000n,
  };
  const ammSwap = (overrides: Partial<Parameters<typeof swapInstruction>[0]> = {}) =>
    swapInstruction({
      programId: DEFAULT_AMM_PROGRAM_ID,
      user: maker,
      pool,
      vaultIn,
      vaultOut,
      userSource: ata(maker, SOL),
      userDestination: ata(maker, USDC),
      amountIn: 10_000_000_000n,
      minOut: 1_486_530_000n,
      ...overrides,
    });
  const base = (): SwapInstructionsResponse => ({
    computeBudgetInstructions: [
      instructionJson(ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 })),
      instructionJson(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 500_000 })),
    ],
    setupInstructions: [
      instructionJson(createAssociatedTokenAccountIdempotentInstruction(maker, ata(maker, SOL), maker, SOL)),
      instructionJson(
        createAssociatedTokenAccountIdempotentInstruction(maker, ata(maker, USDC), maker, USDC),
      ),
      instructionJson(createSyncNativeInstruction(ata(maker, SOL))),
    ],
    swapInstruction: instructionJson(ammSwap()),
    otherInstructions: [],
    addressLookupTableAddresses: [],
  });
  const check = (change: (a: SwapInstructionsResponse) => void) =>
    refusal(() => {
      const a = base();
      change(a);
      return checkInstructions(quote(), a, limits);
    });
  const json = instructionJson;

  it('accepts compute budget, the maker’s own token accounts and the swap, in that order', () => {
    const ixs = checkInstructions(quote(), base(), limits);
    expect(ixs.map((ix) => ix.programId.toBase58())).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      EMBEDDED_AMM_PROGRAM_ID,
    ]);
  });

  it('hands back each instruction as the aggregator sent it: program, accounts with their flags, data', () => {
    const ixs = checkInstructions(quote(), base(), limits);
    const swap = ammSwap();
    expect(ixs[5]?.programId.toBase58()).toBe(swap.programId.toBase58());
    expect(ixs[5]?.keys.map((k) => ({ ...k, pubkey: k.pubkey.toBase58() }))).toEqual(
      swap.keys.map((k) => ({ ...k, pubkey: k.pubkey.toBase58() })),
    );
    expect(ixs[5]?.data.equals(swap.data)).toBe(true);
  });

  it('reads the embedded AMM’s swap only as its tag 3 with its seven accounts', () => {
    const unreadable = `the port cannot read this swap instruction of ${EMBEDDED_AMM_PROGRAM_ID}`;
    const swap = json(ammSwap());
    const message = (ix: typeof swap) =>
      refusalMessage(() => {
        const a = base();
        a.swapInstruction = ix;
        return checkInstructions(quote(), a, limits);
      });
    const data = Buffer.from(swap.data, 'base64');
    data[0] = 4;
    expect(message({ ...swap, data: data.toString('base64') })).toBe(unreadable);
    const extra = { pubkey: maker.toBase58(), isSigner: false, isWritable: false };
    expect(message({ ...swap, accounts: [...swap.accounts, extra] })).toBe(unreadable);
    expect(message({ ...swap, accounts: swap.accounts.slice(0, 6) })).toBe(unreadable);
  });

  it('refuses a swap whose authority is not the maker, even one that asks no signature', () => {
    const swap = json(ammSwap());
    const accounts = swap.accounts.map((a, i) =>
      i === 0 ? { pubkey: stranger.toBase58(), isSigner: false, isWritable: false } : a,
    );
    expect(check((a) => (a.swapInstruction = { ...swap, accounts }))).toBe('swap_mismatch');
  });

  it('refuses cleanup (an unwrap would close the maker’s wrapped SOL) and any other instruction', () => {
    expect(
      check(
        (a) => (a.cleanupInstruction = json(createCloseAccountInstruction(ata(maker, SOL), maker, maker))),
      ),
    ).toBe('unexpected_instruction');
    expect(
      check((a) =>
        a.otherInstructions.push(
          json(SystemProgram.transfer({ fromPubkey: maker, toPubkey: stranger, lamports: 1 })),
        ),
      ),
    ).toBe('unexpected_instruction');
  });

  it('refuses setup that is not the maker’s own idempotent account creation or sync', () => {
    const setup = (ix: TransactionInstruction) => (a: SwapInstructionsResponse) =>
      a.setupInstructions.push(json(ix));
    // Approve a delegate on the maker's account, a plain SOL transfer out, closing an account.
    expect(check(setup(createApproveInstruction(ata(maker, USDC), stranger, maker, 1_000n)))).toBe(
      'unexpected_instruction',
    );
    expect(
      check(setup(SystemProgram.transfer({ fromPubkey: maker, toPubkey: stranger, lamports: 5n }))),
    ).toBe('unexpected_instruction');
    expect(check(setup(createCloseAccountInstruction(ata(maker, USDC), stranger, maker)))).toBe(
      'unexpected_instruction',
    );
    // Account creation: for someone else, of another mint, non-idempotent, or the maker paying someone else's.
    expect(
      check(
        setup(createAssociatedTokenAccountIdempotentInstruction(maker, ata(stranger, USDC), stranger, USDC)),
      ),
    ).toBe('unexpected_instruction');
    const other = Keypair.generate().publicKey;
    expect(
      check(setup(createAssociatedTokenAccountIdempotentInstruction(maker, ata(maker, other), maker, other))),
    ).toBe('unexpected_instruction');
    expect(check(setup(createAssociatedTokenAccountInstruction(maker, ata(maker, USDC), maker, USDC)))).toBe(
      'unexpected_instruction',
    );
    expect(check(setup(createSyncNativeInstruction(ata(stranger, SOL))))).toBe('unexpected_instruction');
    // Anything that needs another signer, anywhere.
    expect(
      check(
        setup(createAssociatedTokenAccountIdempotentInstruction(stranger, ata(maker, USDC), maker, USDC)),
      ),
    ).toBe('unexpected_signer');
  });

  it('accepts a token-account creation only with every account and byte as the maker’s own creation has it', () => {
    const create = json(
      createAssociatedTokenAccountIdempotentInstruction(maker, ata(maker, USDC), maker, USDC),
    );
    const sync = json(createSyncNativeInstruction(ata(maker, SOL)));
    const setupOf = (ix: typeof create) => (a: SwapInstructionsResponse) => {
      a.setupInstructions = [ix];
    };
    expect(check(setupOf(create))).toBe('accepted');
    expect(check(setupOf(sync))).toBe('accepted');
    // Each account in turn made a stranger's (never a signer, so only the setup check can refuse it).
    create.accounts.forEach((_, i) => {
      const accounts = create.accounts.map((a, j) =>
        j === i ? { pubkey: stranger.toBase58(), isSigner: false, isWritable: a.isWritable } : a,
      );
      expect(check(setupOf({ ...create, accounts })), `account ${i}`).toBe('unexpected_instruction');
    });
    const withData = (ix: typeof create, data: number[]) => ({
      ...ix,
      data: Buffer.from(data).toString('base64'),
    });
    const extra = { pubkey: maker.toBase58(), isSigner: false, isWritable: false };
    for (const [name, ix] of [
      ['create with a second byte', withData(create, [1, 0])],
      ['create with an extra account', { ...create, accounts: [...create.accounts, extra] }],
      ['create with its last account missing', { ...create, accounts: create.accounts.slice(0, 5) }],
      ['sync with a second byte', withData(sync, [17, 0])],
      ['sync with an extra account', { ...sync, accounts: [...sync.accounts, extra] }],
      ['another token instruction on the maker’s wrapped SOL', withData(sync, [9])],
      ['the creation’s bytes sent to the token program', { ...create, programId: sync.programId }],
    ] as [string, Instruction][]) {
      expect(check(setupOf(ix)), name).toBe('unexpected_instruction');
    }
  });

  it('prices the fee rounded up, and a default limit of 200k units per instruction at most 1.4M', () => {
    const budget =
      (...ixs: TransactionInstruction[]) =>
      (a: SwapInstructionsResponse) => {
        a.computeBudgetInstructions = ixs.map(json);
      };
    // 200,001 units at 499,998 µlamports: 100,000.099998 lamports, so 100,001 with the fraction rounded up.
    expect(
      check(
        budget(
          ComputeBudgetProgram.setComputeUnitLimit({ units: 200_001 }),
          ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 499_998 }),
        ),
      ),
    ).toBe('priority_fee_too_high');
    // Nine other instructions would be 1.8M units by default; the runtime grants at most 1.4M.
    const many = (microLamports: number) => (a: SwapInstructionsResponse) => {
      budget(ComputeBudgetProgram.setComputeUnitPrice({ microLamports }))(a);
      for (let i = 0; i < 5; i++)
        a.setupInstructions.push(json(createSyncNativeInstruction(ata(maker, SOL))));
    };
    expect(check(many(71_428))).toBe('accepted');
    expect(check(many(71_429))).toBe('priority_fee_too_high');
    // A compute-budget instruction names no account, and has its exact length.
    const limit = json(ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }));
    const price = json(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }));
    const extra = { pubkey: maker.toBase58(), isSigner: false, isWritable: false };
    const longer = (ix: typeof limit) => ({
      ...ix,
      data: Buffer.concat([Buffer.from(ix.data, 'base64'), Buffer.from([0])]).toString('base64'),
    });
    for (const [name, ixs] of [
      ['an account', [{ ...limit, accounts: [extra] }]],
      ['a longer limit', [longer(limit)]],
      ['a longer price', [longer(price)]],
      ['a second price', [price, price]],
    ] as [string, Instruction[]][]) {
      expect(
        check((a) => {
          a.computeBudgetInstructions = [...ixs];
        }),
        name,
      ).toBe('unexpected_instruction');
    }
  });

  it('caps the priority fee, and refuses compute-budget instructions it does not know or repeats', () => {
    const budget =
      (...ixs: TransactionInstruction[]) =>
      (a: SwapInstructionsResponse) => {
        a.computeBudgetInstructions = ixs.map(json);
      };
    // 200k units × 500k µlamports = 100,000 lamports: the cap itself is fine, one µlamport more is not.
    expect(
      check(
        budget(
          ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
          ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 500_001 }),
        ),
      ),
    ).toBe('priority_fee_too_high');
    // Without a limit the runtime's default prices it: 200k per other instruction (4 here), 800k units.
    expect(check(budget(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 125_001 })))).toBe(
      'priority_fee_too_high',
    );
    expect(check(budget(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 125_000 })))).toBe(
      'accepted',
    );
    expect(check(budget(ComputeBudgetProgram.requestHeapFrame({ bytes: 64 * 1024 })))).toBe(
      'unexpected_instruction',
    );
    expect(
      check(
        budget(
          ComputeBudgetProgram.setComputeUnitLimit({ units: 1 }),
          ComputeBudgetProgram.setComputeUnitLimit({ units: 2 }),
        ),
      ),
    ).toBe('unexpected_instruction');
    expect(
      check(budget(SystemProgram.transfer({ fromPubkey: maker, toPubkey: stranger, lamports: 1 }))),
    ).toBe('unexpected_instruction');
  });

  it('refuses a swap by a program that is not allowed, or one it cannot read', () => {
    expect(check((a) => (a.swapInstruction = { ...a.swapInstruction, programId: stranger.toBase58() }))).toBe(
      'program_not_allowed',
    );
    expect(
      refusal(() =>
        checkInstructions(quote(), base(), { ...limits, allowedPrograms: [JUPITER_V6_PROGRAM_ID] }),
      ),
    ).toBe('program_not_allowed');
    expect(
      check(
        (a) => (a.swapInstruction = { ...a.swapInstruction, data: Buffer.from([3, 1]).toString('base64') }),
      ),
    ).toBe('swap_mismatch');
  });

  it('refuses a swap of other amounts, or between accounts that are not the maker’s own', () => {
    const swap = (o: Partial<Parameters<typeof swapInstruction>[0]>) => (a: SwapInstructionsResponse) => {
      a.swapInstruction = json(ammSwap(o));
    };
    expect(check(swap({ amountIn: 10_000_000_001n }))).toBe('swap_mismatch');
    expect(check(swap({ minOut: 1_486_529_999n }))).toBe('swap_mismatch');
    expect(check(swap({ minOut: 1_490_000_000n }))).toBe('accepted');
    expect(check(swap({ userDestination: ata(stranger, USDC) }))).toBe('swap_mismatch');
    expect(check(swap({ userSource: ata(maker, USDC) }))).toBe('swap_mismatch');
    expect(check(swap({ user: stranger }))).toBe('unexpected_signer');
  });

  it('each refusal names the instruction, the account or the amount it refused', () => {
    const message = (change: (a: SwapInstructionsResponse) => void, l = limits) =>
      refusalMessage(() => {
        const a = base();
        change(a);
        return checkInstructions(quote(), a, l);
      });
    const transfer = json(SystemProgram.transfer({ fromPubkey: maker, toPubkey: stranger, lamports: 1 }));
    expect(message((a) => (a.cleanupInstruction = transfer))).toBe(
      'a cleanup instruction (none was asked for)',
    );
    expect(message((a) => a.otherInstructions.push(transfer))).toBe(
      'other instructions (tips or fees) were added',
    );
    expect(
      message((a) => a.setupInstructions.push(json(createSyncNativeInstruction(ata(maker, SOL))), transfer)),
    ).toBe(
      "setup instruction of 11111111111111111111111111111111 (12 bytes) is not the maker's token-account creation",
    );
    expect(message((a) => (a.computeBudgetInstructions = [transfer]))).toBe(
      '11111111111111111111111111111111 among the compute-budget instructions',
    );
    expect(
      message(
        (a) =>
          (a.computeBudgetInstructions = [json(ComputeBudgetProgram.requestHeapFrame({ bytes: 64 * 1024 }))]),
      ),
    ).toBe('compute-budget instruction 1 (or a repeat)');
    expect(
      message(
        (a) =>
          (a.computeBudgetInstructions = [
            json(ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 })),
            json(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 500_001 })),
          ]),
      ),
    ).toBe('100001 lamports of priority fee, above the 100000 allowed');
    const other = stranger.toBase58();
    expect(message((a) => (a.swapInstruction = { ...a.swapInstruction, programId: other }))).toBe(
      `the swap calls ${other}, not one of ${EMBEDDED_AMM_PROGRAM_ID}, ${JUPITER_V6_PROGRAM_ID}`,
    );
    expect(
      message(
        (a) => (a.swapInstruction = { ...a.swapInstruction, data: Buffer.from([3]).toString('base64') }),
      ),
    ).toBe(`the port cannot read this swap instruction of ${EMBEDDED_AMM_PROGRAM_ID}`);
    expect(message((a) => (a.swapInstruction = json(ammSwap({ userSource: ata(maker, USDC) }))))).toBe(
      "the swap does not move the maker's own token accounts of the quote's mints",
    );
    expect(message((a) => (a.swapInstruction = json(ammSwap({ amountIn: 1n }))))).toBe(
      'the swap takes 1, the quote 10000000000',
    );
    expect(message((a) => (a.swapInstruction = json(ammSwap({ minOut: 1n }))))).toBe(
      "the swap would accept 1 out, below the quote's minimum 1486530000",
    );
    expect(message((a) => (a.swapInstruction = json(ammSwap({ user: stranger }))))).toBe(
      `${EMBEDDED_AMM_PROGRAM_ID} wants the signature of ${other}`,
    );
  });

  it('an instruction that does not decode is the aggregator’s fault, named as unreadable', () => {
    const error = (() => {
      try {
        const a = base();
        a.swapInstruction = { ...a.swapInstruction, programId: 'not-a-key' };
        checkInstructions(quote(), a, { ...limits, allowedPrograms: ['not-a-key'] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isAggregatorError(error, 'unavailable')).toBe(true);
    expect((error as Error).message).toMatch(/^an instruction does not decode: ./);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  describe('Jupiter v6 routes', () => {
    // route: discriminator, an (empty) route plan, in_amount, quoted_out_amount, slippage_bps, platform_fee_bps.
    const route = (a: {
      inAmount?: bigint;
      quotedOut?: bigint;
      slippage?: number;
      fee?: number;
      redirect?: PublicKey;
      destination?: PublicKey;
    }) => {
      const data = Buffer.alloc(8 + 4 + 19);
      Buffer.from([229, 23, 203, 151, 122, 227, 173, 42]).copy(data, 0);
      data.writeUInt32LE(0, 8);
      data.writeBigUInt64LE(a.inAmount ?? 10_000_000_000n, 12);
      data.writeBigUInt64LE(a.quotedOut ?? 1_494_000_000n, 20);
      data.writeUInt16LE(a.slippage ?? 50, 28);
      data[30] = a.fee ?? 0;
      const jup = new PublicKey(JUPITER_V6_PROGRAM_ID);
      const r = (pubkey: PublicKey, isWritable = false) => ({ pubkey, isSigner: false, isWritable });
      return new TransactionInstruction({
        programId: jup,
        keys: [
          r(new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')),
          { pubkey: maker, isSigner: true, isWritable: false },
          r(ata(maker, SOL), true),
          r(a.destination ?? ata(maker, USDC), true),
          r(a.redirect ?? jup, true),
          r(USDC),
          r(jup),
        ],
        data,
      });
    };
    const jupiter = (a: Parameters<typeof route>[0]) => (s: SwapInstructionsResponse) => {
      s.swapInstruction = json(route(a));
    };

    it('reads in_amount, quoted_out_amount and slippage from the route’s data and checks them', () => {
      expect(check(jupiter({}))).toBe('accepted');
      expect(check(jupiter({ inAmount: 1n }))).toBe('swap_mismatch');
      expect(check(jupiter({ quotedOut: 1_400_000_000n }))).toBe('swap_mismatch');
      expect(check(jupiter({ slippage: 5_000 }))).toBe('swap_mismatch');
      expect(check(jupiter({ fee: 20 }))).toBe('swap_mismatch');
    });

    // shared_accounts_route: the same tail; the authority, source and destination at accounts 2, 3 and 6.
    const sharedRoute = (a: { authority?: PublicKey; source?: PublicKey; destination?: PublicKey } = {}) => {
      const data = Buffer.alloc(8 + 1 + 4 + 19);
      Buffer.from([193, 32, 155, 51, 65, 214, 156, 129]).copy(data, 0);
      data.writeBigUInt64LE(10_000_000_000n, 13);
      data.writeBigUInt64LE(1_494_000_000n, 21);
      data.writeUInt16LE(50, 29);
      const jup = new PublicKey(JUPITER_V6_PROGRAM_ID);
      const r = (pubkey: PublicKey, isWritable = false) => ({ pubkey, isSigner: false, isWritable });
      return new TransactionInstruction({
        programId: jup,
        keys: [
          r(new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')),
          r(stranger),
          { pubkey: a.authority ?? maker, isSigner: true, isWritable: false },
          r(a.source ?? ata(maker, SOL), true),
          r(vaultIn, true),
          r(vaultOut, true),
          r(a.destination ?? ata(maker, USDC), true),
        ],
        data,
      });
    };

    it('reads a route’s data only in Jupiter’s own instruction', () => {
      const foreign = Keypair.generate().publicKey.toBase58();
      const routed = json(route({}));
      expect(
        refusalMessage(() => {
          const a = base();
          a.swapInstruction = { ...routed, programId: foreign };
          return checkInstructions(quote(), a, { ...limits, allowedPrograms: [foreign] });
        }),
      ).toBe(`the port cannot read this swap instruction of ${foreign}`);
    });

    it('takes a route whose optional destination is the maker’s output account itself', () => {
      expect(check(jupiter({ redirect: ata(maker, USDC) }))).toBe('accepted');
    });

    it('reads shared_accounts_route by its own account positions', () => {
      const shared = (a: Parameters<typeof sharedRoute>[0]) => (s: SwapInstructionsResponse) => {
        s.swapInstruction = json(sharedRoute(a));
      };
      expect(check(shared({}))).toBe('accepted');
      expect(check(shared({ source: ata(stranger, SOL) }))).toBe('swap_mismatch');
      expect(check(shared({ destination: ata(stranger, USDC) }))).toBe('swap_mismatch');
    });

    it('reads nothing from a Jupiter instruction shorter than a route, of another kind, or with a fee', () => {
      const full = json(route({}));
      const bytes = Buffer.from(full.data, 'base64');
      const unreadable = `the port cannot read this swap instruction of ${JUPITER_V6_PROGRAM_ID}`;
      const message = (data: Buffer) =>
        refusalMessage(() => {
          const a = base();
          a.swapInstruction = { ...full, data: data.toString('base64') };
          return checkInstructions(quote(), a, limits);
        });
      expect(message(bytes.subarray(0, 30))).toBe(unreadable);
      const other = Buffer.from(bytes);
      other[0] = 0;
      expect(message(other)).toBe(unreadable);
      // A platform fee in the tail's last byte: not a route the port asked for.
      expect(message(Buffer.concat([bytes.subarray(0, 30), Buffer.from([1])]))).toBe(unreadable);
    });

    it('refuses a route that pays out anywhere but the maker’s output account', () => {
      expect(check(jupiter({ redirect: ata(stranger, USDC) }))).toBe('swap_mismatch');
      expect(check(jupiter({ destination: ata(stranger, USDC) }))).toBe('swap_mismatch');
    });
  });
});
