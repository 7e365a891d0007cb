// Just-in-time sourcing's effects (signSourcing, sendSourcing of machines/trade.machine.ts): the swap that
// buys the part of a trade's output its quote sourced through the aggregator, after the taker's lock is
// final and before the maker locks. It is quoted, bounded and signed as a hedge is (src/hedging/), and
// landed and booked by the same code (src/aggregator/swap.ts):
// - signing asks the route for the plan's exact input and sets the swap's on-chain minimum out to the
//   route's quoted out less aggregator.route_tolerance_bps — all a sandwich around it can take — never below
//   what the taker is owed for the sourced part (minBuyRaw) nor the live Pyth mid less
//   sourcing.max_slippage_bps. It refuses — an answer, never a throw — when the route pays less than those
//   floors, when prices are not fresh, when the maker's balance cannot pay the input, or when the aggregator
//   or venue fails: the maker then declines and releases the taker at once (sourcing_failed);
// - sending lands the intent's bytes (rebroadcast until final or proved lapsed), reads what the swap really
//   sold and bought from the chain, and posts it to the trade's ledger (aggregator_swap against the venue,
//   and the fee), once: a re-run after a restart finds the entries and posts nothing more. A swap that
//   landed and failed (its fee paid) says whether it failed for its minimum out: the machine quotes it again
//   once, within the trade's window.
// Only a chain that cannot be reached is an error (the machine retries it with its backoff).

import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AggregatorPort,
  failedForSlippage,
  floorOut,
  isAggregatorError,
  landSwap,
  routeSlippageBps,
  swapLedger,
  swapMinimum,
} from '../aggregator/index.ts';
import { isChainError, publicKey } from '../chain/index.ts';
import type { ChainPort } from '../chain/port.ts';
import type { LedgerEntry } from '../ledger/index.ts';
import type { Ratio } from '../money/ratio.ts';

/** What the sourcing effects need beyond the chain. */
export interface SourcingHooks {
  aggregator: Pick<AggregatorPort, 'quote' | 'swapTransaction'>;
  /** The live mid, buy raw units per sell raw unit, when both prices are fresh; else null. */
  rawMid(sellMint: string, buyMint: string): Ratio | null;
  /** The worst the swap may do against the live mid (config sourcing.max_slippage_bps). */
  maxSlippageBps: number;
  /** The most slippage the port lets a quote ask for (aggregator.max_slippage_bps). */
  aggregatorMaxSlippageBps: number;
  /** How far below the route's quoted out the swap's minimum may sit (aggregator.route_tolerance_bps). */
  routeToleranceBps: number;
}

/** Posts a final swap's entries to the trade's ledger unless entries under its signature are there already. */
export type PostSwap = (tradeId: string, signature: string, entries: LedgerEntry[]) => Promise<void>;

export type SignedSourcing =
  | { ok: true; signature: string; lastValidBlockHeight: number; transactionBase64: string }
  | { ok: false; reason: string };

export interface SourcingPlanInput {
  tradeId: string;
  sellMint: string;
  sellRaw: string;
  buyMint: string;
  minBuyRaw: string;
  /** The trade's swaps that landed and failed: the swap signed now must be another transaction. */
  failedSwaps?: readonly string[];
}

/** How often, and how long apart, a swap is signed again while it comes out as one that failed. */
const FRESH_SIGNATURE_ATTEMPTS = 10;
const FRESH_SIGNATURE_PAUSE_MS = 400;

/** Transient: the chain did not answer. The machine retries the effect; anything else is a refusal. */
const transient = (error: unknown) => isChainError(error, 'unavailable') || isChainError(error, 'timeout');

/** Quotes the plan's swap within its bounds and signs it (nothing is sent). */
export async function signSourcingSwap(
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet'>,
  hooks: SourcingHooks | null,
  input: SourcingPlanInput,
): Promise<SignedSourcing> {
  if (hooks === null) return { ok: false, reason: 'sourcing is not configured on this instance' };
  const sellRaw = BigInt(input.sellRaw);
  const minBuyRaw = BigInt(input.minBuyRaw);
  const mid = hooks.rawMid(input.sellMint, input.buyMint);
  if (mid === null) return { ok: false, reason: 'no fresh price for the pair: never sourced on a stale mid' };
  // A swap the maker cannot pay fails on chain; refused here, it costs no fee.
  const balance = await chain.tokenBalance(chain.makerWallet, publicKey(input.sellMint));
  if (balance < sellRaw) {
    return {
      ok: false,
      reason: `the maker holds ${balance} of ${input.sellMint}, less than the ${sellRaw} to sell`,
    };
  }
  const floor = floorOut(sellRaw, mid, hooks.maxSlippageBps);
  const request = {
    inputMint: publicKey(input.sellMint),
    outputMint: publicKey(input.buyMint),
    amountRaw: sellRaw,
    referenceMid: mid,
  };
  try {
    // The route's own price first, then the slippage that keeps its on-chain minimum at the route's out less
    // the tolerance — and at or above the taker's sourced output and the mid less the limit.
    const probe = await hooks.aggregator.quote({ ...request, slippageBps: 0 });
    const required = swapMinimum(probe.outAmount, hooks.routeToleranceBps, [floor, minBuyRaw]);
    const slippageBps =
      required === null ? null : routeSlippageBps(probe.outAmount, required, hooks.aggregatorMaxSlippageBps);
    if (required === null || slippageBps === null) {
      const least = floor > minBuyRaw ? floor : minBuyRaw;
      return {
        ok: false,
        reason: `the route pays ${probe.outAmount} for ${sellRaw}, below the ${least} required (the taker's ${minBuyRaw}, the mid less ${hooks.maxSlippageBps} bps ${floor})`,
      };
    }
    const quoted = slippageBps === 0 ? probe : await hooks.aggregator.quote({ ...request, slippageBps });
    if (quoted.minOut < required) {
      return {
        ok: false,
        reason: `the route's minimum ${quoted.minOut} is below the ${required} required (it moved)`,
      };
    }
    // The same route, amounts and blockhash sign to the very transaction that failed (a cluster would
    // answer it as already processed): sign again once the blockhash has moved on.
    const failed = new Set(input.failedSwaps ?? []);
    let signed = await hooks.aggregator.swapTransaction(quoted);
    for (let attempt = 1; failed.has(signed.signature); attempt++) {
      if (attempt >= FRESH_SIGNATURE_ATTEMPTS) {
        return { ok: false, reason: `no fresh blockhash to sign the swap again after ${attempt} attempts` };
      }
      await sleep(FRESH_SIGNATURE_PAUSE_MS);
      signed = await hooks.aggregator.swapTransaction(quoted);
    }
    return {
      ok: true,
      signature: signed.signature,
      lastValidBlockHeight: signed.lastValidBlockHeight,
      transactionBase64: signed.transactionBase64,
    };
  } catch (error) {
    if (transient(error)) throw error;
    const code = isAggregatorError(error) ? `${error.code}: ` : '';
    return { ok: false, reason: `${code}${(error as Error).message}` };
  }
}

export type SentSourcing =
  | { status: 'landed'; signature: string; soldRaw: string; boughtRaw: string }
  | { status: 'expired' }
  | { status: 'failed'; signature: string; err: string; slippage: boolean }
  | { status: 'pending'; detail: string };

/**
 * One landing round of the intent's bytes; a final swap (landed or failed on chain) is booked on the trade's
 * ledger before this answers.
 */
export async function landSourcingSwap(
  chain: Pick<ChainPort, 'land' | 'getTransaction' | 'makerWallet'>,
  postSwap: PostSwap,
  input: {
    tradeId: string;
    plan: { sellMint: string; buyMint: string };
    intent: { signature: string; lastValidBlockHeight: number; transactionBase64: string };
  },
  timeoutMs: number,
): Promise<SentSourcing> {
  const mints = { inputMint: input.plan.sellMint, outputMint: input.plan.buyMint };
  const { signature, lastValidBlockHeight, transactionBase64 } = input.intent;
  const landing = await landSwap(
    chain,
    { signature, lastValidBlockHeight, transactionBase64 },
    mints,
    timeoutMs,
  );
  if (landing.status === 'pending') return { status: 'pending', detail: landing.detail };
  if (landing.status === 'expired') return { status: 'expired' };
  await postSwap(input.tradeId, signature, swapLedger(landing, mints));
  if (landing.status === 'failed') {
    return { status: 'failed', signature, err: landing.err, slippage: failedForSlippage(landing.err) };
  }
  return {
    status: 'landed',
    signature,
    soldRaw: landing.outcome.amountIn.toString(),
    boughtRaw: landing.outcome.amountOut.toString(),
  };
}
