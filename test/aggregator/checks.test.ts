// The aggregator port's safety checks, one refusal at a time: a quote that is not the one asked for or is
// worse than the mid allows, and every instruction the maker would not sign — from a baseline that passes.

import type { QuoteResponse, SwapInstructionsResponse } from '@jup-ag/api';
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
  const otherPool = Keypair.generate().publicKey;
  const limits = {
    maker,
    allowedPrograms: [EMBEDDED_AMM_PROGRAM_ID, JUPITER_V6_PROGRAM_ID],
    maxPriorityFeeLamports: 100_000n,
    trustedPools: new Set([pool.toBase58(), otherPool.toBase58()]),
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

  it('refuses a route or a swap through a pool the config does not trust, and a swap in another pool than quoted', () => {
    // A pool of someone else's making on the same program: the quote names it, or the swap trades in it.
    const untrustedQuote = () => {
      const q = baseQuote();
      const step = q.routePlan[0];
      if (step) step.swapInfo.ammKey = stranger.toBase58();
      return checkQuote(request, q, MAX_SLIPPAGE);
    };
    const swapIn = (where: PublicKey) => {
      const a = base();
      a.swapInstruction = json(ammSwap({ pool: where }));
      return a;
    };
    expect(refusal(() => checkInstructions(untrustedQuote(), base(), limits))).toBe('pool_not_trusted');
    expect(refusal(() => checkInstructions(quote(), swapIn(stranger), limits))).toBe('pool_not_trusted');
    // Trusted, but not the pool the route was quoted on.
    expect(refusal(() => checkInstructions(quote(), swapIn(otherPool), limits))).toBe('swap_mismatch');
    // Without trusted pools (none configured, no embedded venue) pools are not pinned.
    const unpinned = { ...limits, trustedPools: null };
    expect(refusal(() => checkInstructions(untrustedQuote(), swapIn(stranger), unpinned))).toBe('accepted');
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
      pool?: PublicKey | null;
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
          // The route's remaining accounts: the pool it was quoted on (unless a test leaves it out).
          ...(a.pool === null ? [] : [r(a.pool ?? pool, true)]),
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

    it('refuses a route that pays out anywhere but the maker’s output account', () => {
      expect(check(jupiter({ redirect: ata(stranger, USDC) }))).toBe('swap_mismatch');
      expect(check(jupiter({ destination: ata(stranger, USDC) }))).toBe('swap_mismatch');
    });

    it('refuses a route that does not name the pool it was quoted on', () => {
      expect(check(jupiter({ pool: null }))).toBe('swap_mismatch');
      expect(check(jupiter({ pool: stranger }))).toBe('swap_mismatch');
    });
  });
});
