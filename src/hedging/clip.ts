// One clip of a hedge, before anything is recorded or sent: planned on the chain's balances now less what
// quotes and trades reserve, at the live mid (never a stale one), then quoted twice through the aggregator
// (the route's own price, then the slippage that keeps its on-chain minimum at the route's out less
// aggregator.route_tolerance_bps, never below the mid less max_slippage_bps) and signed. Whatever stops a
// clip here is a Refusal with a bounded reason; the asset waits and retries.
import {
  type AggregatorPort,
  isAggregatorError,
  rawMid,
  routeSlippageBps,
  slippageFloor,
  swapMinimum,
} from '../aggregator/index.ts';
import { isChainError, publicKey } from '../chain/index.ts';
import type { ChainPort } from '../chain/port.ts';
import type { Asset, HedgedAsset, HedgingConfig } from '../config/index.ts';
import { dividePrices, type Price } from '../money/index.ts';
import type { Ratio } from '../money/ratio.ts';
import type { ReservationBook } from '../quotes/index.ts';
import { type ClipPlan, outsideBand, planClip } from './plan.ts';

/** Why a hedge could not be made or did not land: a bounded set (metrics label it). */
export const HEDGE_FAILURE_REASONS = [
  'stale_price',
  'no_route',
  'slippage',
  'unavailable',
  'refused',
  'failed_on_chain',
  'expired',
  'store',
] as const;
export type HedgeFailureReason = (typeof HEDGE_FAILURE_REASONS)[number];

/** A refusal before anything was recorded: the asset waits retry_seconds. */
export class Refusal extends Error {
  constructor(
    readonly reason: HedgeFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** A clip with the live prices it was planned at. */
export interface Step {
  plan: Extract<ClipPlan, { kind: 'clip' }>;
  assetUsd: Price;
  quoteUsd: Price;
}

/** What planning and signing a clip read: the hedger's options. */
export interface ClipSources {
  config: HedgingConfig;
  aggregatorMaxSlippageBps: number;
  /** aggregator.route_tolerance_bps: how far below the route's quoted out a swap's minimum may sit. */
  routeToleranceBps: number;
  chain: Pick<ChainPort, 'tokenBalance' | 'makerWallet'>;
  aggregator: AggregatorPort;
  freshPrice(mint: string): Price | null;
  reservations: Pick<ReservationBook, 'reserved' | 'expire'>;
}

/**
 * The next clip of the asset from the chain's balances now, or why none is due: `home` (inside the band, or
 * at the target) or `reserved` (what open quotes and trades reserve leaves less than a clip). Throws Refusal
 * when the balances cannot be read or prices are not fresh.
 */
export async function nextClip(
  sources: ClipSources,
  hedged: HedgedAsset,
  continuing: boolean,
  now: () => number,
): Promise<Step | { none: 'home' | 'reserved' }> {
  const mint = hedged.asset.mint;
  const quote = sources.config.quoteAsset;
  const { chain, reservations } = sources;
  const [assetBalanceRaw, quoteBalanceRaw] = await Promise.all([
    chain.tokenBalance(chain.makerWallet, publicKey(mint)),
    chain.tokenBalance(chain.makerWallet, publicKey(quote.mint)),
  ]).catch((error: unknown) => {
    throw new Refusal('unavailable', `the maker's balances could not be read: ${(error as Error).message}`);
  });
  if (!continuing && !outsideBand(assetBalanceRaw, hedged)) return { none: 'home' };
  const assetUsd = sources.freshPrice(mint);
  const quoteUsd = sources.freshPrice(quote.mint);
  if (assetUsd === null || quoteUsd === null) {
    const stale = [assetUsd === null ? hedged.asset.symbol : null, quoteUsd === null ? quote.symbol : null];
    throw new Refusal(
      'stale_price',
      `no fresh price for ${stale.filter(Boolean).join(' and ')}: never hedged on a stale mid`,
    );
  }
  reservations.expire(now());
  const plan = planClip(
    {
      assetBalanceRaw,
      assetReservedRaw: reservations.reserved(mint),
      quoteBalanceRaw,
      quoteReservedRaw: reservations.reserved(quote.mint),
    },
    hedged,
    rawMid(dividePrices(assetUsd, quoteUsd), hedged.asset.decimals, quote.decimals),
    continuing,
  );
  if (plan.kind === 'none') return { none: plan.reason === 'reserved' ? 'reserved' : 'home' };
  return { plan, assetUsd, quoteUsd };
}

/** The swap's two sides, and the mid between them (output raw per input raw). */
export function swapLegs(hedged: HedgedAsset, quote: Asset, step: Step) {
  const sell = step.plan.side === 'sell';
  const [input, output]: [Asset, Asset] = sell ? [hedged.asset, quote] : [quote, hedged.asset];
  const [inputUsd, outputUsd] = sell ? [step.assetUsd, step.quoteUsd] : [step.quoteUsd, step.assetUsd];
  const mid: Ratio = rawMid(dividePrices(inputUsd, outputUsd), input.decimals, output.decimals);
  return { inputMint: input.mint, outputMint: output.mint, inputUsd, outputUsd, mid };
}

/** The swap of a clip, quoted within the slippage limit and signed; NOT sent. Throws Refusal. */
export async function signClip(sources: ClipSources, hedged: HedgedAsset, step: Step) {
  const { aggregator, config } = sources;
  const swap = swapLegs(hedged, config.quoteAsset, step);
  const floor = slippageFloor(step.plan.amountInRaw, swap.mid, config.maxSlippageBps);
  try {
    const request = {
      inputMint: publicKey(swap.inputMint),
      outputMint: publicKey(swap.outputMint),
      amountRaw: step.plan.amountInRaw,
      referenceMid: swap.mid,
    };
    // First the route's own price (no slippage allowed), then the slippage that keeps its on-chain minimum
    // at the route's out less the tolerance (what a sandwich could take), never below the mid less
    // max_slippage_bps: the tolerance follows the route, the bound is the mid.
    const probe = await aggregator.quote({ ...request, slippageBps: 0 });
    const required = swapMinimum(probe.outAmount, sources.routeToleranceBps, [floor]);
    const slippageBps =
      required === null
        ? null
        : routeSlippageBps(probe.outAmount, required, sources.aggregatorMaxSlippageBps);
    if (required === null || slippageBps === null) {
      throw new Refusal(
        'slippage',
        `the route pays ${probe.outAmount} for ${step.plan.amountInRaw}, below ${floor}: the mid less ${config.maxSlippageBps} bps`,
      );
    }
    const quoted = slippageBps === 0 ? probe : await aggregator.quote({ ...request, slippageBps });
    if (quoted.minOut < required) {
      throw new Refusal('slippage', `the route's minimum ${quoted.minOut} is below ${required} (it moved)`);
    }
    const signed = await aggregator.swapTransaction(quoted);
    return { swap, floor, quoted, signed };
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(refusalReason(error), (error as Error).message);
  }
}

export type SignedClip = Awaited<ReturnType<typeof signClip>>;

/** How a refusal of the aggregator or the chain is counted. */
function refusalReason(error: unknown): HedgeFailureReason {
  if (isAggregatorError(error)) {
    switch (error.code) {
      case 'no_route':
        return 'no_route';
      case 'unavailable':
        return 'unavailable';
      case 'price_out_of_bounds':
      case 'slippage_too_high':
        return 'slippage';
      default:
        return 'refused';
    }
  }
  if (isChainError(error, 'unavailable') || isChainError(error, 'timeout')) return 'unavailable';
  return 'refused';
}
