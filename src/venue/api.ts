// Jupiter's Swap API v1, answered by the embedded venue: GET /quote and POST /swap-instructions with the
// fields, names and meanings of the real API (as @jup-ag/api types and parses them), priced from the pool's
// reserves read at the request, and instructions that run a real swap of the AMM program. Errors are
// Jupiter's shape: HTTP 400 with { error, errorCode }.

import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
} from '@solana/spl-token';
import { ComputeBudgetProgram, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { keyBase58 } from '../chain/keys.ts';
import { ata, NATIVE_MINT } from '../chain/token.ts';
import type { PoolSnapshot, VenueBook, VenuePool } from './book.ts';
import { swapInstruction } from './instructions.ts';
import { minimumOut, priceImpact, type Reserves, swapExactIn, U64_MAX } from './math.ts';

/** JSON of one instruction, as Jupiter sends it: base58 keys, base64 data. */
export interface InstructionJson {
  programId: string;
  accounts: { pubkey: string; isSigner: boolean; isWritable: boolean }[];
  data: string;
}

export interface QuoteJson {
  inputMint: string;
  inAmount: string;
  outputMint: string;
  outAmount: string;
  otherAmountThreshold: string;
  swapMode: 'ExactIn';
  slippageBps: number;
  platformFee: null;
  priceImpactPct: string;
  routePlan: {
    swapInfo: {
      ammKey: string;
      label: string;
      inputMint: string;
      outputMint: string;
      inAmount: string;
      outAmount: string;
      feeAmount: string;
      feeMint: string;
    };
    percent: number;
    bps: number;
  }[];
  contextSlot: number;
  timeTaken: number;
}

export interface SwapInstructionsJson {
  tokenLedgerInstruction: null;
  computeBudgetInstructions: InstructionJson[];
  setupInstructions: InstructionJson[];
  swapInstruction: InstructionJson;
  cleanupInstruction: InstructionJson | null;
  otherInstructions: InstructionJson[];
  addressLookupTableAddresses: string[];
  prioritizationFeeLamports: number;
  computeUnitLimit: number;
}

export type ApiAnswer<T> =
  | { status: 200; body: T }
  | { status: 400; body: { error: string; errorCode: string } };

/** The swap's compute: two ATA creations, a wrap, the swap and an unwrap fit with room (measured ~70k). */
export const SWAP_COMPUTE_UNIT_LIMIT = 200_000;
const DEFAULT_SLIPPAGE_BPS = 50;

const refuse = (errorCode: string, error: string): ApiAnswer<never> => ({
  status: 400,
  body: { error, errorCode },
});

function parseKey(text: unknown): PublicKey | null {
  if (typeof text !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return null;
  try {
    return new PublicKey(text);
  } catch {
    return null;
  }
}

function parseAmount(text: unknown): bigint | null {
  const s = typeof text === 'number' && Number.isSafeInteger(text) ? String(text) : text;
  if (typeof s !== 'string' || !/^[0-9]{1,20}$/.test(s)) return null;
  const n = BigInt(s);
  return n > 0n && n <= U64_MAX ? n : null;
}

function parseBps(text: unknown, fallback: number): number | null {
  if (text === undefined || text === '') return fallback;
  const s = String(text);
  if (!/^[0-9]{1,5}$/.test(s)) return null;
  const n = Number(s);
  return n <= 10_000 ? n : null;
}

const reservesOf = (p: PoolSnapshot, input: PublicKey): Reserves =>
  input.equals(p.mintA)
    ? { reserveIn: p.reserveA, reserveOut: p.reserveB }
    : { reserveIn: p.reserveB, reserveOut: p.reserveA };

/** GET /quote: exact in only; the route is the one pool of the two mints. */
export function quote(
  venue: VenueBook,
  query: Record<string, unknown>,
  startedMs = performance.now(),
): ApiAnswer<QuoteJson> {
  const inputMint = parseKey(query.inputMint);
  const outputMint = parseKey(query.outputMint);
  if (!inputMint) return refuse('INVALID_INPUT_MINT', 'inputMint is not a base58 public key');
  if (!outputMint) return refuse('INVALID_OUTPUT_MINT', 'outputMint is not a base58 public key');
  if (inputMint.equals(outputMint))
    return refuse('CIRCULAR_ARBITRAGE_IS_DISABLED', 'inputMint and outputMint are the same');
  const amount = parseAmount(query.amount);
  if (amount === null)
    return refuse('INVALID_AMOUNT', 'amount must be a positive integer of raw units below 2^64');
  const slippageBps = parseBps(query.slippageBps, DEFAULT_SLIPPAGE_BPS);
  if (slippageBps === null)
    return refuse('INVALID_SLIPPAGE', 'slippageBps must be an integer from 0 to 10000');
  if (query.swapMode !== undefined && query.swapMode !== 'ExactIn') {
    return refuse('EXACT_OUT_NOT_SUPPORTED', 'the embedded venue quotes ExactIn only');
  }
  const dexes = typeof query.dexes === 'string' ? query.dexes.split(',').map((d) => d.trim()) : null;
  const excluded =
    typeof query.excludeDexes === 'string' ? query.excludeDexes.split(',').map((d) => d.trim()) : [];
  if ((dexes && !dexes.includes(venue.label)) || excluded.includes(venue.label)) {
    return refuse('COULD_NOT_FIND_ANY_ROUTE', 'No routes found');
  }
  const pool = venue.poolOf(inputMint, outputMint);
  const snapshot = pool && venue.snapshot(pool);
  if (!snapshot) return refuse('COULD_NOT_FIND_ANY_ROUTE', 'No routes found');
  const reserves = reservesOf(snapshot, inputMint);
  const swap = swapExactIn(reserves, amount, snapshot.feeBps);
  if (!swap.ok) return refuse('COULD_NOT_FIND_ANY_ROUTE', `No routes found (${swap.error})`);
  const inMint = keyBase58(inputMint);
  const outMint = keyBase58(outputMint);
  return {
    status: 200,
    body: {
      inputMint: inMint,
      inAmount: amount.toString(),
      outputMint: outMint,
      outAmount: swap.amountOut.toString(),
      otherAmountThreshold: minimumOut(swap.amountOut, slippageBps).toString(),
      swapMode: 'ExactIn',
      slippageBps,
      platformFee: null,
      priceImpactPct: priceImpact(reserves, amount, swap.amountOut, snapshot.feeBps),
      routePlan: [
        {
          swapInfo: {
            ammKey: keyBase58(snapshot.pool),
            label: venue.label,
            inputMint: inMint,
            outputMint: outMint,
            inAmount: amount.toString(),
            outAmount: swap.amountOut.toString(),
            feeAmount: swap.feeAmount.toString(),
            feeMint: inMint,
          },
          percent: 100,
          bps: 10_000,
        },
      ],
      contextSlot: venue.slot(),
      timeTaken: (performance.now() - startedMs) / 1000,
    },
  };
}

/**
 * POST /swap-instructions: the quote's swap for userPublicKey — the user's token accounts created
 * idempotently, SOL wrapped and unwrapped when wrapAndUnwrapSol (default true, as Jupiter's), the swap with
 * amount_in = inAmount and min_out = otherAmountThreshold, and the pool's lookup table once usable.
 */
export function swapInstructions(venue: VenueBook, body: unknown): ApiAnswer<SwapInstructionsJson> {
  const swap = readSwapRequest(venue, body);
  if ('status' in swap) return swap;
  const { pool, microLamports } = swap;
  const source = ata(swap.user, swap.inputMint);
  const computeBudget: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: SWAP_COMPUTE_UNIT_LIMIT }),
  ];
  if (microLamports > 0n) computeBudget.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports }));
  const cleanup = unwrapAfter(swap);
  const instruction = swapInstruction({
    programId: venue.programId,
    user: swap.user,
    pool: pool.pool,
    vaultIn: swap.inputMint.equals(pool.mintA) ? pool.vaultA : pool.vaultB,
    vaultOut: swap.inputMint.equals(pool.mintA) ? pool.vaultB : pool.vaultA,
    userSource: source,
    userDestination: swap.destination,
    amountIn: swap.inAmount,
    minOut: swap.threshold,
  });
  return {
    status: 200,
    body: {
      tokenLedgerInstruction: null,
      computeBudgetInstructions: computeBudget.map(instructionJson),
      setupInstructions: setupBefore(swap, source).map(instructionJson),
      swapInstruction: instructionJson(instruction),
      cleanupInstruction: cleanup && instructionJson(cleanup),
      otherInstructions: [],
      addressLookupTableAddresses: venue.lookupTables(pool).map(keyBase58),
      prioritizationFeeLamports: Number(
        (microLamports * BigInt(SWAP_COMPUTE_UNIT_LIMIT) + 999_999n) / 1_000_000n,
      ),
      computeUnitLimit: SWAP_COMPUTE_UNIT_LIMIT,
    },
  };
}

/** A /swap-instructions request as read and checked: whose swap, of which quote, through which pool. */
interface SwapRequest extends QuoteTerms {
  user: PublicKey;
  payer: PublicKey;
  pool: VenuePool;
  destination: PublicKey;
  /** The caller named its own destination account (not created, not unwrapped). */
  ownDestination: boolean;
  wrapAndUnwrapSol: boolean;
  microLamports: bigint;
}

/** Reads the request, refusing it at the first field that is wrong (in the order Jupiter checks them). */
function readSwapRequest(venue: VenueBook, body: unknown): SwapRequest | ApiAnswer<never> {
  const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const user = parseKey(request.userPublicKey);
  if (!user) return refuse('INVALID_USER_PUBLIC_KEY', 'userPublicKey is not a base58 public key');
  const payer = request.payer === undefined ? user : parseKey(request.payer);
  if (!payer) return refuse('INVALID_PAYER', 'payer is not a base58 public key');
  const terms = readQuoteResponse(request.quoteResponse);
  if ('status' in terms) return terms;
  const pool = venue.poolOf(terms.inputMint, terms.outputMint);
  if (!pool || terms.route.length !== 1 || terms.route[0]?.swapInfo?.ammKey !== keyBase58(pool.pool)) {
    return refuse('COULD_NOT_FIND_ANY_ROUTE', 'the quote names no pool of this venue');
  }
  const wrapAndUnwrapSol = request.wrapAndUnwrapSol !== false;
  const ownDestination = request.destinationTokenAccount !== undefined;
  const destination = ownDestination
    ? parseKey(request.destinationTokenAccount)
    : ata(user, terms.outputMint);
  if (!destination)
    return refuse('INVALID_DESTINATION', 'destinationTokenAccount is not a base58 public key');
  const microLamports = priorityPrice(request);
  if (microLamports === null)
    return refuse('INVALID_PRIORITIZATION_FEE', 'prioritization fee is not a non-negative integer');
  return { ...terms, user, payer, pool, destination, ownDestination, wrapAndUnwrapSol, microLamports };
}

/** What the swap takes from the quote it was given. */
interface QuoteTerms {
  inputMint: PublicKey;
  outputMint: PublicKey;
  inAmount: bigint;
  threshold: bigint;
  route: { swapInfo?: { ammKey?: unknown } }[];
}

/** The quoteResponse: an ExactIn quote whose threshold is its own outAmount less its slippage. */
function readQuoteResponse(quoteResponse: unknown): QuoteTerms | ApiAnswer<never> {
  const q = (typeof quoteResponse === 'object' && quoteResponse !== null ? quoteResponse : null) as Record<
    string,
    unknown
  > | null;
  if (!q) return refuse('INVALID_QUOTE_RESPONSE', 'quoteResponse is required');
  const inputMint = parseKey(q.inputMint);
  const outputMint = parseKey(q.outputMint);
  const inAmount = parseAmount(q.inAmount);
  const outAmount = parseAmount(q.outAmount);
  const threshold = parseAmount(q.otherAmountThreshold);
  const slippageBps = parseBps(q.slippageBps, DEFAULT_SLIPPAGE_BPS);
  if (
    !inputMint ||
    !outputMint ||
    inAmount === null ||
    outAmount === null ||
    threshold === null ||
    slippageBps === null
  ) {
    return refuse('INVALID_QUOTE_RESPONSE', 'quoteResponse: mints, amounts and slippageBps are required');
  }
  if (q.swapMode !== 'ExactIn')
    return refuse('EXACT_OUT_NOT_SUPPORTED', 'the embedded venue swaps ExactIn only');
  // The threshold is the quote's own: outAmount less its slippage. A different one is not this quote.
  if (threshold !== minimumOut(outAmount, slippageBps)) {
    return refuse(
      'INVALID_QUOTE_RESPONSE',
      'otherAmountThreshold does not follow from outAmount and slippageBps',
    );
  }
  const route = Array.isArray(q.routePlan) ? (q.routePlan as { swapInfo?: { ammKey?: unknown } }[]) : [];
  return { inputMint, outputMint, inAmount, threshold, route };
}

/** The user's token accounts created idempotently, and the SOL in wrapped when it is the input. */
function setupBefore(swap: SwapRequest, source: PublicKey): TransactionInstruction[] {
  const { payer, user, inputMint, outputMint, destination } = swap;
  const setup: TransactionInstruction[] = [
    createAssociatedTokenAccountIdempotentInstruction(payer, source, user, inputMint),
  ];
  if (!swap.ownDestination) {
    setup.push(createAssociatedTokenAccountIdempotentInstruction(payer, destination, user, outputMint));
  }
  if (swap.wrapAndUnwrapSol && inputMint.equals(NATIVE_MINT)) {
    setup.push(
      SystemProgram.transfer({ fromPubkey: user, toPubkey: source, lamports: swap.inAmount }),
      createSyncNativeInstruction(source),
    );
  }
  return setup;
}

/** The wrapped-SOL account closed back into SOL after the swap, when SOL went in or came out to the user's own. */
function unwrapAfter(swap: SwapRequest): TransactionInstruction | null {
  const solIn = swap.inputMint.equals(NATIVE_MINT);
  const solOut = swap.outputMint.equals(NATIVE_MINT);
  return swap.wrapAndUnwrapSol && (solIn || (solOut && !swap.ownDestination))
    ? createCloseAccountInstruction(ata(swap.user, NATIVE_MINT), swap.user, swap.user)
    : null;
}

/**
 * The compute-unit price the request asks for: computeUnitPriceMicroLamports as given, or a
 * prioritizationFeeLamports budget ({ priorityLevelWithMaxLamports: { maxLamports } } or a bare number)
 * spread over the unit limit; 0 without either, null when malformed.
 */
function priorityPrice(request: Record<string, unknown>): bigint | null {
  const exact = request.computeUnitPriceMicroLamports;
  if (exact !== undefined)
    return Number.isSafeInteger(exact) && (exact as number) >= 0 ? BigInt(exact as number) : null;
  const fee = request.prioritizationFeeLamports;
  if (fee === undefined || fee === 'auto') return 0n;
  const lamports =
    typeof fee === 'number'
      ? fee
      : (fee as { priorityLevelWithMaxLamports?: { maxLamports?: unknown } })?.priorityLevelWithMaxLamports
          ?.maxLamports;
  if (lamports === undefined) return 0n;
  if (!Number.isSafeInteger(lamports) || (lamports as number) < 0) return null;
  return (BigInt(lamports as number) * 1_000_000n) / BigInt(SWAP_COMPUTE_UNIT_LIMIT);
}

export function instructionJson(ix: TransactionInstruction): InstructionJson {
  return {
    programId: keyBase58(ix.programId),
    accounts: ix.keys.map((k) => ({
      pubkey: keyBase58(k.pubkey),
      isSigner: k.isSigner,
      isWritable: k.isWritable,
    })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}
