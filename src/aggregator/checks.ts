// The aggregator port's safety checks, as pure functions of the request, the aggregator's answers and the
// limits: nothing is signed unless the quote is the one asked for and no worse than the live mid allows,
// and every instruction is one the maker means to sign — compute budget within its fee cap, creation (and
// sync) of the maker's own token accounts, and one swap by an allowed program that moves exactly the
// quote's amounts between the maker's own accounts. Anything else, anywhere, is refused.

import type { Instruction, QuoteResponse, SwapInstructionsResponse } from '@jup-ag/api';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { keyBase58 } from '../chain/keys.ts';
import { ata, NATIVE_MINT, TOKEN_PROGRAM_ID } from '../chain/token.ts';
import { EMBEDDED_AMM_PROGRAM_ID, JUPITER_V6_PROGRAM_ID } from '../config/index.ts';
import { BPS, minimumOut, type Ratio } from '../money/ratio.ts';
import { AggregatorError } from './errors.ts';
import type { AggregatorQuote, SwapQuoteRequest } from './port.ts';

export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = keyBase58(TOKEN_PROGRAM_ID);

/** The programs whose swap instruction the port can read (swapOf); aggregator.allowed_programs is a subset. */
export const READABLE_SWAP_PROGRAMS: readonly string[] = [EMBEDDED_AMM_PROGRAM_ID, JUPITER_V6_PROGRAM_ID];

/** The runtime's default compute-unit limit: 200k per instruction, at most 1.4M per transaction. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;

const fail = (code: ConstructorParameters<typeof AggregatorError>[0], message: string): never => {
  throw new AggregatorError(code, message);
};

const rawInteger = (text: unknown, field: string): bigint => {
  if (typeof text !== 'string' || !/^[0-9]{1,20}$/.test(text)) {
    return fail('quote_mismatch', `the quote's ${field} is not an integer of raw units`);
  }
  return BigInt(text);
};

/**
 * The least out the reference mid allows: floor(amountIn × mid × (10000 − maxSlippageBps) / 10000), mid in
 * output raw units per input raw unit.
 */
export function floorOut(amountIn: bigint, mid: Ratio, maxSlippageBps: number): bigint {
  if (mid.num <= 0n || mid.den <= 0n) throw new RangeError('the reference mid must be positive');
  return (amountIn * mid.num * (BPS - BigInt(maxSlippageBps))) / (mid.den * BPS);
}

/** The quote, if it is the one asked for and its minimum out keeps to the mid; else AggregatorError. */
export function checkQuote(
  request: SwapQuoteRequest,
  q: QuoteResponse,
  maxSlippageBps: number,
): AggregatorQuote {
  const inputMint = keyBase58(request.inputMint);
  const outputMint = keyBase58(request.outputMint);
  if (q.inputMint !== inputMint || q.outputMint !== outputMint) {
    fail(
      'quote_mismatch',
      `the quote swaps ${q.inputMint} for ${q.outputMint}, not ${inputMint} for ${outputMint}`,
    );
  }
  if (q.swapMode !== 'ExactIn') fail('quote_mismatch', `the quote is ${q.swapMode}, not ExactIn`);
  const inAmount = rawInteger(q.inAmount, 'inAmount');
  if (inAmount !== request.amountRaw)
    fail('quote_mismatch', `the quote is for ${inAmount}, not ${request.amountRaw}`);
  if (q.slippageBps !== request.slippageBps) {
    fail('quote_mismatch', `the quote allows ${q.slippageBps} bps of slippage, not ${request.slippageBps}`);
  }
  const fee = q.platformFee;
  if (fee && ((fee.feeBps ?? 0) !== 0 || (fee.amount !== undefined && fee.amount !== '0'))) {
    fail('quote_mismatch', 'the quote takes a platform fee, which the port never asks for');
  }
  const outAmount = rawInteger(q.outAmount, 'outAmount');
  const minOut = rawInteger(q.otherAmountThreshold, 'otherAmountThreshold');
  // The threshold is outAmount less at most the slippage asked: never above what the route pays, never lower.
  if (minOut > outAmount || minOut < minimumOut(outAmount, q.slippageBps)) {
    fail(
      'quote_mismatch',
      `otherAmountThreshold ${minOut} does not follow from outAmount ${outAmount} and ${q.slippageBps} bps`,
    );
  }
  if (!Array.isArray(q.routePlan) || q.routePlan.length === 0)
    fail('quote_mismatch', 'the quote has no route');
  const floor = floorOut(inAmount, request.referenceMid, maxSlippageBps);
  if (minOut < floor) {
    fail(
      'price_out_of_bounds',
      `the quote may pay as little as ${minOut}; the mid less ${maxSlippageBps} bps allows no less than ${floor}`,
    );
  }
  return {
    inputMint,
    outputMint,
    inAmount,
    outAmount,
    minOut,
    slippageBps: q.slippageBps,
    floorOut: floor,
    priceImpactPct: q.priceImpactPct,
    route: q.routePlan.map((step) => ({ ammKey: step.swapInfo.ammKey, label: step.swapInfo.label ?? null })),
    contextSlot: q.contextSlot ?? null,
    response: q,
  };
}

export interface InstructionLimits {
  maker: PublicKey;
  allowedPrograms: readonly string[];
  maxPriorityFeeLamports: bigint;
}

/**
 * The swap's instructions in execution order (compute budget, setup, swap), each checked; AggregatorError
 * names the first one the maker would not sign. Asked with wrapAndUnwrapSol false, so no cleanup and no
 * other instruction is expected: the maker keeps its SOL as wrapped SOL, and nothing may close it.
 */
export function checkInstructions(
  quote: AggregatorQuote,
  answer: SwapInstructionsResponse,
  limits: InstructionLimits,
): TransactionInstruction[] {
  const maker = keyBase58(limits.maker);
  const all = [...answer.computeBudgetInstructions, ...answer.setupInstructions, answer.swapInstruction];
  if (answer.cleanupInstruction) fail('unexpected_instruction', 'a cleanup instruction (none was asked for)');
  if (answer.otherInstructions.length > 0)
    fail('unexpected_instruction', 'other instructions (tips or fees) were added');
  for (const ix of all) {
    for (const account of ix.accounts) {
      if (account.isSigner && account.pubkey !== maker) {
        fail('unexpected_signer', `${ix.programId} wants the signature of ${account.pubkey}`);
      }
    }
  }
  const instructions = all.map(toInstruction);
  checkComputeBudget(
    answer.computeBudgetInstructions,
    all.length - answer.computeBudgetInstructions.length,
    limits,
  );
  for (const ix of answer.setupInstructions) checkSetup(ix, quote, limits.maker);
  checkSwap(answer.swapInstruction, quote, limits);
  return instructions;
}

function toInstruction(ix: Instruction): TransactionInstruction {
  try {
    return new TransactionInstruction({
      programId: new PublicKey(ix.programId),
      keys: ix.accounts.map((a) => ({
        pubkey: new PublicKey(a.pubkey),
        isSigner: a.isSigner,
        isWritable: a.isWritable,
      })),
      data: Buffer.from(ix.data, 'base64'),
    });
  } catch (e) {
    throw new AggregatorError('unavailable', `an instruction does not decode: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

const dataOf = (ix: Instruction) => Buffer.from(ix.data, 'base64');

/** SetComputeUnitLimit and SetComputeUnitPrice, each at most once, and a priority fee within the cap. */
function checkComputeBudget(budget: readonly Instruction[], others: number, limits: InstructionLimits): void {
  let units: bigint | null = null;
  let microLamports = 0n;
  let priced = false;
  for (const ix of budget) {
    const data = dataOf(ix);
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM || ix.accounts.length > 0) {
      fail('unexpected_instruction', `${ix.programId} among the compute-budget instructions`);
    }
    if (data[0] === 2 && data.length === 5 && units === null) units = BigInt(data.readUInt32LE(1));
    else if (data[0] === 3 && data.length === 9 && !priced) {
      microLamports = data.readBigUInt64LE(1);
      priced = true;
    } else fail('unexpected_instruction', `compute-budget instruction ${data[0]} (or a repeat)`);
  }
  const limit = units ?? minBig(DEFAULT_UNITS_PER_INSTRUCTION * BigInt(others), MAX_UNITS);
  const fee = (microLamports * limit + 999_999n) / 1_000_000n;
  if (fee > limits.maxPriorityFeeLamports) {
    fail(
      'priority_fee_too_high',
      `${fee} lamports of priority fee, above the ${limits.maxPriorityFeeLamports} allowed`,
    );
  }
}

// Stryker disable next-line EqualityOperator: when a = b either branch is the same value.
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/** Only the maker's own token accounts of the swap's two mints, created idempotently and paid by the maker; or a sync of its wrapped SOL. */
function checkSetup(ix: Instruction, quote: AggregatorQuote, maker: PublicKey): void {
  const data = dataOf(ix);
  const keys = ix.accounts.map((a) => a.pubkey);
  const makerKey = keyBase58(maker);
  if (ix.programId === ASSOCIATED_TOKEN_PROGRAM && data.length === 1 && data[0] === 1 && keys.length === 6) {
    const [payer, account, owner, mint, system, token] = keys;
    const mints = [quote.inputMint, quote.outputMint];
    if (
      payer === makerKey &&
      owner === makerKey &&
      mint !== undefined &&
      mints.includes(mint) &&
      account === keyBase58(ata(maker, new PublicKey(mint))) &&
      system === SYSTEM_PROGRAM &&
      token === TOKEN_PROGRAM
    ) {
      return;
    }
  }
  if (
    ix.programId === TOKEN_PROGRAM &&
    data.length === 1 &&
    data[0] === 17 &&
    keys.length === 1 &&
    keys[0] === keyBase58(ata(maker, NATIVE_MINT))
  ) {
    return;
  }
  fail(
    'unexpected_instruction',
    `setup instruction of ${ix.programId} (${data.length} bytes) is not the maker's token-account creation`,
  );
}

/** What a swap instruction does, as read from its accounts and data. */
interface SwapView {
  authority: string | undefined;
  source: string | undefined;
  destination: string | undefined;
  inAmount: bigint;
  /** The least it pays, as the program will enforce it. */
  minOut: bigint;
}

const JUPITER_ROUTE = Buffer.from([229, 23, 203, 151, 122, 227, 173, 42]);
const JUPITER_SHARED_ACCOUNTS_ROUTE = Buffer.from([193, 32, 155, 51, 65, 214, 156, 129]);

/**
 * Reads the swap: the embedded AMM's swap (tag 3: amount_in, min_out) or Jupiter v6's `route` /
 * `shared_accounts_route` (V1 instructions: their data ends in_amount u64, quoted_out_amount u64,
 * slippage_bps u16, platform_fee_bps u8). null for anything else.
 */
export function swapOf(ix: Instruction): SwapView | null {
  const data = dataOf(ix);
  const keys = ix.accounts.map((a) => a.pubkey);
  if (ix.programId === EMBEDDED_AMM_PROGRAM_ID) {
    if (data.length !== 17 || data[0] !== 3 || keys.length !== 7) return null;
    return {
      authority: keys[0],
      source: keys[4],
      destination: keys[5],
      inAmount: data.readBigUInt64LE(1),
      minOut: data.readBigUInt64LE(9),
    };
  }
  if (ix.programId === JUPITER_V6_PROGRAM_ID && data.length >= 8 + 4 + 19) {
    const tail = data.subarray(data.length - 19);
    const quoted = tail.readBigUInt64LE(8);
    const slippage = tail.readUInt16LE(16);
    if (tail[18] !== 0) return null; // a platform fee the port never asks for
    const view = (
      authority: number,
      source: number,
      destination: number,
      optionalDestination: number | null,
    ) => {
      // An absent optional account is the program id itself; a present one redirects the output.
      const redirect = optionalDestination === null ? undefined : keys[optionalDestination];
      if (redirect !== undefined && redirect !== JUPITER_V6_PROGRAM_ID && redirect !== keys[destination])
        return null;
      return {
        authority: keys[authority],
        source: keys[source],
        destination: keys[destination],
        inAmount: tail.readBigUInt64LE(0),
        minOut: minimumOut(quoted, slippage),
      };
    };
    const discriminator = data.subarray(0, 8);
    if (discriminator.equals(JUPITER_ROUTE)) return view(1, 2, 3, 4);
    if (discriminator.equals(JUPITER_SHARED_ACCOUNTS_ROUTE)) return view(2, 3, 6, null);
  }
  return null;
}

function checkSwap(ix: Instruction, quote: AggregatorQuote, limits: InstructionLimits): void {
  if (!limits.allowedPrograms.includes(ix.programId)) {
    fail(
      'program_not_allowed',
      `the swap calls ${ix.programId}, not one of ${limits.allowedPrograms.join(', ')}`,
    );
  }
  const swap = swapOf(ix);
  if (!swap) fail('swap_mismatch', `the port cannot read this swap instruction of ${ix.programId}`);
  const s = swap as SwapView;
  const maker = keyBase58(limits.maker);
  const source = keyBase58(ata(limits.maker, new PublicKey(quote.inputMint)));
  const destination = keyBase58(ata(limits.maker, new PublicKey(quote.outputMint)));
  if (s.authority !== maker || s.source !== source || s.destination !== destination) {
    fail('swap_mismatch', "the swap does not move the maker's own token accounts of the quote's mints");
  }
  if (s.inAmount !== quote.inAmount)
    fail('swap_mismatch', `the swap takes ${s.inAmount}, the quote ${quote.inAmount}`);
  if (s.minOut < quote.minOut) {
    fail('swap_mismatch', `the swap would accept ${s.minOut} out, below the quote's minimum ${quote.minOut}`);
  }
}
